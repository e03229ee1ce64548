#pragma once
// Peers that answer the same question with a figure of their own, run once beside a run's cases:
// PostgreSQL's pg_test_fsync, which times each way of making an 8 kB write durable for a fixed
// time and reports operations per second. Its figure is shown beside the iolab case doing the
// same thing (docs/durable.md says how the two differ).
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
    double ops_per_s = 0;    // 0: the tool could not run the method here (note says why)
    std::string note;
};

struct Peers {
    std::vector<PeerFigure> figures;
    std::string command;  // how the tool was run
    std::string skipped;  // why it did not run, where it was wanted
};

// pg_test_fsync's program (it is not in PATH: Debian puts it in /usr/lib/postgresql/N/bin), or "".
std::string pg_test_fsync_program();
// The figures of the "one 8kB write" section of pg_test_fsync's output; throws InputError on
// output that has no such section.
std::vector<PeerFigure> parse_pg_test_fsync(std::string_view out);
// Runs pg_test_fsync in the scratch folder (its file made and removed there, `seconds` per method)
// when the plan has durable cases; nothing otherwise.
Peers measure_peers(const std::vector<CaseSpec>& plan, const ScratchDir& scratch, int seconds = 1);

}  // namespace iolab
