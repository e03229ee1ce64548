// The modules of the kinds whose work is one stream of bytes (strategies/kind.hpp): one file read or
// copied (read, copy), and records written from nothing (write, durable). Either may be patterned:
// operations of a block each, placed by a pattern (Workload::patterned).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "iolab/core/checksum.hpp"
#include "iolab/core/pattern.hpp"
#include "iolab/core/units.hpp"
#include "iolab/strategies/kind.hpp"
#include "iolab/sys/error.hpp"
#include "iolab/sys/io.hpp"

namespace iolab {

// The data's name as a file name: "random", "compressible_4".
std::string data_token(const DataSpec& d) {
    std::string t = to_string(d);
    for (char& c : t)
        if (c == ':' || c == '.') c = '_';
    return t;
}

namespace {

void remove_file(const std::string& path) {
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) throw IoError(errno, "remove", path);
}

// What a part of a shared input, or the whole, must hold.
const FileDigest& expected_of(const Input& in, const RunCheck& c) {
    return c.part && !in.parts.empty() ? in.parts.at(*c.part) : in.digest;
}

// The references of a patterned read's operations [first, first + ops): the sums of their blocks'
// terms (Sink::consume_block), in both modes, from the generator (or the user's file), never from
// the file being measured.
FileDigest patterned_reference(const Workload& w, std::uint64_t first) {
    const Offsets at(w.pattern, w.span_bytes(), w.block, w.seed);
    std::vector<std::byte> buf(w.block);
    std::optional<sys::Fd> in;
    if (!w.input.empty()) in.emplace(sys::open(w.input, O_RDONLY));
    FileDigest d;
    for (std::uint64_t i = first, end = first + w.op_count(); i < end; ++i) {
        const std::uint64_t off = at(i);
        if (in) {
            if (sys::pread_full(*in, buf.data(), buf.size(), static_cast<off_t>(off)) != buf.size())
                throw IoError(EIO, "read a whole block of", w.input);
        } else {
            fill(w.data, off, buf);
        }
        d.checksum += Sink::block_term(i, off, Sink::full_digest(buf.data(), buf.size()));
        d.fingerprint += Sink::block_term(i, off, Sink::sampled_digest(buf.data(), buf.size()));
    }
    d.size = w.bytes();
    return d;
}

// What a patterned write's output must hold: the span, with the block of every operation of
// [first, first + ops) at its place and zeros elsewhere.
FileDigest written_reference(const Workload& w, const Records& blocks, std::uint64_t first) {
    const Offsets at(w.pattern, w.span_bytes(), w.block, w.seed);
    std::vector<bool> written(at.blocks());
    for (std::uint64_t i = first, end = first + w.op_count(); i < end; ++i) written[at(i) / w.block] = true;
    const std::vector<std::byte> zeros(w.block);
    Hasher h;
    for (std::uint64_t k = 0; k < at.blocks(); ++k) h.update(written[k] ? blocks.at(k).data() : zeros.data(), w.block);
    for (std::uint64_t left = w.span_bytes() - at.blocks() * w.block; left > 0;) {
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(left, zeros.size()));
        h.update(zeros.data(), n);
        left -= n;
    }
    return {h.digest(), w.span_bytes(), 0, 0};
}

// The operations a patterned write must report (Sink::note_op), in any order.
std::uint64_t operations_reference(const Workload& w, std::uint64_t first) {
    const Offsets at(w.pattern, w.span_bytes(), w.block, w.seed);
    std::uint64_t sum = 0;
    for (std::uint64_t i = first, end = first + w.op_count(); i < end; ++i) sum += Sink::block_term(i, at(i), 0);
    return sum;
}

Verdict unchecked() {
    Verdict v;
    v.ok = true;
    v.checked = false;
    return v;
}

// ---- One file, read or copied ----

std::string file_input_name(const Workload& w, unsigned job) {
    // The user's file is every job's; its name here only keys it (it is never made).
    if (!w.input.empty()) return "user-input:" + w.input;
    return fmt::format("input-{}-{}-{}.in", data_token(w.data), w.size, job);
}

std::shared_ptr<const Input> make_file_input(const Workload& w, const std::string& generated_path) {
    auto in = std::make_shared<Input>();
    if (!w.input.empty()) {
        // The user's file: read once here for the reference, never created nor removed.
        in->path = w.input;
        in->digest = reference_digests(w.input);
    } else {
        in->path = generated_path;
        in->owned = true;
        in->remove = remove_file;
        in->digest = write_input_file(generated_path, w.data, w.size);
    }
    return in;
}

