// Running a group in child processes (--forks N) and pooling their samples case by case.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "iolab/core/interrupt.hpp"
#include "iolab/harness/cache.hpp"
#include "iolab/harness/plan.hpp"
#include "iolab/harness/runner.hpp"
#include "iolab/harness/serialize.hpp"
#include "iolab/sys/cgroup.hpp"
#include "iolab/sys/error.hpp"
#include "iolab/sys/reserve.hpp"

namespace iolab {

namespace {

// A cache budget's room: the child runs in a memory cgroup of the budget and what the cases'
// buffers need beside it (and 64 MiB for the process's own memory).
struct Room {
    std::uint64_t limit = 0;  // 0: no cache budget
    std::uint64_t buffers_needed = 0;
};

Room room_for(const std::vector<CaseSpec>& specs, const RunOptions& opts) {
    Room room;
    if (opts.cache_budget == 0) return room;
    for (const CaseSpec& c : specs) room.buffers_needed = std::max(room.buffers_needed, memory_needed(c));
    room.buffers_needed += 4u << 20;  // and what a run allocates beside them
    room.limit = opts.cache_budget + room.buffers_needed + (64u << 20);
    return room;
}

// What one fork runs, and under what budget.
struct ForkTask {
    const std::vector<CaseSpec>& specs;
    const RunOptions& opts;  // the child's: no forks of its own
    const ScratchDir& dir;
    const std::vector<bool>& held;
    std::uint64_t cache_budget = 0;
    Room room;
    double budget_s = 0;                  // its share of the group's time budget
    sys::MemoryCgroup* cgroup = nullptr;  // the cgroup the child joins, or none
    bool reserve = false;                 // no cgroup: the child locks memory away from the cache instead
};

// No cgroup, as root: what the machine has available beyond `keep` (the budget, the buffers and
// 64 MiB for this process) is locked away, so that the cache keeps about the budget. Whatever
// else is kept free the cache would take too. MemAvailable counts only part of what the kernel
// can reclaim, so the reserve grows in rounds until what is left is near that. Returns why no
// budget can be claimed, or "".
std::string reserve_memory(std::uint64_t keep, std::vector<std::unique_ptr<sys::MemoryReserve>>& locked) {
    std::string why;
    for (int round = 0; round < 4 && why.empty(); ++round) {
        const std::uint64_t available = sys::memory_available();
        if (available <= keep + keep / 4) break;
        auto r = sys::MemoryReserve::lock(available - keep, &why);
        if (r) locked.push_back(std::move(r));
    }
    if (const std::uint64_t left = sys::memory_available(); why.empty() && left > 2 * keep)
        why = fmt::format("a locked memory reserve left {} MiB for the page cache, not about {} MiB", left >> 20,
                          keep >> 20);
    return why;
}

// What the child reports: its run of the group case by case (`cases`), or every case skipped when
// the budget was `refused`; and the time it set up (`setup_s`: its inputs, warm-ups and runs' own).
nlohmann::json child_report(const ForkTask& t, const std::string& refused) {
    nlohmann::json j = {{"cases", nlohmann::json::array()}, {"setup_s", 0.0}};
    nlohmann::json& cases = j["cases"];
    if (!refused.empty()) {
        for (std::size_t i = 0; i < t.specs.size(); ++i)
            cases.push_back({{"status", "skipped"},
                             {"reason", "no page-cache budget here: " + refused},
                             {"checked", "none"},
                             {"samples", nlohmann::json::array()}});
        return j;
    }
    set_cache_budget(t.cgroup, t.cache_budget, t.room.buffers_needed);
    double setup_s = 0;
    GroupEvents events;
    events.set_up = [&](double s) { setup_s += s; };
    for (const CaseResult& cr : run_group(t.specs, t.opts, t.dir, system_clock(), {}, t.held, {}, t.budget_s, events))
        cases.push_back({{"status", to_string(cr.status)},
                         {"reason", cr.reason},
                         {"checked", to_string(cr.checked)},
                         {"stopped", to_string(cr.stopped)},
                         {"samples", cr.samples}});
    j["setup_s"] = setup_s;
    return j;
}

// The whole of text into fd; the child ends with status 3 when it cannot.
void write_all(int fd, const std::string& text) {
    std::size_t off = 0;
    while (off < text.size()) {
        const ssize_t w = ::write(fd, text.data() + off, text.size() - off);
        if (w <= 0 && errno != EINTR) ::_exit(3);
        if (w > 0) off += static_cast<std::size_t>(w);
    }
}

// The child's side of a fork: it runs the group and writes its report into the pipe. Whatever
// happens here ends here: an exception must not unwind into the parent's code (which would
// remove the parent's scratch folder and report twice).
[[noreturn]] void run_child(const ForkTask& t, const int fds[2], pid_t parent) {
    try {
        interrupt::prepare_child(parent);
        ::close(fds[0]);
        std::string reserve_why;
        std::vector<std::unique_ptr<sys::MemoryReserve>> locked;
        if (t.reserve) reserve_why = reserve_memory(t.room.limit, locked);
        const std::string refused = t.cgroup && !t.cgroup->join()       ? "cannot enter the memory cgroup"
                                    : t.reserve && !reserve_why.empty() ? reserve_why
                                                                        : std::string();
        write_all(fds[1], child_report(t, refused).dump());
    } catch (...) {
        ::_exit(3);
    }
    ::_exit(0);
}

// Everything the child writes into the pipe, up to its end.
std::string read_all(int fd) {
    std::string text;
    char buf[65536];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n > 0)
            text.append(buf, static_cast<std::size_t>(n));
        else if (n == 0 || errno != EINTR)
            break;
    }
    return text;
}

