#pragma once
// A kind of work's module: what it owns beyond its strategies (one file streamed, records written, a
// tree of files, a set of files replaced): its input, each run's output laid out before the clock,
// the check of what a run left, its removal, and what its cases need. The harness's fixture and plan
// call through it; the kind's row (core/family.hpp) says its name, shape, unit and constraints.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "iolab/core/checksum.hpp"
#include "iolab/core/family.hpp"
#include "iolab/core/records.hpp"
#include "iolab/core/sink.hpp"
#include "iolab/core/workload.hpp"
#include "iolab/strategies/strategy.hpp"

namespace iolab {

struct Verdict {
    bool ok = false;
    bool checked = true;      // false: the strategy leaves no output to check
    bool count_only = false;  // only the byte count could be checked (dd, fio)
    std::uint64_t expected = 0;
    std::uint64_t actual = 0;
    std::uint64_t expected_bytes = 0;
    std::uint64_t actual_bytes = 0;
    VerifyMode mode = VerifyMode::full;
    bool crc32 = false;            // a reader elsewhere's CRC-32 (Sink::take_crc32), in place of XXH3
    std::string tree;              // what is wrong with a kind's output, in its words (trees, sets)
    std::string describe() const;  // "checksum 0x… expected 0x… (n bytes, expected m)"
};

// An input a case reads or copies (a file), or the records it writes (memory), with the
// digests of its bytes.
struct Input {
    std::string path;                        // reads and copies
    std::shared_ptr<const Records> records;  // writes
    FileDigest digest;
    // A shared file (--shared-file): the digests of each job's part, in order.
    std::vector<FileDigest> parts;
    bool owned = false;  // created here: removed with the pool
    // Made by a kind's module (KindModule): how to remove it (an owned input, an output).
    void (*remove)(const std::string& path) = nullptr;
    std::uint64_t files = 0;
};

// What the check of a run knows besides the input and the job.
struct RunCheck {
    bool checked = true;                           // false: a tool that leaves nothing of iolab's to check
    std::optional<unsigned> part;                  // a part of a shared file (--shared-file): only its bytes
    std::function<FileDigest(const Job&)> decode;  // a compressed output's content (Strategy::decode_output)
    std::function<std::uint32_t()> input_crc32;    // the input's CRC-32, computed once (Sink::take_crc32)
};

// What a case of the kind holds in the scratch folder for one job: an input it keeps (shared by the
// cases whose `input` names it; "" none), the output of a run, in bytes and in inodes.
struct KindSpace {
    std::string input;
    std::uint64_t input_bytes = 0, input_inodes = 0;
    std::uint64_t output_bytes = 0, output_inodes = 0;
};

// What bounds one job of a kind in memory, which the harness measures as its ceiling: a copy moves
// each byte from one place in memory to another; a read brings each byte into the strategy's buffer
// (or scans it in place, or takes it a byte at a time, as the strategy says). None: the kind's work
// has no such bound (a write waits for the device or its allocations, a tree for its metadata).
enum class MemoryBound { none, copy, read };

// A case parameter a kind brings, as fio's engine options and IOR's backend options: a whole
// number a case, kept in one field of its kind's values (CaseValues::kind); a list sweeps. Its row
// of the parameter table (harness/params.hpp) is made from this: --KEY on the command line, KEY in
// suites and result files, a label and a column.
struct KindParam {
    std::string_view key;       // "files"
    std::string_view help;      // one line for --help
    std::string_view expected;  // what a valid list looks like, for errors
    unsigned takes = 0;         // the strategies that take it: those that honour this Param bit
    std::uint64_t max = 0;      // the largest value (the least is 1); a whole number's fits 32 bits
    bool size = false;          // written as a size ("4K"), else as a whole number
    std::uint64_t (*get)(const Workload& w) = nullptr;
    void (*set)(Workload& w, std::uint64_t value) = nullptr;
    // The most a smoke run (--smoke) gives it (0: no limit); a size is held to the smoke run's file
    // size as well.
    std::uint64_t smoke_max = 0;
};

// The hooks of a kind. Paths are names in a folder held by descriptor (ScratchDir::at).
struct KindModule {
    // The case parameters it brings (each kind that takes one of another's names it by its Param bit).
    std::span<const KindParam> params = {};
    // Its cases' needs, checked before the run: scratch space, memory beyond buffers (its content
    // made in memory), descriptors open at once (beyond a few of the strategy's own).
    KindSpace (*space)(const Workload& w) = nullptr;
    std::uint64_t (*memory)(const Workload& w) = nullptr;
    std::uint64_t (*descriptors)(const Strategy& s, const Workload& w) = nullptr;
    // What those descriptors are, and the setting that makes them fewer besides --jobs (empty: none),
    // for a case that would hold more than the process may open ("a descriptor for each of its
    // folders, twice for a copy", "folders").
    std::string_view descriptors_are = "a descriptor for each buffer in flight";
    std::string_view fewer_descriptors = "queue";
    // Its ceiling (null: none).
    MemoryBound (*bound)(const Workload& w) = nullptr;
    // What a table of it is of, when its group has no title, given the count of its cases' items (the
    // one, or their range): "1000 files of 4 KiB", "364 to 1000 files of 4 KiB" (null or "": its bytes).
    std::string (*what)(const Workload& w, std::string_view items) = nullptr;
    // The name of its input in the scratch folder (from what it holds: every rank of an MPI job
    // names it alike), and the input made there or only its digests.
    std::string (*input_name)(const Workload& w, unsigned job) = nullptr;
    std::shared_ptr<const Input> (*make_input)(const Workload& w, const std::string& path) = nullptr;
    // Makes w the least work of the kind, which a tool's probe times as the tool's fixed cost (a
    // tree of one file); null: the harness's page of a file is least.
    void (*least)(Workload& w) = nullptr;
    // Lays out what a run needs at its output (job.dst), before the clock (may be null).
    void (*before_run)(const Workload& w, const Input& in, Job& job) = nullptr;
    // What a run left.
    Verdict (*verify)(const Workload& w, const Input& in, const Job& job, const RunCheck& c) = nullptr;
    // The sync calls a job must make for its work to survive a crash, counted by the syscall layer
    // (null: none), and the words of a run that made fewer ({made}, {count} items, {needed}).
    std::uint64_t (*syncs)(const Strategy& s, const Workload& w) = nullptr;
    std::string_view sync_shortfall = {};
    // The setting that gives what an iteration counts (records, files, replacements: its values'
    // CaseValues::item_count; empty: its bytes), and another that implies it (records: --size, of
    // --record each): a count neither gives is sized by time (Session::size_by_time).
    std::string_view items_key = {};
    std::string_view items_implied_by = {};
    // The files a run works on one by one (a tree's, each `file_size` bytes), which the session's
    // estimates count at a file's cost: a run's time, and its input's layout (null: none, its bytes).
    std::uint64_t (*files_each_run)(const Workload& w) = nullptr;
    // Removes what is at path (an output or an input it made), if anything.
    void (*remove)(const std::string& path) = nullptr;
};

// The module of a family.
const KindModule& kind_module(Family f);
// Every module's case parameters, in the order of the kinds (core/family.hpp), each once.
std::span<const KindParam* const> kind_parameters();
// The value of a kind's parameter in a case that is given none (a case of the kind that brings it).
std::uint64_t default_of(const KindParam& k);

// Each kind's module (the registration list is kinds.cpp).
const KindModule& file_kind();
const KindModule& records_kind();
const KindModule& files_kind();
const KindModule& replace_kind();

// (folder descriptor, name) of a path made by ScratchDir::at; a kind's folders are named so.
std::pair<int, std::string> place_of(const std::string& path);
// Removes the folder at such a path and all it holds, if it is there.
void remove_folder_at(const std::string& path);

// The data's name as a file name: "random", "compressible_4".
std::string data_token(const DataSpec& d);

// Writes `size` bytes of generated data to a new file at path; returns their digests.
FileDigest write_input_file(const std::string& path, const DataSpec& spec, std::uint64_t size);

}  // namespace iolab
