#pragma once
// The parsers of the values the parameter table (params.cpp) applies: comma lists, sizes, whole
// numbers, names and chains. Each throws InputError saying what is wrong; apply_setting names
// the setting and the value. Internal to params.cpp.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "iolab/core/names.hpp"
#include "iolab/sys/error.hpp"

namespace iolab::detail {

// "a, b,c" -> a, b, c; an empty item is an error.
std::vector<std::string_view> items(std::string_view text);

// A list without its repeats, in first-seen order (4K,4096 is one buffer).
template <class T>
std::vector<T> unique(std::vector<T> v) {
    std::vector<T> out;
    for (const T& x : v)
        if (std::find(out.begin(), out.end(), x) == out.end()) out.push_back(x);
    return out;
}

// Sizes from 1 byte to `max`, ranges expanded, repeats dropped.
std::vector<std::uint64_t> sizes(std::string_view text, std::uint64_t max);
template <class T>
std::vector<T> sizes_as(std::string_view text, std::uint64_t max) {
    const auto s = sizes(text, max);
    return std::vector<T>(s.begin(), s.end());
}

std::vector<unsigned> whole_numbers(std::string_view text, unsigned max);

template <class E, std::size_t N>
E named(const Named<E> (&table)[N], std::string_view text) {
    if (const auto v = value_of(table, text)) return *v;
    throw InputError("unknown name");
}

bool truth(std::string_view text);

// The number of values a plan gives a list parameter (the table's `values`).
template <auto Field, class Plan>
std::size_t count(const Plan& p) {
    return (p.*Field).size();
}

// A plain whole number of 64 bits (an operation count, a seed).
std::uint64_t whole64(std::string_view v);

// Named values, repeats dropped: "byte,record".
template <class E, std::size_t N>
std::vector<E> names_in(const Named<E> (&table)[N], std::string_view text) {
    std::vector<E> out;
    for (auto item : items(text)) out.push_back(named(table, item));
    return unique(out);
}

// Chains, each in one written form (deflate is deflate:6, buffer:8192 is buffer:8K), once.
std::vector<std::string> chains(std::string_view text);

}  // namespace iolab::detail
