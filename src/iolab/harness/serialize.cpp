#include "iolab/harness/serialize.hpp"

#include <cmath>
#include <stdexcept>
#include <type_traits>

#include <fmt/format.h>

namespace iolab {

namespace {

// Every field of a sample with its JSON key; f(key, field, required).
template <class S, class F>
void sample_fields(S& s, F&& f) {
    f("wall_s", s.wall_s, true);
    f("user_s", s.user_s, true);
    f("sys_s", s.sys_s, true);
    f("bytes", s.bytes, true);
    f("syscalls", s.syscalls, true);
    f("all_calls", s.all_calls, false);
    f("voluntary_cs", s.vol_cs, false);
    f("involuntary_cs", s.invol_cs, false);
    f("minor_faults", s.minor_faults, false);
    f("major_faults", s.major_faults, false);
}

}  // namespace

void to_json(nlohmann::json& j, const Sample& s) {
    j = nlohmann::json::object();
    sample_fields(s, [&](const char* key, const auto& v, bool) { j[key] = v; });
    if (s.resident >= 0) j["resident"] = s.resident;
    if (s.resident_after >= 0) j["resident_after"] = s.resident_after;
    if (!s.job_s.empty()) j["job_s"] = s.job_s;
    if (!s.rank_s.empty()) j["rank_s"] = s.rank_s;
    if (s.fixed_s >= 0) j["fixed_s"] = s.fixed_s;
    if (s.tool_s >= 0) j["tool_s"] = s.tool_s;
    if (s.passes != 1) j["passes"] = s.passes;
    if (s.latency)
        j["latency"] = {{"counts", s.latency->counts()}, {"max_ns", s.latency->max()}, {"slices", s.latency->slices()}};
}

namespace {

// The longest time a sample may take (11.6 days), and the largest byte or call count (2^53, the
// largest a double holds exactly): past them a file is not iolab's.
constexpr double kMaxSeconds = 1e6;
constexpr std::uint64_t kMaxWhole = 1ull << 53;

[[noreturn]] void wrong(const char* key, const char* what) {
    throw std::invalid_argument(fmt::format("{} is not {}", key, what));
}

double seconds(const nlohmann::json& v, const char* key) {
    if (!v.is_number()) wrong(key, "a number");
    const double t = v.get<double>();
    if (!std::isfinite(t) || t < 0 || t > kMaxSeconds) wrong(key, "a time from 0 to 1e6 s");
    return t;
}

std::uint64_t whole(const nlohmann::json& v, const char* key, std::uint64_t most = kMaxWhole) {
    if (!v.is_number_unsigned() || v.get<std::uint64_t>() > most)
        throw std::invalid_argument(fmt::format("{} is not a whole number from 0 to {}", key, most));
    return v.get<std::uint64_t>();
}

std::vector<std::uint64_t> wholes(const nlohmann::json& v, const char* key) {
    if (!v.is_array()) wrong(key, "a list");
    std::vector<std::uint64_t> out;
    for (const auto& e : v) out.push_back(whole(e, key, UINT64_MAX));
    return out;
}

}  // namespace

// Every number checked before it is converted: a count whole and at most 2^53, a time finite and
// within [0, 1e6] s, so that no file makes a cast undefined or a figure absurd.
void from_json(const nlohmann::json& j, Sample& s) {
    if (!j.is_object()) throw std::invalid_argument("a sample is not an object");
    sample_fields(s, [&](const char* key, auto& v, bool required) {
        using T = std::decay_t<decltype(v)>;
        const auto it = j.find(key);
        if (it == j.end()) {
            if (required) throw std::invalid_argument(fmt::format("{} is missing", key));
            v = T{};
        } else if constexpr (std::is_floating_point_v<T>) {
            v = seconds(*it, key);
        } else {
            v = static_cast<T>(whole(*it, key));
        }
    });
    const auto fraction = [&](const char* key) {
        const auto it = j.find(key);
        if (it == j.end()) return -1.0;
        if (!it->is_number() || !(it->get<double>() >= 0 && it->get<double>() <= 1))
            wrong(key, "a fraction from 0 to 1");
        return it->get<double>();
    };
    s.resident = fraction("resident");
    s.resident_after = fraction("resident_after");
    for (auto [field, key] : {std::pair{&s.job_s, "job_s"}, {&s.rank_s, "rank_s"}}) {
        field->clear();
        if (const auto it = j.find(key); it != j.end()) {
            if (!it->is_array()) wrong(key, "a list of times");
            for (const auto& t : *it) field->push_back(seconds(t, key));
        }
    }
    const auto it_fixed = j.find("fixed_s"), it_tool = j.find("tool_s");
    s.fixed_s = it_fixed == j.end() ? -1.0 : seconds(*it_fixed, "fixed_s");
    s.tool_s = it_tool == j.end() ? -1.0 : seconds(*it_tool, "tool_s");
    const auto passes = j.find("passes");
    s.passes = passes == j.end() ? 1u : static_cast<unsigned>(whole(*passes, "passes", 1000000));
    if (const auto it = j.find("latency"); it != j.end()) {
        if (!it->is_object() || !it->contains("counts") || !it->contains("max_ns") || !it->contains("slices"))
            wrong("latency", "an object of counts, max_ns and slices");
        std::vector<std::pair<unsigned, std::uint64_t>> counts;
        const auto& c = it->at("counts");
        if (!c.is_array()) wrong("latency.counts", "a list");
        for (const auto& e : c) {
            if (!e.is_array() || e.size() != 2) wrong("latency.counts", "a list of [bucket, count]");
            counts.emplace_back(static_cast<unsigned>(whole(e[0], "a latency bucket", 1u << 20)),
                                whole(e[1], "a latency count", UINT64_MAX));
        }
        auto l = std::make_shared<Latency>();
        l->restore(counts, whole(it->at("max_ns"), "latency.max_ns", UINT64_MAX),
                   wholes(it->at("slices"), "latency.slices"));
        s.latency = std::move(l);
    }
}

void to_json(nlohmann::json& j, const Summary& s) {
    j = nlohmann::json{{"n", s.n},
                       {"mean_s", s.mean},
                       {"stddev_s", s.stddev},
                       {"median_s", s.median},
                       {"min_s", s.min},
                       {"max_s", s.max},
                       {"cv", s.cv},
                       {"ci999_low_s", s.ci_low},
                       {"ci999_high_s", s.ci_high},
                       {"median_ci_low_s", s.median_low},
                       {"median_ci_high_s", s.median_high},
                       {"median_ci_confidence", s.median_confidence}};
}

void to_json(nlohmann::json& j, const Warning& w) {
    j = nlohmann::json{{"kind", to_string(w.kind)}, {"case", w.subject}, {"message", w.message}};
}

}  // namespace iolab
