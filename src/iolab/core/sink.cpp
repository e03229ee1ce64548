#include "iolab/core/sink.hpp"

#include <time.h>

namespace iolab {

namespace {
std::uint64_t now_ns() {
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(ts.tv_nsec);
}
}  // namespace

void Sink::consume(const void* p, std::size_t n) {
    const std::uint64_t t0 = now_ns();
    hasher_.update(p, n);
    excluded_ns_ += now_ns() - t0;
}

}  // namespace iolab
