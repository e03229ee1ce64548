#include "iolab/core/units.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

namespace iolab {

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

std::vector<std::string_view> split_items(std::string_view text) {
    std::vector<std::string_view> out;
    for (std::size_t start = 0;;) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        out.push_back(trim(text.substr(start, comma - start)));
        if (comma == text.size()) return out;
        start = comma + 1;
    }
}

namespace {

[[noreturn]] void bad_size(std::string_view text) {
    throw InputError(
        one_line(fmt::format("invalid size '{}': expected a non-negative number with an optional unit B, K, M, G or T "
                             "(binary: 1K = 1024), e.g. 4K, 64KiB, 1.5G",
                             text)));
}

// Multiplier for a unit suffix: "", "B", "K", "KB", "KiB", ... (all binary), or 0 if unknown.
double unit_factor(std::string_view unit) {
    std::string u;
    for (char c : unit) u += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (u.empty() || u == "B") return 1;
    static constexpr std::string_view prefixes = "KMGTP";
    const auto pos = prefixes.find(u[0]);
    if (pos == std::string_view::npos) return 0;
    const std::string_view rest = std::string_view(u).substr(1);
    if (!(rest.empty() || rest == "B" || rest == "IB")) return 0;
    return std::pow(1024.0, static_cast<double>(pos + 1));
}

}  // namespace

namespace {

// A number with an optional binary unit, in bytes (not necessarily whole); nullopt if malformed.
std::optional<double> byte_value(std::string_view text) {
    const std::string_view s = trim(text);
    std::size_t i = 0;
    while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
    if (i == 0) return std::nullopt;
    double number = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + i, number);
    if (ec != std::errc() || end != s.data() + i) return std::nullopt;
    const double factor = unit_factor(trim(s.substr(i)));
    if (factor == 0) return std::nullopt;
    const double bytes = number * factor;
    if (!std::isfinite(bytes) || bytes >= 0x1p63) return std::nullopt;
    return bytes;
}

}  // namespace

std::uint64_t parse_size(std::string_view text) {
    const auto bytes = byte_value(text);
    if (!bytes || *bytes != std::floor(*bytes)) bad_size(text);  // "1.3B" names no whole byte count
    return static_cast<std::uint64_t>(*bytes);
}

double parse_rate(std::string_view text) {
    std::string_view s = trim(text);
    if (s.size() > 2 && s.substr(s.size() - 2) == "/s") s.remove_suffix(2);
    // A rate need not be a whole number of bytes per second: 0.84MB/s is 880803.84 B/s.
    const auto bytes = byte_value(s);
    if (!bytes || !(*bytes >= 1))
        throw InputError(one_line(
            fmt::format("invalid rate '{}': expected at least 1 byte per second, e.g. 1MiB/s or 512K/s", text)));
    return *bytes;
}

std::vector<std::uint64_t> parse_size_list(std::string_view text) {
    std::vector<std::uint64_t> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        const std::string_view item = text.substr(start, comma - start);
        const std::size_t dots = item.find("..");
        if (dots == std::string_view::npos) {
            out.push_back(parse_size(item));
        } else {
            const std::uint64_t lo = parse_size(item.substr(0, dots));
            const std::uint64_t hi = parse_size(item.substr(dots + 2));
            if (lo == 0 || hi < lo)
                throw InputError(one_line(
                    fmt::format("invalid range '{}': expected LOW..HIGH with 0 < LOW <= HIGH, e.g. 4K..1M", item)));
            for (std::uint64_t v = lo; v <= hi; v *= 2) out.push_back(v);
        }
        start = comma + 1;
    }
    return out;
}

