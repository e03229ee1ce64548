// Result files: any text is a report or a one-line ResultFormatError; a report that reads
// has statistics consistent with its samples, renders in every exporter (the HTML report made
// by `iolab report` included), and what iolab writes of it reads back.
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "iolab/report/analysis/compare.hpp"
#include "iolab/report/exporter.hpp"
#include "iolab/report/read/read.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    std::optional<iolab::Report> r;
    try {
        r = iolab::read_report_json(text, "fuzz.json");
    } catch (const iolab::ResultFormatError& e) {
        if (std::string(e.what()).find('\n') != std::string::npos) std::abort();
        return 0;
    }
    for (const auto& c : r->cases)
        if (c.stats.n != c.samples.size()) std::abort();
    for (const iolab::Exporter& e : iolab::exporters()) (void)e.render(*r);
    // Compared with itself, with a gate and no margin between runs: no case is slower, so none
    // trips it.
    iolab::GateSettings gate;
    gate.threshold = 0.05;
    gate.between = 0;
    if (iolab::compare_runs(*r, *r, "a", "b", gate).tripped() != 0) std::abort();
    (void)iolab::render_terminal(*r, {true, 0, true});
    // Drawn to a narrow terminal, no line is wider than it (a cut never splits a character).
    const std::string narrow = iolab::render_terminal(*r, {false, 60, false});
    std::size_t glyphs = 0;
    for (char c : narrow) {
        if (c == '\n') {
            if (glyphs > 60) std::abort();
            glyphs = 0;
        } else if ((c & 0xC0) != 0x80) {
            ++glyphs;
        }
    }
    // Throws (and so fails the target) if iolab cannot read what it wrote.
    const iolab::Report again = iolab::read_report_json(iolab::to_json(*r), "again.json");
    if (again.cases.size() != r->cases.size() || again.findings.size() != r->findings.size()) std::abort();
    return 0;
}
