// The CSV exporter: one row per case (RFC 4180 quoting), a column for every case parameter, so
// no two different cases share a row. Under MPI each case's row (all ranks: rank empty) is
// followed by one row per rank, from that rank's own times (rank and host set).
#include <fmt/format.h>

#include <map>

#include "iolab/harness/params.hpp"
#include "iolab/report/analysis/compare.hpp"
#include "iolab/report/exporter.hpp"
#include "iolab/report/table.hpp"

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
    for (const Parameter& p : parameters())
        if (p.case_param()) out += fmt::format(",{}", p.key);
    out +=
        ",status,verified,verification,stable,stopped,n,median_s,mean_s,stddev_s,ci999_low_s,ci999_high_s,min_s,max_s,"
        "throughput_mib_s,syscalls_per_mib,cpu_fraction,ops_per_s,p50_ns,p90_ns,p99_ns,p99_9_ns,max_ns,reason";
    const bool mpi = !report.environment.hosts.empty();
    if (mpi) out += ",rank,host";
    // Against a baseline (--baseline): the case's time ratio, its interval, p and change.
    std::map<std::string, const CaseChange*> changes;
    if (report.baseline) {
        out += ",baseline_ratio,baseline_low,baseline_high,baseline_p,baseline_change";
        for (const CaseChange& ch : report.baseline->shared) changes[ch.label] = &ch;
    }
    out += "\n";
    for (const auto& c : report.cases) {
        std::string lead =
            fmt::format("{},{},{}", quote(c.name()), to_string(c.spec.workload.family), quote(c.spec.group));
        for (const Parameter& p : parameters()) {
            if (!p.case_param()) continue;
            lead += ',';
            if (p.has(c.spec)) lead += quote(p.get(c.spec));
        }
        // Patterned cases: the rate of operations and the latency percentiles (the case's row only).
        std::string latency = ",,,,,";
        if (c.latency)
            latency = fmt::format("{:.6g},{},{},{},{},{}", c.ops_per_s, c.latency->percentile(0.50),
                                  c.latency->percentile(0.90), c.latency->percentile(0.99),
                                  c.latency->percentile(0.999), c.latency->max());
        const auto row = [&](const Summary& st, double mib_s, const std::string& cpm, const std::string& cpu,
                             const std::string& lat, const std::string& rank, const std::string& host) {
            out += lead +
                   fmt::format(",{},{},{},{},{},{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.6g},{},{},{},{}",
                               to_string(c.status), c.verified ? "true" : "false",
                               quote(std::string(to_string(c.checked))), c.stable ? "true" : "false",
                               quote(std::string(to_string(c.stopped))), st.n, st.median, st.mean, st.stddev, st.ci_low,
                               st.ci_high, st.min, st.max, mib_s, cpm, cpu, lat, quote(c.reason));
            if (mpi) out += fmt::format(",{},{}", rank, quote(host));
            if (report.baseline) {
                const auto it = rank.empty() ? changes.find(comparison_label(c)) : changes.end();
                if (it == changes.end())
                    out += ",,,,,";
                else
                    out += fmt::format(",{:.6g},{:.6g},{:.6g},{:.3g},{}", it->second->ratio, it->second->low,
                                       it->second->high, it->second->p, name_of(kChanges, it->second->change));
            }
            out += "\n";
        };
        const double cpm = calls_per_mib(c);
        row(c.stats, c.throughput_mib_s, cpm < 0 ? std::string() : fmt::format("{:.6g}", cpm),
            c.spec.strategy->worker() ? std::string() : fmt::format("{:.4g}", cpu_fraction(c)), latency, "", "");
        for (const RankFigures& f : rank_figures(c, report.environment.hosts))
            row(f.stats, f.throughput_mib_s, "", "", ",,,,,", std::to_string(f.rank), f.host);
    }
    return out;
}

}  // namespace iolab
