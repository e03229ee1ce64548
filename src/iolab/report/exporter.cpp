#include "iolab/report/exporter.hpp"

namespace iolab {

namespace {

constexpr Exporter kExporters[] = {
    {"json", "Write the results as JSON", to_json},
    {"csv", "Write one CSV row per case", to_csv},
    {"markdown", "Write the ranked tables and findings as Markdown", to_markdown},
    {"html", "Write a self-contained HTML report with charts (opens offline)", to_html},
    {"trace", "Write a Chrome trace (Perfetto) of the last iteration of copies that record one", to_trace, true},
};

}  // namespace

std::span<const Exporter> exporters() { return kExporters; }

}  // namespace iolab
