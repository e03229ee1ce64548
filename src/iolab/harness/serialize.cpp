#include "iolab/harness/serialize.hpp"

namespace iolab {

void to_json(nlohmann::json& j, const Sample& s) {
    j = nlohmann::json{{"wall_s", s.wall_s},
                       {"user_s", s.user_s},
                       {"sys_s", s.sys_s},
                       {"bytes", s.bytes},
                       {"syscalls", s.syscalls},
                       {"all_calls", s.all_calls},
                       {"voluntary_cs", s.vol_cs},
                       {"involuntary_cs", s.invol_cs},
                       {"minor_faults", s.minor_faults},
                       {"major_faults", s.major_faults}};
    if (s.resident >= 0) j["resident"] = s.resident;
}

void from_json(const nlohmann::json& j, Sample& s) {
    s.wall_s = j.at("wall_s").get<double>();
    s.user_s = j.at("user_s").get<double>();
    s.sys_s = j.at("sys_s").get<double>();
    s.bytes = j.at("bytes").get<std::uint64_t>();
    s.syscalls = j.at("syscalls").get<std::uint64_t>();
    s.all_calls = j.value("all_calls", std::uint64_t{0});
    s.vol_cs = j.value("voluntary_cs", 0L);
    s.invol_cs = j.value("involuntary_cs", 0L);
    s.minor_faults = j.value("minor_faults", 0L);
    s.major_faults = j.value("major_faults", 0L);
    s.resident = j.value("resident", -1.0);
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
