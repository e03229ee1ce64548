#pragma once
// iolab calibrate: this machine's noise, measured in seconds. A few cases a default run holds are
// each run twice under two labels in the same interleaved rounds (an A/A test: the twins do the
// same work, so any difference called between them is noise), in several runs one after the other
// (each with inputs of its own, brought to the warm state anew). What it finds: how much each case
// varies, how often the twins were called different, the smallest difference a run tells apart
// here, and how far a case moves from one run to the next (the CI gate's between-run margin).
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace iolab {

struct CalibratedCase {
    std::string label;
    double mib_s = 0;    // the median of its runs' medians (both twins)
    double varies = 0;   // the median half-width of its median's 95 % interval, relative
    double between = 0;  // the widening its pairs of runs needed for their 99% interval to hold 1
};

struct Calibration {
    std::string machine;                // this_machine(): a calibration holds for the machine that made it
    std::string date;                   // UTC, ISO 8601
    std::size_t runs = 0, samples = 0;  // the runs, and each twin's samples in a run
    std::size_t twins = 0;              // twin comparisons: cases times runs
    std::size_t called_different = 0;   // of them, whose 99 % interval excluded 1
    std::size_t beyond_margin = 0;      // of them, told apart by more than the default margin
    // The smallest difference a run tells apart here: the median, over the twin comparisons, of
    // the relative half-width of their 99 % interval.
    double tell_apart = 0;
    // The spread between runs: the largest of the cases' `between`.
    double between = 0;
    std::vector<CalibratedCase> cases;

    // What the command prints, a line each.
    std::vector<std::string> lines() const;
    // One line for a run's header: "noise here (iolab calibrate, DATE): ...".
    std::string header() const;
};

// The spread between runs of one case, each run's times per byte given: every pair of runs compared
// as the CI gate compares a run with its baseline (Moses's 99 % interval of the ratio); the widening
// the worst pair's interval needed to hold 1 (0 when every pair's held it).
double between_runs(const std::vector<std::vector<double>>& runs);

// Measures it in a scratch folder of its own under `scratch_parent` ("" : the system temp folder).
// `progress` gets the share done, 0 to 1. A stop asked for (interrupt.hpp) ends it early: nullopt.
std::optional<Calibration> calibrate(const std::string& scratch_parent, const std::function<void(double)>& progress);

// The calibration as JSON, and back; ResultFormatError (report layer's reader is not used: this is
// iolab's own small file) for a file that is not one, naming what is wrong.
std::string calibration_json(const Calibration& c);
Calibration read_calibration(const std::string& text, const std::string& origin);

}  // namespace iolab
