#pragma once
// Parsing and printing of byte sizes ("4K", "64KiB", "1.5G": binary units, as fio and dd
// read them) and of rates ("1MiB/s"). Parse errors throw InputError whose message
// names the value and what was expected, ready to print as a one-line error.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "iolab/sys/error.hpp"

namespace iolab {

std::uint64_t parse_size(std::string_view text);
// Bytes per second from "1MiB/s", "512K/s" or "1M" (the "/s" is optional).
double parse_rate(std::string_view text);

// "4K,64K,1M" or "4K..1M" (every power of two from 4K to 1M), or a mix: "512,4K..16K".
std::vector<std::uint64_t> parse_size_list(std::string_view text);

// text without the white space around it.
std::string_view trim(std::string_view text);
// "a, b,,c" -> "a", "b", "", "c": the items of a comma list, trimmed (empty ones kept).
std::vector<std::string_view> split_items(std::string_view text);

// msg with line breaks and other control characters escaped (\n, \x01): an error that quotes
// what the user typed stays one line, whatever they typed. C1 controls, the bidirectional
// controls (U+202A-U+202E, U+2066-U+2069, the marks U+200E, U+200F, U+061C) and the line and
// paragraph separators become \u009b, \u202e; a byte that is not UTF-8, \x9b.
std::string one_line(std::string_view msg);
// one_line of at most the first `most` bytes, saying how long the whole was: an error that quotes
// a 60 MB token stays readable.
std::string brief_line(std::string_view msg, std::size_t most = 1000);
// The same with its line breaks kept: a whole text for a terminal or a Markdown file.
std::string printable(std::string_view text);

std::string format_size(std::uint64_t bytes);     // "64 MiB", "1.5 GiB", "4095 B"
std::string format_compact(std::uint64_t bytes);  // "64M", "4K", "4095": the form parse_size reads
std::string format_ratio(double r);               // "1.00x", "3.2x", "312x"; "-" when not positive
std::string format_seconds(double s);             // "812.0 us", "12.34 ms", "1.240 s"

// a * b, when it is at most limit; otherwise InputError naming both operands:
// "record 1P x count 16384 is more than 1E bytes, the limit of one case".
std::uint64_t checked_product(std::uint64_t a, std::string_view a_name, std::uint64_t b, std::string_view b_name,
                              std::uint64_t limit, std::string_view limit_what);
// a + b, or the largest value when the sum would wrap.
inline std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
    std::uint64_t s;
    return __builtin_add_overflow(a, b, &s) ? UINT64_MAX : s;
}
// a * b, or the largest value when the product would wrap.
inline std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) {
    std::uint64_t p;
    return __builtin_mul_overflow(a, b, &p) ? UINT64_MAX : p;
}

}  // namespace iolab
