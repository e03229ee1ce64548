#include "command_line.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "iolab/core/family.hpp"
#include "iolab/core/names.hpp"
#include "iolab/core/units.hpp"
#include "iolab/harness/environment.hpp"
#include "iolab/harness/peers.hpp"
#include "iolab/suite/suite.hpp"

namespace iolab::cli {

namespace {

// "unknown command 'lst': did you mean 'list'?", or for an option of a command, or an argument.
std::string unknown_word(const std::string& word, const CLI::App& where) {
    std::vector<std::string> known;
    const bool option = word.starts_with("-");
    if (option) {
        for (const CLI::Option* o : where.get_options()) {
            for (const auto& l : o->get_lnames()) known.push_back("--" + l);
            for (const auto& s : o->get_snames()) known.push_back("-" + s);
        }
    } else {
        for (const CLI::App* sub : where.get_subcommands({})) known.push_back(sub->get_name());
    }
    const std::string name = option ? word.substr(0, word.find('=')) : word;
    const std::string meant = likely_meant(name, known);
    const std::string command = where.get_parent() ? "iolab " + where.get_name() : "iolab";
    const std::string what = option ? "option" : where.get_parent() ? "argument" : "command";
    return fmt::format(
        "unknown {} '{}' for {}{}", what, name, command,
        meant.empty() ? fmt::format("; see {} --help", command) : fmt::format(": did you mean '{}'?", meant));
}

// What `iolab replicate --help` ends with: the experiments, and the time each races its samples in.
// Their setup (inputs laid out, warm-ups, each run's own) comes on top and depends on the disk: each
// run's header says it, and a setup longer than an hour is refused up front.
std::string replication_help() {
    std::string out =
        "The experiments (iolab run NAME runs one; each races its samples in the time given, and sets up besides):\n";
    double total = 0;
    for (const auto& name : replication_suites()) {
        const Suite s = load_named(name);
        // pg_test_fsync runs beside durable cases, outside the budget: five methods of 1 s, and
        // the rest of its sections, about 16 s.
        const bool peer =
            !pg_test_fsync_program().empty() && std::any_of(s.groups.begin(), s.groups.end(), [](const Group& g) {
                return std::any_of(g.plan.strategies.begin(), g.plan.strategies.end(),
                                   [](const std::string& n) { return n.starts_with("durable."); });
            });
        const double budget = time_budget(s) + (peer ? 16 : 0);
        total += budget;
        out += fmt::format("  {:<16} {:.0f} s{}: {}\n", name, budget, peer ? " (16 s of it pg_test_fsync's)" : "",
                           s.description);
    }
    out += fmt::format(
        "All {}: about {:.0f} min (--time-budget sets the samples' part), plus setting up: laying out the inputs, "
        "warm-ups and each run's own setup, which the header of each run says.",
        replication_suites().size(), total / 60);
    return out;
}

}  // namespace

CommandLine::CommandLine(CLI::App& app) {
    app.require_subcommand(1);
    app.set_version_flag("--version", version_line(), "Print the version and the commit it was built from");
    add_inspecting(app);
    add_running(app);
    add_tools(app);
    // Arguments nobody takes are collected (not refused by CLI11), so that the error can say what
    // was probably meant.
    for (CLI::App* sub : app.get_subcommands({})) sub->allow_extras();
}

void CommandLine::add_inspecting(CLI::App& app) {
    list = app.add_subcommand("list", "List the strategies, with availability here");
    list->add_option("--family", family,
                     "Only this family: " + family_names() +
                         "; files: the four of trees of files; jvm: the published methods run in the JVM");
    list->add_flag("--names", names, "One name per line");
    info = app.add_subcommand("info", "Describe this machine and the scratch filesystem");
    info->add_option("--dir", info_dir, "The folder whose filesystem to describe");
    info->add_flag("--limits", info_limits, "Measure the memory-copy limits of reads and copies");
    info->add_flag("--device", info_device, "With --limits: also the raw read speed of --dir's device (O_DIRECT)");
    info->add_option("--size", info_size, "With --device: the size of the test file (default 1G)");
}

void CommandLine::add_running(CLI::App& app) {
    RunArgs& a = run_args;
    run = app.add_subcommand("run", "Measure strategies: a suite (default quick) or the cases you pick");
    run->add_option("suite", a.suite, "A built-in suite (see iolab suites)");
    run->add_option("--suite-file", a.suite_file, "Run the suite in this TOML file (docs/suites.md)");
    run->add_option("-s,--strategy", a.strategies, "A strategy name or glob (copy.*); repeatable, comma lists");
    add_run_options(run, a);
    replicate = app.add_subcommand(
        "replicate",
        "Re-run the published experiments (every suite that names one it replicates) and check their findings");
    add_run_options(replicate, a);
    replicate->footer(replication_help());
    suites = app.add_subcommand("suites", "List the built-in suites");
}

void CommandLine::add_tools(CLI::App& app) {
    tune = app.add_subcommand(
        "tune",
        "Measure the fastest reads, copies and buffers in a folder, for the library iolab::io (docs/library.md)");
    tune->add_option("--dir", tune_dir, "The folder whose filesystem to tune for (default: the system temp folder)");
    tune->add_option("--profile", tune_profile,
                     "Write the profile here instead of $XDG_CONFIG_HOME/iolab/profile (~/.config/iolab/profile)");
    tune->add_flag("--smoke", tune_smoke, "Tiny sizes: check that it works (writes only where --profile says)");
    tune->add_flag("-q,--quiet", tune_quiet, "No tables");
    clean = app.add_subcommand("clean", "Remove scratch folders left by runs that were killed");
    clean->add_option("--dir", clean_dir, "The folder to look in (default: the system temp folder)");
    clean->add_flag("--kept", clean_kept, "Also remove the folders runs kept with --keep");
    compare = app.add_subcommand("compare", "Compare two result files (--json) case by case; a CI gate (docs/ci.md)");
    compare->add_option("files", compare_files, "BEFORE AFTER: two result files; AFTER alone with --baseline");
    compare->add_option("--baseline", compare_baseline,
                        "The first run: a baseline kept by run --save-baseline (or a result file)");
    compare->add_option("--fail-if-slower", compare_threshold,
                        "Exit 1 when a case both runs measured is surely slower by more than this (5%)");
    compare->add_option("--between-runs", compare_between,
                        "Widen every interval by this spread between runs (default: iolab calibrate's here, else 10%)");
    compare->add_flag("--allow-missing", compare_allow_missing,
                      "Cases of the first run the second does not test do not fail the gate");
    calibrate = app.add_subcommand(
        "calibrate", "Measure this machine's noise (an A/A test, about 15 s): what a run can tell apart here");
    calibrate->add_option("--dir", calibrate_dir, "Parent of the scratch folder (default: the system temp folder)");
    calibrate->add_flag("--save", calibrate_save,
                        "Keep it in .iolab/calibration.json: the CI gate's margin between runs, and runs' headers");
    calibrate->add_flag("--force", calibrate_force, "With --save: replace the calibration kept before");
    compare->add_flag("--markdown", compare_md, "Print the comparison as Markdown (a CI job's summary)");
    report =
        app.add_subcommand("report", "Show result files (--json) again, or write them as one HTML report (--html)");
    report->add_option("files", report_files,
                       "Result files written by --json; several are shown side by side (with --history: added to the "
                       "baselines)");
    report->add_option("--html", report_html, "Write one self-contained HTML report with charts to this file");
    report->add_flag("--force", report_force, "Replace an existing --html file");
    report->add_flag("--all", report_all, "Every row of every table, and every warning");
    report->add_flag("--history", report_history,
                     "Each case over every baseline kept here (.iolab/baselines) and the files given, in date order");
    report->add_option("--fail-if-slower", report_threshold,
                       "With --history: the band around each case's latest median (default 5%), and a gate on the "
                       "latest run: exit 1 when a case is surely slower beyond it than in its run before, or is "
                       "missing, or nothing could be compared");
    report->add_option("--between-runs", report_between,
                       "With --history: widen every interval by this spread between runs (default: iolab "
                       "calibrate's here, else 10%)");
}

std::string short_usage() {
    return "usage: iolab <command> [options]\n"
           "\n"
           "The commands most people need:\n"
           "  run         measure: the quick suite (every strategy, a minute of samples), a suite, or -s the cases you "
           "pick\n"
           "  replicate   re-run the published experiments and say which findings hold here\n"
           "  compare     two saved runs (--json) side by side; with --fail-if-slower a CI gate\n"
           "  list        the strategies, with whether each can run here\n"
           "  info        this machine and the scratch filesystem\n"
           "\n"
           "'iolab --help' lists every command, 'iolab <command> --help' its options.\n";
}

void check_first_word(int argc, char** argv, const CLI::App& app) {
    if (argc < 2) return;
    const auto subs = app.get_subcommands({});
    if (argv[1][0] != '-' &&
        std::none_of(subs.begin(), subs.end(), [&](const CLI::App* s) { return s->get_name() == argv[1]; }))
        throw InputError(unknown_word(argv[1], app));
    // An option before any command: one of iolab's own (--help, --version), or an error saying
    // which was meant.
    if (argv[1][0] == '-') {
        const std::string word = std::string(argv[1]).substr(0, std::string_view(argv[1]).find('='));
        const auto opts = app.get_options();
        const bool known = std::any_of(opts.begin(), opts.end(), [&](const CLI::Option* o) {
            return (word.starts_with("--") && o->check_lname(word.substr(2))) ||
                   (word.size() == 2 && o->check_sname(word.substr(1)));
        });
        if (!known) throw InputError(unknown_word(word, app));
    }
}

void check_parsed(const CLI::App& app) {
    for (const CLI::App* sub : app.get_subcommands())
        if (!sub->remaining().empty()) throw InputError(unknown_word(sub->remaining().front(), *sub));
    // An option given an empty value ("--size ''") is an error, not the default.
    for (const CLI::App* sub : app.get_subcommands())
        for (const CLI::Option* opt : sub->get_options())
            if (opt->count() > 0 && opt->get_expected_min() > 0)
                for (const auto& value : opt->results())
                    if (value.empty())
                        throw InputError(fmt::format("invalid {} '': expected a value", opt->get_name()));
}

}  // namespace iolab::cli
