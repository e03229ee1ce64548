#include "iolab/harness/runner.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
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

std::string Amount::describe() const {
    return seconds > 0 ? fmt::format("{:g}s", seconds) : fmt::format("{}", count);
}

Amount parse_amount(std::string_view text, const char* what, bool zero_ok) {
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
    throw std::invalid_argument(one_line(fmt::format("invalid {} '{}': expected a count ({}) or a time such as 2s or 500ms",
                                                     what, text, zero_ok ? "0 or more" : "1 or more")));
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

std::string file_tag(const std::string& name) {
    std::string t = name;
    for (char& c : t)
        if (c == '.') c = '_';
    return t;
}

// One run of the strategy: everything but the strategy (and durability, when the sync policy
// puts it inside) happens outside the timed part.
// Thrown between iterations when a stop was asked for: the case is incomplete.
struct Interrupted : std::runtime_error {
    Interrupted() : std::runtime_error("interrupted") {}
};

Sample run_once(const Strategy& s, Fixture& fx, Sink& sink, const RunOptions& opts, Clock& clock,
                Timeline* timeline) {
    if (interrupt::requested()) throw Interrupted();
    Job job = fx.job(s, sink);
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
    return smp;
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

CaseResult run_case(const CaseSpec& spec, const RunOptions& opts, const ScratchDir& dir, Clock& clock) {
    CaseResult r;
    r.spec = spec;
    const Strategy& s = *spec.strategy;
    if (auto why = s.skip_reason(dir.path())) {
        r.status = Status::skipped;
        r.reason = *why;
        return r;
    }
    if (opts.cache == CacheMode::direct && !s.direct_capable) {
        r.status = Status::skipped;
        r.reason = "does not use O_DIRECT, which --cache direct asks for";
        return r;
    }
    if (opts.throttle > 0 && s.family != Family::read && (!s.throttleable || !s.in_syscall_layer)) {
        r.status = Status::skipped;
        r.reason = "its writes bypass iolab's syscall layer, so --throttle cannot slow them down";
        return r;
    }
    try {
        Fixture fx(spec.workload, dir, file_tag(s.name));
        Sink sink;
        if (opts.timeline && s.records_timeline) r.timeline = std::make_shared<Timeline>();
        Timeline* tl = r.timeline.get();
        if (spec.workload.family != Family::write && opts.cache == CacheMode::warm) warm_file(fx.input_path());

        double last_run_s = 0;
        if (opts.warmup.seconds > 0) {
            const std::uint64_t start = clock.now_ns();
            do {
                last_run_s = run_once(s, fx, sink, opts, clock, tl).wall_s;
            } while (static_cast<double>(clock.now_ns() - start) * 1e-9 < opts.warmup.seconds);
        } else {
            for (std::uint64_t i = 0; i < opts.warmup.count; ++i)
                last_run_s = run_once(s, fx, sink, opts, clock, tl).wall_s;
        }

        std::uint64_t n = opts.iterations.count;
        if (opts.iterations.seconds > 0) {
            if (last_run_s <= 0) {  // no warm-up to learn from: the first measured run tells
                r.samples.push_back(run_once(s, fx, sink, opts, clock, tl));
                last_run_s = r.samples.back().wall_s;
            }
            n = iterations_for(opts.iterations.seconds, last_run_s, opts.max_iterations);
        }
        while (r.samples.size() < n) r.samples.push_back(run_once(s, fx, sink, opts, clock, tl));
        r.verified = s.output_checked;
    } catch (const CannotRun& e) {
        r.status = Status::skipped;
        r.reason = e.what();
        r.samples.clear();
        r.verified = false;
    } catch (const std::exception& e) {
        r.status = Status::failed;
        r.reason = e.what();
        r.verified = false;
    }
    finish(r, opts, clock.resolution_s());
    return r;
}

void finish(CaseResult& r, const RunOptions& opts, double resolution_s) {
    std::vector<double> walls;
    for (const auto& smp : r.samples) walls.push_back(smp.wall_s);
    r.stats = summarize(walls);
    r.warnings.clear();
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
        if (warm > 0)
            r.warnings.push_back({"not-cold", name,
                                  fmt::format("{} of {} cold iterations started with up to {:.0f}% of the input in "
                                              "the page cache; the filesystem may ignore POSIX_FADV_DONTNEED "
                                              "(as root, try --drop-caches)",
                                              warm, r.samples.size(), worst * 100)});
    }
    if (r.stats.median > 0 && r.stats.median < 1000 * resolution_s)
        r.warnings.push_back({"resolution", name,
                              "the median time is under 1,000 ticks of the clock; use a larger --size for a "
                              "meaningful figure"});
}

CaseResult run_case_forked(const CaseSpec& spec, const RunOptions& opts, const ScratchDir& dir) {
    RunOptions child_opts = opts;
    child_opts.forks = 0;
    CaseResult pooled;
    pooled.spec = spec;
    pooled.verified = true;
    for (unsigned f = 0; f < opts.forks; ++f) {
        int fds[2];
        if (::pipe2(fds, O_CLOEXEC) != 0) throw IoError(errno, "create a pipe for", "a forked run");
        std::fflush(nullptr);
        const pid_t pid = ::fork();
        if (pid < 0) throw IoError(errno, "fork", "");
        if (pid == 0) {
            interrupt::prepare_child();
            ::close(fds[0]);
            const CaseResult cr = run_case(spec, child_opts, dir);
            nlohmann::json j{{"status", to_string(cr.status)}, {"reason", cr.reason}, {"samples", cr.samples}};
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
        if (interrupt::requested()) {
            pooled.status = Status::failed;
            pooled.reason = "interrupted";
            pooled.verified = false;
            break;
        }
        const auto j = nlohmann::json::parse(text, nullptr, false);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || j.is_discarded()) {
            pooled.status = Status::failed;
            pooled.reason = fmt::format("fork {} ended abnormally (status {:#x})", f + 1, status);
            pooled.verified = false;
            break;
        }
        const auto child_status = j.at("status").get<std::string>();
        if (child_status != "ok") {
            pooled.status = child_status == "skipped" ? Status::skipped : Status::failed;
            pooled.reason = j.at("reason").get<std::string>();
            pooled.verified = false;
            break;
        }
        for (const auto& smp : j.at("samples")) pooled.samples.push_back(smp.get<Sample>());
    }
    finish(pooled, opts, system_clock().resolution_s());
    return pooled;
}

}  // namespace iolab
