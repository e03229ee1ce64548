#pragma once
// A finished (or interrupted) run: what was measured, where, every case's result and what was
// judged of them. The session layer makes one; the report layer renders it.
#include <string>
#include <vector>

#include "iolab/harness/environment.hpp"
#include "iolab/harness/limits.hpp"
#include "iolab/harness/peers.hpp"
#include "iolab/harness/runner.hpp"
#include "iolab/suite/findings.hpp"

namespace iolab {

// A group of cases measured under one set of options (a suite's [[group]]; a plain run has
// one, with an empty id).
struct ReportGroup {
    std::string id;
    std::string title;
    RunOptions options;
    bool partial = false;  // a signal stopped the run while this group was measured
};

struct Run {
    std::string suite;
    std::string description;
    Environment environment;
    RunOptions options;  // of the first group: what the header describes
    std::vector<ReportGroup> groups;
    std::vector<CaseResult> cases;
    std::vector<FindingResult> findings;
    std::vector<KneeResult> knees;
    double clock_read_ns = -1;  // measured when patterned cases ran: one read of the clock
    Limits limits;              // the ceiling of each kind of work, when measured
    Peers peers;                // other programs' figures for the same work (pg_test_fsync)
    double time_budget_s = 0;   // racing: the run's time budget (0: none)
    double elapsed_s = 0;       // how long the run took
    double setup_s = 0;         // of it, the groups' inputs, warm-ups and runs' own setup: outside the time budget
    // This machine's noise as iolab calibrate measured it (calibrate.hpp's header line), or "".
    std::string noise;
    // Interrupted: the cases measured before the signal are here (those it cut short say so).
    bool partial = false;
    // The scratch folder, when it could not be removed whole, and what stayed in it and why (a
    // filesystem mounted inside during the run); it stays proven iolab's, for `iolab clean`.
    std::string scratch_left;
    std::vector<std::string> left;
    bool left_proven = false;  // with its marker and lock: `iolab clean` takes it
};

}  // namespace iolab
