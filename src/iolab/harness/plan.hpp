#pragma once
// From what the user asked for (strategy patterns and parameter lists) to the grid of cases.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "iolab/core/data.hpp"
#include "iolab/core/pattern.hpp"
#include "iolab/harness/result.hpp"
#include "iolab/strategies/strategy.hpp"
#include "iolab/sys/error.hpp"

namespace iolab {

// Every list starts with the value a case has by default (a Workload's, or its kind's values'), and
// a kind's parameter not in kind_values has it: one place for the defaults.
struct PlanRequest {
    std::vector<std::string> strategies;  // names or globs; empty: every strategy
    std::vector<std::uint64_t> sizes = {Workload{}.size};
    std::vector<std::size_t> buffers = {Workload{}.buffer};
    std::vector<std::size_t> records = {RecordValues{}.record};
    std::optional<std::uint64_t> count;                 // writes: records per file; default size / record
    std::vector<unsigned> queues = {Workload{}.queue};  // io_uring queue depth, pipelined buffers
    std::vector<unsigned> iovs = {Workload{}.iov};      // vectored calls
    // The values of the case parameters the kinds bring (KindParam: a tree's files, file_size and
    // folders, group commit's producers), by key; a key not here has the one value its kind's values
    // have by default (default_of).
    std::map<std::string, std::vector<std::uint64_t>, std::less<>> kind_values;
    std::vector<std::string> chains = {RecordValues{}.chain};
    std::vector<bool> feeds = {RecordValues{}.feed_bytes};  // write.chain: true feeds one byte per call
    std::vector<unsigned> jobs = {Workload{}.jobs};         // workers running each case at once (file per job)
    DataSpec data;
    // Patterned strategies (kParamPattern): operations of a block, placed by an access pattern.
    std::vector<Pattern> access_patterns = {Workload{}.pattern};
    std::vector<std::size_t> blocks = {Workload{}.block};
    std::uint64_t ops = Workload{}.ops;    // 0: one pass over the span
    std::uint64_t span = Workload{}.span;  // 0: the whole file
    std::uint64_t seed = Workload{}.seed;  // the access pattern's (RunOptions::order_seed: the case order's)
    // Byte-at-a-time cases run on at most this many bytes and are scaled up in reports.
    std::uint64_t byte_slice = 1ull << 20;
    // Read (or copy from) this existing file or block device instead of generated data; it is
    // never written, and write strategies are refused. sizes then holds its size.
    std::string input;
    // The settings given (the parameter table's keys), for a strategy given one it does not take.
    std::vector<std::string_view> given;
    // Every setting given, a suite's defaults' too (`given` holds a group's own): a count or a number
    // of files chosen is never sized by time (Session::size_by_time).
    std::vector<std::string_view> chosen;
};

// The byte_slice setting: 0 means "no slice: the whole file", on the command line and in suites.
inline std::uint64_t byte_slice_from(std::uint64_t setting) { return setting == 0 ? UINT64_MAX : setting; }

// Each strategy's cases: every value of each parameter it takes, crossed (harness/params.hpp).
// Throws InputError with a one-line message for an unknown strategy (naming the closest ones), a
// pattern that matches nothing, a buffer, span, block or stride that does not fit the file, a
// malformed chain, or more than kMaxCases cases. The range of each value is its setting's parser's
// (apply_setting): a PlanRequest filled by hand is not held to it.
std::vector<CaseSpec> build_plan(const PlanRequest& req, const Registry& registry = Registry::builtin());

// The strategies names or globs choose (empty: every one). Throws InputError for one that
// chooses none.
std::vector<const Strategy*> chosen_strategies(const std::vector<std::string>& names,
                                               const Registry& registry = Registry::builtin());

// Bytes of scratch space a group's cases need at once: their shared inputs and one output.
std::uint64_t scratch_needed(const std::vector<CaseSpec>& plan);
// Inodes a group's trees of files need at once (files, folders, roots): its input trees and one output.
std::uint64_t scratch_inodes_needed(const std::vector<CaseSpec>& plan);

inline constexpr unsigned kMaxQueue = 4096;  // entries of an io_uring, buffers of a pipeline
inline constexpr unsigned kMaxIov = 1024;    // IOV_MAX
inline constexpr unsigned kMaxJobs = 256;    // threads running one case at once
inline constexpr std::uint64_t kMaxBuffer = 1ull << 30;
inline constexpr std::size_t kMaxCases = 10000;             // in one run, all groups together
inline constexpr std::uint64_t kMaxCaseBytes = 1ull << 60;  // what one case may read, write or copy

// The samples one run keeps, all cases together, so that its result file stays within what
// `iolab report` reads back (kMaxResultFileBytes). A sample of a case with several jobs or ranks
// keeps each one's time besides, at a sixteenth of a sample each.
inline constexpr std::uint64_t kMaxRunSamples = 200'000;
inline constexpr std::uint64_t kMinSamples = 3;  // fewer and a case has no interval
// The most samples each case of the run may keep (at most `max_iterations`): kMaxRunSamples shared
// evenly by weight. Below kMinSamples the run cannot be kept whole: the caller refuses it.
std::uint64_t samples_per_case(const std::vector<std::vector<CaseSpec>>& plan, unsigned ranks,
                               std::uint64_t max_iterations);

// Descriptors a case holds open at once, besides the process's own: a tree's folders (twice for a
// copy: both trees), its queue of files in flight, for each job.
std::uint64_t descriptors_needed(const CaseSpec& c);

// The sync calls one job of a durable case makes at least to make every record durable when its call
// returns (one a record; a group commit's, one a batch of its producers' records); 0 for other
// families. And one iteration of a case, all jobs together.
std::uint64_t syncs_per_job(const Strategy& s, const Workload& w);
std::uint64_t syncs_per_iteration(const CaseSpec& c);

// Memory a case holds at once: its buffers (times the queue depth or vector length) and, for
// writes, the records it writes (twice more for a compressed chain, decoded to verify it).
std::uint64_t memory_needed(const CaseSpec& c);

}  // namespace iolab
