// The CSV exporter: one row per case (RFC 4180 quoting), a column for every case parameter, so
// no two different cases share a row.
#include <fmt/format.h>

#include "iolab/report/exporter.hpp"

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

}  // namespace

std::string to_csv(const Report& report) {
    std::string out = "strategy,family,group";
    for (const CaseParam& p : case_params()) out += fmt::format(",{}", p.key);
    out +=
        ",status,verified,verification,n,median_s,mean_s,stddev_s,ci999_low_s,ci999_high_s,min_s,max_s,"
        "throughput_mib_s,syscalls_per_mib,cpu_fraction,reason\n";
    for (const auto& c : report.cases) {
        out += fmt::format("{},{},{}", quote(c.name()), to_string(c.spec.workload.family), quote(c.spec.group));
        for (const CaseParam& p : case_params()) {
            out += ',';
            if (p.has(c.spec)) out += quote(p.get(c.spec));
        }
        const double cpm = calls_per_mib(c);
        out += fmt::format(",{},{},{},{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.6g},{},{:.4g},{}\n",
                           to_string(c.status), c.verified ? "true" : "false", quote(std::string(to_string(c.checked))),
                           c.stats.n, c.stats.median, c.stats.mean, c.stats.stddev, c.stats.ci_low, c.stats.ci_high,
                           c.stats.min, c.stats.max, c.throughput_mib_s,
                           cpm < 0 ? std::string() : fmt::format("{:.6g}", cpm), cpu_fraction(c), quote(c.reason));
    }
    return out;
}

}  // namespace iolab
