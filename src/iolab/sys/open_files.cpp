#include "iolab/sys/open_files.hpp"

#include <sys/resource.h>

namespace iolab::sys {

OpenFiles open_files() {
    struct rlimit rl {};
    if (::getrlimit(RLIMIT_NOFILE, &rl) != 0) return {};
    const auto value = [](rlim_t v) { return v == RLIM_INFINITY ? UINT64_MAX : static_cast<std::uint64_t>(v); };
    return {value(rl.rlim_cur), value(rl.rlim_max)};
}

OpenFiles raise_open_files() {
    struct rlimit rl {};
    if (::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        (void)::setrlimit(RLIMIT_NOFILE, &rl);
    }
    return open_files();
}

}  // namespace iolab::sys
