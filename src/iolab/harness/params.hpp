#pragma once
// The parameters of a run's cases and its measurement settings, in one table, as fio's option
// table: each row names its key, says what it takes and its range (one parser for the command
// line, suite files and result files), which strategies take it, and how it is kept. The command
// line (--key), suite files (key = value), the crossing of a plan into cases, labels, table cells,
// CSV columns, a result file's params and options, `iolab list` and the MPI plan fingerprint all
// read this table. What says where and how a run works rather than what it measures (--input,
// --dir, --mpi, --mpi-timeout, the result files) is the command line's own (cli/run_options.cpp).
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "iolab/harness/plan.hpp"
#include "iolab/strategies/kind.hpp"

namespace iolab {

// Where a value came from, for the name in an error: "--byte-slice" or "byte_slice".
enum class Syntax { command_line, suite };

// How a run setting is kept in a result file's options: as its words, true/false, a number, a
// time in seconds (key_s), or a simulated device's rate and latency.
enum class JsonForm { none, text, flag, number, seconds, device };

struct Parameter {
    std::string_view key;       // "byte_slice"; the command-line option is --byte-slice
    std::string_view help;      // one line for --help
    std::string_view expected;  // what a valid value looks like, for errors
    // one value; a comma list (each item a case); a switch: "--key" alone, or "key = true" in
    // a suite
    enum class Kind { one, list, flag } kind = Kind::one;
    // The strategies that take it: those that honour one of these (strategy.hpp); 0: every one.
    unsigned takes = 0;
    // A setting: applies the value (a comma list; "true"/"false" for a flag). Throws InputError.
    // Null for what a run works out itself (slice_of), and for a kind's row (of_kind).
    void (*apply)(std::string_view value, PlanRequest& plan, RunOptions& options) = nullptr;

    // A run setting: its value in its own words (apply reads them back) and how a result file
    // keeps it.
    std::string (*print)(const RunOptions&) = nullptr;
    JsonForm json = JsonForm::none;
    std::string_view json_key = {};  // empty: key

    // A case parameter: it tells two cases of one strategy apart (in_label: size and data are the
    // same in a group), the number of values a plan gives it (null: one), and how value i is put
    // into a case and read from one (all null for a kind's row: of_kind).
    bool in_label = false;
    std::size_t (*values)(const PlanRequest&) = nullptr;
    void (*take)(const PlanRequest&, std::size_t i, CaseSpec&) = nullptr;
    std::string (*print_case)(const CaseSpec&) = nullptr;
    // Overrides: whether a case has it (default: its strategy takes it), is labelled with it
    // (default: whenever it has it), and how it is read into a case (default: apply, then take).
    bool (*has_fn)(const CaseSpec&) = nullptr;
    bool (*shown)(const CaseSpec&) = nullptr;
    void (*set_fn)(CaseSpec&, std::string_view) = nullptr;

    // A case parameter a kind brings (KindModule::params): the row is made from it, and apply,
    // values, take and print_case are its (the functions below), not the row's.
    const KindParam* of_kind = nullptr;

    bool setting() const { return apply != nullptr || of_kind != nullptr; }
    bool run_setting() const { return print != nullptr; }
    bool case_param() const { return print_case != nullptr || of_kind != nullptr; }
    bool crossed() const { return take != nullptr || of_kind != nullptr; }  // a plan gives cases its values
    std::string_view json_name() const { return json_key.empty() ? key : json_key; }
    bool taken_by(const Strategy& s) const { return takes == 0 || (s.params & takes) != 0; }

    // What apply, values, take and print_case do, for a row of the table or of a kind.
    void apply_value(std::string_view value, PlanRequest& plan, RunOptions& options) const;
    std::size_t value_count(const PlanRequest& plan) const;
    void take_value(const PlanRequest& plan, std::size_t i, CaseSpec& c) const;
    std::string get(const CaseSpec& c) const;

    bool has(const CaseSpec& c) const;
    // Reads a value into a case, held to the setting's range. Throws InputError.
    void set(CaseSpec& c, std::string_view value) const;
    bool labelled(const CaseSpec& c) const { return in_label && (shown ? shown(c) : has(c)); }
};

// The rows of params.cpp, with the kinds' case parameters (kind_parameters()) after its own case
// parameters, before the settings.
std::span<const Parameter> parameters();
const Parameter* find_parameter(std::string_view key);
std::string setting_name(std::string_view key, Syntax syntax);  // "--byte-slice" or "byte_slice"

// Applies one setting and notes it as given; an invalid value throws InputError "invalid NAME
// 'VALUE': expected ...".
void apply_setting(const Parameter& s, std::string_view value, Syntax syntax, PlanRequest& plan, RunOptions& options);
// The rules between the values of run settings (drop_caches needs cache = cold), for a command
// line, a suite's group and a result file's options alike. Throws InputError.
void check_options(const RunOptions& options, Syntax syntax);
// check_options, and the rules that join settings to the plan and the machine (--input with jobs
// and a cold cache, a cache budget above the machine's memory). Throws InputError.
void check_settings(const PlanRequest& plan, const RunOptions& options, Syntax syntax);
// The rules between settings given together, on one command line or in one table of a suite
// (--time-budget races the cases: with --precision, --budget or a fixed --iterations it would do
// nothing). `given(key)` says whether a key was given; `given("iterations=auto")` whether
// iterations was given as auto. Throws InputError naming both.
void check_given_together(const std::function<bool(std::string_view)>& given, Syntax syntax);

// The cases a strategy makes of a plan: every value of every parameter it takes, crossed (the
// first value of one it does not take). plan.cpp finishes each.
std::vector<CaseSpec> cross(const Strategy& s, const PlanRequest& plan);

// A strategy given an option it does not take says so: a setting given (plan.given) that only some
// strategies take, and none of these. Throws InputError naming the ones that do.
void check_taken(const PlanRequest& plan, const std::vector<const Strategy*>& strategies,
                 Syntax syntax = Syntax::command_line);

}  // namespace iolab
