#include "mpi_rank.hpp"

#include <cmath>
#include <span>
#include <string>

#include <fmt/format.h>

#include "iolab/core/checksum.hpp"
#include "iolab/core/interrupt.hpp"
#include "iolab/core/text_file.hpp"
#include "iolab/harness/params.hpp"
#include "iolab/report/table.hpp"
#include "iolab/session/session.hpp"
#include "iolab/sys/mpi.hpp"

namespace iolab::cli {

namespace {

constexpr std::uint64_t kMaxRankShift = 1u << 20;

// --mpi: what MPI cannot do with this run, or "".
std::string mpi_refusal(const RunArgs& a, const Suite& suite) {
    if (!a.input.empty()) return "--input is one host's file; under MPI each rank makes its own input";
    for (const auto& g : suite.groups) {
        if (g.options.forks > 0) return "--forks runs cases in child processes, which are not ranks of the MPI job";
        if (g.options.stonewall) return "--stonewall stops the jobs of one process; it cannot stop other ranks' jobs";
        if (g.options.throttle.active())
            return "--throttle simulates one device inside one process; the ranks would each have their own";
    }
    return {};
}

unsigned parsed_shift(const std::string& text) {
    const auto bad = [&] {
        return InputError(one_line(fmt::format(
            "invalid --rank-shift '{}': expected a whole number of ranks from 0 to {}", text, kMaxRankShift)));
    };
    Amount shift;
    try {
        shift = parse_amount(text, "--rank-shift", true);
    } catch (const InputError&) {
        throw bad();
    }
    if (shift.seconds > 0 || shift.count > kMaxRankShift) throw bad();
    return static_cast<unsigned>(shift.count);
}

}  // namespace

std::uint64_t plan_fingerprint(const RunArgs& a, const Session& session) {
    const Suite& suite = session.suite();
    std::string text;
    // Every setting, as given on the command line: a row of the settings table is in the plan by
    // being in the table (a --seed or --queue of its own on one rank is another plan).
    for (const Parameter& s : parameters()) {
        if (!s.setting()) continue;
        text += std::string(s.key) + "=";
        if (const auto v = a.values.find(s.key); v != a.values.end())
            text += fmt::format("{}", fmt::join(v->second, ","));
        if (const auto f = a.flags.find(s.key); f != a.flags.end() && a.given(s.key)) text += f->second ? "on" : "off";
        text += "\n";
    }
    // The run's own options that change what a rank does, and the suite it runs, whole.
    text += fmt::format("suite={} strategies={} rank_shift={} mpi_timeout={} smoke={}\n", a.suite,
                        fmt::join(a.strategies, ","), a.rank_shift, a.mpi_timeout, a.smoke);
    if (!a.suite_file.empty())
        if (const auto file = read_text_file(a.suite_file)) text += *file;
    // And what came of them: every group's settings and cases.
    for (std::size_t gi = 0; gi < suite.groups.size(); ++gi) {
        const Group& g = suite.groups[gi];
        const RunOptions& o = g.options;
        text += g.id + "\n" + options_text(o) + "\n";
        text += fmt::format("{} {} {} {} {} {} {} {} {} {}\n", o.warmup.count, o.warmup.seconds, o.iterations.count,
                            o.iterations.seconds, o.iterations.adaptive, o.precision, o.case_budget_s, o.order_seed,
                            o.shared_file, g.plan.seed);
        for (const auto& c : session.plan()[gi])
            text += fmt::format("{} {} {} {}\n", c.label(), c.workload.bytes(), c.workload.jobs,
                                to_string(c.workload.data));
    }
    return checksum(std::as_bytes(std::span(text.data(), text.size())));
}

MpiRank::MpiRank(const RunArgs& a, const Suite& suite, bool start) {
    if (!a.mpi) {
        if (a.given_mpi_options())
            throw InputError("--mpi-timeout and --rank-shift are for a run under MPI: add --mpi");
        return;
    }
    if (const std::string why = mpi_refusal(a, suite); !why.empty()) throw InputError("--mpi: " + why);
    const double timeout_s = parse_budget(a.mpi_timeout, "--mpi-timeout");
    const unsigned shift = parsed_shift(a.rank_shift);
    if (!start) return;
    if (!sys::mpi::built())
        throw InputError("--mpi: this iolab was built without MPI (install libopenmpi-dev, then build again)");
    sys::mpi::set_timeout_hint(" (raise --mpi-timeout if a rank needs longer)");
    sys::mpi::init(timeout_s);
    // A signalled rank's other ranks learn of the stop only at their next step.
    interrupt::set_grace(static_cast<int>(std::ceil(timeout_s)));
    team_ = std::make_unique<MpiTeam>(timeout_s, shift);
    set_team(team_.get());
}

MpiRank::~MpiRank() {
    if (!team_) return;
    set_team(nullptr);
    sys::mpi::finalize();
}

}  // namespace iolab::cli
