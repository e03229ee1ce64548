// The iolab command: parses arguments into the library's requests and prints its results.
// Bad input is one line on stderr and exit status 2; a failed case makes the status 1.
#include "app.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <fcntl.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "iolab/core/interrupt.hpp"
#include "iolab/core/scratch.hpp"
#include "iolab/core/timeline.hpp"
#include "iolab/core/units.hpp"
#include "iolab/harness/environment.hpp"
#include "iolab/harness/limits.hpp"
#include "iolab/harness/plan.hpp"
#include "iolab/report/session.hpp"
#include "iolab/report/compare.hpp"
#include "iolab/report/csv.hpp"
#include "iolab/report/read.hpp"
#include "iolab/report/json.hpp"
#include "iolab/report/markdown.hpp"
#include "iolab/report/output_file.hpp"
#include "iolab/report/table.hpp"
#include "iolab/suite/suite.hpp"
#include "iolab/sys/error.hpp"
#include "iolab/sys/io.hpp"

namespace {

using namespace iolab;

// Bad input: reported as one line, exit status 2.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

std::vector<std::string> split_commas(const std::vector<std::string>& items) {
    std::vector<std::string> out;
    for (const auto& item : items) {
        std::size_t start = 0;
        while (start <= item.size()) {
            const std::size_t comma = std::min(item.find(',', start), item.size());
            if (comma > start) out.push_back(item.substr(start, comma - start));
            start = comma + 1;
        }
    }
    return out;
}

int list_strategies(const std::string& family_filter, bool names_only) {
    std::optional<Family> family;
    if (!family_filter.empty()) {
        family = parse_family(family_filter);
        if (!family) throw UsageError(fmt::format("unknown family '{}': expected read, write or copy", family_filter));
    }
    const std::string dir = default_scratch_parent();
    for (const auto& s : Registry::builtin().all()) {
        if (family && s.family != *family) continue;
        if (names_only) {
            fmt::print("{}\n", s.name);
            continue;
        }
        const auto why = s.skip_reason(dir);
        fmt::print("{:<6} {:<30} {}\n", to_string(s.family), s.name, s.description);
        if (!s.jvm.empty()) fmt::print("{:<6} {:<30}   like {}\n", "", "", s.jvm);
        fmt::print("{:<6} {:<30}   {}\n", "", "", why ? "skipped here: " + *why : std::string("available"));
    }
    return 0;
}

// --dir: an existing, writable folder that is not a symbolic link.
std::string checked_dir(const std::string& dir) {
    if (dir.empty()) return default_scratch_parent();
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0)
        throw UsageError(fmt::format("invalid --dir '{}': it does not exist; expected an existing folder", dir));
    if (S_ISLNK(st.st_mode))
        throw UsageError(fmt::format("invalid --dir '{}': it is a symbolic link; name the folder itself", dir));
    if (S_ISBLK(st.st_mode) || S_ISCHR(st.st_mode))
        throw UsageError(fmt::format("invalid --dir '{}': it is a device, not a folder; iolab writes only into a "
                                     "folder (to read a block device: --input DEVICE --allow-device)",
                                     dir));
    if (!S_ISDIR(st.st_mode))
        throw UsageError(fmt::format("invalid --dir '{}': it is not a folder", dir));
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
        throw UsageError(fmt::format("invalid --dir '{}': it is not writable", dir));
    return dir;
}

