#include "iolab/harness/serialize.hpp"

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

void from_json(const nlohmann::json& j, Sample& s) {
    sample_fields(s, [&](const char* key, auto& v, bool required) {
        using T = std::decay_t<decltype(v)>;
        v = required ? j.at(key).get<T>() : j.value(key, T{});
    });
    s.resident = j.value("resident", -1.0);
    s.resident_after = j.value("resident_after", -1.0);
    s.job_s = j.value("job_s", std::vector<double>{});
    s.rank_s = j.value("rank_s", std::vector<double>{});
    s.fixed_s = j.value("fixed_s", -1.0);
    s.tool_s = j.value("tool_s", -1.0);
    s.passes = j.value("passes", 1u);
    if (const auto it = j.find("latency"); it != j.end()) {
        auto l = std::make_shared<Latency>();
        l->restore(it->at("counts").get<std::vector<std::pair<unsigned, std::uint64_t>>>(),
                   it->at("max_ns").get<std::uint64_t>(), it->at("slices").get<std::vector<std::uint64_t>>());
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
