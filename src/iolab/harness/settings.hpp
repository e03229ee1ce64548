#pragma once
// The settings of a run, in one table read by the command line (--key) and by suite files
// (key = value): each row names its key, says what it takes and applies it to a plan.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "iolab/harness/plan.hpp"

namespace iolab {

// Where a value came from, for the name in an error: "--byte-slice" or "byte_slice".
enum class Syntax { command_line, suite };

struct Setting {
    std::string_view key;       // "byte_slice"; the command-line option is --byte-slice
    std::string_view help;      // one line for --help
    std::string_view expected;  // what a valid value looks like, for errors
    // one value; a comma list (each item a case); a switch: "--key" alone, or "key = true" in
    // a suite
    enum class Kind { one, list, flag } kind = Kind::one;
    // Applies the value (a comma list; "true"/"false" for a flag). Throws InputError.
    void (*apply)(std::string_view value, PlanRequest& plan, RunOptions& options) = nullptr;
};

std::span<const Setting> settings();
const Setting* find_setting(std::string_view key);
std::string setting_name(std::string_view key, Syntax syntax);  // "--byte-slice" or "byte_slice"

// Applies one setting; an invalid value throws InputError "invalid NAME 'VALUE': expected ...".
void apply_setting(const Setting& s, std::string_view value, Syntax syntax, PlanRequest& plan, RunOptions& options);
// The rules that join two settings (drop_caches needs cache = cold). Throws InputError.
void check_settings(const PlanRequest& plan, const RunOptions& options, Syntax syntax);

}  // namespace iolab
