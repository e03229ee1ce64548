#pragma once
// What a strategy does to a file: read it, write it, copy it, or append records each of which
// is durable when its call returns.
#include <optional>
#include <string_view>

#include "iolab/core/names.hpp"

namespace iolab {

enum class Family { read, write, copy, durable };
inline constexpr Named<Family> kFamilies[] = {
    {Family::read, "read"}, {Family::write, "write"}, {Family::copy, "copy"}, {Family::durable, "durable"}};
// A write of records (Workload::record * count bytes) from nothing: the write and durable families.
inline bool writes_records(Family f) { return f == Family::write || f == Family::durable; }
inline std::string_view to_string(Family f) { return name_of(kFamilies, f); }
inline std::optional<Family> parse_family(std::string_view s) { return value_of(kFamilies, s); }

}  // namespace iolab
