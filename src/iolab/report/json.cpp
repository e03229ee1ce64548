#include "iolab/report/json.hpp"

#include "iolab/harness/serialize.hpp"

namespace iolab {

namespace {

nlohmann::json environment_json(const Environment& e) {
    return {{"iolab_version", e.iolab_version},
            {"commit", e.commit},
            {"compiler", e.compiler},
            {"build_type", e.build_type},
            {"kernel", e.kernel},
            {"cpu_model", e.cpu_model},
            {"cpus", e.cpus},
            {"memory_bytes", e.memory_bytes},
            {"scratch_dir", e.scratch_dir},
            {"filesystem", e.fs_type},
            {"mount_options", e.mount_options},
            {"device", e.device},
            {"device_model", e.device_model},
            {"rotational", e.rotational < 0 ? nlohmann::json(nullptr) : nlohmann::json(e.rotational == 1)},
            {"date", e.date}};
}

nlohmann::json case_json(const CaseResult& c) {
    nlohmann::json stats = c.stats;
    stats["throughput_mib_s"] = c.throughput_mib_s;
    nlohmann::json j{{"strategy", c.name()},
                     {"family", to_string(c.spec.workload.family)},
                     {"label", c.spec.label()},
                     {"params", c.spec.params()},
                     {"status", to_string(c.status)},
                     {"verified", c.verified},
                     {"scale", c.spec.scale()},
                     {"in_syscall_layer", c.spec.strategy->in_syscall_layer},
                     {"samples", c.samples},
                     {"stats", stats},
                     {"warnings", c.warnings}};
    if (c.status != Status::ok) j["reason"] = c.reason;
    if (c.timeline) {
        const auto o = c.timeline->overlap();
        j["timeline"] = {{"span_s", o.span_s},
                         {"read_busy_s", o.read_busy_s},
                         {"write_busy_s", o.write_busy_s},
                         {"overlap_s", o.both_s},
                         {"overlap_fraction", o.fraction()}};
    }
    return j;
}

}  // namespace

nlohmann::json report_to_json(const Report& r) {
    nlohmann::json cases = nlohmann::json::array();
    for (const auto& c : r.cases) cases.push_back(case_json(c));
    return {{"schema", kResultSchema},
            {"suite", r.suite},
            {"partial", r.partial},
            {"options",
             {{"cache", to_string(r.options.cache)},
              {"sync", to_string(r.options.sync)},
              {"warmup", r.options.warmup.describe()},
              {"iterations", r.options.iterations.describe()},
              {"forks", r.options.forks},
              {"drop_caches", r.options.drop_caches},
              {"throttle_bytes_per_s", r.options.throttle},
              {"simulated", r.options.throttle > 0}}},
            {"environment", environment_json(r.environment)},
            {"cases", cases},
            {"warnings", r.warnings()}};
}

std::string to_json(const Report& report) { return report_to_json(report).dump(2) + "\n"; }

}  // namespace iolab
