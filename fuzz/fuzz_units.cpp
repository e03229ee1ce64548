// Sizes, rates, size lists, data kinds and amounts: any text gives a value or a one-line
// std::invalid_argument, and a parsed size prints back to the same value.
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "iolab/core/data.hpp"
#include "iolab/core/units.hpp"
#include "iolab/harness/runner.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    const auto one_line = [](const std::invalid_argument& e) {
        if (std::string(e.what()).find('\n') != std::string::npos) std::abort();
    };
    try {
        const std::uint64_t v = iolab::parse_size(text);
        if (iolab::parse_size(iolab::format_compact(v)) != v) std::abort();
    } catch (const std::invalid_argument& e) {
        one_line(e);
    }
    try {
        if (!(iolab::parse_rate(text) > 0)) std::abort();
    } catch (const std::invalid_argument& e) {
        one_line(e);
    }
    try {
        if (text.size() < 64) (void)iolab::parse_size_list(text);  // ranges may be long lists
    } catch (const std::invalid_argument& e) {
        one_line(e);
    }
    try {
        (void)iolab::parse_data_spec(text);
    } catch (const std::invalid_argument& e) {
        one_line(e);
    }
    try {
        (void)iolab::parse_amount(text, "--iterations", false);
    } catch (const std::invalid_argument& e) {
        one_line(e);
    }
    return 0;
}
