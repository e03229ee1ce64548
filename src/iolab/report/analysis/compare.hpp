#pragma once
// Two runs side by side (comparison.hpp): computed from two reports, and drawn as a table with the
// cases that tripped the gate first, as text or Markdown.
#include <string>

#include "iolab/report/analysis/comparison.hpp"
#include "iolab/report/report.hpp"
#include "iolab/report/table.hpp"

namespace iolab {

// `gate`: its threshold (0.05: slower by more than 5 %; -1: none) and the between-run margin. A
// case trips the gate when the whole of its ratio's interval, widened by that margin, lies beyond
// 1 + threshold.
Comparison compare_runs(const Report& before, const Report& after, std::string before_name, std::string after_name,
                        const GateSettings& gate);

// A case as comparisons name it: "group strategy params size=64M".
std::string comparison_label(const CaseResult& c);
// A case as runs are matched (its count and size left out where time sized them, which differ from
// run to run): comparison_label, or "group strategy params (count sized by time)".
std::string matched_label(const CaseResult& c);
// One case both runs measured, as compare_runs compares it.
CaseChange compare_case(const CaseResult& before, const CaseResult& after, const GateSettings& gate);
// What differs between the machines two runs were measured on, of what makes a machine fast (its
// processor, cpus, memory, the scratch folder's filesystem and device): "cpus 64 against 2", ...
std::vector<std::string> machine_differences(const Environment& before, const Environment& after);

Table comparison_table(const Comparison& c);
// The lines under the table: the geometric mean, the cases in one run only or not compared (at
// most `most` named a list), the gate's verdict.
std::vector<std::string> comparison_lines(const Comparison& c, std::size_t most = 20);
// The verdicts in one line, the first a comparison shows: "16 case(s) compared: 3 slower (1 beyond the
// gate's 5%), 12 the same, 1 faster".
std::string verdict_counts(const Comparison& c);
// The cases that tripped the gate ("slower: …") and the cases that broke ("failed: …"), a line each.
std::vector<std::string> gate_lines(const Comparison& c);
std::string render_comparison(const Comparison& c, bool markdown);
// The same of two reports, "the first run" against "the second run", with no gate.
std::string render_comparison(const Report& before, const Report& after, bool markdown);

// "5%", "5", "0.5%": a threshold as a fraction; InputError for anything else (negative, over
// 1000 %, not a number).
double parse_threshold(const std::string& text, const std::string& option);

}  // namespace iolab
