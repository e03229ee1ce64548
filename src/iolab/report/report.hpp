#pragma once
// A finished (or interrupted) run: what was measured, where, and every case's result. Every
// exporter turns this same object into bytes.
#include <string>
#include <vector>

#include "iolab/core/units.hpp"
#include "iolab/harness/environment.hpp"
#include "iolab/harness/limits.hpp"
#include "iolab/harness/runner.hpp"
#include "iolab/suite/findings.hpp"

namespace iolab {

// A group of cases measured under one set of options (a suite's [[group]]; a plain run has
// one, with an empty id).
struct ReportGroup {
    std::string id;
    std::string title;
    RunOptions options;
};

struct Report {
    std::string suite;
    std::string description;
    Environment environment;
    RunOptions options;  // of the first group: what the header describes
    std::vector<ReportGroup> groups;
    std::vector<CaseResult> cases;
    std::vector<FindingResult> findings;
    std::vector<KneeResult> knees;
    double process_startup_s = -1;  // measured when external tools ran: what starting one costs
    double clock_read_ns = -1;      // measured when patterned cases ran: one read of the clock
    Limits limits;                  // reference limits, when measured
    bool partial = false;           // interrupted: only the cases that completed are here

    const ReportGroup& group(const std::string& id) const;

    std::vector<Warning> warnings() const;
    // The warnings as lines for people: outliers, common on a shared machine, in one line.
    std::vector<std::string> warning_lines() const;
    // Cases of one group and family: the ok ones fastest first, then failed and skipped
    // (never ranked).
    std::vector<const CaseResult*> ranked(const std::string& group, Family f) const;
    bool any_failed() const;
    std::string header() const;  // what was measured, in one or two lines
};

// Data calls per MiB for a case, or -1 when its I/O is not in the syscall layer.
double calls_per_mib(const CaseResult& c);
// CPU time (user + system) over wall time, as a fraction.
double cpu_fraction(const CaseResult& c);
double median_resident(const CaseResult& c);

}  // namespace iolab
