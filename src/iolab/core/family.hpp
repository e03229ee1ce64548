#pragma once
// What a strategy does: read, write or copy a file, append records each durable when its call
// returns, or read, write, copy or remove a tree of many small files (core/tree.hpp).
#include <optional>
#include <string_view>

#include "iolab/core/names.hpp"

namespace iolab {

enum class Family { read, write, copy, durable, files_read, files_write, files_copy, files_remove };
inline constexpr Named<Family> kFamilies[] = {{Family::read, "read"},
                                              {Family::write, "write"},
                                              {Family::copy, "copy"},
                                              {Family::durable, "durable"},
                                              {Family::files_read, "files-read"},
                                              {Family::files_write, "files-write"},
                                              {Family::files_copy, "files-copy"},
                                              {Family::files_remove, "files-remove"}};
// Every family, in the order of the tables.
inline constexpr Family kAllFamilies[] = {Family::read,       Family::write,       Family::copy,
                                          Family::durable,    Family::files_read,  Family::files_write,
                                          Family::files_copy, Family::files_remove};
// Works on a tree of many files (Workload::files, file_size, folders) rather than on one file.
inline bool is_tree(Family f) {
    return f == Family::files_read || f == Family::files_write || f == Family::files_copy || f == Family::files_remove;
}
// A write of records (Workload::record * count bytes) from nothing: the write and durable families.
inline bool writes_records(Family f) { return f == Family::write || f == Family::durable; }
inline std::string_view to_string(Family f) { return name_of(kFamilies, f); }
inline std::optional<Family> parse_family(std::string_view s) { return value_of(kFamilies, s); }

}  // namespace iolab