// One fork: the child's wait status and what it reported.
std::pair<int, std::string> run_fork(const ForkTask& t) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw IoError(errno, "create a pipe for", "a forked run");
    std::fflush(nullptr);
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) throw IoError(errno, "fork", "");
    if (pid == 0) run_child(t, fds, parent);
    ::setpgid(pid, pid);
    interrupt::add_child(pid);
    ::close(fds[1]);
    std::string text = read_all(fds[0]);
    ::close(fds[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    interrupt::remove_child(pid);
    return {status, std::move(text)};
}

// The forks' results, pooled case by case.
class Pool {
public:
    explicit Pool(const std::vector<CaseSpec>& specs)
        : pooled_(specs.size()), checked_(specs.size(), Checked::content), settled_(specs.size(), false) {
        for (std::size_t i = 0; i < specs.size(); ++i) pooled_[i].spec = specs[i];
    }

    // Every case skipped, for why, as they stand.
    std::vector<CaseResult> skip_all(const std::string& why) {
        for (CaseResult& r : pooled_) {
            r.status = Status::skipped;
            r.reason = why;
        }
        return pooled_;
    }
    // Every case not settled yet: failed (or skipped), for why.
    void settle_all(Status st, const std::string& why) {
        for (std::size_t i = 0; i < pooled_.size(); ++i)
            if (!settled_[i]) {
                pooled_[i].status = st;
                pooled_[i].reason = why;
                settled_[i] = true;
            }
    }
    // Cut short: what earlier forks measured is kept (a fork's own samples die with it).
    void interrupted() {
        for (std::size_t i = 0; i < pooled_.size(); ++i)
            if (!settled_[i]) {
                pooled_[i].stopped = StopReason::interrupted;
                pooled_[i].reason = "interrupted";
            }
    }
    // Fork f's report (j, one entry per case), pooled.
    void add(const nlohmann::json& j, unsigned f) {
        for (std::size_t i = 0; i < pooled_.size(); ++i)
            if (!settled_[i]) add_case(i, j[i], f);
    }
    // The pooled results, with their statistics.
    std::vector<CaseResult> finish_all(const RunOptions& opts) {
        for (std::size_t i = 0; i < pooled_.size(); ++i) {
            CaseResult& r = pooled_[i];
            r.checked = r.status == Status::ok ? checked_[i] : Checked::none;
            r.verified = r.status == Status::ok && r.checked == Checked::content;
            finish(r, opts, system_clock().resolution_s());
        }
        return pooled_;
    }

private:
    void add_case(std::size_t i, const nlohmann::json& c, unsigned f) {
        const auto child_status = value_of(kStatuses, c.at("status").get<std::string>()).value_or(Status::failed);
        if (child_status != Status::ok) {
            pooled_[i].status = child_status;
            pooled_[i].reason = c.at("reason").get<std::string>();
            pooled_[i].samples.clear();
            settled_[i] = true;
            return;
        }
        // The weakest check of any fork is what the pooled samples can claim.
        const Checked this_fork = value_of(kChecked, c.at("checked").get<std::string>()).value_or(Checked::none);
        checked_[i] = std::max(checked_[i], this_fork);
        // Stopped as clearly slower only when every fork's race stopped it so (that alone makes
        // a case stable: finish()); else the reason of the last fork that stopped otherwise.
        const StopReason why = value_of(kStopReasons, c.value("stopped", "none")).value_or(StopReason::none);
        if (why != StopReason::clearly_slower || f == 0 || pooled_[i].stopped == StopReason::clearly_slower)
            pooled_[i].stopped = why;
        for (const auto& smp : c.at("samples")) pooled_[i].samples.push_back(smp.get<Sample>());
    }

    std::vector<CaseResult> pooled_;
    std::vector<Checked> checked_;
    std::vector<bool> settled_;  // failed or skipped in some fork
};

}  // namespace