// A read is checked by what its sink took in (a patterned job: its own operations' references,
// computed after it: reading them from a user's file before the run would put the very blocks it
// reads in the cache); a copy by its output.
Verdict verify_read(const Workload& w, const Input& in, const Job& job, const RunCheck& c) {
    Verdict v;
    v.expected_bytes = w.bytes();
    v.mode = job.sink->mode();
    const FileDigest ref = w.patterned ? patterned_reference(w, job.ops.first) : expected_of(in, c);
    v.expected = v.mode == VerifyMode::full ? ref.checksum : job.sink->has_sums() ? ref.byte_sums : ref.fingerprint;
    if (job.sink->count_only()) {
        v.count_only = true;
        v.actual_bytes = job.sink->bytes();
        v.ok = v.actual_bytes == v.expected_bytes;
        return v;
    }
    if (!c.checked) return unchecked();
    v.actual = job.sink->digest();
    v.actual_bytes = job.sink->bytes();
    if (job.sink->has_crc32()) {
        v.crc32 = true;
        v.expected = c.input_crc32();
    }
    v.ok = v.actual == v.expected && v.actual_bytes == v.expected_bytes;
    return v;
}

// What the output file holds (a part of a shared one: its part; a compressed chain's: decoded).
Verdict verify_output(const Workload& w, const Job& job, const RunCheck& c, Verdict v) {
    if (!c.checked) return unchecked();
    try {
        const FileDigest d = c.part     ? checksum_range(job.dst, *c.part * w.bytes(), w.bytes())
                             : c.decode ? c.decode(job)
                                        : checksum_file(job.dst);
        v.actual = d.checksum;
        v.actual_bytes = d.size;
    } catch (const IoError&) {
        return v;  // no output at all
    }
    v.ok = v.actual == v.expected && v.actual_bytes == v.expected_bytes;
    return v;
}

Verdict verify_file(const Workload& w, const Input& in, const Job& job, const RunCheck& c) {
    if (w.family == Family::read) return verify_read(w, in, job, c);
    Verdict v;
    v.expected_bytes = w.bytes();
    v.expected = expected_of(in, c).checksum;
    return verify_output(w, job, c, v);
}

// An input file kept for each job (none for the user's), and a copy's output.
KindSpace file_space(const Workload& w) {
    KindSpace k;
    if (w.input.empty()) {
        k.input = fmt::format("{}-{}", to_string(w.data), w.size);
        k.input_bytes = w.size;
    }
    if (has_trait(w.family, kTraitOutput)) k.output_bytes = w.size;
    return k;
}

// ---- Records written from nothing ----

std::string records_input_name(const Workload& w, unsigned) {
    // Made in memory and shared by every job: block k of a patterned write's span is record k.
    if (w.patterned) return fmt::format("blocks-{}-{}x{}", data_token(w.data), w.block, w.span_bytes());
    return fmt::format("records-{}-{}x{}", data_token(w.data), w.records_of().record, w.records_of().count);
}

std::shared_ptr<const Input> make_records_input(const Workload& w, const std::string&) {
    auto in = std::make_shared<Input>();
    if (w.patterned) {
        // Each operation writes the block that belongs where it writes. The expected file depends on
        // which blocks a run writes (verify).
        in->records =
            std::make_shared<const Records>(w.data, w.block, std::max<std::uint64_t>(1, w.span_bytes() / w.block));
    } else {
        auto records = std::make_shared<const Records>(w.data, w.records_of().record, w.records_of().count);
        in->digest = records->digest();
        in->records = std::move(records);
    }
    return in;
}

