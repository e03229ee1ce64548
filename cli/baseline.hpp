#pragma once
// Named baselines (criterion's --save-baseline): a run's result file kept under the project's
// .iolab/baselines folder, in the folder iolab is started from, and found again by its name.
#include <optional>
#include <string>

#include "iolab/report/report.hpp"
#include "run_options.hpp"

namespace iolab::cli {

inline constexpr const char* kBaselineFolder = ".iolab/baselines";

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
// Before a run: --save-baseline's folders are folders, or can be made.
void check_save_baseline(const std::string& name);
// --save-baseline's file, where its folder exists already (so that it is checked with the other
// result files: never over one without --force, never the same file as another), else "".
std::string save_baseline_if_checkable(const std::string& name);
// run's --save-baseline, --baseline and --fail-if-slower, checked before the run: the baseline to
// compare with, read (nullopt: none asked for), and the gate's threshold in *threshold (-1: none).
std::optional<Baseline> check_baselines(const RunArgs& a, double* threshold);
// After it: the result file, written atomically, its folders made where missing.
void save_baseline(const std::string& name, const std::string& json, bool force);

// iolab compare: BEFORE AFTER, or AFTER against --baseline; 1 when the gate tripped.
int compare_command(const std::vector<std::string>& files, const std::string& baseline, const std::string& threshold,
                    bool markdown);

}  // namespace iolab::cli
