#pragma once
// A child process that stays up between requests and answers each request line with one line:
// the JVM worker of the jvm.* strategies (strategies/jvm.cpp, docs/jvm.md). A worker that ends,
// says nothing within its deadline or says too much is ended and reported, never waited on for
// ever; it is in its own process group, stopped on a signal as a tool is, and killed when iolab ends.
#include <sys/types.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace iolab {

// The worker failed to answer: it ended, or was ended for its deadline or its garbage. what()
// says which, with the last line it wrote on its standard error.
struct WorkerFailed : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class Worker {
public:
    // Starts argv (argv[0] looked up in PATH; IoError when it cannot) with its standard input and
    // output joined to iolab by a socket, its standard error kept (the last 4 KiB); `keep_fd` (when
    // >= 0) stays open in it under the same number, so that /proc/self/fd/N/NAME means there what
    // it means here. `env`: its environment as NAME=VALUE strings (empty: iolab's own).
    explicit Worker(const std::vector<std::string>& argv, int keep_fd = -1, const std::vector<std::string>& env = {});
    ~Worker();
    Worker(const Worker&) = delete;
    Worker& operator=(const Worker&) = delete;

    // Sends `line` and returns the answer's line (without its newline). Throws WorkerFailed, after
    // ending the worker, when it ends, answers no whole line within deadline_s, or a line of over
    // 64 KiB.
    std::string ask(const std::string& line, double deadline_s);
    // The first line the worker writes, unasked (its greeting), within deadline_s.
    std::string greeting(double deadline_s) { return ask("", deadline_s); }
    // Closes its input, waits up to grace_s for it to end, then kills its process group; reaps it.
    void end(double grace_s = 2);
    bool running() const { return pid_ > 0; }
    pid_t pid() const { return pid_; }
    // In a child process after fork: forgets the worker (the parent's) without ending it.
    void abandon();

private:
    [[noreturn]] void fail(const std::string& why);
    std::string stderr_tail() const;
    void drain_stderr();

    pid_t pid_ = -1;
    int sock_ = -1;  // its standard input and output
    int err_ = -1;   // its standard error
    std::string program_;
    std::string pending_;  // bytes read past the last answer's newline
    std::string errors_;   // the last 4 KiB of its standard error
};

}  // namespace iolab
