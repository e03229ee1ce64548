#pragma once
// The kinds of work, one row each: what a strategy does (read, write or copy a file, append
// durable records, work on a tree of many files, replace files safely), the shape of its work and
// the unit of its rate. A kind's behaviour lives in its module (strategies/kind.hpp).
#include <iterator>
#include <optional>
#include <string>
#include <string_view>

#include "iolab/core/names.hpp"

namespace iolab {

enum class Family { read, write, copy, durable, files_read, files_write, files_copy, files_remove, replace };

// What a kind works on: one file (read, copy), records it writes from nothing (write, durable), a
// tree of `files` files (core/tree.hpp), or `count` files each replaced in turn (replace).
enum class Shape { file, records, tree, set };

// What the harness may do with a kind's work, and what it may not (the constraints of the options).
enum KindTrait : unsigned {
    kTraitOutput = 1u << 0,       // a run leaves an output it wrote (all but reads): the write state, --throttle
    kTraitFileInput = 1u << 1,    // it reads one input file: --input, a cold cache's eviction, --rank-shift
    kTraitSyncAfter = 1u << 2,    // --sync syncs its one output file after each run
    kTraitStonewall = 1u << 3,    // a job stopped early is counted by its bytes (--stonewall)
    kTraitCold = 1u << 4,         // reads an input that --cache cold evicts: its table shows how much stayed cached
    kTraitTableBySize = 1u << 5,  // works on one file: a table for each size of it (CaseSpec::file_size)
};

struct FamilyRow {
    Family family;
    std::string_view name;
    Shape shape;
    // What its rate also counts ("commits", "files", "replacements"), each Workload::item_bytes()
    // long; empty: its rate is in bytes alone.
    std::string_view items;
    // The everyday way of doing it, which an answer compares its winner with.
    std::string_view everyday;
    unsigned traits = 0;  // KindTrait
};

// The registration list of kinds, in the order of the tables.
inline constexpr FamilyRow kFamilyRows[] = {
    {Family::read, "read", Shape::file, "", "read.stdio-chunk",
     kTraitFileInput | kTraitStonewall | kTraitCold | kTraitTableBySize},
    {Family::write, "write", Shape::records, "", "write.record-stdio",
     kTraitOutput | kTraitSyncAfter | kTraitStonewall},
    {Family::copy, "copy", Shape::file, "", "copy.std-filesystem",
     kTraitOutput | kTraitFileInput | kTraitSyncAfter | kTraitStonewall | kTraitCold | kTraitTableBySize},
    {Family::durable, "durable", Shape::records, "commits", "durable.fsync", kTraitOutput},
    {Family::files_read, "files-read", Shape::tree, "files", "files.read-ifstream", kTraitCold},
    {Family::files_write, "files-write", Shape::tree, "files", "files.write-ofstream", kTraitOutput},
    {Family::files_copy, "files-copy", Shape::tree, "files", "files.copy-std-filesystem", kTraitOutput | kTraitCold},
    {Family::files_remove, "files-remove", Shape::tree, "files", "files.remove-std-filesystem", kTraitOutput},
    {Family::replace, "replace", Shape::set, "replacements", "replace.rename-fsync", kTraitOutput},
};

inline const FamilyRow& row_of(Family f) {
    for (const auto& r : kFamilyRows)
        if (r.family == f) return r;
    return kFamilyRows[0];
}
inline Shape shape_of(Family f) { return row_of(f).shape; }
inline bool has_trait(Family f, KindTrait t) { return (row_of(f).traits & t) != 0; }
// Works on a tree of many files (TreeValues: files, file_size, folders) rather than on one file.
inline bool is_tree(Family f) { return shape_of(f) == Shape::tree; }
// A write of records (RecordValues: record * count bytes) from nothing: the write and durable families.
inline bool writes_records(Family f) { return shape_of(f) == Shape::records; }
inline std::string_view to_string(Family f) { return row_of(f).name; }
inline std::optional<Family> parse_family(std::string_view s) {
    for (const auto& r : kFamilyRows)
        if (r.name == s) return r.family;
    return std::nullopt;
}
// "read, write, … or replace": every family's name, for errors.
inline std::string family_names() {
    std::string out;
    for (const auto& r : kFamilyRows)
        out += (out.empty()                                                  ? ""
                : r.family == kFamilyRows[std::size(kFamilyRows) - 1].family ? " or "
                                                                             : ", ") +
               std::string(r.name);
    return out;
}

}  // namespace iolab