namespace {

// The length of the UTF-8 sequence at s[i] (1 to 4), or 0 when it is not one (a stray byte, an
// overlong form, a surrogate, beyond U+10FFFF); its code point in *cp.
std::size_t utf8_at(std::string_view s, std::size_t i, char32_t* cp) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
    const unsigned char c = b(0);
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    const std::size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
    if (n == 0 || c > 0xF4 || i + n > s.size()) return 0;
    char32_t v = c & (0x7F >> n);
    for (std::size_t k = 1; k < n; ++k) {
        if ((b(k) & 0xC0) != 0x80) return 0;
        v = (v << 6) | (b(k) & 0x3F);
    }
    if ((n == 3 && v < 0x800) || (n == 4 && (v < 0x10000 || v > 0x10FFFF)) || (v >= 0xD800 && v <= 0xDFFF)) return 0;
    *cp = v;
    return n;
}

// Code points a terminal or a Markdown viewer acts on instead of showing: C0 and DEL, C1, the
// bidirectional embeddings, overrides, isolates and marks, and the line and paragraph separators.
bool control(char32_t cp) {
    return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) ||
           (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200E || cp == 0x200F || cp == 0x061C || cp == 0x2028 ||
           cp == 0x2029;
}

std::string escaped(std::string_view msg, bool keep_lines) {
    std::string out;
    out.reserve(msg.size());
    for (std::size_t i = 0; i < msg.size();) {
        char32_t cp = 0;
        const std::size_t n = utf8_at(msg, i, &cp);
        if (n == 0) {
            out += fmt::format("\\x{:02x}", static_cast<unsigned char>(msg[i]));
            ++i;
            continue;
        }
        if (keep_lines && cp == '\n')
            out += '\n';
        else if (cp == '\n')
            out += "\\n";
        else if (cp == '\r')
            out += "\\r";
        else if (cp == '\t')
            out += "\\t";
        else if (cp < 0x80 && control(cp))
            out += fmt::format("\\x{:02x}", static_cast<unsigned>(cp));
        else if (control(cp))
            out += fmt::format("\\u{:04x}", static_cast<unsigned>(cp));
        else
            out.append(msg.substr(i, n));
        i += n;
    }
    return out;
}

}  // namespace

std::string one_line(std::string_view msg) { return escaped(msg, false); }
std::string printable(std::string_view text) { return escaped(text, true); }

std::string brief_line(std::string_view msg, std::size_t most) {
    if (msg.size() <= most) return one_line(msg);
    return one_line(msg.substr(0, most)) + fmt::format("... ({} bytes in all)", msg.size());
}

std::string format_size(std::uint64_t bytes) {
    static constexpr const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = static_cast<double>(bytes);
    int u = 0;
    while (v >= 1024 && u < 6) {
        v /= 1024;
        ++u;
    }
    if (u == 0) return fmt::format("{} B", bytes);
    if (v == std::floor(v)) return fmt::format("{:.0f} {}", v, units[u]);
    return fmt::format("{:.4g} {}", v, units[u]);
}

std::string format_compact(std::uint64_t bytes) {
    static constexpr char units[] = {'K', 'M', 'G', 'T'};
    int u = -1;
    while (u < 3 && bytes >= 1024 && bytes % 1024 == 0) {
        bytes /= 1024;
        ++u;
    }
    return u < 0 ? fmt::format("{}", bytes) : fmt::format("{}{}", bytes, units[u]);
}

std::uint64_t checked_product(std::uint64_t a, std::string_view a_name, std::uint64_t b, std::string_view b_name,
                              std::uint64_t limit, std::string_view limit_what) {
    std::uint64_t p;
    if (__builtin_mul_overflow(a, b, &p) || p > limit)
        throw InputError(one_line(fmt::format("{} {} x {} {} is more than {} bytes, {}", a_name, format_compact(a),
                                              b_name, b, format_compact(limit), limit_what)));
    return p;
}

std::string format_ratio(double r) {
    if (!(r > 0) || !std::isfinite(r)) return "-";
    if (r < 10) return fmt::format("{:.2f}x", r);
    if (r < 100) return fmt::format("{:.1f}x", r);
    return fmt::format("{:.0f}x", r);
}

std::string format_seconds(double s) {
    if (s < 1e-3) return fmt::format("{:.1f} us", s * 1e6);
    if (s < 1) return fmt::format("{:.2f} ms", s * 1e3);
    return fmt::format("{:.3f} s", s);
}

}  // namespace iolab
