// pg_test_fsync's figure for each way of making a write durable, beside the iolab case doing the
// same work (table.hpp).
#include <algorithm>

#include <fmt/format.h>

#include "iolab/core/units.hpp"
#include "iolab/report/table.hpp"

namespace iolab {

namespace {

// How near the tool's figure must be for the two to agree.
constexpr double kAgreement = 1.15;

// The ranked case of the strategy with the peer's record size, or nullptr (also when a result file
// names a strategy that writes no records).
const CaseResult* same_work(const Report& report, const PeerFigure& f) {
    for (const CaseResult& c : report.cases) {
        const auto* records = c.spec.workload.values_if<RecordValues>();
        if (c.ranked() && c.name() == f.strategy && records && records->record == f.record) return &c;
    }
    return nullptr;
}

// The peer's runs, lowest and highest (its one figure where a result file holds no runs).
std::pair<double, double> peer_spread(const PeerFigure& f) {
    if (f.runs.empty()) return {f.ops_per_s, f.ops_per_s};
    const auto [lo, hi] = std::minmax_element(f.runs.begin(), f.runs.end());
    return {*lo, *hi};
}

// Both sides' spread judged: "yes" where iolab's interval of commits/s lies within kAgreement of the
// span of the peer's runs, "no" where it lies wholly outside that, "?" otherwise (across an edge,
// or no interval).
std::string agreement(const CaseResult& c, double per_mib, const PeerFigure& f) {
    const auto [low, high] = rate_interval(c);
    if (low <= 0 || high <= 0) return "?";
    const double lo = low * per_mib, hi = high * per_mib;
    const auto [peer_lo, peer_hi] = peer_spread(f);
    if (lo >= peer_lo / kAgreement && hi <= peer_hi * kAgreement) return "yes";
    if (hi < peer_lo / kAgreement || lo > peer_hi * kAgreement) return "no";
    return "?";
}

// "7314 (6900-8243, n=3)": the median of the peer's runs and their span.
std::string peer_cell(const PeerFigure& f) {
    if (f.ops_per_s <= 0) return f.note;
    if (f.runs.size() < 2) return fmt::format("{:.0f} (n={})", f.ops_per_s, std::max<std::size_t>(1, f.runs.size()));
    const auto [lo, hi] = peer_spread(f);
    return fmt::format("{:.0f} ({:.0f}-{:.0f}, n={})", f.ops_per_s, lo, hi, f.runs.size());
}

}  // namespace

Table peers_table(const Report& report) {
    Table t;
    const Peers& p = report.peers;
    if (p.figures.empty() && p.skipped.empty()) return t;
    t.title = "pg_test_fsync beside iolab";
    if (p.figures.empty()) {
        t.notes.push_back("no figures from pg_test_fsync: " + p.skipped);
        return t;
    }
    const std::size_t record = p.figures.front().record;
    t.title = fmt::format("pg_test_fsync beside iolab: a durable write of {} a commit", format_size(record));
    t.columns = {{"method", true},
                 {"pg ops/s (runs)"},
                 {"iolab case", true},
                 {"commits/s"},
                 {"±95%"},
                 {"iolab/pg"},
                 {fmt::format("within {:.0f}%", (kAgreement - 1) * 100)}};
    bool missing = false;
    for (const PeerFigure& f : p.figures) {
        Row row;
        const CaseResult* c = f.ops_per_s > 0 && !f.strategy.empty() ? same_work(report, f) : nullptr;
        const std::string ops = peer_cell(f);
        if (!c) {
            missing = missing || (f.ops_per_s > 0 && !f.strategy.empty());
            row.kind = RowKind::reference;
            row.cells = {f.method, ops, f.strategy.empty() ? "-" : f.strategy};
            row.status = std::string(1, '-');
            row.reason = f.strategy.empty() ? "no iolab strategy does this"
                                            : fmt::format("no ranked case of {} records", format_compact(f.record));
            t.rows.push_back(std::move(row));
            continue;
        }
        const double per_mib = static_cast<double>(1 << 20) / static_cast<double>(f.record);
        row.cells = {f.method,
                     ops,
                     c->spec.label(),
                     fmt::format("{:.0f}", c->ops_per_s),
                     has_interval(*c) ? fmt::format("±{:.1f}%", c->stats.median_precision() * 100) : "?",
                     format_ratio(c->ops_per_s / f.ops_per_s),
                     agreement(*c, per_mib, f)};
        t.rows.push_back(std::move(row));
    }
    if (!p.skipped.empty())
        t.notes.push_back(fmt::format("pg_test_fsync ran {} time(s) of {}: {}", p.runs, kPeerRuns, p.skipped));
    t.notes.push_back(fmt::format(
        "pg ops/s is the median of pg_test_fsync's {} run(s), with their span ({} between two rounds of iolab's "
        "cases, the rest right after them); within {:.0f}% judges iolab's interval against that span",
        p.runs, p.between, (kAgreement - 1) * 100));
    t.notes.push_back(fmt::format(
        "pg_test_fsync ({}) rewrites the same block(s) at the start of a file it wrote and synced first; iolab's "
        "zeroed cases write each record at its own place in a log written with zeros and synced before the clock; "
        "open_datasync is O_DSYNC with O_DIRECT",
        p.command));
    if (missing)
        t.notes.push_back(fmt::format("run the durable cases with --record {} to set every method beside iolab's",
                                      format_compact(record)));
    return t;
}

}  // namespace iolab