CaseResult run_case_forked(const CaseSpec& spec, const RunOptions& opts, const ScratchDir& dir) {
    return std::move(run_group_forked({spec}, opts, dir).front());
}

std::vector<CaseResult> run_group_forked(const std::vector<CaseSpec>& specs, const RunOptions& opts,
                                         const ScratchDir& dir, const ProgressFn& progress,
                                         const std::vector<bool>& held, double budget_s, const GroupEvents& events) {
    RunOptions child_opts = opts;
    child_opts.forks = 0;
    Pool pool(specs);
    const Room room = room_for(specs, opts);
    const unsigned forks = opts.cache_budget > 0 ? std::max(1u, opts.forks) : opts.forks;
    for (unsigned f = 0; f < forks; ++f) {
        ForkTask task{specs, child_opts, dir, held, opts.cache_budget, room, budget_s / std::max(1u, forks)};
        std::unique_ptr<sys::MemoryCgroup> budget;
        if (room.limit > 0) {
            std::string why;
            budget = sys::MemoryCgroup::make(room.limit, &why);
            if (!budget && ::geteuid() != 0)
                return pool.skip_all("no page-cache budget here: " + why +
                                     "; and not root, so no memory reserve either");
            task.cgroup = budget.get();
            task.reserve = !budget;
        }
        if (progress && !specs.empty()) progress(0, specs.front(), static_cast<double>(f) / forks);
        const auto [status, text] = run_fork(task);
        if (interrupt::requested()) {
            pool.interrupted();
            break;
        }
        const auto j = nlohmann::json::parse(text, nullptr, false);
        const bool whole = !j.is_discarded() && j.is_object() && j.contains("cases") && j["cases"].is_array() &&
                           j["cases"].size() == specs.size() && j.contains("setup_s") && j["setup_s"].is_number();
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !whole) {
            pool.settle_all(Status::failed, fmt::format("fork {} ended abnormally (status {:#x})", f + 1, status));
            break;
        }
        pool.add(j["cases"], f);
        if (events.set_up) events.set_up(j["setup_s"].get<double>());
    }
    return pool.finish_all(opts);
}

}  // namespace iolab
