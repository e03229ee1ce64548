// Suite files: any text is a suite or a one-line SuiteError naming the origin.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "iolab/suite/suite.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const iolab::Suite s = iolab::parse_suite(text, "fuzz.toml");
        if (s.groups.empty()) std::abort();  // a valid suite has at least one group
    } catch (const iolab::SuiteError& e) {
        const std::string msg = e.what();
        if (msg.rfind("fuzz.toml:", 0) != 0 || msg.find('\n') != std::string::npos) std::abort();
    }
    return 0;
}
