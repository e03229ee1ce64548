#pragma once
// Suites: named experiments kept as data (TOML, see docs/suites.md). A suite has groups of
// cases (strategies x parameter grids, with their own run options) and findings: claims that
// compare two cases, each checked against what this machine measures.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "iolab/harness/plan.hpp"
#include "iolab/harness/runner.hpp"

namespace iolab {

// One set of cases measured under one set of run options.
struct Group {
    std::string id;     // unique in the suite ("small"); in a combined run, "suite/id"
    std::string title;  // for table headings
    PlanRequest plan;
    RunOptions options;
    // Its part of the run's time budget against the other groups' (racing), relative: the suite's
    // `weight`, or 0 for a part in proportion to its cases. A combined run sets it to the seconds of
    // that suite's own budget the group gets (weights still, which now sum to the run's budget).
    double weight = 0;
};

// Picks one case of a group: among the ok cases of `group` whose strategy matches one of
// `strategies` (globs) and whose parameters match `params`, the fastest (or the slowest).
struct Selector {
    std::string group;
    std::vector<std::string> strategies;
    std::vector<std::pair<std::string, std::string>> params;  // buffer=16K, chain=..., feed=byte
    bool slowest = false;
    std::string describe() const;
};

// "faster is faster than slower by at least `at_least` times", or, with `within` > 0,
// "the two are within a factor 1 + within of each other".
struct Finding {
    std::string suite;  // set when suites are combined (iolab replicate)
    std::string claim;
    std::string source;    // where the published figure comes from
    double published = 0;  // the published ratio (slower time / faster time); 0: none
    Selector faster;
    Selector slower;
    double at_least = 0;
    double within = 0;
    // Why this machine may measure something else than the write-up did, and the measurement
    // behind the reason (shown under the findings table).
    std::string explanation;
    // A claim judged in both runtimes (jvm_faster and jvm_slower in the suite): "C++" for iolab's
    // own strategies' verdict, "JVM" for the published methods' run in the JVM; "" otherwise.
    std::string runtime;
    // " in C++", " on the JVM" or "": what follows a verdict ("HOLDS on the JVM").
    std::string runtime_words() const {
        return runtime == "JVM" ? " on the JVM" : runtime.empty() ? "" : " in " + runtime;
    }
};

// The smallest buffer that reaches `fraction` of the best throughput of a strategy in a group.
struct KneeSpec {
    std::string suite;
    std::string group;
    std::string strategy;
    double fraction = 0.95;
    bool over_jobs = false;  // over = "jobs": the fewest jobs instead of the smallest buffer
};

struct Suite {
    std::string name;
    std::string description;
    std::string source;
    // The write-up it re-runs ("seed 000"), or "": `iolab replicate` runs every suite that names one.
    std::string replicates;
    std::vector<Group> groups;
    std::vector<Finding> findings;
    std::vector<KneeSpec> knees;
};

// A malformed suite: the message names the file, the line and the key.
struct SuiteError : InputError {
    using InputError::InputError;
};

// Parses a suite. `origin` names it in errors (a path, or "built-in suite NAME").
Suite parse_suite(std::string_view toml_text, const std::string& origin);
Suite load_suite_file(const std::string& path);

// The suites embedded at build time from suites/*.toml: (name, text) in name order.
const std::vector<std::pair<std::string_view, std::string_view>>& builtin_suite_texts();
Suite builtin_suite(const std::string& name);  // throws SuiteError for an unknown name
std::vector<std::string> builtin_suite_names();
// The built-in suites that re-run a published write-up (`replicates`), in the write-ups' order.
std::vector<std::string> replication_suites();

// The time budget of a run of the suite (racing): the largest any group asks for (its own, or
// --time-budget), else kDefaultTimeBudget, or kDefaultTimePerCase a case for a run of few cases.
double time_budget(const Suite& suite);
// The same for a suite whose plan is made: `cases` in all.
double time_budget(const Suite& suite, std::size_t cases);

// Shrinks a suite to tiny sizes and one iteration, for smoke tests. Applied after the command
// line's settings, so sizes, counts, files and operations given there shrink too: any command
// runs in seconds with --smoke.
void make_smoke(Suite& suite);
// One suite holding several: group ids become "suite/id", findings keep their suite's name, and
// each suite's groups share that suite's own time budget (the run's is the sum of them).
Suite combine(const std::vector<Suite>& suites, const std::string& name);

}  // namespace iolab
