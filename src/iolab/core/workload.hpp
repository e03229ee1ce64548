#pragma once
// What is to be done: the operation, how much data, in which pieces, and what the data is.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>

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

// How write.chain is fed: whole records, or one byte per call (RecordValues::feed_bytes).
inline constexpr Named<bool> kFeeds[] = {{false, "record"}, {true, "byte"}};

// The values a case has by its kind's shape (Shape, core/family.hpp), one set for each: a case holds
// its own kind's and no other's.
// One file streamed (read, copy): nothing beyond what every case has; its bytes are the file's.
struct FileValues {
    static constexpr Shape kShape = Shape::file;
};
// Records written from nothing (write, durable): their size and number, the threads handing them to
// one writer (group commit), and write.chain's layers and feed.
struct RecordValues {
    static constexpr Shape kShape = Shape::records;
    std::size_t record = 1024;
    std::uint64_t count = 1000;
    unsigned producers = 8;
    std::string chain = "buffer:8K>deflate:6>file";  // write.chain's layers, outermost first
    bool feed_bytes = false;                         // write.chain: one byte per call instead of whole records
};
// A tree of files (the files family): `files` files of `file_size` bytes over `folders` folders.
struct TreeValues {
    static constexpr Shape kShape = Shape::tree;
    std::uint64_t files = 1000;
    std::uint64_t file_size = 4096;
    unsigned folders = 10;
};
// Files replaced in turn (replace): `count` files of `file_size` bytes.
struct SetValues {
    static constexpr Shape kShape = Shape::set;
    std::uint64_t count = 1000;
    std::uint64_t file_size = 4096;
};
// In the order of Shape.
using KindValues = std::variant<FileValues, RecordValues, TreeValues, SetValues>;
template <class V>
constexpr bool kAtItsShape =
    std::is_same_v<std::variant_alternative_t<static_cast<std::size_t>(V::kShape), KindValues>, V>;
static_assert(kAtItsShape<FileValues> && kAtItsShape<RecordValues> && kAtItsShape<TreeValues> &&
              kAtItsShape<SetValues>);

// Where a kind's values keep what an iteration counts (a tree's files, else a count: records, files
// replaced) and the size of each of its files (a tree's, a set's); null where it has none. Its
// items are each a record or a file: its bytes are their count times the bytes of one.
template <class V>
using CountIn = std::conditional_t<std::is_const_v<V>, const std::uint64_t, std::uint64_t>;
template <class V>
CountIn<V>* items_in(V& v) {
    if constexpr (requires { v.files; })
        return &v.files;
    else if constexpr (requires { v.count; })
        return &v.count;
    else
        return nullptr;
}
template <class V>
CountIn<V>* each_file_in(V& v) {
    if constexpr (requires { v.file_size; })
        return &v.file_size;
    else
        return nullptr;
}
template <class V>
std::uint64_t item_bytes_in(const V& v) {
    if constexpr (requires { v.record; })
        return v.record;
    else if constexpr (requires { v.file_size; })
        return v.file_size;
    else
        return 0;
}

// The values of a case that a run's job (Job, strategies/strategy.hpp) takes as the plan gave them:
// one struct, assigned whole. Its kind's values follow its family (set the family first): until
// one is set they are the kind's defaults, and asking a case of one kind for another's throws
// std::logic_error.
struct CaseValues {
    Family family = Family::read;
    std::size_t buffer = 64 * 1024;
    unsigned queue = 8;  // buffers in flight (io_uring, pipelined copy)
    unsigned iov = 16;   // buffers or records per vectored call
    KindValues kind;

    const RecordValues& records_of() const { return values<RecordValues>(); }
    RecordValues& records_of() { return values<RecordValues>(); }
    const TreeValues& tree_of() const { return values<TreeValues>(); }
    TreeValues& tree_of() { return values<TreeValues>(); }
    const SetValues& set_of() const { return values<SetValues>(); }
    SetValues& set_of() { return values<SetValues>(); }
    // Its kind's values of type V, or null when its kind has none (a read's records).
    template <class V>
    V* values_if() {
        return std::get_if<V>(&kind_values());
    }
    template <class V>
    const V* values_if() const {
        return std::get_if<V>(&kind_values());
    }

    // How many items an iteration does, where its kind counts them (records, a tree's files, files
    // replaced), and the size of each file of a tree or of a set: null where the kind has none.
    const std::uint64_t* item_count() const {
        return std::visit([](const auto& v) { return items_in(v); }, kind_values());
    }
    std::uint64_t* item_count() {
        return std::visit([](auto& v) { return items_in(v); }, kind_values());
    }
    const std::uint64_t* each_file_size() const {
        return std::visit([](const auto& v) { return each_file_in(v); }, kind_values());
    }
    std::uint64_t* each_file_size() {
        return std::visit([](auto& v) { return each_file_in(v); }, kind_values());
    }

    // Its kind's values: those set, or the kind's defaults.
    const KindValues& kind_values() const {
        if (kind.index() == static_cast<std::size_t>(shape_of(family))) return kind;
        if (kind.index() != 0) throw_other_kind();
        return defaults(shape_of(family));
    }
    KindValues& kind_values() {
        if (kind.index() != static_cast<std::size_t>(shape_of(family))) {
            if (kind.index() != 0) throw_other_kind();
            kind = defaults(shape_of(family));
        }
        return kind;
    }

private:
    static const KindValues& defaults(Shape s) {
        static const KindValues all[] = {FileValues{}, RecordValues{}, TreeValues{}, SetValues{}};
        return all[static_cast<std::size_t>(s)];
    }
    template <class V>
    const V& values() const {
        if (const V* v = values_if<V>()) return *v;
        throw_other_kind();
    }
    template <class V>
    V& values() {
        if (V* v = values_if<V>()) return *v;
        throw_other_kind();
    }
    [[noreturn]] void throw_other_kind() const {
        throw std::logic_error("a case of " + std::string(to_string(family)) + " has no values of this kind (" +
                               std::to_string(kind.index()) + ")");
    }
};

struct Workload : CaseValues {
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
        const std::uint64_t* items = item_count();
        return items ? *items * std::visit([](const auto& v) { return item_bytes_in(v); }, kind_values()) : size;
    }
    // What its rate also counts (FamilyRow::items), and the bytes of one: a durable case's commits (a
    // record each), a tree's files, a set's replacements (a file each); none (0) for the rest.
    std::uint64_t item_bytes() const {
        if (row_of(family).items.empty()) return 0;
        return std::visit([](const auto& v) { return item_bytes_in(v); }, kind_values());
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