int show_info(const std::string& dir, bool limits, bool device, const std::string& device_size) {
    const Environment e = collect_environment(checked_dir(dir));
    fmt::print("iolab         {} (commit {}, {} build, {})\n", e.iolab_version, e.commit, e.build_type, e.compiler);
    fmt::print("kernel        Linux {}\n", e.kernel);
    fmt::print("cpu           {} x {}\n", e.cpus, e.cpu_model);
    fmt::print("memory        {}\n", format_size(e.memory_bytes));
    fmt::print("scratch       {} ({}, {})\n", e.scratch_dir, e.fs_type.empty() ? "unknown" : e.fs_type,
               e.mount_options);
    fmt::print("device        {}{}{}\n", e.device.empty() ? "none" : e.device,
               e.device_model.empty() ? "" : " (" + e.device_model + ")",
               e.rotational < 0 ? "" : (e.rotational ? ", rotational" : ", non-rotational"));
    fmt::print("date          {}\n", e.date);
    if (limits) {
        Limits l = measure_memory_limits();
        fmt::print("memcpy        {:.0f} MiB/s into a 64 KiB buffer (the limit of a page-cache read)\n",
                   l.memcpy_cache_mib_s);
        fmt::print("memcpy        {:.0f} MiB/s from 256 MiB to 256 MiB (the limit of a cached copy)\n",
                   l.memcpy_large_mib_s);
        if (device) {
            std::uint64_t size = 1ull << 30;
            try {
                if (!device_size.empty()) size = parse_size(device_size);
            } catch (const std::invalid_argument& ex) {
                throw UsageError(ex.what());
            }
            if (size == 0) throw UsageError("invalid --size '0': expected a size of at least 1 byte");
            const std::string where = checked_dir(dir);
            if (free_space(where) < size + (16ull << 20))
                throw UsageError(fmt::format("not enough free space in '{}' for a {} test file", where, format_size(size)));
            measure_device_limit(l, where, size);
            if (l.device_read_mib_s > 0)
                fmt::print("device read   {:.0f} MiB/s ({})\n", l.device_read_mib_s, l.device_note);
            else
                fmt::print("device read   not measured: {}\n", l.device_note);
        }
    }
    return 0;
}

struct RunArgs {
    std::string suite, suite_file;
    std::vector<std::string> strategies;
    std::string size, buffer, record, count, data;
    std::string cache, sync, warmup, iterations, forks, verify, precision, budget;
    std::string queue, iov, feed, throttle, byte_slice;
    std::vector<std::string> chains;
    std::string dir, json, csv, markdown, trace, input;
    bool keep = false, quiet = false, force = false, drop_caches = false, smoke = false, allow_device = false;
};

// --input: an existing regular file, or a block device with --allow-device. Returns its size.
std::uint64_t checked_input(const RunArgs& a) {
    struct stat st {};
    if (::stat(a.input.c_str(), &st) != 0)
        throw UsageError(fmt::format("invalid --input '{}': {}; expected an existing file", a.input, std::strerror(errno)));
    if (S_ISDIR(st.st_mode)) throw UsageError(fmt::format("invalid --input '{}': it is a folder; expected a file", a.input));
    if (S_ISCHR(st.st_mode))
        throw UsageError(fmt::format("invalid --input '{}': it is a character device, a stream without an end that "
                                     "cannot be read twice alike; expected a file or a block device",
                                     a.input));
    if (S_ISBLK(st.st_mode) && !a.allow_device)
        throw UsageError(fmt::format("--input '{}' is a block device: add --allow-device to read it (iolab never "
                                     "writes to it)",
                                     a.input));
    if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
        throw UsageError(fmt::format("invalid --input '{}': expected a regular file or a block device", a.input));
    try {
        const std::uint64_t size = sys::file_size(sys::open(a.input, O_RDONLY));
        if (size == 0) throw UsageError(fmt::format("invalid --input '{}': it is empty", a.input));
        return size;
    } catch (const IoError& e) {
        throw UsageError(e.what());
    }
}

std::vector<unsigned> parse_counts(const std::string& text, const char* what) {
    std::vector<unsigned> out;
    for (const auto& item : split_commas({text})) {
        const auto n = parse_amount(item, what, false);
        if (n.seconds > 0 || n.count > 1'000'000)
            throw UsageError(fmt::format("invalid {} '{}': expected a whole number", what, item));
        out.push_back(static_cast<unsigned>(n.count));
    }
    if (out.empty()) throw UsageError(fmt::format("invalid {} '{}': expected a whole number", what, text));
    return out;
}

