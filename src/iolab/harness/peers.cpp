#include "iolab/harness/peers.hpp"

#include <glob.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "iolab/core/interrupt.hpp"
#include "iolab/core/process.hpp"
#include "iolab/core/text_file.hpp"
#include "iolab/core/units.hpp"
#include "iolab/harness/stats.hpp"
#include "iolab/sys/error.hpp"

namespace iolab {

namespace {

// pg_test_fsync's methods and the iolab strategy doing the same work. Its file is written whole
// and synced first, and each method then rewrites the same block(s) at its start, so the iolab
// strategies compared are the ones into a log written with zeros before the clock.
struct Method {
    std::string_view name, strategy;
};
constexpr Method kMethods[] = {
    {"open_datasync", "durable.direct-dsync-zeroed"},  // O_DSYNC, with O_DIRECT where the filesystem takes it
    {"fdatasync", "durable.fdatasync-zeroed"},
    {"fsync", "durable.fsync-zeroed"},
    {"fsync_writethrough", ""},  // not on Linux
    {"open_sync", ""},           // O_SYNC|O_DIRECT: no iolab strategy
};

// "8kB" in "using one 8kB write:": the write's size in bytes, 0 when it is not there.
std::size_t write_size(std::string_view header) {
    const auto at = header.find("one ");
    if (at == std::string_view::npos) return 0;
    std::size_t kb = 0;
    const char* first = header.data() + at + 4;
    const char* last = header.data() + header.size();
    const auto [end, ec] = std::from_chars(first, last, kb);
    if (ec != std::errc() || kb == 0 || kb > (1u << 20) ||
        !std::string_view(end, static_cast<std::size_t>(last - end)).starts_with("kB"))
        return 0;
    return kb * 1024;
}

// One method's line: "        fdatasync      6827.684 ops/sec     146 usecs/op", or "... n/a".
PeerFigure method_line(std::string_view line, std::size_t record) {
    line = trim(line);
    const auto space = line.find_first_of(" \t");
    PeerFigure f;
    f.tool = "pg_test_fsync";
    f.record = record;
    f.method = std::string(line.substr(0, space));
    const std::string_view rest = space == std::string_view::npos ? "" : trim(line.substr(space));
    for (const Method& m : kMethods)
        if (m.name == f.method) f.strategy = m.strategy;
    double ops = 0;
    const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), ops);
    if (ec == std::errc() && std::string_view(end, rest.data() + rest.size()).starts_with(" ops/sec") && ops > 0 &&
        ops < 1e12)
        f.ops_per_s = ops;
    else
        f.note = rest.starts_with("n/a") ? "not available here (n/a)" : fmt::format("unreadable: '{}'", rest);
    return f;
}

}  // namespace

std::vector<PeerFigure> parse_pg_test_fsync(std::string_view out) {
    const auto at = out.find("Compare file sync methods using one ");
    if (at == std::string_view::npos)
        throw InputError("pg_test_fsync printed no 'Compare file sync methods using one ...' section");
    std::string_view rest = out.substr(at);
    const std::string_view header = rest.substr(0, rest.find('\n'));
    const std::size_t record = write_size(header);
    if (record == 0) throw InputError(fmt::format("pg_test_fsync's section '{}' names no write size", header));
    std::vector<PeerFigure> figures;
    rest.remove_prefix(std::min(rest.size(), header.size() + 1));
    while (!rest.empty()) {
        const std::string_view line = rest.substr(0, rest.find('\n'));
        rest.remove_prefix(std::min(rest.size(), line.size() + 1));
        const std::string_view t = trim(line);
        if (t.empty()) break;       // the section ends at a blank line
        if (t[0] == '(') continue;  // "(in wal_sync_method preference order, ...)"
        // ... or at a line that names no method: "* This file system and its mount options do not
        // support direct I/O, ..." and its continuation.
        if (t.find_first_not_of("abcdefghijklmnopqrstuvwxyz_") == 0) break;
        figures.push_back(method_line(t, record));
    }
    if (figures.empty()) throw InputError("pg_test_fsync's one-write section lists no method");
    return figures;
}

