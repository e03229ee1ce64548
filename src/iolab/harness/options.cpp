// Parsing of the run options' values.
#include "iolab/harness/options.hpp"

#include <charconv>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "iolab/core/units.hpp"

namespace iolab {

namespace {

// A fraction written as a percentage ("3%") or a number ("0.03"), within (0, 1] or, `zero` allowed,
// [0, 1]; else an InputError saying what is expected.
double parse_fraction(std::string_view text, const char* what, bool zero, const char* expected) {
    std::string_view num = text;
    const bool percent = num.ends_with("%");
    if (percent) num.remove_suffix(1);
    double v = -1;
    const auto [end, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
    if (percent) v /= 100;
    if (num.empty() || ec != std::errc() || end != num.data() + num.size() || !std::isfinite(v) || v < 0 ||
        (v == 0 && !zero) || v > 1)
        throw InputError(one_line(fmt::format("invalid {} '{}': expected {}", what, text, expected)));
    return v;
}

}  // namespace

double parse_precision(std::string_view text, const char* what) {
    return parse_fraction(text, what, false, "a relative precision above 0 and at most 1, such as 3% or 0.03");
}

double parse_margin(std::string_view text, const char* what) {
    return parse_fraction(text, what, true, "a margin from 0 to 1, such as 10% or 0.1");
}

double parse_budget(std::string_view text, const char* what) {
    // A time, as parse_amount reads it; a count is not a budget.
    const auto bad = [&] {
        return InputError(
            one_line(fmt::format("invalid {} '{}': expected a time such as 1s or 500ms, at most 86400s", what, text)));
    };
    Amount a;
    try {
        a = parse_amount(text, what, false);
    } catch (const InputError&) {
        throw bad();
    }
    if (a.seconds <= 0) throw bad();
    return a.seconds;
}

Device parse_device(std::string_view text) {
    Device d;
    const std::size_t plus = text.find('+');
    d.bytes_per_s = parse_rate(text.substr(0, plus));
    // A device faster than memory simulates nothing.
    if (d.bytes_per_s > static_cast<double>(1ull << 50))
        throw InputError(one_line(fmt::format("invalid rate '{}': expected at most 1PiB/s", text.substr(0, plus))));
    if (plus != std::string_view::npos) {
        const std::string_view l = trim(text.substr(plus + 1));
        const Amount latency = parse_amount(l, "latency", false);
        if (latency.seconds < 1e-6)
            throw InputError(
                one_line(fmt::format("invalid latency '{}': expected a time such as 45ms", text.substr(plus + 1))));
        d.latency_s = latency.seconds;
    }
    return d;
}

std::string Device::describe() const {
    std::string d = bytes_per_s == std::floor(bytes_per_s) ? format_size(static_cast<std::uint64_t>(bytes_per_s)) + "/s"
                                                           : fmt::format("{:g} B/s", bytes_per_s);
    if (latency_s > 0) d += fmt::format(" + {} a write", format_seconds(latency_s));
    return d;
}

std::string Amount::describe() const {
    if (adaptive) return "auto";
    return seconds > 0 ? fmt::format("{:g}s", seconds) : fmt::format("{}", count);
}

Amount parse_amount(std::string_view text, const char* what, bool zero_ok, bool auto_ok) {
    if (auto_ok && text == "auto") return kAdaptive;
    Amount a;
    std::string_view num = text;
    double unit = 0;
    if (num.ends_with("ms")) {
        num.remove_suffix(2);
        unit = 1e-3;
    } else if (num.ends_with("min")) {
        num.remove_suffix(3);
        unit = 60;
    } else if (num.ends_with("m")) {
        num.remove_suffix(1);
        unit = 60;
    } else if (num.ends_with("s")) {
        num.remove_suffix(1);
        unit = 1;
    }
    double v = -1;
    const auto [end, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
    const bool parsed = !num.empty() && ec == std::errc() && end == num.data() + num.size() && std::isfinite(v);
    if (parsed && unit > 0 && v > 0 && v * unit <= 86400) {
        a.seconds = v * unit;
        return a;
    }
    if (parsed && unit == 0 && v == std::floor(v) && v >= (zero_ok ? 0 : 1) && v <= 1e9) {
        a.count = static_cast<std::uint64_t>(v);
        return a;
    }
    throw InputError(
        one_line(fmt::format("invalid {} '{}': expected {}a count ({}) or a time such as 2s or 500ms (at most 86400s)",
                             what, text, auto_ok ? "auto, " : "", zero_ok ? "0 or more" : "1 or more")));
}

}  // namespace iolab
