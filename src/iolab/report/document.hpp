#pragma once
// A report as one document, built once from a run: an ordered list of typed sections. The terminal,
// Markdown and HTML exporters draw it, in the order build_document (document.cpp) writes once; the
// JSON takes its answers from it and everything else from the run, and the CSV is the run's cases.
#include <optional>
#include <string>
#include <vector>

#include "iolab/report/analysis/answer.hpp"
#include "iolab/report/table.hpp"

namespace iolab {

enum class SectionKind {
    answer,
    baseline,
    table,
    ranks,
    latency,
    peers,
    runtimes,
    tools,
    findings,
    knees,
    limits,
    notes,
    warnings,
    environment
};
inline constexpr Named<SectionKind> kSectionKinds[] = {
    {SectionKind::answer, "answer"},     {SectionKind::baseline, "baseline"},
    {SectionKind::tools, "tools"},       {SectionKind::table, "table"},
    {SectionKind::ranks, "ranks"},       {SectionKind::latency, "latency"},
    {SectionKind::peers, "peers"},       {SectionKind::runtimes, "runtimes"},
    {SectionKind::findings, "findings"}, {SectionKind::knees, "knees"},
    {SectionKind::limits, "limits"},     {SectionKind::notes, "notes"},
    {SectionKind::warnings, "warnings"}, {SectionKind::environment, "environment"}};
inline std::string_view to_string(SectionKind k) { return name_of(kSectionKinds, k); }

// How a section is drawn: every renderer draws these forms and nothing else.
enum class SectionForm {
    list,    // bulleted lines under a heading (the answer)
    table,   // a table and its notes
    lines,   // lines under a label (knees, limits, notes, the environment)
    alerts,  // lines under a label that stands out (warnings)
};

struct Section {
    SectionKind kind = SectionKind::notes;
    std::string title;
    // answer, knees, limits, notes, warnings; environment "key: value"; a table section's lines come
    // between its title and its table (the findings: their verdicts counted)
    std::vector<std::string> lines;
    // What a terminal shows without --all, where that is less than lines (warnings: one line a kind).
    std::vector<std::string> brief;
    std::optional<Table> table;  // table, baseline, ranks, latency, peers, runtimes, tools, findings
    // A table section's place in Document::tables (the cases behind it, for charts).
    std::size_t ranked = SIZE_MAX;
    // How it is drawn, decided with the sections' order (build_document) for every renderer:
    SectionForm form = SectionForm::lines;
    bool title_as_is = false;            // its title begins with a name (a family, a tool): never capitalised
    bool needs_all = false;              // a terminal draws it only with --all (the tools table: the notes say it)
    bool notes_need_all = false;         // a terminal draws its table's notes only with --all (they explain it)
    bool in_header = false;              // a terminal's header says it already (the environment)
    bool page_first = false;             // the HTML page draws it before the others (the findings)
    std::string_view brief_join = ": ";  // between its title's first word and its one brief line
};

struct Document {
    std::string title;                // "iolab quick: 64 MiB of random data, cache warm, ..."
    std::vector<std::string> header;  // more lines under it (the machine)
    bool partial = false;
    std::vector<RankedTable> tables;
    std::vector<Answer> answers;
    std::vector<Section> sections;
};

// `all`: the notes name every tool case's figures (the terminal's --all; files always).
Document build_document(const Report& report, bool all = true);

// The warnings, at most `most` lines, one a kind with its count (the JSON has every case).
std::vector<std::string> brief_warnings(const Report& report, std::size_t most = 3);

}  // namespace iolab
