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

CaseResult run_case_forked(const CaseSpec& spec, const RunOptions& opts, const ScratchDir& dir) {
    return std::move(run_group_forked({spec}, opts, dir).front());
}

std::vector<CaseResult> run_group_forked(const std::vector<CaseSpec>& specs, const RunOptions& opts,
                                         const ScratchDir& dir, const ProgressFn& progress,
                                         const std::vector<bool>& held) {
    RunOptions child_opts = opts;
    child_opts.forks = 0;
    std::vector<CaseResult> pooled(specs.size());
    std::vector<Checked> checked(specs.size(), Checked::content);
    std::vector<bool> settled(specs.size(), false);  // failed or skipped in some fork
    for (std::size_t i = 0; i < specs.size(); ++i) pooled[i].spec = specs[i];
    // A cache budget: the child runs in a memory cgroup of the budget and what the cases' buffers
    // need beside it (and 64 MiB for the process's own memory).
    std::uint64_t limit = 0, buffers_needed = 0;
    if (opts.cache_budget > 0) {
        for (const CaseSpec& c : specs) buffers_needed = std::max(buffers_needed, memory_needed(c));
        buffers_needed += 4u << 20;  // and what a run allocates beside them
        limit = opts.cache_budget + buffers_needed + (64u << 20);
    }
    const unsigned forks = opts.cache_budget > 0 ? std::max(1u, opts.forks) : opts.forks;
    child_opts.group_budget_s = opts.group_budget_s / std::max(1u, forks);  // each fork its share
    bool stop = false;
    for (unsigned f = 0; f < forks && !stop; ++f) {
        std::unique_ptr<sys::MemoryCgroup> budget;
        bool reserve = false;  // no cgroup: the child locks memory away from the cache instead
        if (limit > 0) {
            std::string why;
            budget = sys::MemoryCgroup::make(limit, &why);
            if (!budget && ::geteuid() == 0) {
                reserve = true;
            } else if (!budget) {
                for (CaseResult& r : pooled) {
                    r.status = Status::skipped;
                    r.reason = "no page-cache budget here: " + why + "; and not root, so no memory reserve either";
                }
                return pooled;
            }
        }
        if (progress && !specs.empty()) progress(0, specs.front(), static_cast<double>(f) / forks);
        int fds[2];
        if (::pipe2(fds, O_CLOEXEC) != 0) throw IoError(errno, "create a pipe for", "a forked run");
        std::fflush(nullptr);
        const pid_t parent = ::getpid();
        const pid_t pid = ::fork();
        if (pid < 0) throw IoError(errno, "fork", "");
        if (pid == 0) {
            // Whatever happens here ends here: an exception must not unwind into the parent's
            // code (which would remove the parent's scratch folder and report twice).
            try {
                interrupt::prepare_child(parent);
                ::close(fds[0]);
                nlohmann::json j = nlohmann::json::array();
                // No cgroup, as root: what the machine has available beyond the budget and what this
                // process may need beside it is locked away, so that the cache keeps about the budget.
                std::string reserve_why;
                std::vector<std::unique_ptr<sys::MemoryReserve>> locked;
                if (reserve) {
                    // Kept free: the budget, the buffers and 64 MiB for this process. Whatever else is
                    // kept free the cache would take too. MemAvailable counts only part of what the
                    // kernel can reclaim, so the reserve grows in rounds until what is left is near
                    // that; if it cannot get there, no budget is claimed.
                    const std::uint64_t keep = limit;
                    for (int round = 0; round < 4 && reserve_why.empty(); ++round) {
                        const std::uint64_t available = sys::memory_available();
                        if (available <= keep + keep / 4) break;
                        auto r = sys::MemoryReserve::lock(available - keep, &reserve_why);
                        if (r) locked.push_back(std::move(r));
                    }
                    if (const std::uint64_t left = sys::memory_available(); reserve_why.empty() && left > 2 * keep)
                        reserve_why =
                            fmt::format("a locked memory reserve left {} MiB for the page cache, not about {} MiB",
                                        left >> 20, keep >> 20);
                }
                const std::string refused = budget && !budget->join()         ? "cannot enter the memory cgroup"
                                            : reserve && !reserve_why.empty() ? reserve_why
                                                                              : std::string();
                if (!refused.empty()) {
                    for (std::size_t i = 0; i < specs.size(); ++i)
                        j.push_back({{"status", "skipped"},
                                     {"reason", "no page-cache budget here: " + refused},
                                     {"checked", "none"},
                                     {"samples", nlohmann::json::array()}});
                } else {
                    set_cache_budget(budget.get(), opts.cache_budget, buffers_needed);
                    for (const CaseResult& cr : run_group(specs, child_opts, dir, system_clock(), {}, held))
                        j.push_back({{"status", to_string(cr.status)},
                                     {"reason", cr.reason},
                                     {"checked", to_string(cr.checked)},
                                     {"stopped", to_string(cr.stopped)},
                                     {"samples", cr.samples}});
                }
                const std::string text = j.dump();
                std::size_t off = 0;
                while (off < text.size()) {
                    const ssize_t w = ::write(fds[1], text.data() + off, text.size() - off);
                    if (w <= 0 && errno != EINTR) ::_exit(3);
                    if (w > 0) off += static_cast<std::size_t>(w);
                }
            } catch (...) {
                ::_exit(3);
            }
            ::_exit(0);
        }
        ::setpgid(pid, pid);
        interrupt::add_child(pid);
        ::close(fds[1]);
        std::string text;
        char buf[65536];
        for (;;) {
            const ssize_t n = ::read(fds[0], buf, sizeof buf);
            if (n > 0)
                text.append(buf, static_cast<std::size_t>(n));
            else if (n == 0 || errno != EINTR)
                break;
        }
        ::close(fds[0]);
        int status = 0;
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        interrupt::remove_child(pid);
        const auto settle_all = [&](Status st, const std::string& why) {
            for (std::size_t i = 0; i < specs.size(); ++i)
                if (!settled[i]) {
                    pooled[i].status = st;
                    pooled[i].reason = why;
                    settled[i] = true;
                }
            stop = true;
        };
        if (interrupt::requested()) {
            // Cut short: what earlier forks measured is kept (a fork's own samples die with it).
            for (std::size_t i = 0; i < specs.size(); ++i)
                if (!settled[i]) {
                    pooled[i].stopped = StopReason::interrupted;
                    pooled[i].reason = "interrupted";
                }
            break;
        }
        const auto j = nlohmann::json::parse(text, nullptr, false);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || j.is_discarded() || !j.is_array() ||
            j.size() != specs.size()) {
            settle_all(Status::failed, fmt::format("fork {} ended abnormally (status {:#x})", f + 1, status));
            break;
        }
        for (std::size_t i = 0; i < specs.size(); ++i) {
            if (settled[i]) continue;
            const auto& c = j[i];
            const auto child_status = value_of(kStatuses, c.at("status").get<std::string>()).value_or(Status::failed);
            if (child_status != Status::ok) {
                pooled[i].status = child_status;
                pooled[i].reason = c.at("reason").get<std::string>();
                pooled[i].samples.clear();
                settled[i] = true;
                continue;
            }
            // The weakest check of any fork is what the pooled samples can claim.
            const Checked this_fork = value_of(kChecked, c.at("checked").get<std::string>()).value_or(Checked::none);
            checked[i] = std::max(checked[i], this_fork);
            // Stopped as clearly slower only when every fork's race stopped it so (that alone makes
            // a case stable: finish()); else the reason of the last fork that stopped otherwise.
            const StopReason why = value_of(kStopReasons, c.value("stopped", "none")).value_or(StopReason::none);
            if (why != StopReason::clearly_slower || f == 0 || pooled[i].stopped == StopReason::clearly_slower)
                pooled[i].stopped = why;
            for (const auto& smp : c.at("samples")) pooled[i].samples.push_back(smp.get<Sample>());
        }
    }
    for (std::size_t i = 0; i < specs.size(); ++i) {
        CaseResult& r = pooled[i];
        r.checked = r.status == Status::ok ? checked[i] : Checked::none;
        r.verified = r.status == Status::ok && r.checked == Checked::content;
        finish(r, opts, system_clock().resolution_s());
    }
    return pooled;
}

}  // namespace iolab
