#pragma once
// Named baselines (criterion's --save-baseline): a run's result file kept under the project's
// .iolab/baselines folder, in the folder iolab is started from, and found again by its name.
#include <optional>
#include <string>

#include "iolab/report/analysis/comparison.hpp"
#include "iolab/report/report.hpp"
#include "iolab/session/calibrate.hpp"
#include "run_options.hpp"

namespace iolab::cli {

inline constexpr const char* kBaselineFolder = ".iolab/baselines";
// Where iolab calibrate --save keeps this machine's noise (calibrate.hpp).
inline constexpr const char* kCalibrationFile = ".iolab/calibration.json";

// ".iolab/baselines/NAME.json"; InputError for a name that is not 1-100 letters, digits, '.', '_'
// and '-', starting with a letter or digit.
std::string baseline_path(const std::string& name, const char* option);
// A baseline's name, or a result file's path (anything with a '/' or ending in ".json"), to the
// file it names; InputError when there is none.
std::string find_baseline(const std::string& name_or_file);
// What a run or compare reads as the first run: the report and what it is called.
struct Baseline {
    Report report;
    std::string name;  // "baseline main", "old.json"
};
Baseline load_baseline(const std::string& name_or_file);
// Before --save (calibrate): the folder is a folder, or can be made.
void check_save_folder(const std::string& folder, const char* option);
// Before a run: --save-baseline's folders are folders, or can be made.
void check_save_baseline(const std::string& name);
// --save-baseline's file, where its folder exists already (so that it is checked with the other
// result files: never over one without --force, never the same file as another), else "".
std::string save_baseline_if_checkable(const std::string& name);
// The calibration kept here by iolab calibrate --save, when there is one and it is this machine's
// (another machine's is said in *why); InputError for a file that is not one.
std::optional<Calibration> saved_calibration(std::string* why = nullptr);
// The gate's settings from --fail-if-slower, --between-runs and --allow-missing: the between-run
// margin given, else the saved calibration's, else kDefaultBetweenRuns, saying which.
GateSettings gate_settings(const std::string& fail_if_slower, const std::string& between_runs, bool allow_missing);
// run's --save-baseline, --baseline, --fail-if-slower, --between-runs and --allow-missing, checked
// before the run: the baseline to compare with, read (nullopt: none asked for), and the gate.
std::optional<Baseline> check_baselines(const RunArgs& a, GateSettings* gate);
// After it: the result file, written atomically, its folders made where missing.
void save_baseline(const std::string& name, const std::string& json, bool force);

// iolab compare: BEFORE AFTER, or AFTER against --baseline; 1 when the gate tripped.
int compare_command(const std::vector<std::string>& files, const std::string& baseline, const GateSettings& gate,
                    bool markdown);
// iolab report --history: each case over every baseline kept here and the result files given
// (files of the same text read once), printed or (html) written; `gate.threshold` < 0:
// kHistoryBand. With `gated`, 1 when the gate fails on the latest run (History::gate_failed).
inline constexpr double kHistoryBand = 0.05;
int history_command(const std::vector<std::string>& files, const std::string& html, bool force, GateSettings gate,
                    bool gated);

// iolab calibrate: measures this machine's noise and prints it; --save keeps it in
// kCalibrationFile (replacing one only with force).
int calibrate_command(const std::string& dir, bool save, bool force);

}  // namespace iolab::cli