// Every option given on the command line replaces the suite's value in every group.
void apply_overrides(const RunArgs& a, Suite& suite) {
    try {
        for (auto& g : suite.groups) {
            PlanRequest& req = g.plan;
            RunOptions& opts = g.options;
            if (!a.input.empty()) {
                if (!a.size.empty()) throw UsageError("--size and --input exclude each other: the input's size is used");
                req.input = a.input;
                req.sizes = {checked_input(a)};
            }
            if (!a.size.empty()) {
                req.sizes = parse_size_list(a.size);
                for (auto s : req.sizes)
                    if (s == 0) throw UsageError("invalid --size '0': expected a size of at least 1 byte");
            }
            if (!a.buffer.empty()) {
                req.buffers.clear();
                for (auto b : parse_size_list(a.buffer)) req.buffers.push_back(b);
            }
            if (!a.record.empty()) {
                req.records.clear();
                for (auto r : parse_size_list(a.record)) req.records.push_back(r);
            }
            if (!a.count.empty()) {
                const auto c = parse_amount(a.count, "--count", false);
                if (c.seconds > 0) throw UsageError(fmt::format("invalid --count '{}': expected a number of records", a.count));
                req.count = c.count;
            }
            if (!a.data.empty()) req.data = parse_data_spec(a.data);
            if (!a.byte_slice.empty()) {
                req.byte_slice = byte_slice_from(parse_size(a.byte_slice));
            }
            if (!a.queue.empty()) req.queues = parse_counts(a.queue, "--queue");
            if (!a.iov.empty()) req.iovs = parse_counts(a.iov, "--iov");
            if (!a.chains.empty()) req.chains = split_commas(a.chains);
            if (!a.feed.empty()) {
                req.feeds.clear();
                for (const auto& f : split_commas({a.feed})) {
                    if (f != "byte" && f != "record")
                        throw UsageError(fmt::format("invalid --feed '{}': expected byte or record", f));
                    req.feeds.push_back(f == "byte");
                }
            }
            if (!a.warmup.empty()) opts.warmup = parse_amount(a.warmup, "--warmup", true);
            if (!a.iterations.empty()) opts.iterations = parse_amount(a.iterations, "--iterations", false, true);
            if (!a.verify.empty()) opts.verify = parse_verify_mode(a.verify, "--verify");
            if (!a.precision.empty()) opts.precision = parse_precision(a.precision, "--precision");
            if (!a.budget.empty()) opts.budget_s = parse_budget(a.budget, "--budget");
            if (!a.forks.empty()) {
                const auto f = parse_amount(a.forks, "--forks", true);
                if (f.seconds > 0 || f.count > 64)
                    throw UsageError(fmt::format("invalid --forks '{}': expected 0 to 64", a.forks));
                opts.forks = static_cast<unsigned>(f.count);
            }
            if (!a.throttle.empty()) opts.throttle = parse_rate(a.throttle);
            if (!a.trace.empty()) opts.timeline = true;
            if (!a.cache.empty()) {
                if (a.cache == "warm") opts.cache = CacheMode::warm;
                else if (a.cache == "cold") opts.cache = CacheMode::cold;
                else if (a.cache == "direct") opts.cache = CacheMode::direct;
                else throw UsageError(fmt::format("invalid --cache '{}': expected warm, cold or direct", a.cache));
            }
            if (!a.sync.empty()) {
                if (a.sync == "none") opts.sync = SyncPolicy::none;
                else if (a.sync == "fsync") opts.sync = SyncPolicy::fsync;
                else if (a.sync == "fdatasync") opts.sync = SyncPolicy::fdatasync;
                else throw UsageError(fmt::format("invalid --sync '{}': expected none, fsync or fdatasync", a.sync));
            }
            if (a.drop_caches) {
                if (opts.cache != CacheMode::cold) throw UsageError("--drop-caches needs --cache cold");
                opts.drop_caches = true;
            }
        }
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
}

Suite load_named(const std::string& name) {
    try {
        return builtin_suite(name);
    } catch (const SuiteError& e) {
        throw UsageError(e.what());
    }
}

// What `iolab run` is asked to run, as a suite.
Suite requested_suite(const RunArgs& a) {
    if (!a.suite.empty() && !a.suite_file.empty()) throw UsageError("give a suite name or --suite-file, not both");
    if ((!a.suite.empty() || !a.suite_file.empty()) && !a.strategies.empty())
        throw UsageError("--strategy picks cases for a run without a suite; a suite names its own");
    Suite suite;
    if (!a.suite_file.empty()) {
        try {
            suite = load_suite_file(a.suite_file);
        } catch (const SuiteError& e) {
            throw UsageError(e.what());
        }
    } else if (!a.suite.empty() || a.strategies.empty()) {
        suite = load_named(a.suite.empty() ? "quick" : a.suite);
    } else {
        suite.name = "custom";
        Group g;
        g.plan.patterns = split_commas(a.strategies);
        if (g.plan.patterns.empty())
            throw UsageError(fmt::format("invalid --strategy '{}': expected a strategy name or glob (see iolab list "
                                         "--names)",
                                         fmt::join(a.strategies, ",")));
        suite.groups.push_back(std::move(g));
    }
    return suite;
}

void write_exports(const RunArgs& a, const Report& report) {
    if (!a.json.empty()) write_file_atomically(a.json, to_json(report), a.force);
    if (!a.csv.empty()) write_file_atomically(a.csv, to_csv(report), a.force);
    if (!a.markdown.empty()) write_file_atomically(a.markdown, to_markdown(report), a.force);
    if (!a.trace.empty()) {
        std::vector<const Timeline*> timelines;
        std::vector<std::string> names;
        for (const auto& c : report.cases)
            if (c.timeline) {
                timelines.push_back(c.timeline.get());
                names.push_back(c.spec.label());
            }
        write_file_atomically(a.trace, chrome_trace_json(timelines, names), a.force);
    }
}

// Validation only, or small runs only (the fuzz targets use them).
Mode g_mode = Mode::normal;
std::string g_small_dir;

// Whether a validated suite is small enough for Mode::small: tiny files, few cases, nothing
// that waits (a throttle) or forks.
bool small_enough(const Suite& suite) {
    std::size_t cases = 0;
    for (const auto& g : suite.groups) {
        if (g.options.throttle > 0 || g.options.forks > 0 || g.options.drop_caches) return false;
        for (const auto& c : group_cases(g)) {
            if (++cases > 24 || c.workload.bytes() > (256u << 10) || memory_needed(c) > (16u << 20)) return false;
        }
    }
    return true;
}

int run_suite(const RunArgs& a, Suite suite) {
    if (a.smoke) make_smoke(suite);
    apply_overrides(a, suite);
    if (a.drop_caches && ::geteuid() != 0) throw UsageError("--drop-caches needs root (it writes /proc/sys/vm/drop_caches)");
    std::uint64_t needed = 0;
    // Memory is bounded: no case may hold more than half of this machine's memory.
    const std::uint64_t memory_limit =
        static_cast<std::uint64_t>(::sysconf(_SC_PHYS_PAGES)) * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE)) / 2;
    try {
        std::size_t total = 0;
        for (const auto& g : suite.groups) {
            const auto cases = group_cases(g);
            total += cases.size();
            if (total > kMaxCases)
                throw UsageError(fmt::format("the run has more than {} cases in all; narrow --strategy or the lists",
                                             kMaxCases));
            needed = std::max(needed, scratch_needed(cases));
            for (const auto& c : cases)
                if (memory_needed(c) > memory_limit)
                    throw UsageError(fmt::format("{} would hold {} in memory (its buffers, queue and records); the "
                                                 "limit is {}, half of this machine's memory",
                                                 c.label(), format_size(memory_needed(c)), format_size(memory_limit)));
        }
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
    const std::string dir = checked_dir(g_mode == Mode::small ? g_small_dir : a.dir);
    try {
        std::vector<ResultPath> results;
        for (const auto& [option, path] : {std::pair{"--json", &a.json}, std::pair{"--csv", &a.csv},
                                           std::pair{"--markdown", &a.markdown}, std::pair{"--trace", &a.trace}})
            if (!path->empty()) results.push_back({option, *path});
        check_output_paths(results, a.force, a.input);
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
    // The largest case's files plus a margin, checked before anything is created.
    needed = saturating_add(needed, 16ull << 20);
    const std::uint64_t available = free_space(dir);
    if (available < needed)
        throw UsageError(fmt::format("not enough free space in '{}': the workload needs {} and {} is free", dir,
                                     format_size(needed), format_size(available)));

    if (g_mode == Mode::validate) return 0;
    if (g_mode == Mode::small) {
        if (!small_enough(suite)) return 0;
        for (auto& g : suite.groups) {
            g.options.warmup = Amount{0, 0};
            g.options.iterations = Amount{1, 0};
            g.options.timeline = false;
        }
    }
    // Folders left by runs that were killed are named, never removed without being asked.
    if (const auto stale = find_stale_scratch(dir); !stale.empty()) {
        std::vector<std::string> names;
        for (const auto& st : stale)
            names.push_back(one_line(st.path.substr(st.path.rfind('/') + 1) +
                                     (st.owner.empty() ? std::string() : " (" + st.owner + ")")));
        fmt::print(stderr, "iolab: {} scratch folder(s) in '{}' were left by runs that were killed: {}; 'iolab clean "
                           "--dir {}' removes them\n",
                   stale.size(), dir, fmt::join(names, ", "), dir);
    }
    const bool progress = !a.quiet && ::isatty(STDERR_FILENO);
    const auto start = std::chrono::steady_clock::now();
    SessionSettings settings;
    settings.suite = suite.name;
    settings.description = suite.description;
    settings.scratch_parent = dir;
    settings.keep = a.keep && g_mode == Mode::normal;
    settings.limits = g_mode != Mode::small;  // small runs: no 256 MiB memcpy reference
    settings.on_case = [&](std::size_t i, std::size_t n, const CaseSpec& c) {
        if (!progress) return;
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        fmt::print(stderr, "\r\x1b[K[{}/{}] {} ({:.0f}s)", i + 1, n, c.label(), elapsed);
        std::fflush(stderr);
    };
    std::string kept;
    const Report report = run_session(suite, settings, &kept);
    if (progress) fmt::print(stderr, "\r\x1b[K");

    const char* no_colour = std::getenv("NO_COLOR");
    const bool colour = ::isatty(STDOUT_FILENO) && !(no_colour && *no_colour);
    if (!a.quiet && g_mode == Mode::normal) fmt::print("{}", render_terminal(report, colour));
    if (g_mode == Mode::small) {
        // The fuzz target runs it: render every export in memory, write none.
        (void)render_terminal(report, false);
        (void)to_json(report);
        (void)to_csv(report);
        (void)to_markdown(report);
        return report.any_failed() ? 1 : 0;
    }
    write_exports(a, report);
    if (!kept.empty()) fmt::print(stderr, "scratch folder kept: {}\n", kept);
    if (const int sig = interrupt::signal_received()) {
        fmt::print(stderr, "iolab: interrupted by signal {}: {} of the planned cases completed{}\n", sig,
                   report.cases.size(), a.json.empty() && a.csv.empty() && a.markdown.empty()
                                            ? std::string()
                                            : "; the result files are marked partial");
        return 128 + sig;
    }
    return report.any_failed() ? 1 : 0;
}

int run(const RunArgs& a) { return run_suite(a, requested_suite(a)); }

int replicate(const RunArgs& a) {
    std::vector<Suite> suites;
    for (const auto& name : replication_suites()) suites.push_back(load_named(name));
    return run_suite(a, combine(suites, "replicate"));
}

// iolab clean: removes the scratch folders that killed runs left (only iolab's, only unlocked).
int clean(const std::string& parent) {
    const std::string dir = checked_dir(parent);
    const auto stale = find_stale_scratch(dir);
    for (const auto& st : stale) {
        const auto slash = st.path.rfind('/');
        const sys::Fd d = sys::open(dir, O_RDONLY | O_DIRECTORY);
        remove_tree_at(d.get(), st.path.substr(slash + 1));
        fmt::print("removed {}{}\n", one_line(st.path), st.owner.empty() ? "" : one_line(" (" + st.owner + ")"));
    }
    if (stale.empty()) fmt::print("no stale scratch folders in {}\n", one_line(dir));
    return 0;
}

int list_suites() {
    for (const auto& name : builtin_suite_names()) {
        const Suite s = load_named(name);
        fmt::print("{:<16} {}\n", name, s.description);
    }
    return 0;
}

// Options shared by run and replicate.
void add_run_options(CLI::App* cmd, RunArgs& a) {
    cmd->add_option("--size", a.size, "File size(s): 64M, 1.5G; lists 1M,64M and ranges 4K..1M");
    cmd->add_option("--buffer", a.buffer, "Buffer size(s) for strategies that take one");
    cmd->add_option("--record", a.record, "Record size(s) for writes");
    cmd->add_option("--count", a.count, "Records per written file (default: size / record)");
    cmd->add_option("--data", a.data, "random, text, zeros or compressible:R");
    cmd->add_option("--byte-slice", a.byte_slice, "Byte-at-a-time strategies run on this much (default 1M; 0: all)");
    cmd->add_option("--cache", a.cache, "warm, cold or direct");
    cmd->add_flag("--drop-caches", a.drop_caches, "With --cache cold, as root: also drop the kernel's caches");
    cmd->add_option("--sync", a.sync, "none, fsync or fdatasync: durability inside the timed part");
    cmd->add_option("--warmup", a.warmup, "Warm-up iterations (N) or time (2s)");
    cmd->add_option("--iterations", a.iterations,
                    "Measured iterations: auto (default: until --precision or --budget), N, or a target time (2s)");
    cmd->add_option("--precision", a.precision,
                    "With --iterations auto: stop a case when its median's 95% interval is within this (default 3%)");
    cmd->add_option("--budget", a.budget, "With --iterations auto: measured time per case at most (default 1.5s)");
    cmd->add_option("--verify", a.verify,
                    "sampled (default): measured reads check a fingerprint of every page; full: hash every byte "
                    "inside the clock");
    cmd->add_option("--forks", a.forks, "Run each case in N child processes and pool their samples");
    cmd->add_option("--queue", a.queue, "Queue depth(s): io_uring entries, pipelined buffers (default 8)");
    cmd->add_option("--iov", a.iov, "Buffers or records per readv/writev call (default 16)");
    cmd->add_option("--chain", a.chains, "write.chain layers, outermost first: buffer:64K>deflate:6>file");
    cmd->add_option("--feed", a.feed, "write.chain input: record (default) or byte, or both: byte,record");
    cmd->add_option("--throttle", a.throttle, "Limit the write side to RATE (1MiB/s): a simulated slow device");
    cmd->add_option("--trace", a.trace, "Write a Chrome trace (Perfetto) of the last iteration of copies that record one");
    cmd->add_option("--input", a.input,
                    "Read (or copy) this existing file instead of generated data; read and copy strategies only, "
                    "and it is never written");
    cmd->add_flag("--allow-device", a.allow_device, "Let --input be a block device (it is only read)");
    cmd->add_option("--dir", a.dir, "Parent of the scratch folder (default: the system temp folder)");
    cmd->add_flag("--keep", a.keep, "Keep the scratch folder and print its path");
    cmd->add_option("--json", a.json, "Write the results as JSON");
    cmd->add_option("--csv", a.csv, "Write one CSV row per case");
    cmd->add_option("--markdown", a.markdown, "Write the ranked tables and findings as Markdown");
    cmd->add_flag("--force", a.force, "Replace existing result files");
    cmd->add_flag("-q,--quiet", a.quiet, "No tables or progress on the terminal");
    cmd->add_flag("--smoke", a.smoke, "Tiny sizes and one iteration: check that a suite runs, measure nothing");
}

}  // namespace