// A patterned write's output: a file of the span, its blocks allocated, as a database's file is: the
// operations write into it (outside the clock: made here).
void allocate_span(const Workload& w, const Input&, Job& job) {
    if (!w.patterned) return;
    const sys::Fd out = sys::open(job.dst, O_WRONLY | O_CREAT | O_EXCL, 0600);
    sys::allocate(out, 0, static_cast<off_t>(w.span_bytes()));
    struct stat st {};
    if (::fstat(out.get(), &st) != 0) throw IoError(errno, "stat", job.dst);
    job.ops.dst_dev = st.st_dev;
    job.ops.dst_ino = st.st_ino;
    job.ops.dst_ctime_ns =
        static_cast<std::uint64_t>(st.st_ctim.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(st.st_ctim.tv_nsec);
}

// The records written, in order; a patterned write's whole span (its blocks where its operations
// wrote them, zeros elsewhere) and the operations it says it did.
Verdict verify_records(const Workload& w, const Input& in, const Job& job, const RunCheck& c) {
    Verdict v;
    if (!w.patterned) {
        v.expected_bytes = w.bytes();
        v.expected = expected_of(in, c).checksum;
        return verify_output(w, job, c, v);
    }
    v.expected_bytes = w.span_bytes();
    v.expected = written_reference(w, *in.records, job.ops.first).checksum;
    if (c.checked && job.sink->ops_digest() != operations_reference(w, job.ops.first)) {
        v.actual = job.sink->ops_digest();
        v.expected = operations_reference(w, job.ops.first);
        v.actual_bytes = v.expected_bytes;
        return v;
    }
    return verify_output(w, job, c, v);
}

KindSpace records_space(const Workload& w) {
    KindSpace k;
    k.output_bytes = w.patterned ? w.span_bytes() : w.bytes();
    return k;
}

// The records come from a pool of one block and up to Records::kSpread bytes.
std::uint64_t records_memory(const Workload& w) {
    const std::uint64_t unit = w.patterned ? w.block : w.records_of().record;
    return saturating_add(std::max<std::uint64_t>(unit, Records::kMinBlock) + unit,
                          std::min<std::uint64_t>(w.patterned ? w.span_bytes() : w.bytes(), Records::kSpread));
}

// Buffers in flight: one a queue entry.
std::uint64_t stream_descriptors(const Strategy&, const Workload& w) { return w.queue; }

// A durable case's every record is durable when its call returns: a sync each, but a group commit's
// covers at most one record of each producer. A write makes none of its own.
std::uint64_t records_syncs(const Strategy& s, const Workload& w) {
    if (w.family != Family::durable) return 0;
    const std::uint64_t per_sync = s.honours(kParamProducers) ? w.records_of().producers : 1;
    return (w.records_of().count + per_sync - 1) / per_sync;
}

// A durable table is of its records; the others are of their bytes (the table's own figure).
std::string records_what(const Workload& w, std::string_view items) {
    return w.item_bytes() > 0 ? fmt::format("{} records of {}", items, format_size(w.records_of().record)) : "";
}

// A copy moves its bytes from memory to memory; a read brings them into its buffer.
MemoryBound file_bound(const Workload& w) { return w.family == Family::copy ? MemoryBound::copy : MemoryBound::read; }

}  // namespace

const KindModule& file_kind() {
    static const KindModule m{.space = file_space,
                              .descriptors = stream_descriptors,
                              .bound = file_bound,
                              .input_name = file_input_name,
                              .make_input = make_file_input,
                              .verify = verify_file,
                              .remove = remove_file};
    return m;
}

// Group commit's producers (durable.group-commit).
constexpr KindParam kRecordsParams[] = {
    {.key = "producers",
     .help = "Producer threads handing records to one writer in durable.group-commit (default 8)",
     .expected = "whole numbers from 1 to 1024 such as 8 or 1,8,64",
     .takes = kParamProducers,
     .max = 1024,
     .get = [](const Workload& w) -> std::uint64_t { return w.records_of().producers; },
     .set = [](Workload& w, std::uint64_t v) { w.records_of().producers = static_cast<unsigned>(v); }},
};

const KindModule& records_kind() {
    static const KindModule m{.params = kRecordsParams,
                              .space = records_space,
                              .memory = records_memory,
                              .descriptors = stream_descriptors,
                              .what = records_what,
                              .input_name = records_input_name,
                              .make_input = make_records_input,
                              .before_run = allocate_span,
                              .verify = verify_records,
                              .syncs = records_syncs,
                              .sync_shortfall =
                                  "{made} sync calls (fsync, fdatasync, O_DSYNC writes) for {count} "
                                  "records; at least {needed} make every record durable when its "
                                  "call returns",
                              .items_key = "count",
                              .items_implied_by = "size",
                              .remove = remove_file};
    return m;
}

}  // namespace iolab
