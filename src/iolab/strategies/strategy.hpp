#pragma once
// A strategy is one named way to read, write or copy a file. It does the I/O and nothing else:
// the harness creates its input, times it, counts its calls and verifies its output from
// outside. Adding a strategy is one registration in its family's file.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "iolab/core/checksum.hpp"
#include "iolab/core/family.hpp"
#include "iolab/core/latency.hpp"
#include "iolab/core/pattern.hpp"
#include "iolab/core/records.hpp"
#include "iolab/core/sink.hpp"
#include "iolab/core/tree.hpp"
#include "iolab/core/workload.hpp"

namespace iolab {

// The parameters a strategy honours (a bit set): one bit a parameter, or a few that go together
// (a pattern's). A kind's strategies say which they take; no row of the table names a kind.
enum Param : unsigned {
    kParamBuffer = 1u << 0,      // buffer size in bytes
    kParamRecordSize = 1u << 1,  // record size (writes)
    kParamQueue = 1u << 2,       // queue depth: buffers in flight (io_uring, pipelined copy)
    kParamIov = 1u << 3,         // buffers or records per vectored call
    kParamChain = 1u << 4,       // a layer chain such as buffer:64K>deflate:6>file
    kParamFeed = 1u << 5,        // how the chain is fed: one byte per call, or whole records
    kParamPattern = 1u << 6,     // operations of a block each, placed by a pattern (pattern, block, ops, span, seed)
    kParamJvm = 1u << 7,         // runs in a JVM worker: its heap and its deadline
    kParamProducers = 1u << 8,   // threads handing records to one writer (group commit)
    kParamFiles = 1u << 9,       // files in a tree
    kParamCount = 1u << 10,      // how many: records written, files replaced
    kParamFileSize = 1u << 11,   // bytes of each file (of a tree, of a set)
    kParamFolders = 1u << 12,    // folders a tree's files are spread over
};
// Records written: their size and how many.
inline constexpr unsigned kParamRecord = kParamRecordSize | kParamCount;
// A tree of files: how many, of what size, over how many folders.
inline constexpr unsigned kParamTree = kParamFiles | kParamFileSize | kParamFolders;

class Timeline;

// One part of a shared file (--shared-file, strategies flagged kParts): bytes [offset, offset +
// length) of the input are read, or written at the same offset of the output, which then already
// exists. length 0: the whole file, and the output is new.
struct FilePart {
    std::uint64_t offset = 0;
    std::uint64_t length = 0;
};

// A patterned strategy's operations (kParamPattern): `count` operations of `block` bytes at the
// offsets `pattern` gives within the first `span` bytes, the pattern's operations [first, first +
// count). A read hands each block to
// the sink with its offset (Sink::consume_block). A patterned write's output is laid out by the
// harness (the span, allocated): its identity (device, inode, and change time: an inode number is
// reused) makes the strategy write into that file and no other (0: the strategy makes it, new).
struct Operations {
    Pattern pattern;
    std::size_t block = 4096;
    std::uint64_t count = 0;
    std::uint64_t first = 0;
    std::uint64_t span = 0;
    std::uint64_t seed = 0;
    std::uint64_t dst_dev = 0, dst_ino = 0, dst_ctime_ns = 0;
};

// A tool (kExternal) that can repeat its work in one process (kRepeats: fio --loops) does it
// `passes` times, and reports each pass's bytes (Sink::count_only of one pass); `seconds` receives
// the time a tool or a worker (kWorker: the JVM's own clock) reports for its own work (all passes),
// when it reports one.
struct ToolRun {
    unsigned passes = 1;
    double* seconds = nullptr;
};

// A worker strategy's run (kWorker): `empty`, a request that does nothing but the round trip to its
// worker (the harness times it beside each run, as a tool's fixed cost); the worker's fixed heap and
// how long a request may take before the worker is ended.
struct WorkerRun {
    bool empty = false;
    std::uint64_t heap = 1u << 30;
    double deadline_s = 300;
};

// One execution of a strategy: what to read or write, and with which parameters (the case's
// values, CaseValues in core/workload.hpp, and what the harness adds for this run). Beyond what
// every kind has (its places, its data's source or destination), each part belongs to what a
// strategy honours, and only such a strategy reads it.
struct Job : CaseValues {
    std::string src;                   // input file (read, copy) or tree (files: read, copied or removed)
    std::string dst;                   // output file (write, copy) or tree; does not exist when the job starts
    const Records* records = nullptr;  // writes: what to write (record * count bytes; a tree's files)
    Sink* sink = nullptr;              // reads: where every byte read goes (a tool's count)
    // A tree read: where each file's index and content go (any order, any thread).
    TreeDigest* tree = nullptr;
    bool direct = false;           // use O_DIRECT where the strategy can (--cache direct: kDirect)
    Timeline* timeline = nullptr;  // record read/write events, when not null (kTimeline)
    Latency* latency = nullptr;    // each operation's, record's or file's time, when not null
    FilePart part;                 // kParts
    Operations ops;                // kParamPattern
    ToolRun tool;                  // kExternal, kRepeats; kWorker (its own time)
    WorkerRun worker;              // kWorker
};

// Thrown by a strategy that cannot do this particular job (a tool that only reads whole
// blocks, given a file that is not a multiple of them): the case is skipped with the reason,
// not failed.
struct CannotRun : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// What the harness must know of a strategy beyond its parameters (a bit set).
enum StrategyFlag : unsigned {
    kByteAtATime = 1u << 0,      // one call per byte: the harness runs it on a slice of the file
    kUncounted = 1u << 1,        // its I/O happens inside libstdc++ or another program, where the
                                 // syscall layer can neither count nor fault it
    kDirect = 1u << 2,           // honours Job::direct (O_DIRECT), so it can run under cache direct
    kExternal = 1u << 3,         // a child process (dd, cp, fio): timed as a process
    kOnlyReads = 1u << 4,        // leaves no output to check: reported unverified unless it
                                 // reports a byte count
    kTimeline = 1u << 5,         // records read/write events into Job::timeline when it is set
    kUnthrottled = 1u << 6,      // writes through a mapping or a clone: a throttle cannot slow it
    kOwnThreads = 1u << 7,       // moves data on threads of its own: a stop for one thread cannot end it
    kParts = 1u << 8,            // honours Job::part: can do one part of a shared file
    kRepeats = 1u << 9,          // a tool that honours Job::tool.passes (its start-up is then paid once for them all)
    kInPlace = 1u << 10,         // reads the data where it lies (a mapping), copying none of it
    kBypassesCache = 1u << 11,   // always O_DIRECT: its reads or writes go to the device
    kWorker = 1u << 12,          // runs in a worker process that stays up between runs (the JVM's): timed
                                 // net of the round trip of an empty request (Job::worker.empty)
    kWaitsForDevice = 1u << 14,  // every write waits for the device (O_DSYNC), though through the cache
    kLongInput = 1u << 13,       // with kRepeats: does its passes by reading an input `passes` times as long
                                 // that the harness makes (dd: one file, one process)
    kTool = kExternal | kUncounted,
};

struct Strategy {
    std::string name;  // "family.what", e.g. "read.mmap-chunks"
    Family family = Family::read;
    std::string description;
    std::string jvm;  // the JVM method the published experiments timed, if any
    // A JVM method's counterpart: the C++ strategy that makes the same system calls for the same work
    // ("read.chunk" for FileChannel.read), against which the report sets it (the runtimes table).
    std::string counterpart;
    // A published method kept with its bug (a jvm.*-as-published row): what was wrong, said when
    // it fails its verification, as it must.
    std::string bug;
    unsigned params = 0;
    unsigned flags = 0;
    // The sync calls each item needs to survive a crash, where its kind asks its methods
    // (KindModule::syncs): the harness counts them, and a run that made fewer fails.
    unsigned syncs = 0;
    // For outputs that are not a plain copy of the input (compressed chains): the checksum and
    // size of the data the output file decodes to. Empty: the file itself is the output.
    std::function<FileDigest(const Job&)> decode_output;
    // Why the strategy cannot run in this folder's filesystem, or nullopt when it can.
    std::function<std::optional<std::string>(const std::string& dir)> unavailable;
    std::function<void(const Job&)> run;
    // Work done before the clock starts, before each run (a worker started, its garbage collected,
    // a write's records made in it); may be empty.
    std::function<void(const Job&)> prepare;
    // What ends what its runs set up and keep between them (the JVM worker), at the end of each
    // group however it ends (a failure, a stop); may be empty.
    std::function<void()> teardown;
    // What a result records of the runtime it ran in, given the worker's heap ("NAME VERSION:
    // command"; "" when none started); may be empty.
    std::function<std::string(std::uint64_t heap)> runtime;

