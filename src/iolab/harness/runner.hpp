#pragma once
// Runs the cases of a group: inputs prepared once, a warm-up per case, then measured iterations
// in seeded random rounds until each median is precise enough. docs/harness.md has the loop.
#include <cstdint>
#include <functional>
#include <vector>

#include "iolab/core/scratch.hpp"
#include "iolab/harness/clock.hpp"
#include "iolab/harness/options.hpp"
#include "iolab/harness/result.hpp"

namespace iolab {

// Iterations to measure for a target time, given one run's duration: target / run, rounded
// up, with a floor of 3 and a ceiling of max_iterations.
std::uint64_t iterations_for(double target_s, double run_s, std::uint64_t max_iterations);

// Called before each iteration of a measured round: (index of the case in the group, the case,
// the share of the group's measured work done, 0 to 1: from each case's iterations against its
// target, or its measured time against the time budget when the iterations are adaptive).
using ProgressFn = std::function<void(std::size_t, const CaseSpec&, double)>;

// Racing, asked after every round with the group's cases as they stand (their statistics
// computed): which of them a finding or a knee still needs measured. A case it no longer holds
// races as any other (sequential verdicts: docs/harness.md).
using HoldFn = std::function<std::vector<bool>(const std::vector<CaseResult>&)>;
// What a group tells as it goes, beyond its cases' progress.
struct GroupEvents {
    // Its inputs are laid out (and synced, or brought warm) and its cases warmed up: how long that
    // took, in seconds; the group's share of the time budget counts from here. Once more at its
    // end, racing: the time its runs' own setup added to it (Sample::setup_s).
    std::function<void(double)> set_up;
    // After each measured round, with its index (0 the first), its time outside the group's: what
    // the session interleaves with the rounds (a peer's runs, peers.hpp).
    std::function<void(std::uint64_t)> after_round;
};
// With `holds`, a held case reaches this many samples before its fair share of the table's time
// can stop it: the looks of sequential verdicts (findings.hpp) need a few.
inline constexpr std::size_t kHeldSamples = 8;
// With `holds`, a case nothing holds stops at this many samples: five against five are the
// fewest for which the answers' 99 % interval of a comparison exists (ratio.hpp).
inline constexpr std::size_t kPlacedSamples = 5;

// Runs the cases of a group, interleaved. When a stop is requested (interrupt.hpp) it returns
// at the next iteration boundary; the cases it cut short keep their samples and say so
// (StopReason::interrupted). Racing (RunOptions::race), `held` names the cases that a knee or a
// finding needs precise: they are not stopped for being slower than their table's fastest;
// `holds`, when given, says so anew after every round. `budget_s`: the group's share of the run's
// time budget, which the session works out (0: none; racing then stops by each case's own budget).
// `events`: what it tells as it goes.
std::vector<CaseResult> run_group(const std::vector<CaseSpec>& specs, const RunOptions& opts, const ScratchDir& dir,
                                  Clock& clock = system_clock(), const ProgressFn& progress = {},
                                  const std::vector<bool>& held = {}, const HoldFn& holds = {}, double budget_s = 0,
                                  const GroupEvents& events = {});
// As run_group, in `opts.forks` child processes whose samples are pooled case by case (`held`
// stays as it is given: the children's samples meet only at the end). Each child lays its inputs
// out again; events.set_up hears each one's setup as it ends (after_round is not called).
std::vector<CaseResult> run_group_forked(const std::vector<CaseSpec>& specs, const RunOptions& opts,
                                         const ScratchDir& dir, const ProgressFn& progress = {},
                                         const std::vector<bool>& held = {}, double budget_s = 0,
                                         const GroupEvents& events = {});
// One case alone.
CaseResult run_case(const CaseSpec& spec, const RunOptions& opts, const ScratchDir& dir, Clock& clock = system_clock());
CaseResult run_case_forked(const CaseSpec& spec, const RunOptions& opts, const ScratchDir& dir);

}  // namespace iolab
