// MPI through nonblocking collectives, each waited for with a deadline (mpi.hpp).
#include "iolab/sys/mpi.hpp"

// The C bindings only (Open MPI and MPICH otherwise pull in their deprecated C++ ones).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#include <fmt/format.h>

namespace iolab::sys::mpi {

namespace {

std::string g_hint;

void check(int rc, const char* what) {
    if (rc == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    throw std::runtime_error(fmt::format("MPI {} failed: {}", what, std::string(text, static_cast<std::size_t>(len))));
}

// Waits for a nonblocking collective. For its first 10 ms it tests without sleeping, yielding the
// processor between tests (to the jobs of other ranks on this host), so that a barrier the last
// rank reaches is released within a few microseconds and adds that little to a measured span;
// after that, a test every 50 us, until the deadline.
void wait(MPI_Request& req, double timeout_s, const char* what) {
    const auto start = std::chrono::steady_clock::now();
    const auto deadline = start + std::chrono::duration<double>(timeout_s);
    const auto spin_until = start + std::chrono::milliseconds(10);
    for (;;) {
        int done = 0;
        check(MPI_Test(&req, &done, MPI_STATUS_IGNORE), what);
        if (done) return;
        const auto now = std::chrono::steady_clock::now();
        if (now < spin_until) {
            ::sched_yield();
            continue;
        }
        if (now > deadline) {
            const std::string line = fmt::format(
                "iolab: rank {} on {}: no answer from every rank within {} s ({}); "
                "ending every rank{}\n",
                rank(), host(), timeout_s, what, g_hint);
            [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, line.data(), line.size());
            abort(1);
        }
        const timespec pause{0, 50'000};
        ::nanosleep(&pause, nullptr);
    }
}

// A blocking MPI call (MPI_Init, MPI_Finalize: they wait for every rank, and have no
// nonblocking form) run under a deadline: a watcher thread ends the process, saying which step
// it was, when the call has not returned by then (a rank that never starts, or died).
template <class F>
void within(double timeout_s, const char* step, F&& call) {
    std::mutex m;
    std::condition_variable cv;
    bool done = false;
    // Before MPI_Init returns, the rank is known only from the launcher's environment, read here:
    // MPI_Init may change the environment while the watcher waits.
    const char* r = std::getenv("OMPI_COMM_WORLD_RANK");
    if (!r) r = std::getenv("PMIX_RANK");
    const std::string who = r ? r : "?";
    char name[256] = "?";
    ::gethostname(name, sizeof name - 1);
    const std::string line = fmt::format(
        "iolab: rank {} on {}: {} did not end within {} s (a rank that never "
        "started, or ended); ending this rank{}\n",
        who, name, step, timeout_s, g_hint);
    std::thread watcher([&] {
        std::unique_lock lock(m);
        if (cv.wait_for(lock, std::chrono::duration<double>(timeout_s), [&] { return done; })) return;
        [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, line.data(), line.size());
        std::_Exit(1);
    });
    const auto finish = [&] {
        {
            const std::lock_guard lock(m);
            done = true;
        }
        cv.notify_one();
        watcher.join();
    };
    try {
        call();
    } catch (...) {
        finish();
        throw;
    }
    finish();
}

double g_timeout_s = 600;

int as_int(std::size_t n) {
    if (n > static_cast<std::size_t>(INT32_MAX)) throw std::runtime_error("MPI message too large");
    return static_cast<int>(n);
}

}  // namespace

bool built() { return true; }

void set_timeout_hint(std::string hint) { g_hint = std::move(hint); }

void init(double timeout_s) {
    if (initialized()) return;
    g_timeout_s = timeout_s;
    int provided = 0;
    within(timeout_s, "MPI_Init",
           [&] { check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "init"); });
    if (provided < MPI_THREAD_FUNNELED)
        throw std::runtime_error("MPI cannot be used by a process with threads (MPI_THREAD_FUNNELED not provided)");
    // Errors come back as codes (check() turns them into exceptions), not as an abort inside MPI.
    check(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "set the error handler");
}

bool initialized() {
    int on = 0, off = 0;
    MPI_Initialized(&on);
    MPI_Finalized(&off);
    return on && !off;
}

void finalize() {
    if (!initialized()) return;
    // What this rank printed is out before anything can end it. Rank 0 may still be writing its
    // reports while the others finalize: they wait for it at least ten minutes.
    std::fflush(nullptr);
    within(std::max(g_timeout_s, 600.0), "MPI_Finalize", [] { MPI_Finalize(); });
}

void abort(int code) {
    MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);
}

int rank() {
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

int size() {
    int n = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    return n;
}

std::string host() {
    char name[MPI_MAX_PROCESSOR_NAME];
    int len = 0;
    MPI_Get_processor_name(name, &len);
    return std::string(name, static_cast<std::size_t>(len));
}

void barrier(double timeout_s) {
    MPI_Request req;
    check(MPI_Ibarrier(MPI_COMM_WORLD, &req), "barrier");
    wait(req, timeout_s, "barrier");
}

std::uint64_t broadcast(std::uint64_t v, int root, double timeout_s) {
    MPI_Request req;
    check(MPI_Ibcast(&v, 1, MPI_UINT64_T, root, MPI_COMM_WORLD, &req), "broadcast");
    wait(req, timeout_s, "broadcast");
    return v;
}

std::string broadcast(const std::string& s, int root, double timeout_s) {
    const auto n = broadcast(s.size(), root, timeout_s);
    std::string out = rank() == root ? s : std::string(n, '\0');
    if (n == 0) return out;
    MPI_Request req;
    check(MPI_Ibcast(out.data(), as_int(n), MPI_CHAR, root, MPI_COMM_WORLD, &req), "broadcast");
    wait(req, timeout_s, "broadcast");
    return out;
}

namespace {
std::uint64_t reduce(std::uint64_t v, MPI_Op op, double timeout_s) {
    std::uint64_t out = 0;
    MPI_Request req;
    check(MPI_Iallreduce(&v, &out, 1, MPI_UINT64_T, op, MPI_COMM_WORLD, &req), "reduce");
    wait(req, timeout_s, "reduce");
    return out;
}

// Every rank's text: the lengths first, then the bytes, at root (gather) or everywhere.
std::vector<std::string> collect(const std::string& s, bool everywhere, double timeout_s) {
    const int n = size(), me = rank();
    const int len = as_int(s.size());
    std::vector<int> lens(static_cast<std::size_t>(n));
    MPI_Request req;
    if (everywhere)
        check(MPI_Iallgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, MPI_COMM_WORLD, &req), "gather");
    else
        check(MPI_Igather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD, &req), "gather");
    wait(req, timeout_s, "gather");
    std::vector<int> offsets(static_cast<std::size_t>(n));
    std::size_t total = 0;
    for (std::size_t i = 0; i < lens.size(); ++i) {
        offsets[i] = as_int(total);
        total += static_cast<std::size_t>(lens[i]);
    }
    std::string all(total, '\0');
    if (everywhere)
        check(MPI_Iallgatherv(s.data(), len, MPI_CHAR, all.data(), lens.data(), offsets.data(), MPI_CHAR,
                              MPI_COMM_WORLD, &req),
              "gather");
    else
        check(MPI_Igatherv(s.data(), len, MPI_CHAR, all.data(), lens.data(), offsets.data(), MPI_CHAR, 0,
                           MPI_COMM_WORLD, &req),
              "gather");
    wait(req, timeout_s, "gather");
    std::vector<std::string> out;
    if (!everywhere && me != 0) return out;
    for (std::size_t i = 0; i < lens.size(); ++i)
        out.push_back(all.substr(static_cast<std::size_t>(offsets[i]), static_cast<std::size_t>(lens[i])));
    return out;
}
}  // namespace

std::uint64_t max(std::uint64_t v, double timeout_s) { return reduce(v, MPI_MAX, timeout_s); }
std::uint64_t min(std::uint64_t v, double timeout_s) { return reduce(v, MPI_MIN, timeout_s); }
std::vector<std::string> gather(const std::string& s, double timeout_s) { return collect(s, false, timeout_s); }
std::vector<std::string> all_gather(const std::string& s, double timeout_s) { return collect(s, true, timeout_s); }

}  // namespace iolab::sys::mpi
