// The options of run and replicate.
#include "run_options.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "common.hpp"
#include "iolab/harness/params.hpp"
#include "iolab/report/exporter.hpp"
#include "iolab/sys/io.hpp"

namespace iolab::cli {

// --input: an existing regular file, or a block device with --allow-device. Returns its size.
std::uint64_t checked_input(const RunArgs& a) {
    struct stat st {};
    if (::stat(a.input.c_str(), &st) != 0)
        throw InputError(
            fmt::format("invalid --input '{}': {}; expected an existing file", a.input, std::strerror(errno)));
    if (S_ISDIR(st.st_mode))
        throw InputError(fmt::format("invalid --input '{}': it is a folder; expected a file", a.input));
    if (S_ISCHR(st.st_mode))
        throw InputError(
            fmt::format("invalid --input '{}': it is a character device, a stream without an end that "
                        "cannot be read twice alike; expected a file or a block device",
                        a.input));
    if (S_ISBLK(st.st_mode) && !a.allow_device)
        throw InputError(
            fmt::format("--input '{}' is a block device: add --allow-device to read it (iolab never "
                        "writes to it)",
                        a.input));
    if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
        throw InputError(fmt::format("invalid --input '{}': expected a regular file or a block device", a.input));
    try {
        const std::uint64_t size = sys::file_size(sys::open(a.input, O_RDONLY));
        if (size == 0) throw InputError(fmt::format("invalid --input '{}': it is empty", a.input));
        return size;
    } catch (const IoError& e) {
        throw InputError(e.what());
    }
}

bool RunArgs::given(std::string_view key) const {
    const auto o = options.find(key);
    return o != options.end() &&
           std::any_of(o->second.begin(), o->second.end(), [](const CLI::Option* opt) { return opt->count() > 0; });
}

const std::string& RunArgs::output(std::string_view option) const {
    static const std::string none;
    const auto it = outputs.find(option);
    return it == outputs.end() ? none : it->second;
}

// Every setting given on the command line replaces the suite's value in every group.
void apply_overrides(const RunArgs& a, Suite& suite) {
    check_given_together(
        [&](std::string_view key) {
            if (key == "iterations=auto")
                return a.given("iterations") && a.values.at("iterations") == std::vector<std::string>{"auto"};
            return a.given(key);
        },
        Syntax::command_line);
    if (a.given("time_budget") && a.smoke)
        throw InputError("--time-budget and --smoke exclude each other: a smoke run measures each case once");
    if (!a.input.empty() && a.given("size"))
        throw InputError("--size and --input exclude each other: the input's size is used");
    const std::uint64_t input_size = a.input.empty() ? 0 : checked_input(a);
    for (auto& g : suite.groups) {
        if (!a.input.empty()) {
            // Absolute: the tools that read it run inside the scratch folder.
            g.plan.input = std::filesystem::absolute(a.input).lexically_normal().string();
            g.plan.sizes = {input_size};
        }
        for (const Parameter& s : parameters()) {
            if (!s.setting() || !a.given(s.key)) continue;
            std::string value = a.flags.count(s.key) && a.flags.at(s.key) ? "true" : "false";
            if (s.kind != Parameter::Kind::flag) {
                const auto& given = a.values.at(s.key);
                if (s.kind == Parameter::Kind::one && given.size() > 1)
                    throw InputError(one_line(fmt::format("{} is given {} times ('{}'): give it once",
                                                          setting_name(s.key, Syntax::command_line), given.size(),
                                                          fmt::join(given, "', '"))));
                value = fmt::format("{}", fmt::join(given, ","));
            }
            apply_setting(s, value, Syntax::command_line, g.plan, g.options);
        }
        for (const Exporter& e : exporters())
            if (e.needs_timeline && !a.output(e.option).empty()) g.options.timeline = true;
        check_settings(g.plan, g.options, Syntax::command_line);
    }
    // A setting some strategies take, given to a run none of whose strategies does.
    std::vector<const Strategy*> chosen;
    for (const auto& g : suite.groups)
        for (const Strategy* s : chosen_strategies(g.plan.strategies)) chosen.push_back(s);
    if (!suite.groups.empty()) check_taken(suite.groups.front().plan, chosen);
}

Suite load_named(const std::string& name) { return builtin_suite(name); }

// What `iolab run` is asked to run, as a suite.
Suite requested_suite(const RunArgs& a) {
    if (!a.suite.empty() && !a.suite_file.empty()) throw InputError("give a suite name or --suite-file, not both");
    if ((!a.suite.empty() || !a.suite_file.empty()) && !a.strategies.empty())
        throw InputError("--strategy picks cases for a run without a suite; a suite names its own");
    Suite suite;
    if (!a.suite_file.empty()) {
        suite = load_suite_file(a.suite_file);
    } else if (!a.suite.empty() || a.strategies.empty()) {
        suite = load_named(a.suite.empty() ? "quick" : a.suite);
    } else {
        suite.name = "custom";
        Group g;
        g.plan.strategies = split_commas(a.strategies);
        if (g.plan.strategies.empty())
            throw InputError(
                fmt::format("invalid --strategy '{}': expected a strategy name or glob (see iolab list "
                            "--names)",
                            fmt::join(a.strategies, ",")));
        suite.groups.push_back(std::move(g));
    }
    return suite;
}

// Options shared by run and replicate.
void add_run_options(CLI::App* cmd, RunArgs& a) {
    for (const Parameter& s : parameters()) {
        if (!s.setting()) continue;
        const std::string name = setting_name(s.key, Syntax::command_line);
        if (s.kind == Parameter::Kind::flag) {
            a.options[s.key].push_back(cmd->add_flag(name, a.flags[s.key], std::string(s.help)));
        } else {
            // A list is repeatable: --chain A --chain B is --chain A,B.
            a.options[s.key].push_back(
                cmd->add_option(name, a.values[s.key], std::string(s.help))->expected(1)->take_all());
        }
    }
    cmd->add_option("--input", a.input,
                    "Read (or copy) this existing file instead of generated data; read and copy strategies only, "
                    "and it is never written");
    cmd->add_flag("--allow-device", a.allow_device, "Let --input be a block device (it is only read)");
    cmd->add_option("--dir", a.dir, "Parent of the scratch folder (default: the system temp folder)");
    cmd->add_flag("--keep", a.keep, "Keep the scratch folder and print its path");
    for (const Exporter& e : exporters())
        cmd->add_option("--" + std::string(e.option), a.outputs[e.option], std::string(e.help));
    cmd->add_flag("--force", a.force, "Replace existing result files");
    cmd->add_option("--save-baseline", a.save_baseline,
                    "Keep the result as the baseline NAME, in .iolab/baselines/NAME.json under the current folder");
    cmd->add_option("--baseline", a.baseline,
                    "Compare the run with a baseline (a name kept by --save-baseline, or a --json file), case by case");
    cmd->add_option("--fail-if-slower", a.fail_if_slower,
                    "With --baseline: exit 1 when a case is surely slower by more than this (5%) (docs/ci.md)");
    cmd->add_option("--between-runs", a.between_runs,
                    "With --baseline: widen every interval by this spread between runs (default: iolab calibrate's "
                    "here, else 10%)");
    cmd->add_flag("--allow-missing", a.allow_missing,
                  "With --fail-if-slower: cases of the baseline this run does not test do not fail the gate");
    cmd->add_flag("-q,--quiet", a.quiet, "No tables or progress on the terminal");
    cmd->add_flag(
        "--all", a.all,
        "Every row of every table, and every warning (a terminal shows the winners, the next few and the slowest)");
    cmd->add_flag("--smoke", a.smoke, "Tiny sizes and one iteration: check that a suite runs, measure nothing");
    cmd->add_flag("--mpi", a.mpi,
                  "Run as one rank of an MPI job (mpirun -np N iolab run --mpi ...): every rank runs the plan at "
                  "once, rank 0 writes the report (docs/parallel.md)");
    a.options["mpi_timeout"].push_back(
        cmd->add_option("--mpi-timeout", a.mpi_timeout,
                        "With --mpi: the longest a rank waits for the others at any point before the job is ended "
                        "(default 600s)"));
    a.options["rank_shift"].push_back(
        cmd->add_option("--rank-shift", a.rank_shift,
                        "With --mpi: rank R reads and copies the input made by rank R+N (IOR's -C), so that no host "
                        "reads from its own page cache what it wrote"));
}

}  // namespace iolab::cli
