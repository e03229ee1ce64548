#pragma once
// What is to be done: the operation, how much data, in which pieces, and what the data is.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "iolab/core/data.hpp"
#include "iolab/core/family.hpp"
#include "iolab/core/names.hpp"
#include "iolab/core/pattern.hpp"

namespace iolab {

// A rate in MiB/s as items of `item_bytes` each per second (commits, files, operations): the one
// conversion the figures, the answer and the JSON share.
inline double items_per_s(double mib_s, std::uint64_t item_bytes) {
    return item_bytes > 0 ? mib_s * static_cast<double>(1 << 20) / static_cast<double>(item_bytes) : 0;
}

// How write.chain is fed: whole records, or one byte per call (Workload::feed_bytes).
inline constexpr Named<bool> kFeeds[] = {{false, "record"}, {true, "byte"}};

// The values of a case that a run's job (Job, strategies/strategy.hpp) takes as the plan gave them:
// one struct, assigned whole.
struct CaseValues {
    std::size_t buffer = 64 * 1024;
    std::size_t record = 1024;
    std::uint64_t count = 1000;  // records written; files replaced (replace)
    unsigned queue = 8;          // buffers in flight (io_uring, pipelined copy)
    unsigned iov = 16;           // buffers or records per vectored call
    unsigned producers = 8;      // threads handing records to one writer (group commit)
    // A tree of files (the files family): `files` files of `file_size` bytes over `folders` folders.
    std::uint64_t files = 1000;
    std::uint64_t file_size = 4096;
    unsigned folders = 10;
    std::string chain = "buffer:8K>deflate:6>file";  // write.chain's layers, outermost first
    bool feed_bytes = false;                         // write.chain: one byte per call instead of whole records
};

struct Workload : CaseValues {
    Family family = Family::read;
    std::uint64_t size = 64ull << 20;  // file size for read and copy; writes use record * count
    DataSpec data;
    std::string input;  // an existing file to read instead of generated data
    unsigned jobs = 1;  // workers doing the whole of it at once, each on its own file (--jobs)
    // Patterned strategies (kParamPattern): `ops` operations of `block` bytes each, placed by
    // `pattern` within the first `span` bytes of the file of `size` bytes.
    bool patterned = false;
    Pattern pattern;
    std::size_t block = 4096;
    std::uint64_t ops = 0;   // 0: one pass over the span
    std::uint64_t span = 0;  // 0: the whole file
    std::uint64_t seed = 0x10ab'5eed;

    std::uint64_t span_bytes() const { return span ? span : size; }
    std::uint64_t op_count() const { return ops ? ops : std::max<std::uint64_t>(1, span_bytes() / block); }
    // Bytes the strategy reads, writes or copies: one job's.
    std::uint64_t bytes() const {
        if (patterned) return op_count() * block;
        switch (shape_of(family)) {
            case Shape::file: return size;
            case Shape::records: return record * count;
            case Shape::tree: return files * file_size;
            case Shape::set: return count * file_size;
        }
        return size;
    }
    // What its rate also counts (FamilyRow::items), and the bytes of one: a durable case's commits (a
    // record each), a tree's files, a set's replacements (a file each); none (0) for the rest.
    std::uint64_t item_bytes() const {
        if (row_of(family).items.empty()) return 0;
        return shape_of(family) == Shape::records ? record : file_size;
    }
    std::string_view item_name() const { return row_of(family).items; }
    // The bytes of one operation a case times (a latency each) and its rate counts besides MiB/s: a
    // patterned case's block, else an item of its kind; 0: its work is not timed by the operation.
    std::uint64_t op_bytes() const { return patterned ? block : item_bytes(); }
    // The size of the file a case stands for: a patterned case's file (whatever bytes its operations
    // move), else its bytes.
    std::uint64_t file_bytes() const { return patterned ? size : bytes(); }
    // Bytes of all its jobs together.
    std::uint64_t all_bytes() const { return bytes() * jobs; }
};

// The table a case is ranked in: its family's, one for each size of item (commits of 4 KiB and
// of 8 KiB, files of 1 byte and of 4 KiB are not ranked against each other by their bytes), and for
// a kind that works on one file one for each size of it (a read of 1 MiB is not a row beside one of
// 1 GiB).
struct TableKey {
    Family family = Family::read;
    std::uint64_t item_bytes = 0;
    std::uint64_t file_bytes = 0;  // a kind working on one file: the size of the file its cases stand for
    auto operator<=>(const TableKey&) const = default;
};

}  // namespace iolab
