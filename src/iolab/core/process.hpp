#pragma once
// Running another program (dd, cp, fio) as a child process, for the tool strategies (read.dd, copy.cp).
#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace iolab {

struct ProcessResult {
    int status = 0;          // exit status, or 128 + signal
    std::string errors;      // what the child wrote to stderr (first 4 KiB)
    bool timed_out = false;  // it outlived its deadline and was killed (status 128 + SIGKILL)
};

// Runs argv[0] (looked up in PATH) with stdout sent to stdout_path (or /dev/null) and stdin
// from /dev/null; waits for it. With cwd_fd >= 0 it runs in that folder (fchdir before exec), so
// it can be given names relative to a folder held by descriptor. With deadline_s > 0, a child
// still running after that long is killed with its process group (timed_out). Throws IoError if
// it cannot be started.
ProcessResult run_process(const std::vector<std::string>& argv, const std::string& stdout_path = "/dev/null",
                          int cwd_fd = -1, double deadline_s = 0);

// A path of the form /proc/self/fd/N/NAME (a file in a folder held by descriptor, as
// ScratchDir::at makes them) as (N, NAME); nullopt for any other path.
std::optional<std::pair<int, std::string>> split_fd_path(const std::string& path);

// The full path of a program in PATH (a name with a '/' is taken as it is, if executable), or nullopt.
std::optional<std::string> find_program(const std::string& name);

}  // namespace iolab
