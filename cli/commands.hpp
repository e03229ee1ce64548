#pragma once
// The small commands: list, info, suites, clean, report, tune.
#include <string>
#include <vector>

namespace iolab::cli {

int list_strategies(const std::string& family_filter, bool names_only);
int show_info(const std::string& dir, bool limits, bool device, const std::string& device_size);
int list_suites();
// Removes the scratch folders that killed runs left (only iolab's, only unlocked).
int clean(const std::string& parent, bool kept);
// Result files (--json) shown again: in the terminal, or written as one HTML report with the
// runs side by side (never over an existing file without force, never over an input).
int show_reports(const std::vector<std::string>& files, const std::string& html, bool force, bool all);
// Runs the tune suite in dir and writes the library's profile (to profile_path() unless `out`
// names another file); smoke: tiny sizes, to check that it works.
int tune(const std::string& dir, const std::string& out, bool smoke, bool quiet);

}  // namespace iolab::cli