int iolab_main(int argc, char** argv, Mode mode, const std::string& small_dir) {
    g_mode = mode;
    g_small_dir = small_dir;
    const bool dry_run = mode != Mode::normal;  // nothing printed but by small runs
    CLI::App app{"iolab: measure the ways to read, write and copy files, honestly"};
    app.require_subcommand(1);

    std::string family;
    bool names = false;
    auto* list = app.add_subcommand("list", "List the strategies, with availability here");
    list->add_option("--family", family, "Only this family: read, write or copy");
    list->add_flag("--names", names, "One name per line");

    std::string info_dir, info_size;
    bool info_limits = false, info_device = false;
    auto* info = app.add_subcommand("info", "Describe this machine and the scratch filesystem");
    info->add_option("--dir", info_dir, "The folder whose filesystem to describe");
    info->add_flag("--limits", info_limits, "Measure the memory-copy limits of reads and copies");
    info->add_flag("--device", info_device, "With --limits: also the raw read speed of --dir's device (O_DIRECT)");
    info->add_option("--size", info_size, "With --device: the size of the test file (default 1G)");

    RunArgs a;
    auto* run_cmd = app.add_subcommand("run", "Measure strategies: a suite (default quick) or the cases you pick");
    run_cmd->add_option("suite", a.suite, "A built-in suite (see iolab suites)");
    run_cmd->add_option("--suite-file", a.suite_file, "Run the suite in this TOML file (docs/suites.md)");
    run_cmd->add_option("-s,--strategy", a.strategies, "A strategy name or glob (copy.*); repeatable, comma lists");
    add_run_options(run_cmd, a);

    auto* replicate_cmd = app.add_subcommand("replicate", "Re-run the five published experiments and check their findings");
    add_run_options(replicate_cmd, a);

    auto* suites_cmd = app.add_subcommand("suites", "List the built-in suites");

    std::string clean_dir;
    auto* clean_cmd = app.add_subcommand("clean", "Remove scratch folders left by runs that were killed");
    clean_cmd->add_option("--dir", clean_dir, "The folder to look in (default: the system temp folder)");

    std::string before, after;
    bool compare_md = false;
    auto* compare_cmd = app.add_subcommand("compare", "Compare two result files (--json) case by case");
    compare_cmd->add_option("before", before, "The first result file")->required();
    compare_cmd->add_option("after", after, "The second result file")->required();
    compare_cmd->add_flag("--markdown", compare_md, "Print the comparison as Markdown");

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return dry_run ? 0 : app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return dry_run ? 0 : app.exit(e);
    } catch (const CLI::ParseError& e) {
        if (dry_run) return 2;
        fmt::print(stderr, "iolab: {}\n", one_line(e.what()));
        return 2;
    }
    // An option given an empty value ("--size ''") is an error, not the default.
    for (const CLI::App* sub : app.get_subcommands())
        for (const CLI::Option* opt : sub->get_options())
            if (opt->count() > 0 && opt->get_expected_min() > 0)
                for (const auto& value : opt->results())
                    if (value.empty()) {
                        if (!dry_run)
                            fmt::print(stderr, "iolab: invalid {} '': expected a value\n",
                                       opt->get_name());
                        return 2;
                    }
    if (dry_run && (list->parsed() || info->parsed() || suites_cmd->parsed() || compare_cmd->parsed() ||
                    clean_cmd->parsed()))
        return 0;
    if (mode == Mode::small && !run_cmd->parsed()) return 0;  // replicate is never small
    try {
        if (list->parsed()) return list_strategies(family, names);
        if (info->parsed()) return show_info(info_dir, info_limits, info_device, info_size);
        if (run_cmd->parsed()) return run(a);
        if (replicate_cmd->parsed()) return replicate(a);
        if (suites_cmd->parsed()) return list_suites();
        if (clean_cmd->parsed()) return clean(clean_dir);
        if (compare_cmd->parsed()) {
            Report a, b;
            try {
                a = read_report_file(before);
                b = read_report_file(after);
            } catch (const ResultFormatError& e) {
                throw UsageError(e.what());
            }
            fmt::print("{}", render_comparison(a, b, compare_md));
            return 0;
        }
    } catch (const UsageError& e) {
        if (!dry_run) fmt::print(stderr, "iolab: {}\n", one_line(e.what()));
        return 2;
    } catch (const std::exception& e) {
        if (!dry_run) fmt::print(stderr, "iolab: {}\n", one_line(e.what()));
        return 1;
    }
    return 0;
}
