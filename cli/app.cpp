// The iolab command: parses arguments into the library's requests and prints its results.
// Bad input is one line on stderr and exit status 2; a failed case makes the status 1.
#include "app.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "baseline.hpp"
#include "checks.hpp"
#include "command_line.hpp"
#include "commands.hpp"
#include "common.hpp"
#include "iolab/core/interrupt.hpp"
#include "iolab/core/names.hpp"
#include "iolab/harness/environment.hpp"
#include "iolab/harness/limits.hpp"
#include "iolab/harness/measure.hpp"
#include "iolab/harness/team.hpp"
#include "iolab/report/analysis/compare.hpp"
#include "iolab/report/exporter.hpp"
#include "iolab/report/output_file.hpp"
#include "iolab/report/read/read.hpp"
#include "iolab/session/session.hpp"
#include "iolab/sys/mpi.hpp"
#include "mpi_rank.hpp"
#include "progress.hpp"
#include "run_options.hpp"

namespace {

// "iolab: LINE" on stderr, whatever stderr is: an error about a closed pipe must not become a
// second error while it is told.
void tell(const std::string& line) noexcept {
    std::fflush(stderr);
    const std::string text = "iolab: " + line + "\n";
    for (std::size_t done = 0; done < text.size();) {
        const ssize_t n = ::write(STDERR_FILENO, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        done += static_cast<std::size_t>(n);
    }
}

using namespace iolab;
using namespace iolab::cli;

// How the command was started: normally, or by a fuzz target (validation only, or small runs
// in `small_dir`).
struct Context {
    Mode mode = Mode::normal;
    std::string small_dir;
};

// Whether a validated run is small enough for Mode::small: tiny files, few cases, nothing that
// waits (a throttle) or forks.
bool small_enough(const Session& session) {
    for (const auto& g : session.suite().groups)
        if (g.options.throttle.active() || g.options.forks > 0 || g.options.drop_caches) return false;
    if (session.size() > 24) return false;
    for (const auto& cases : session.plan())
        for (const auto& c : cases)
            if (c.workload.bytes() > (256u << 10) || memory_needed(c) > (16u << 20)) return false;
    return true;
}

int run_suite_in(const Context& ctx, const RunArgs& a, Suite suite, bool reports);

int run_suite(const Context& ctx, const RunArgs& a, Suite suite) {
    apply_overrides(a, suite);
    if (a.smoke) make_smoke(suite);
    // Fuzz targets check an --mpi run's arguments, and never start MPI.
    MpiRank mpi(a, suite, ctx.mode == Mode::normal);
    if (a.mpi && ctx.mode == Mode::small) return 0;
    if (!mpi.active()) return run_suite_in(ctx, a, std::move(suite), true);
    try {
        return run_suite_in(ctx, a, std::move(suite), mpi.reports());
    } catch (const std::exception& e) {
        // Every rank has the same agreed error: rank 0 says it, and every rank ends normally.
        if (dynamic_cast<const Agreed*>(&e)) {
            if (mpi.reports()) tell(brief_line(e.what()));
            return dynamic_cast<const InputError*>(&e) ? 2 : 1;
        }
        // An error that escaped every agreement: the other ranks are waiting for this one. This
        // rank's scratch folder is gone (unwound); end every rank of the job now, saying why.
        tell(
            fmt::format("rank {} on {}: {}; ending every rank", team().rank(), sys::mpi::host(), brief_line(e.what())));
        sys::mpi::abort(dynamic_cast<const InputError*>(&e) ? 2 : 1);
    }
}

// The header's line of this machine's noise, from the calibration kept here (none: "").
std::string noise_line() {
    const auto c = saved_calibration();
    return c ? c->header() : std::string();
}

// A run built and checked before it makes anything: its session, the folder its scratch folder
// goes in, and the folders killed runs left there.
struct Checked {
    std::optional<Session> session;
    std::string dir;
    std::vector<ScratchFolder> stale;
    std::optional<Baseline> baseline;  // --baseline, read (rank 0)
    GateSettings gate;                 // --fail-if-slower, --between-runs, --allow-missing
    std::string noise;                 // this machine's calibration, for the header (rank 0)
    std::vector<std::string> sized;    // the counts sized by time, said before the run
};

// Under MPI every rank builds and checks; one rank's refusal is every rank's, and every rank must
// have been given the plan rank 0 was. Rank 0 looks for stale folders before any rank makes its own
// (after the agreement), so none is taken for stale. nullopt: refused, and said.
std::optional<Checked> check_run(const Context& ctx, const RunArgs& a, Suite suite, bool reports) {
    Checked c;
    const std::string dir_option = ctx.mode == Mode::small ? ctx.small_dir : a.dir;
    if (!team().mpi()) {
        c.session.emplace(std::move(suite));
        c.dir = check_before_run(a, *c.session, dir_option, reports);
        // Counts not given are sized by time here (one synced write measured in the folder); a smoke
        // run makes one iteration of a slice, and under MPI every rank must run the plan rank 0 has.
        // The space is checked for the counts the run will make.
        double synced = -1;  // one synced write here, measured once
        const auto sync_s = [&] { return synced < 0 ? synced = sync_seconds(c.dir) : synced; };
        if (ctx.mode == Mode::normal) c.sized = c.session->size_by_time(sync_s);
        c.session->check_space(c.dir);
        // A setup that cannot fit is refused before anything is made, with its estimate.
        if (ctx.mode == Mode::normal)
            check_setup(c.session->setup_estimate(
                            {sync_s, [&](std::uint64_t size) { return file_layout_seconds(c.dir, size); }}),
                        time_budget(c.session->suite()));
        if (reports) c.baseline = check_baselines(a, &c.gate);
        if (reports && ctx.mode == Mode::normal) c.noise = noise_line();
        if (ctx.mode == Mode::normal) c.stale = find_stale_scratch(c.dir);
        return c;
    }
    Outcome o = team().agree(outcome_of([&] { c.session.emplace(std::move(suite)); }));
    if (o.ok()) {
        const std::uint64_t plan = plan_fingerprint(a, *c.session);
        const bool same_plan = team().leader(plan) == plan;
        o = team().agree(outcome_of([&] {
            if (!same_plan)
                throw InputError(
                    "this rank was given another plan than rank 0 (other cases, sizes or settings): every rank "
                    "of an MPI job must run the same command");
            c.dir = check_before_run(a, *c.session, dir_option, reports);
            // Every rank's files: the ranks' --dir is one shared folder, or each rank checks its own host's.
            c.session->check_space(c.dir, static_cast<unsigned>(team().size()));
            if (reports) c.baseline = check_baselines(a, &c.gate);
            if (reports) c.noise = noise_line();
            if (reports) c.stale = find_stale_scratch(c.dir);
        }));
    }
    if (o.ok()) return c;
    if (reports) fmt::print(stderr, "iolab: {}\n", one_line(o.why));
    return std::nullopt;
}

// Folders left by runs that were killed are named, never removed without being asked.
void tell_stale(const std::vector<ScratchFolder>& stale, const std::string& dir) {
    if (stale.empty()) return;
    std::vector<std::string> names;
    for (const auto& st : stale)
        names.push_back(one_line(st.path.substr(st.path.rfind('/') + 1) +
                                 (st.owner.empty() ? std::string() : " (" + st.owner + ")")));
    fmt::print(stderr,
               "iolab: {} scratch folder(s) in '{}' were left by runs that were killed: {}; 'iolab clean --dir {}' "
               "removes them\n",
               stale.size(), one_line(dir), fmt::join(names, ", "), one_line(dir));
}

// Every result file asked for, each written whole or not at all.
void write_outputs(const RunArgs& a, const Report& report) {
    for (const Exporter& e : exporters())
        if (const std::string& path = a.output(e.option); !path.empty()) {
            const std::string text = e.render(report);
            write_file_atomically(path, text, a.force);
            if (e.option == "json" && text.size() > kMaxResultFileBytes)
                fmt::print(stderr,
                           "iolab: {} holds {}, more than the {} that 'iolab report' and 'iolab compare' read; "
                           "fewer cases or iterations a file keep it readable\n",
                           one_line(path), format_size(text.size()), format_size(kMaxResultFileBytes));
        }
}

// --save-baseline: the whole run kept under its name; an interrupted one is not a baseline.
void keep_baseline(const RunArgs& a, const Report& report) {
    if (a.save_baseline.empty()) return;
    if (report.partial) {
        fmt::print(stderr, "iolab: not kept as baseline '{}': a signal stopped the run\n", a.save_baseline);
        return;
    }
    if (std::none_of(report.cases.begin(), report.cases.end(),
                     [](const CaseResult& c) { return c.status == Status::ok; })) {
        fmt::print(stderr, "iolab: not kept as baseline '{}': no case was measured\n", a.save_baseline);
        return;
    }
    save_baseline(a.save_baseline, to_json(report), a.force);
    fmt::print(stderr, "iolab: kept as baseline '{}' ({})\n", a.save_baseline,
               baseline_path(a.save_baseline, "--save-baseline"));
}

// The status: 128 + the signal that stopped the run (saying so), 1 when a case failed, nothing was
// measured or a case tripped --fail-if-slower, else 0.
int run_status(const RunArgs& a, const Report& report, bool reports) {
    const int sig = interrupt::signal_received();
    if (sig && reports) {
        const bool files = std::any_of(exporters().begin(), exporters().end(),
                                       [&](const Exporter& e) { return !a.output(e.option).empty(); });
        fmt::print(stderr, "iolab: interrupted by signal {}: {} case(s) measured before it{}\n", sig,
                   report.cases.size(), files ? "; the result files are marked partial" : "");
    }
    if (sig) return 128 + sig;
    return report.any_failed() || report.measured_nothing() || (report.baseline && report.baseline->gate_failed()) ? 1
                                                                                                                   : 0;
}

int run_suite_in(const Context& ctx, const RunArgs& a, Suite suite, bool reports) {
    if (ctx.mode == Mode::small)
        for (auto& g : suite.groups) {
            g.options.warmup = Amount{0, 0};
            g.options.iterations = Amount{1, 0};
            g.options.timeline = false;
        }
    auto checked = check_run(ctx, a, std::move(suite), reports);
    if (!checked) return 2;  // on every rank, which all end normally
    const Session& session = *checked->session;
    if (ctx.mode == Mode::validate || (ctx.mode == Mode::small && !small_enough(session))) return 0;
    if (reports) tell_stale(checked->stale, checked->dir);
    if (reports && !a.quiet)
        for (const std::string& line : checked->sized) fmt::print(stderr, "iolab: {}\n", one_line(line));
    const bool bar = reports && !a.quiet && ::isatty(STDERR_FILENO);
    Progress progress(session.suite(), bar, reports && !a.quiet && !bar && ctx.mode == Mode::normal);
    SessionSettings settings;
    settings.scratch_parent = checked->dir;
    settings.keep = a.keep && ctx.mode == Mode::normal;
    // Small runs: no 256 MiB memcpy reference. Under MPI only rank 0's is reported, so only rank 0
    // measures it (not under the other ranks' load).
    settings.limits = ctx.mode != Mode::small && reports;
    // A smoke run measures nothing: no peer's 16 seconds either.
    settings.peers = settings.limits && !a.smoke;
    progress.attach(settings);
    if (reports) settings.on_note = [](const std::string& note) { fmt::print(stderr, "iolab: {}\n", one_line(note)); };
    std::string kept;
    Report report(session.run(settings, &kept));
    progress.end();
    report.noise = checked->noise;
    if (checked->baseline)
        report.baseline =
            compare_runs(checked->baseline->report, report, checked->baseline->name, "this run", checked->gate);
    if (!reports) return run_status(a, report, false);
    if (ctx.mode == Mode::small) {
        // The fuzz target runs it: render every export in memory, write none.
        (void)render_terminal(report, TerminalOptions{false, 80, false});
        for (const Exporter& e : exporters()) (void)e.render(report);
        return report.any_failed() ? 1 : 0;
    }
    if (!a.quiet) fmt::print("{}", render_terminal(report, terminal_options(a.all)));
    // Quiet, a gate still says why it failed: its tripped and broken cases, and its verdict.
    if (a.quiet && report.baseline && !report.baseline->machine.empty())
        fmt::print(stderr, "iolab: {}\n", report.baseline->machine);
    if (a.quiet && report.baseline && report.baseline->gate_failed()) {
        for (const std::string& l : gate_lines(*report.baseline)) fmt::print(stderr, "iolab: {}\n", l);
        fmt::print(stderr, "iolab: {}\n", comparison_lines(*report.baseline).back());
    }
    write_outputs(a, report);
    keep_baseline(a, report);
    if (!kept.empty()) fmt::print(stderr, "scratch folder kept: {}\n", kept);
    if (!report.scratch_left.empty())
        fmt::print(stderr, "iolab: the scratch folder {} stays: {}; once that is undone, {}\n",
                   one_line(report.scratch_left), fmt::join(report.left, ", "),
                   report.left_proven ? fmt::format("'iolab clean --dir {}' removes it", one_line(checked->dir))
                                      : std::string("rmdir removes it (it is empty)"));
    return run_status(a, report, true);
}

int replicate(const Context& ctx, const RunArgs& a) {
    std::vector<Suite> suites;
    for (const auto& name : replication_suites()) suites.push_back(load_named(name));
    return run_suite(ctx, a, combine(suites, "replicate"));
}

}  // namespace

// Whether this process is a rank other than 0 of an MPI job (by what mpirun or srun put in its
// environment), asked to run with --mpi: its errors before MPI starts are rank 0's too, and only
// rank 0 says them.
bool another_rank(int argc, char** argv) {
    bool mpi = false;
    for (int i = 1; i < argc; ++i) mpi = mpi || std::string_view(argv[i]) == "--mpi";
    if (!mpi) return false;
    for (const char* var : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"})
        if (const char* r = std::getenv(var)) return std::string_view(r) != "0";
    return false;
}

namespace {

// Runs the command parsed; throws InputError (exit 2) or another error (exit 1).
int dispatch(const Context& ctx, const CommandLine& c) {
    const bool dry_run = ctx.mode != Mode::normal;  // nothing printed but by small runs
    if (dry_run && !c.run->parsed() && !c.replicate->parsed()) return 0;
    if (ctx.mode == Mode::small && !c.run->parsed()) return 0;  // replicate is never small
    if (c.list->parsed()) return list_strategies(c.family, c.names);
    if (c.info->parsed()) return show_info(c.info_dir, c.info_limits, c.info_device, c.info_size);
    if (c.run->parsed()) return run_suite(ctx, c.run_args, requested_suite(c.run_args));
    if (c.replicate->parsed()) return replicate(ctx, c.run_args);
    if (c.suites->parsed()) return list_suites();
    if (c.clean->parsed()) return clean(c.clean_dir, c.clean_kept);
    if (c.tune->parsed()) return tune(c.tune_dir, c.tune_profile, c.tune_smoke, c.tune_quiet);
    if (c.report->parsed() && c.report_history && c.report_all)
        throw InputError("--all is not an option of iolab report --history: its tables hold every case");
    if (c.report->parsed() && c.report_history)
        return history_command(c.report_files, c.report_html, c.report_force,
                               gate_settings(c.report_threshold, c.report_between, false), !c.report_threshold.empty());
    if (c.report->parsed()) {
        if (!c.report_threshold.empty() || !c.report_between.empty())
            throw InputError(fmt::format("{} is an option of iolab report --history",
                                         c.report_threshold.empty() ? "--between-runs" : "--fail-if-slower"));
        if (c.report_files.empty())
            throw InputError(
                "iolab report takes result files written by --json (or --history: the baselines kept here)");
        return show_reports(c.report_files, c.report_html, c.report_force, c.report_all);
    }
    if (c.compare->parsed())
        return compare_command(c.compare_files, c.compare_baseline,
                               gate_settings(c.compare_threshold, c.compare_between, c.compare_allow_missing),
                               c.compare_md);
    if (c.calibrate->parsed()) return calibrate_command(c.calibrate_dir, c.calibrate_save, c.calibrate_force);
    return 0;
}

}  // namespace

int iolab_main(int argc, char** argv, Mode mode, const std::string& small_dir) {
    const Context ctx{mode, small_dir};
    // And an error of a rank other than 0 before MPI starts is rank 0's too: rank 0 alone says it.
    const bool silent = mode != Mode::normal || another_rank(argc, argv);
    CLI::App app{"iolab: measure the ways to read, write and copy files, honestly"};
    CommandLine command(app);  // CLI11 writes the values it parses into it
    if (argc < 2) {
        // No command: what the usual ones are, and where the rest are (status 2: nothing was asked).
        if (!silent) fmt::print("{}", short_usage());
        return 2;
    }
    try {
        check_first_word(argc, argv, app);
        app.parse(argc, argv);
        check_parsed(app);
    } catch (const InputError& e) {
        if (!silent) tell(brief_line(e.what()));
        return 2;
    } catch (const CLI::CallForVersion& e) {
        if (!silent) fmt::print("{}\n", e.what());
        return 0;
    } catch (const CLI::CallForHelp& e) {
        return silent ? 0 : app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return silent ? 0 : app.exit(e);
    } catch (const CLI::ParseError& e) {
        if (!silent) tell(brief_line(e.what()));
        return 2;
    }
    try {
        return dispatch(ctx, command);
    } catch (const InputError& e) {
        if (!silent) tell(brief_line(e.what()));
        return 2;
    } catch (const std::exception& e) {
        if (!silent) tell(brief_line(e.what()));
        return 1;
    }
}
