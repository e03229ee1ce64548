// Chains: any text is a chain or a one-line error; a parsed chain's canonical text parses to
// the same chain.
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "iolab/chain/chain.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const auto chain = iolab::parse_chain(text);
        const std::string canonical = iolab::describe(chain);
        if (iolab::describe(iolab::parse_chain(canonical)) != canonical) std::abort();
    } catch (const std::invalid_argument& e) {
        if (std::string(e.what()).find('\n') != std::string::npos) std::abort();
    }
    return 0;
}
