#include "iolab/harness/runner.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <random>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "iolab/core/interrupt.hpp"
#include "iolab/core/units.hpp"
#include "iolab/harness/cache.hpp"
#include "iolab/harness/fixture.hpp"
#include "iolab/harness/serialize.hpp"
#include "iolab/sys/error.hpp"
#include "iolab/sys/io.hpp"
#include "iolab/sys/throttle.hpp"

namespace iolab {

std::string_view to_string(CacheMode m) {
    switch (m) {
        case CacheMode::warm: return "warm";
        case CacheMode::cold: return "cold";
        case CacheMode::direct: return "direct";
    }
    return "?";
}

std::string_view to_string(SyncPolicy p) {
    switch (p) {
        case SyncPolicy::none: return "none";
        case SyncPolicy::fsync: return "fsync";
        case SyncPolicy::fdatasync: return "fdatasync";
    }
    return "?";
}

std::string_view to_string(Status s) {
    switch (s) {
        case Status::ok: return "ok";
        case Status::failed: return "failed";
        case Status::skipped: return "skipped";
    }
    return "?";
}

std::string_view to_string(Checked c) {
    switch (c) {
        case Checked::content: return "content";
        case Checked::byte_count: return "byte count";
        case Checked::none: return "none";
    }
    return "?";
}

VerifyMode parse_verify_mode(std::string_view text, const char* what) {
    if (text == "sampled") return VerifyMode::sampled;
    if (text == "full") return VerifyMode::full;
    throw std::invalid_argument(one_line(fmt::format("invalid {} '{}': expected sampled or full", what, text)));
}

double parse_precision(std::string_view text, const char* what) {
    std::string_view num = text;
    const bool percent = num.ends_with("%");
    if (percent) num.remove_suffix(1);
    double v = -1;
    const auto [end, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
    if (percent) v /= 100;
    if (num.empty() || ec != std::errc() || end != num.data() + num.size() || !std::isfinite(v) || v <= 0 || v > 1)
        throw std::invalid_argument(one_line(
            fmt::format("invalid {} '{}': expected a relative precision above 0 and at most 1, such as 3% or 0.03",
                        what, text)));
    return v;
}

double parse_budget(std::string_view text, const char* what) {
    Amount a;
    try {
        a = parse_amount(text, what, false);
    } catch (const std::invalid_argument&) {
        a = Amount{};
    }
    if (a.seconds <= 0)
        throw std::invalid_argument(
            one_line(fmt::format("invalid {} '{}': expected a time such as 1s or 500ms", what, text)));
    return a.seconds;
}

std::string Amount::describe() const {
    if (adaptive) return "auto";
    return seconds > 0 ? fmt::format("{:g}s", seconds) : fmt::format("{}", count);
}

Amount parse_amount(std::string_view text, const char* what, bool zero_ok, bool auto_ok) {
    if (auto_ok && text == "auto") return kAdaptive;
    Amount a;
    std::string_view num = text;
    double unit = 0;
    if (num.ends_with("ms")) {
        num.remove_suffix(2);
        unit = 1e-3;
    } else if (num.ends_with("s")) {
        num.remove_suffix(1);
        unit = 1;
    }
    double v = -1;
    const auto [end, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
    const bool parsed = !num.empty() && ec == std::errc() && end == num.data() + num.size() && std::isfinite(v);
    if (parsed && unit > 0 && v > 0 && v * unit <= 86400) {
        a.seconds = v * unit;
        return a;
    }
    if (parsed && unit == 0 && v == std::floor(v) && v >= (zero_ok ? 0 : 1) && v <= 1e9) {
        a.count = static_cast<std::uint64_t>(v);
        return a;
    }
    throw std::invalid_argument(one_line(fmt::format("invalid {} '{}': expected {}a count ({}) or a time such as 2s or 500ms",
                                                     what, text, auto_ok ? "auto, " : "", zero_ok ? "0 or more" : "1 or more")));
}

std::map<std::string, std::string> CaseSpec::params() const {
    std::map<std::string, std::string> p;
    const Workload& w = workload;
    if (strategy->honours(kParamBuffer)) p["buffer"] = format_compact(w.buffer);
    if (w.family == Family::write) {
        p["record"] = format_compact(w.record);
        p["count"] = std::to_string(w.count);
    }
    if (strategy->honours(kParamQueue)) p["queue"] = std::to_string(w.queue);
    if (strategy->honours(kParamIov)) p["iov"] = std::to_string(w.iov);
    if (strategy->honours(kParamChain)) p["chain"] = w.chain;
    if (strategy->honours(kParamFeed)) p["feed"] = w.feed_bytes ? "byte" : "record";
    p["size"] = format_compact(w.bytes());
    if (full_bytes) p["slice_of"] = format_compact(full_bytes);
    p["data"] = to_string(w.data);
    return p;
}

std::string CaseSpec::label() const {
    std::string l = strategy->name;
    if (strategy->honours(kParamBuffer)) l += " buffer=" + format_compact(workload.buffer);
    if (workload.family == Family::write) l += " record=" + format_compact(workload.record);
    if (strategy->honours(kParamQueue)) l += " queue=" + std::to_string(workload.queue);
    if (strategy->honours(kParamIov)) l += " iov=" + std::to_string(workload.iov);
    if (strategy->honours(kParamChain)) l += " chain=" + workload.chain;
    if (strategy->honours(kParamFeed)) l += workload.feed_bytes ? " feed=byte" : " feed=record";
    return l;
}

namespace {

class SystemClock : public Clock {
public:
    std::uint64_t now_ns() override {
        timespec ts{};
        ::clock_gettime(CLOCK_MONOTONIC, &ts);
        return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(ts.tv_nsec);
    }
    double resolution_s() override {
        timespec ts{};
        ::clock_getres(CLOCK_MONOTONIC, &ts);
        return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
    }
};

double seconds(const timeval& tv) { return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) * 1e-6; }

struct VerificationFailed : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Thrown between iterations when a stop was asked for: the case is incomplete.
struct Interrupted : std::runtime_error {
    Interrupted() : std::runtime_error("interrupted") {}
};

std::string file_tag(const std::string& name) {
    std::string t = name;
    for (char& c : t)
        if (c == '.') c = '_';
    return t;
}

Checked checked_by(const Verdict& v) {
    if (v.count_only) return Checked::byte_count;
    return v.checked ? Checked::content : Checked::none;
}

// One run of the strategy: everything but the strategy (and durability, when the sync policy
// puts it inside) happens outside the timed part. Returns the sample and what was checked.
std::pair<Sample, Checked> run_once(const Strategy& s, Fixture& fx, Sink& sink, const RunOptions& opts, Clock& clock,
                                    Timeline* timeline, VerifyMode mode) {
    if (interrupt::requested()) throw Interrupted();
    Job job = fx.job(s, sink, mode);
    job.direct = opts.cache == CacheMode::direct;
    if (timeline) {
        timeline->clear();
        job.timeline = timeline;
    }
    const bool has_input = fx.workload().family != Family::write;
    if (has_input && opts.cache == CacheMode::cold) evict_file(fx.input_path(), opts.drop_caches);
    Sample smp;
    if (has_input) smp.resident = resident_fraction(fx.input_path());
    const bool sync_inside = fx.workload().family != Family::read && opts.sync != SyncPolicy::none;

    // The children's usage counts too: external tools run as child processes.
    rusage r0{}, r1{}, c0r{}, c1r{};
    ::getrusage(RUSAGE_SELF, &r0);
    ::getrusage(RUSAGE_CHILDREN, &c0r);
    const sys::Counters c0 = sys::thread_counters();
    const std::uint64_t t0 = clock.now_ns();
    {
        const sys::ScopedThrottle slow_device(opts.throttle);
        s.run(job);
        if (sync_inside) {
            const sys::Fd out = sys::open(job.dst, O_RDONLY);
            opts.sync == SyncPolicy::fsync ? sys::fsync(out) : sys::fdatasync(out);
        }
    }
    const std::uint64_t t1 = clock.now_ns();
    const sys::Counters made = sys::thread_counters() - c0;
    ::getrusage(RUSAGE_SELF, &r1);
    ::getrusage(RUSAGE_CHILDREN, &c1r);

    smp.wall_s = static_cast<double>(t1 - t0) * 1e-9;
    smp.user_s = seconds(r1.ru_utime) - seconds(r0.ru_utime);
    smp.user_s += seconds(c1r.ru_utime) - seconds(c0r.ru_utime);
    smp.sys_s = seconds(r1.ru_stime) - seconds(r0.ru_stime) + seconds(c1r.ru_stime) - seconds(c0r.ru_stime);
    smp.vol_cs = r1.ru_nvcsw - r0.ru_nvcsw;
    smp.invol_cs = r1.ru_nivcsw - r0.ru_nivcsw;
    smp.minor_faults = r1.ru_minflt - r0.ru_minflt;
    smp.major_faults = r1.ru_majflt - r0.ru_majflt;
    smp.syscalls = made.data_calls();
    smp.all_calls = made.total_calls();
    smp.bytes = fx.workload().bytes();

    const Verdict v = fx.verify(job);
    if (!v.ok) throw VerificationFailed("output differs from the input: " + v.describe());
    fx.remove_output();  // a group keeps one output on disk at a time
    return {smp, checked_by(v)};
}

// One case of a group while it is measured.
struct CaseState {
    CaseResult r;
    std::unique_ptr<Fixture> fx;
    Sink sink;
    Checked checked = Checked::content;
    std::uint64_t target = 0;  // a fixed number of measured iterations; 0: adaptive
    double spent_s = 0;        // time spent on its measured iterations, harness work included
    bool done = false;
};

void fail(CaseState& c, const std::exception& e) {
    if (dynamic_cast<const CannotRun*>(&e)) {
        c.r.status = Status::skipped;
        c.r.samples.clear();
    } else {
        c.r.status = Status::failed;
    }
    c.r.reason = e.what();
    c.done = true;
}

// Whether a case has enough measured iterations.
bool enough(const CaseState& c, const RunOptions& opts) {
    const std::size_t n = c.r.samples.size();
    if (n >= opts.max_iterations) return true;
    if (c.target > 0) return n >= c.target;
    if (n < opts.min_iterations) return false;
    if (c.spent_s >= opts.budget_s) return true;
    std::vector<double> walls;
    walls.reserve(n);
    for (const auto& smp : c.r.samples) walls.push_back(smp.wall_s);
    const Summary st = summarize(walls);
    return st.median_confidence >= kMedianConfidence && st.median_precision() <= opts.precision;
}

// The warm-up of one case: its first run verifies every byte; with no warm-up asked for, a
// read still gets that one unmeasured run. Returns the duration of the last run (0: none).
double warm_up(CaseState& c, const RunOptions& opts, Clock& clock, Timeline* tl) {
    const Strategy& s = *c.r.spec.strategy;
    double last = 0;
    std::uint64_t runs = 0;
    const auto once = [&] {
        const VerifyMode mode = runs == 0 ? VerifyMode::full : opts.verify;
        const auto [smp, checked] = run_once(s, *c.fx, c.sink, opts, clock, tl, mode);
        c.checked = checked;
        ++runs;
        last = smp.wall_s;
    };
    if (opts.warmup.seconds > 0) {
        const std::uint64_t start = clock.now_ns();
        do once();
        while (static_cast<double>(clock.now_ns() - start) * 1e-9 < opts.warmup.seconds);
    } else {
        for (std::uint64_t i = 0; i < opts.warmup.count; ++i) once();
    }
    if (runs == 0 && s.family == Family::read && opts.verify != VerifyMode::full) {
        once();
        last = 0;  // not a warm-up: its duration says nothing about the next runs
    }
    return last;
}

}  // namespace

Clock& system_clock() {
    static SystemClock c;
    return c;
}

std::uint64_t iterations_for(double target_s, double run_s, std::uint64_t max_iterations) {
    if (run_s <= 0) return max_iterations;
    const double n = std::ceil(target_s / run_s);
    return std::clamp<std::uint64_t>(static_cast<std::uint64_t>(std::min(n, 1e12)), 3, max_iterations);
}

std::vector<CaseResult> run_group(const std::vector<CaseSpec>& specs, const RunOptions& opts, const ScratchDir& dir,
                                  Clock& clock, const ProgressFn& progress) {
    std::vector<CaseState> cases(specs.size());
    InputPool pool(dir);
    // 1. Skips, inputs and fixtures.
    for (std::size_t i = 0; i < specs.size(); ++i) {
        CaseState& c = cases[i];
        c.r.spec = specs[i];
        const Strategy& s = *specs[i].strategy;
        if (auto why = s.skip_reason(dir.path())) {
            c.r.status = Status::skipped;
            c.r.reason = *why;
            c.done = true;
        } else if (opts.cache == CacheMode::direct && !s.direct_capable) {
            c.r.status = Status::skipped;
            c.r.reason = "does not use O_DIRECT, which --cache direct asks for";
            c.done = true;
        } else if (opts.throttle > 0 && s.family != Family::read && (!s.throttleable || !s.in_syscall_layer)) {
            c.r.status = Status::skipped;
            c.r.reason = "its writes bypass iolab's syscall layer, so --throttle cannot slow them down";
            c.done = true;
        }
        if (c.done) continue;
        try {
            c.fx = std::make_unique<Fixture>(specs[i].workload, dir, fmt::format("{}-{}", file_tag(s.name), i),
                                             pool.get(specs[i].workload));
            if (opts.timeline && s.records_timeline) c.r.timeline = std::make_shared<Timeline>();
        } catch (const std::exception& e) {
            fail(c, e);
        }
    }
    // 2. One canonical warm state: every input evicted, then read back once in order (the
    // state of a file that has been read, whatever wrote it).
    if (opts.cache == CacheMode::warm)
        for (const auto& f : pool.files()) {
            if (interrupt::requested()) break;
            evict_file(f, false);
            warm_file(f);
        }
    // 3. Warm-ups, case by case.
    for (auto& c : cases) {
        if (c.done) continue;
        try {
            const double last = warm_up(c, opts, clock, c.r.timeline.get());
            if (opts.iterations.seconds > 0)
                c.target = last > 0 ? iterations_for(opts.iterations.seconds, last, opts.max_iterations) : 0;
            else if (!opts.iterations.adaptive)
                c.target = opts.iterations.count;
        } catch (const Interrupted& e) {
            fail(c, e);
            break;
        } catch (const std::exception& e) {
            fail(c, e);
        }
    }
    // 4. Measured rounds: every unfinished case once per round, in a seeded random order, so
    // that drift of a shared machine falls on every case alike.
    std::mt19937_64 rng(opts.seed);
    std::vector<std::size_t> order;
    for (std::uint64_t round = 0; !interrupt::requested(); ++round) {
        order.clear();
        for (std::size_t i = 0; i < cases.size(); ++i)
            if (!cases[i].done) order.push_back(i);
        if (order.empty()) break;
        std::shuffle(order.begin(), order.end(), rng);
        for (std::size_t i : order) {
            CaseState& c = cases[i];
            if (progress) progress(i, c.r.spec);
            const Strategy& s = *c.r.spec.strategy;
            try {
                const std::uint64_t t0 = clock.now_ns();
                const auto [smp, checked] = run_once(s, *c.fx, c.sink, opts, clock, c.r.timeline.get(), opts.verify);
                c.checked = checked;
                c.r.samples.push_back(smp);
                c.spent_s += static_cast<double>(clock.now_ns() - t0) * 1e-9;
                // A time target without a warm-up: the first measured run tells.
                if (opts.iterations.seconds > 0 && c.target == 0)
                    c.target = iterations_for(opts.iterations.seconds, smp.wall_s, opts.max_iterations);
                if (enough(c, opts)) {
                    c.done = true;
                    c.r.precision_met = opts.iterations.adaptive && c.spent_s < opts.budget_s &&
                                        c.r.samples.size() < opts.max_iterations;
                }
            } catch (const Interrupted& e) {
                fail(c, e);
                break;
            } catch (const std::exception& e) {
                fail(c, e);
            }
        }
    }
    std::vector<CaseResult> out;
    out.reserve(cases.size());
    for (auto& c : cases) {
        if (c.r.status == Status::ok) {
            c.r.checked = c.checked;
            c.r.verified = c.checked == Checked::content;
        } else {
            c.r.verified = false;
            c.r.checked = Checked::none;
        }
        finish(c.r, opts, clock.resolution_s());
        c.fx.reset();
        out.push_back(std::move(c.r));
    }
    return out;
}

CaseResult run_case(const CaseSpec& spec, const RunOptions& opts, const ScratchDir& dir, Clock& clock) {
    return std::move(run_group({spec}, opts, dir, clock).front());
}

CaseResult run_case_forked(const CaseSpec& spec, const RunOptions& opts, const ScratchDir& dir) {
    return std::move(run_group_forked({spec}, opts, dir).front());
}

void finish(CaseResult& r, const RunOptions& opts, double resolution_s) {
    std::vector<double> walls;
    for (const auto& smp : r.samples) walls.push_back(smp.wall_s);
    r.stats = summarize(walls);
    r.warnings.clear();
    r.cold_unproven = false;
    if (r.samples.empty()) return;
    if (r.stats.median > 0) r.throughput_mib_s = static_cast<double>(r.samples[0].bytes) / r.stats.median / (1 << 20);
    const std::string name = r.spec.label();

    // The modified z-score needs a few samples to mean anything (its MAD comes from them).
    if (const auto out = walls.size() >= 5 ? outliers(walls) : std::vector<std::size_t>{}; !out.empty())
        r.warnings.push_back({"outliers", name, fmt::format("{} of {} samples", out.size(), walls.size())});
    if (walls.size() >= 3) {
        const double rest = median(std::vector<double>(walls.begin() + 1, walls.end()));
        if (rest > 0 && walls[0] > 2 * rest)
            r.warnings.push_back({"first-iteration", name,
                                  fmt::format("the first measured iteration took {:.2f}x the median of the rest; "
                                              "the warm-up may be too short (--warmup)",
                                              walls[0] / rest)});
    }
    if (opts.cache == CacheMode::cold) {
        std::size_t warm = 0;
        double worst = 0;
        for (const auto& smp : r.samples)
            if (smp.resident > 0.05) {
                ++warm;
                worst = std::max(worst, smp.resident);
            }
        if (warm > 0) {
            r.cold_unproven = true;
            r.warnings.push_back({"not-cold", name,
                                  fmt::format("{} of {} cold iterations started with up to {:.0f}% of the input in "
                                              "the page cache, so the case is not ranked as cold; the filesystem "
                                              "may ignore POSIX_FADV_DONTNEED (as root, try --drop-caches)",
                                              warm, r.samples.size(), worst * 100)});
        }
    }
    if (r.stats.median > 0 && r.stats.median < 1000 * resolution_s)
        r.warnings.push_back({"resolution", name,
                              "the median time is under 1,000 ticks of the clock; use a larger --size for a "
                              "meaningful figure"});
}

std::vector<CaseResult> run_group_forked(const std::vector<CaseSpec>& specs, const RunOptions& opts,
                                         const ScratchDir& dir, const ProgressFn& progress) {
    RunOptions child_opts = opts;
    child_opts.forks = 0;
    std::vector<CaseResult> pooled(specs.size());
    std::vector<Checked> checked(specs.size(), Checked::content);
    std::vector<bool> settled(specs.size(), false);  // failed or skipped in some fork
    for (std::size_t i = 0; i < specs.size(); ++i) pooled[i].spec = specs[i];
    bool stop = false;
    for (unsigned f = 0; f < opts.forks && !stop; ++f) {
        if (progress && !specs.empty()) progress(0, specs.front());
        int fds[2];
        if (::pipe2(fds, O_CLOEXEC) != 0) throw IoError(errno, "create a pipe for", "a forked run");
        std::fflush(nullptr);
        const pid_t pid = ::fork();
        if (pid < 0) throw IoError(errno, "fork", "");
        if (pid == 0) {
            interrupt::prepare_child();
            ::close(fds[0]);
            nlohmann::json j = nlohmann::json::array();
            for (const CaseResult& cr : run_group(specs, child_opts, dir))
                j.push_back({{"status", to_string(cr.status)},
                             {"reason", cr.reason},
                             {"checked", to_string(cr.checked)},
                             {"samples", cr.samples}});
            const std::string text = j.dump();
            std::size_t off = 0;
            while (off < text.size()) {
                const ssize_t w = ::write(fds[1], text.data() + off, text.size() - off);
                if (w <= 0 && errno != EINTR) ::_exit(3);
                if (w > 0) off += static_cast<std::size_t>(w);
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
            if (n > 0) text.append(buf, static_cast<std::size_t>(n));
            else if (n == 0 || errno != EINTR) break;
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
            settle_all(Status::failed, "interrupted");
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
            const auto child_status = c.at("status").get<std::string>();
            if (child_status != "ok") {
                pooled[i].status = child_status == "skipped" ? Status::skipped : Status::failed;
                pooled[i].reason = c.at("reason").get<std::string>();
                pooled[i].samples.clear();
                settled[i] = true;
                continue;
            }
            const auto ch = c.at("checked").get<std::string>();
            // The weakest check of any fork is what the pooled samples can claim.
            const Checked this_fork = ch == "content" ? Checked::content : ch == "byte count" ? Checked::byte_count
                                                                                                : Checked::none;
            checked[i] = std::max(checked[i], this_fork);
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
