// Run options and case specs: names, parsing, labels.
#include "iolab/harness/runner.hpp"

#include <charconv>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "iolab/core/units.hpp"

namespace iolab {

std::string_view to_string(CacheMode m) {
    switch (m) {
        case CacheMode::warm: return "warm";
        case CacheMode::cold: return "cold";
        case CacheMode::direct: return "direct";
    }
    return "?";
}

std::string_view to_string(SyncPolicy p) {
    switch (p) {
        case SyncPolicy::none: return "none";
        case SyncPolicy::fsync: return "fsync";
        case SyncPolicy::fdatasync: return "fdatasync";
    }
    return "?";
}

std::string_view to_string(Status s) {
    switch (s) {
        case Status::ok: return "ok";
        case Status::failed: return "failed";
        case Status::skipped: return "skipped";
    }
    return "?";
}

std::string_view to_string(Checked c) {
    switch (c) {
        case Checked::content: return "content";
        case Checked::byte_count: return "byte count";
        case Checked::none: return "none";
    }
    return "?";
}

VerifyMode parse_verify_mode(std::string_view text, const char* what) {
    if (text == "sampled") return VerifyMode::sampled;
    if (text == "full") return VerifyMode::full;
    throw std::invalid_argument(one_line(fmt::format("invalid {} '{}': expected sampled or full", what, text)));
}

double parse_precision(std::string_view text, const char* what) {
    std::string_view num = text;
    const bool percent = num.ends_with("%");
    if (percent) num.remove_suffix(1);
    double v = -1;
    const auto [end, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
    if (percent) v /= 100;
    if (num.empty() || ec != std::errc() || end != num.data() + num.size() || !std::isfinite(v) || v <= 0 || v > 1)
        throw std::invalid_argument(one_line(
            fmt::format("invalid {} '{}': expected a relative precision above 0 and at most 1, such as 3% or 0.03",
                        what, text)));
    return v;
}

double parse_budget(std::string_view text, const char* what) {
    // A time, as parse_amount reads it; a count is not a budget.
    const auto bad = [&] {
        return std::invalid_argument(
            one_line(fmt::format("invalid {} '{}': expected a time such as 1s or 500ms", what, text)));
    };
    Amount a;
    try {
        a = parse_amount(text, what, false);
    } catch (const std::invalid_argument&) {
        throw bad();
    }
    if (a.seconds <= 0) throw bad();
    return a.seconds;
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
    throw std::invalid_argument(one_line(fmt::format("invalid {} '{}': expected {}a count ({}) or a time such as 2s or 500ms",
                                                     what, text, auto_ok ? "auto, " : "", zero_ok ? "0 or more" : "1 or more")));
}

std::map<std::string, std::string> CaseSpec::params() const {
    std::map<std::string, std::string> p;
    const Workload& w = workload;
    if (strategy->honours(kParamBuffer)) p["buffer"] = format_compact(w.buffer);
    if (w.family == Family::write) {
        p["record"] = format_compact(w.record);
        p["count"] = std::to_string(w.count);
    }
    if (strategy->honours(kParamQueue)) p["queue"] = std::to_string(w.queue);
    if (strategy->honours(kParamIov)) p["iov"] = std::to_string(w.iov);
    if (strategy->honours(kParamChain)) p["chain"] = w.chain;
    if (strategy->honours(kParamFeed)) p["feed"] = w.feed_bytes ? "byte" : "record";
    p["size"] = format_compact(w.bytes());
    if (full_bytes) p["slice_of"] = format_compact(full_bytes);
    p["data"] = to_string(w.data);
    return p;
}

std::string CaseSpec::label() const {
    std::string l = strategy->name;
    if (strategy->honours(kParamBuffer)) l += " buffer=" + format_compact(workload.buffer);
    if (workload.family == Family::write) l += " record=" + format_compact(workload.record);
    if (strategy->honours(kParamQueue)) l += " queue=" + std::to_string(workload.queue);
    if (strategy->honours(kParamIov)) l += " iov=" + std::to_string(workload.iov);
    if (strategy->honours(kParamChain)) l += " chain=" + workload.chain;
    if (strategy->honours(kParamFeed)) l += workload.feed_bytes ? " feed=byte" : " feed=record";
    return l;
}

}  // namespace iolab
