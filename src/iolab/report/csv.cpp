#include "iolab/report/csv.hpp"

#include <fmt/format.h>

namespace iolab {

namespace {

std::string quote(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) {
        if (c == '"') q += '"';
        q += c;
    }
    return q + "\"";
}

std::string param(const CaseSpec& c, const char* key) {
    const auto p = c.params();
    const auto it = p.find(key);
    return it == p.end() ? std::string() : it->second;
}

}  // namespace

std::string to_csv(const Report& report) {
    std::string out =
        "strategy,family,buffer,record,count,size,slice_of,data,status,verified,n,median_s,mean_s,stddev_s,"
        "ci999_low_s,ci999_high_s,min_s,max_s,throughput_mib_s,syscalls_per_mib,cpu_fraction,reason\n";
    for (const auto& c : report.cases) {
        const double cpm = calls_per_mib(c);
        out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.6g},{},{:.4g},{}\n",
                           quote(c.name()), to_string(c.spec.workload.family), param(c.spec, "buffer"),
                           param(c.spec, "record"), param(c.spec, "count"), param(c.spec, "size"),
                           param(c.spec, "slice_of"), quote(param(c.spec, "data")), to_string(c.status),
                           c.verified ? "true" : "false", c.stats.n, c.stats.median, c.stats.mean, c.stats.stddev,
                           c.stats.ci_low, c.stats.ci_high, c.stats.min, c.stats.max, c.throughput_mib_s,
                           cpm < 0 ? std::string() : fmt::format("{:.6g}", cpm), cpu_fraction(c), quote(c.reason));
    }
    return out;
}

}  // namespace iolab
