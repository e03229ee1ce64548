#pragma once
// Peers that answer the same question with a figure of their own, run beside a run's cases:
// PostgreSQL's pg_test_fsync, which times each way of making an 8 kB write durable for a fixed
// time and reports operations per second. On a disk whose sync costs swing between runs one draw
// says little, so it runs kPeerRuns times, between the rounds of the iolab cases it is compared
// with; its median and spread are shown beside the iolab case doing the same thing
// (docs/durable.md says how the two differ).
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "iolab/core/scratch.hpp"
#include "iolab/harness/runner.hpp"

namespace iolab {

struct PeerFigure {
    std::string tool;        // "pg_test_fsync"
    std::string method;      // the tool's name for it: "fdatasync"
    std::string strategy;    // the iolab strategy doing the same; empty: none
    std::size_t record = 0;  // bytes a write
    double ops_per_s = 0;    // the median of its runs; 0: the tool could not run the method here (note says why)
    std::string note;
    std::vector<double> runs;  // each run's figure, in order (a result file of old: none)
};

struct Peers {
    std::vector<PeerFigure> figures;
    std::string command;      // how the tool was run
    std::string skipped;      // why it did not run, where it was wanted
    std::size_t runs = 0;     // the runs whose figures are in
    std::size_t between = 0;  // of them, made between two measured rounds of the cases compared
    double seconds = 0;       // the time its runs took (outside the time budget)
};

// pg_test_fsync's program (it is not in PATH: Debian puts it in /usr/lib/postgresql/N/bin), or "".
std::string pg_test_fsync_program();
// The figures of the "one 8kB write" section of pg_test_fsync's output; throws InputError on
// output that has no such section.
std::vector<PeerFigure> parse_pg_test_fsync(std::string_view out);
// How many times pg_test_fsync runs in a run.
inline constexpr std::size_t kPeerRuns = 3;

// Whether a plan has work a peer gives a figure for (durable cases).
bool wants_peers(const std::vector<CaseSpec>& plan);
// Runs pg_test_fsync once in the scratch folder (its file made and removed there, `seconds` per
// method) and adds its figures to `peers` (each method's runs, its median); a run that fails says
// why in Peers::skipped, and the runs after it are not made.
void run_peer_once(Peers& peers, const ScratchDir& scratch, int seconds = 1);
// Whether `peers` should run again: fewer than kPeerRuns runs and none failed.
bool peers_want_more(const Peers& peers);
// kPeerRuns runs when the plan has durable cases; nothing otherwise.
Peers measure_peers(const std::vector<CaseSpec>& plan, const ScratchDir& scratch, int seconds = 1);

}  // namespace iolab
