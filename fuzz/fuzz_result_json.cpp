// Result files: any text is a report or a one-line ResultFormatError; a report that reads
// has statistics consistent with its samples.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "iolab/report/read.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const iolab::Report r = iolab::read_report_json(text, "fuzz.json");
        for (const auto& c : r.cases)
            if (c.stats.n != c.samples.size()) std::abort();
    } catch (const iolab::ResultFormatError& e) {
        if (std::string(e.what()).find('\n') != std::string::npos) std::abort();
    }
    return 0;
}
