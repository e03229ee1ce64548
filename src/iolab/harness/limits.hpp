#pragma once
// Ceilings: for each kind of work, the fastest that work can go on this machine, measured
// in-process on the same size: a read that copies into a buffer can go no faster than memcpy
// into that buffer; a mapped read, which copies nothing, than a read-only scan of cached memory; a
// copy than memcpy from source to destination; a read from the device than large O_DIRECT reads
// at a deep queue; a byte-at-a-time read than the two adds a byte it must do. A case is shown
// against its own kind's ceiling.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "iolab/harness/runner.hpp"

namespace iolab {

enum class LimitKind { memcpy_into_buffer, scan, memcpy, device, byte_loop };
inline constexpr Named<LimitKind> kLimitKinds[] = {{LimitKind::memcpy_into_buffer, "memcpy-into-buffer"},
                                                   {LimitKind::scan, "scan"},
                                                   {LimitKind::memcpy, "memcpy"},
                                                   {LimitKind::device, "device"},
                                                   {LimitKind::byte_loop, "byte-loop"}};
inline std::string_view to_string(LimitKind k) { return name_of(kLimitKinds, k); }

// A ceiling to measure: its kind, the bytes it moves (the case's size, up to kLimitSizeCap) and,
// for memcpy into a buffer, the buffer's size.
struct CeilingKey {
    LimitKind kind = LimitKind::memcpy;
    std::uint64_t size = 0;
    std::size_t buffer = 0;
    bool operator==(const CeilingKey&) const = default;
    std::string describe() const;  // "memcpy of 64 MiB into a 4 KiB buffer"
};

struct Ceiling {
    CeilingKey key;
    double mib_s = 0;  // 0: could not be measured here (note says why)
    std::string note;  // how it was measured, or why not
};

// Past the CPU's caches the rate of these loops no longer depends on the size: larger cases are
// held against ceilings measured on this many bytes.
inline constexpr std::uint64_t kLimitSizeCap = 256ull << 20;

struct Limits {
    std::vector<Ceiling> ceilings;
    bool measured() const { return !ceilings.empty(); }
    const Ceiling* find(const CeilingKey& k) const;
};

// The ceilings a case is bounded by (several: a cold read is bounded by the device and by the
// copy into its buffer); none for writes, nor for several jobs at once.
std::vector<CeilingKey> ceilings_of(const CaseSpec& c, const RunOptions& opts);
// The lowest measured ceiling of a case, or nullptr.
const Ceiling* ceiling_for(const Limits& limits, const CaseSpec& c, const RunOptions& opts);

// Holds each measured case to its ceiling: one whose median rate is above the lowest measured
// ceiling of its kind of work (not a device's, which varies from one minute to the next by more
// than any interval: docs/harness.md) has a figure that cannot be, and gets no figure
// (CaseResult::no_figure): it is shown without a rank and decides nothing. `options_of` gives a
// case's group options.
void hold_to_ceilings(std::vector<CaseResult>& cases, const Limits& limits,
                      const std::function<const RunOptions&(const CaseResult&)>& options_of);

// Measures each key once (repeats dropped); device ceilings read a file of the key's size made in
// dir, and are 0 with a note where O_DIRECT is refused.
Limits measure_limits(const std::vector<CeilingKey>& keys, const std::string& dir);

// MiB/s of copying `total` bytes from a source of src_size bytes into a destination of dst_size
// bytes, reused from its start whenever it is full; the best of `reps` runs.
double memcpy_mib_s(std::size_t src_size, std::size_t dst_size, int reps);
// O_DIRECT io_uring reads (queue 32, 1 MiB blocks) of a `size`-byte file made in `dir`: MiB/s, or
// 0 with why in note.
double device_read_mib_s(const std::string& dir, std::uint64_t size, std::string& note);

// Seconds one synced append takes in `dir`: the median of 15 one-byte writes, each followed by
// fdatasync, to a file made there. 0 when it cannot be measured.
double sync_seconds(const std::string& dir);

// Seconds one file of a tree of `file_size` bytes takes to lay out and write back in `dir`: a tree
// of kLayoutProbeFiles files of at most 64 KiB made there as a run's input is, timed, removed; a
// larger file's time scaled by its bytes. 0 when it cannot be measured.
double file_layout_seconds(const std::string& dir, std::uint64_t file_size);
inline constexpr std::uint64_t kLayoutProbeFiles = 256;

}  // namespace iolab
