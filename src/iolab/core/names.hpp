#pragma once
// Name <-> value tables for enumerations: one table gives to_string, parsing and the list of
// accepted names for error messages.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace iolab {

template <class E>
struct Named {
    E value;
    std::string_view name;
};

template <class E, std::size_t N>
constexpr std::string_view name_of(const Named<E> (&table)[N], E value) {
    for (const auto& n : table)
        if (n.value == value) return n.name;
    return "?";
}

template <class E, std::size_t N>
constexpr std::optional<E> value_of(const Named<E> (&table)[N], std::string_view name) {
    for (const auto& n : table)
        if (n.name == name) return n.value;
    return std::nullopt;
}

inline constexpr Named<bool> kBooleans[] = {{true, "true"}, {false, "false"}};

// The entry of a table (settings, case parameters) whose .key is `key`, or nullptr.
template <class T>
const T* find_by_key(std::span<const T> table, std::string_view key) {
    for (const T& entry : table)
        if (entry.key == key) return &entry;
    return nullptr;
}

// "warm, cold or direct"
template <class E, std::size_t N>
std::string names_of(const Named<E> (&table)[N]) {
    std::string out;
    for (std::size_t i = 0; i < N; ++i) {
        if (i) out += i + 1 == N ? " or " : ", ";
        out += table[i].name;
    }
    return out;
}

// Levenshtein distance: the fewest single-character insertions, deletions and substitutions.
std::size_t edit_distance(std::string_view a, std::string_view b);
// The n known names closest to an unknown one, nearest first (ties in the given order).
std::vector<std::string> closest_names(std::string_view name, const std::vector<std::string>& known, std::size_t n);
// The known name a mistyped one most likely meant (within a third of its length, and at least 2
// edits), or "".
std::string likely_meant(std::string_view name, const std::vector<std::string>& known);

}  // namespace iolab