    bool honours(Param p) const { return (params & p) != 0; }
    bool byte_at_a_time() const { return flags & kByteAtATime; }
    bool in_syscall_layer() const { return !(flags & kUncounted); }
    bool direct_capable() const { return flags & kDirect; }
    bool external() const { return flags & kExternal; }
    bool output_checked() const { return !(flags & kOnlyReads); }
    bool records_timeline() const { return flags & kTimeline; }
    bool own_threads() const { return flags & kOwnThreads; }
    bool throttleable() const { return !(flags & kUnthrottled); }
    bool does_parts() const { return flags & kParts; }
    bool repeats() const { return flags & kRepeats; }
    bool long_input() const { return flags & kLongInput; }
    bool waits_for_device() const { return flags & (kWaitsForDevice | kBypassesCache); }
    bool in_place() const { return flags & kInPlace; }
    bool bypasses_cache() const { return flags & kBypassesCache; }
    bool worker() const { return flags & kWorker; }
    std::optional<std::string> skip_reason(const std::string& dir) const {
        return unavailable ? unavailable(dir) : std::nullopt;
    }
};

// One entry of a family file, written with designated initializers (fio's ioengine_ops). The
// name is "family.what" (or "jvm.family-what" for a method run in the JVM): registration takes
// the family from it. A tool names its program and
// Debian package, and is skipped where the program is missing.
struct StrategyDef {
    std::string_view name;
    unsigned params = 0;
    unsigned flags = 0;
    unsigned syncs = 0;  // Strategy::syncs
    void (*run)(const Job&) = nullptr;
    std::optional<std::string> (*unavailable)(const std::string& dir) = nullptr;
    FileDigest (*decode_output)(const Job&) = nullptr;
    void (*prepare)(const Job&) = nullptr;
    void (*teardown)() = nullptr;                     // Strategy::teardown
    std::string (*runtime)(std::uint64_t) = nullptr;  // Strategy::runtime
    std::string_view description;
    std::string_view jvm = {};          // the JVM method the published experiments timed, if any
    std::string_view counterpart = {};  // Strategy::counterpart
    std::string_view bug = {};          // a published method's known bug (Strategy::bug)
    std::string_view program = {}, package = {};
};

class Registry {
public:
    void add(Strategy s);  // a duplicate name is a programming error: throws std::logic_error
    void add(std::span<const StrategyDef> defs);
    const Strategy* find(std::string_view name) const;
    const std::vector<Strategy>& all() const { return strategies_; }
    // Names matching a shell glob ("copy.*", "read.byte-*"), in registration order.
    std::vector<const Strategy*> match(std::string_view pattern) const;
    // The known names closest to an unknown one, for "did you mean" hints.
    std::vector<std::string> closest(std::string_view name, std::size_t n = 3) const;

    // Every strategy iolab ships.
    static const Registry& builtin();

private:
    std::vector<Strategy> strategies_;
};

// Each family file registers its table.
void register_read_strategies(Registry& r);
void register_write_strategies(Registry& r);
void register_copy_strategies(Registry& r);
void register_direct_strategies(Registry& r);
void register_vectored_strategies(Registry& r);
void register_uring_strategies(Registry& r);
void register_pipelined_strategies(Registry& r);
void register_chain_strategies(Registry& r);
void register_external_strategies(Registry& r);
void register_patterned_strategies(Registry& r);
void register_jvm_strategies(Registry& r);
void register_durable_strategies(Registry& r);
void register_files_strategies(Registry& r);
void register_replace_strategies(Registry& r);

}  // namespace iolab
