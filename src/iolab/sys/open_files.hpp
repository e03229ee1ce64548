#pragma once
// How many files this process may hold open at once (RLIMIT_NOFILE). A tree of many folders keeps
// one descriptor per folder, and a copy of one two: 1,100 folders are past the usual soft limit of
// 1,024. iolab calls no select(2), so its soft limit is raised to the hard one at start (as the
// systemd documentation recommends for programs that need many files); a case that needs more than
// that is refused before the run.
#include <cstdint>

namespace iolab::sys {

struct OpenFiles {
    std::uint64_t soft = 0;  // what the process may open now
    std::uint64_t hard = 0;  // what it may raise that to
};

// The soft limit raised to the hard one (or left as it is, when the kernel says no); the limits
// now.
OpenFiles raise_open_files();
OpenFiles open_files();

}  // namespace iolab::sys
