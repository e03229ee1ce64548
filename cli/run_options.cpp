// The options of run and replicate.
#include "run_options.hpp"

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
#include "common.hpp"

namespace iolab::cli {

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

namespace {

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

}  // namespace

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

}  // namespace iolab::cli
