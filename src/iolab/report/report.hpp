#pragma once
// A finished (or interrupted) run: what was measured, where, and every case's result. Every
// exporter turns this same object into bytes.
#include <string>
#include <vector>

#include "iolab/harness/environment.hpp"
#include "iolab/harness/runner.hpp"

namespace iolab {

struct Report {
    std::string suite;
    Environment environment;
    RunOptions options;
    std::vector<CaseResult> cases;
    bool partial = false;  // interrupted: only the cases that completed are here

    std::vector<Warning> warnings() const;
    // The warnings as lines for people: outliers, common on a shared machine, in one line.
    std::vector<std::string> warning_lines() const;
    // Cases of one family: the ok ones fastest first, then failed and skipped (never ranked).
    std::vector<const CaseResult*> ranked(Family f) const;
    bool any_failed() const;
    std::string header() const;  // what was measured, in one or two lines
};

// "1.00x", "3.2x", "312x"
std::string format_ratio(double r);
// "812 us", "12.3 ms", "1.24 s"
std::string format_seconds(double s);
// Data calls per MiB for a case, or -1 when its I/O is not in the syscall layer.
double calls_per_mib(const CaseResult& c);
// CPU time (user + system) over wall time, as a fraction.
double cpu_fraction(const CaseResult& c);
double median_resident(const CaseResult& c);

}  // namespace iolab