std::string pg_test_fsync_program() {
    if (const auto p = find_program("pg_test_fsync")) return *p;
    glob_t g{};
    std::string found;
    if (::glob("/usr/lib/postgresql/*/bin/pg_test_fsync", 0, nullptr, &g) == 0 && g.gl_pathc > 0) {
        // The newest: "/usr/lib/postgresql/VERSION/bin/...", versions compared as numbers (9.6 < 15).
        const auto version = [](const std::string& p) {
            double v = 0;
            const std::size_t at = std::string_view("/usr/lib/postgresql/").size();
            std::from_chars(p.data() + at, p.data() + p.size(), v);
            return v;
        };
        std::vector<std::string> all(g.gl_pathv, g.gl_pathv + g.gl_pathc);
        found = *std::max_element(all.begin(), all.end(),
                                  [&](const std::string& a, const std::string& b) { return version(a) < version(b); });
    }
    ::globfree(&g);
    return found;
}

namespace {
constexpr int kPgTests = 16;                        // the tests pg_test_fsync -s N runs, N seconds each
constexpr std::uint64_t kMaxPgOutput = 1ull << 20;  // its report is a few KiB
}  // namespace

bool wants_peers(const std::vector<CaseSpec>& plan) {
    return std::any_of(plan.begin(), plan.end(),
                       [](const CaseSpec& c) { return c.workload.family == Family::durable; });
}

bool peers_want_more(const Peers& peers) { return peers.skipped.empty() && peers.runs < kPeerRuns; }

namespace {

// One run's figures into those of the runs before it: each method's runs, and their median.
void add_run(Peers& peers, std::vector<PeerFigure> run) {
    for (PeerFigure& f : run) {
        const auto same = std::find_if(peers.figures.begin(), peers.figures.end(), [&](const PeerFigure& p) {
            return p.method == f.method && p.record == f.record;
        });
        const bool fresh = same == peers.figures.end();
        PeerFigure& into = fresh ? peers.figures.emplace_back(f) : *same;
        if (fresh) into.runs.clear();
        if (f.ops_per_s > 0) into.runs.push_back(f.ops_per_s);
        into.ops_per_s = into.runs.empty() ? 0 : median(into.runs);
        if (into.ops_per_s > 0) into.note.clear();
    }
    ++peers.runs;
}

}  // namespace

void run_peer_once(Peers& peers, const ScratchDir& scratch, int seconds) {
    const std::string program = pg_test_fsync_program();
    if (program.empty()) {
        peers.skipped = "pg_test_fsync is not installed (Debian package postgresql-15)";
        return;
    }
    // Its file and its output are made in the scratch folder, through its descriptor.
    const std::string out = scratch.at("pg_test_fsync.txt");
    peers.command = fmt::format("{} -s {} -f pg_test_fsync.out", program, seconds);
    // It runs its 16 tests of `seconds` each: one that has not ended in twice that and a minute is
    // stuck, and is ended.
    const double deadline = 2.0 * kPgTests * seconds + 60;
    const ProcessResult r =
        run_process({program, "-s", std::to_string(seconds), "-f", "pg_test_fsync.out"}, out, scratch.fd(), deadline);
    ::unlinkat(scratch.fd(), "pg_test_fsync.out", 0);
    std::string why;
    const std::optional<std::string> text = read_text_file(out, &why, kMaxPgOutput);
    ::unlinkat(scratch.fd(), "pg_test_fsync.txt", 0);
    if (r.timed_out) {
        peers.skipped = fmt::format("pg_test_fsync had not ended after {:g} s and was ended", deadline);
        return;
    }
    if (!text) {
        peers.skipped = fmt::format("pg_test_fsync ran, but its output could not be read: {}", why);
        return;
    }
    if (r.status != 0) {
        peers.skipped = fmt::format("pg_test_fsync exited with status {}: {}", r.status, r.errors.substr(0, 200));
        return;
    }
    try {
        add_run(peers, parse_pg_test_fsync(text.value_or("")));
    } catch (const InputError& e) {
        peers.skipped = e.what();
    }
}

Peers measure_peers(const std::vector<CaseSpec>& plan, const ScratchDir& scratch, int seconds) {
    Peers peers;
    if (!wants_peers(plan)) return peers;
    while (peers_want_more(peers) && !interrupt::requested()) run_peer_once(peers, scratch, seconds);
    return peers;
}

}  // namespace iolab
