#pragma once
// A finished (or interrupted) run: what was measured, where, and every case's result. Every
// exporter turns this same object into bytes.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "iolab/core/units.hpp"
#include "iolab/report/analysis/comparison.hpp"
#include "iolab/session/run.hpp"

namespace iolab {

// The run as every exporter reads it.
struct Report : Run {
    Report() = default;
    explicit Report(Run run) : Run(std::move(run)) {}

    // The run against a baseline (iolab run --baseline), case by case.
    std::optional<Comparison> baseline;

    const ReportGroup& group(const std::string& id) const;
    // The options a case was measured under: its group's, or the report's outside suites.
    const RunOptions& options_of(const CaseResult& c) const;

    std::vector<Warning> warnings() const;
    // The warnings as lines for people: outliers, common on a shared machine, in one line.
    std::vector<std::string> warning_lines() const;
    bool any_failed() const;
    // Cases were planned and none was measured (each failed or was skipped): a run with no answer.
    bool measured_nothing() const;
    // What was measured, in one or two lines: up to kSizesNamed sizes by name, a range of more.
    std::string header() const;
    // The sizes of the files its cases stand for (CaseSpec::file_size), each once, in order met.
    std::vector<std::uint64_t> sizes() const;
};

// The most sizes a header names one by one; past them each table names its own.
inline constexpr std::size_t kSizesNamed = 3;

}  // namespace iolab
