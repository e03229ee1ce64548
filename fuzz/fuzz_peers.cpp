// pg_test_fsync's output: any text gives the figures of its one-write section or a one-line
// InputError; every figure read is a method with a rate that is positive and finite, or a note.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "iolab/harness/peers.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        for (const iolab::PeerFigure& f : iolab::parse_pg_test_fsync(text)) {
            if (f.method.empty() || f.record == 0 || f.record % 1024 != 0) std::abort();
            if (f.ops_per_s > 0 ? !std::isfinite(f.ops_per_s) || !f.note.empty() : f.note.empty()) std::abort();
        }
    } catch (const std::invalid_argument& e) {
        if (std::string(e.what()).find('\n') != std::string::npos) std::abort();
    }
    return 0;
}
