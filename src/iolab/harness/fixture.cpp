#include "iolab/harness/fixture.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <mutex>
#include <optional>

#include <fmt/format.h>
#include <zlib.h>

#include "iolab/core/checksum.hpp"
#include "iolab/core/pattern.hpp"
#include "iolab/core/units.hpp"
#include "iolab/sys/error.hpp"
#include "iolab/sys/io.hpp"

namespace iolab {

namespace {

// The data's name as a file name: "random", "compressible_4".
std::string data_token(const DataSpec& d) {
    std::string t = to_string(d);
    for (char& c : t)
        if (c == ':' || c == '.') c = '_';
    return t;
}

// Parts of `size` bytes of the data running on from part to part: writes [write_first,
// write_last) into out at their places, and returns the digests of [read_first, read_last) (the
// others left empty), hashing what it writes and generating the rest from the data alone.
std::vector<FileDigest> shared_parts(const DataSpec& spec, std::uint64_t size, unsigned parts, const sys::Fd* out,
                                     unsigned write_first, unsigned write_last, unsigned read_first,
                                     unsigned read_last) {
    std::vector<std::byte> buf(1 << 20);
    std::vector<FileDigest> digests(parts);
    const auto one = [&](unsigned k, bool write, bool read) {
        ReferenceDigests d;
        for (std::uint64_t done = 0; done < size;) {
            const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(buf.size(), size - done));
            const std::uint64_t at = static_cast<std::uint64_t>(k) * size + done;
            fill(spec, at, std::span(buf.data(), n));
            if (read) d.update(buf.data(), n);
            if (write) sys::pwrite_all(*out, buf.data(), n, static_cast<off_t>(at));
            done += n;
        }
        if (read) digests[k] = d.digests();
    };
    const auto reads = [&](unsigned k) { return k >= read_first && k < read_last; };
    if (out)
        for (unsigned k = write_first; k < write_last; ++k) one(k, true, reads(k));
    for (unsigned k = read_first; k < read_last; ++k)
        if (!out || k < write_first || k >= write_last) one(k, false, true);
    return digests;
}

}  // namespace

// The references of a patterned read's operations [first, first + ops): the sums of their blocks'
// terms (Sink::consume_block), in both modes, from the generator (or the user's file), never from
// the file being measured.
FileDigest patterned_reference(const Workload& w, const std::string& user_file, std::uint64_t first) {
    const Offsets at(w.pattern, w.span_bytes(), w.block, w.seed);
    std::vector<std::byte> buf(w.block);
    std::optional<sys::Fd> in;
    if (!user_file.empty()) in.emplace(sys::open(user_file, O_RDONLY));
    FileDigest d;
    for (std::uint64_t i = first, end = first + w.op_count(); i < end; ++i) {
        const std::uint64_t off = at(i);
        if (in) {
            if (sys::pread_full(*in, buf.data(), buf.size(), static_cast<off_t>(off)) != buf.size())
                throw IoError(EIO, "read a whole block of", user_file);
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

std::string input_name(const Workload& w, unsigned job) {
    if (const KindModule* k = kind_module(w.family)) return k->input_name(w, job);
    return fmt::format("input-{}-{}-{}.in", data_token(w.data), w.size, job);
}

std::string shared_input_name(const Workload& w, unsigned parts) {
    return fmt::format("shared-{}-{}x{}.in", data_token(w.data), w.bytes(), parts);
}

namespace {

std::shared_ptr<const Input> make_input(const Workload& w, const std::string& generated_path) {
    if (const KindModule* k = kind_module(w.family)) return k->make_input(w, generated_path);
    auto in = std::make_shared<Input>();
    if (!w.input.empty()) {
        // The user's file: read once here for the reference, never created nor removed.
        in->path = w.input;
        in->digest = reference_digests(w.input);
    } else if (w.family == Family::write && w.patterned) {
        // Block k of the file is record k: each operation writes the block that belongs where it
        // writes. The expected file depends on which blocks a run writes (Fixture::job).
        in->records =
            std::make_shared<const Records>(w.data, w.block, std::max<std::uint64_t>(1, w.span_bytes() / w.block));
    } else if (writes_records(w.family)) {
        auto records = std::make_shared<const Records>(w.data, w.record, w.count);
        in->digest = records->digest();
        in->records = std::move(records);
    } else {
        in->path = generated_path;
        in->owned = true;
        in->digest = write_input_file(generated_path, w.data, w.size);
    }
    return in;
}

}  // namespace

InputPool::~InputPool() {
    for (const auto& [key, in] : inputs_)
        if (in->owned) in->remove ? in->remove(in->path) : void(::unlink(in->path.c_str()));
    for (const auto& path : made_) ::unlink(path.c_str());
}

std::shared_ptr<const Input> InputPool::get(const Workload& w, unsigned job) {
    const bool records = writes_records(w.family);
    if (records || !w.input.empty()) job = 0;
    const std::size_t unit = !records ? 0 : w.patterned ? w.block : w.record;
    const std::uint64_t bytes = !records ? w.size : w.patterned ? w.span_bytes() : w.bytes();
    // A kind's module names its inputs by what they hold (and by job where jobs must not share): one
    // name, one input.
    const auto key = kind_module(w.family)
                         ? std::make_tuple(3, std::string(), std::uint64_t(0), input_name(w, job), 0u, std::size_t(0))
                         : std::make_tuple(records ? 1 + w.patterned : 0, to_string(w.data), bytes, w.input, job, unit);
    if (auto it = inputs_.find(key); it != inputs_.end()) return it->second;
    const std::string path = dir_.at(input_name(w, job));
    return inputs_[key] = make_input(w, path);
}

void InputPool::make_shared(const Workload& w, unsigned parts) {
    if (writes_records(w.family) || !w.input.empty()) return;
    const std::string path = dir_.at(shared_input_name(w, parts));
    if (std::find(made_.begin(), made_.end(), path) != made_.end()) return;
    const sys::Fd fd = sys::open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
    made_.push_back(path);
    sys::ftruncate(fd, static_cast<off_t>(w.bytes() * parts));
}

std::shared_ptr<const Input> InputPool::get_shared(const Workload& w, const Shared& layout) {
    if (writes_records(w.family) || !w.input.empty()) return get(w);
    const auto key = std::make_tuple(to_string(w.data), w.bytes(), layout.parts);
    if (auto it = shared_.find(key); it != shared_.end()) return it->second;
    const std::string name = shared_input_name(w, layout.parts);
    auto in = std::make_shared<Input>();
    if (layout.maker_folder.empty()) {
        make_shared(w, layout.parts);
        in->path = dir_.at(name);
    } else {
        in->path = dir_.sibling_at(layout.maker_folder, name);
    }
    const unsigned w_last = layout.write_count ? layout.write_first + layout.write_count : layout.parts;
    const unsigned r_last = layout.read_count ? layout.read_first + layout.read_count : layout.parts;
    const sys::Fd out = sys::open(in->path, O_WRONLY);
    in->parts = shared_parts(w.data, w.bytes(), layout.parts, &out, layout.write_first, std::min(w_last, layout.parts),
                             layout.read_first, std::min(r_last, layout.parts));
    in->digest.size = w.bytes() * layout.parts;
    return shared_[key] = std::move(in);
}

std::vector<std::string> InputPool::files() const {
    std::vector<std::string> out;
    for (const auto& [key, in] : inputs_)
        if (!in->path.empty()) out.push_back(in->path);
    out.insert(out.end(), made_.begin(), made_.end());
    return out;
}

Fixture::Fixture(const Workload& w, const ScratchDir& dir, const std::string& tag)
    : w_(w), input_(make_input(w, dir.at(tag + ".in"))), dst_(dir.at(tag + ".out")) {
    if (!w_.input.empty()) w_.size = input_->digest.size;
    reference_patterns();
}

Fixture::Fixture(const Workload& w, const ScratchDir& dir, const std::string& tag, std::shared_ptr<const Input> input)
    : w_(w), input_(std::move(input)), dst_(dir.at(tag + ".out")) {
    if (!w_.input.empty()) w_.size = input_->digest.size;
    // A shared input is owned by its pool.
    reference_patterns();
}

void Fixture::reference_patterns() {
    if (!w_.patterned) return;
    if (w_.span_bytes() > w_.size || w_.block > w_.span_bytes())
        throw InputError(fmt::format("block {} and span {} do not fit in the {} file", format_compact(w_.block),
                                     format_compact(w_.span_bytes()), format_compact(w_.size)));
}

Fixture::Fixture(const Workload& w, const ScratchDir& dir, const std::string& tag, std::shared_ptr<const Input> input,
                 unsigned part)
    : Fixture(w, dir, tag, std::move(input)) {
    part_ = part;
}

const FileDigest& Fixture::expected() const {
    // A part of a shared input has its own digests; a written part is the records, as ever.
    return part_ && !input_->parts.empty() ? input_->parts.at(*part_) : input_->digest;
}

std::uint32_t Fixture::input_crc32() const {
    if (!crc32_) {
        uLong crc = ::crc32(0, nullptr, 0);
        read_blocks(input_path(), [&](const std::byte* p, std::size_t n) {
            crc = ::crc32(crc, reinterpret_cast<const Bytef*>(p), static_cast<uInt>(n));
        });
        crc32_ = static_cast<std::uint32_t>(crc);
    }
    return *crc32_;
}

Fixture::~Fixture() {
    if (kind_) {
        try {  // never throws out of a destructor
            kind_->remove(dst_);
            if (input_.use_count() == 1 && input_->owned) kind_->remove(input_->path);
        } catch (const std::exception&) {
        }
        return;
    }
    if (makes_output_) ::unlink(dst_.c_str());
    if (input_.use_count() == 1 && input_->owned) ::unlink(input_->path.c_str());
}

Job Fixture::job(const Strategy& s, Sink& sink, VerifyMode mode) {
    remove_output();
    decode_ = s.decode_output;
    checked_ = s.output_checked();
    sink.reset();
    sink.set_mode(mode);
    Job j;
    static_cast<CaseValues&>(j) = w_;  // the case's values, whole
    j.family = s.family;
    j.src = input_path();
    j.dst = dst_;
    j.records = input_->records.get();
    j.sink = &sink;
    if (kind_) {
        tree_.reset();
        j.tree = &tree_;
        if (kind_->before_run) kind_->before_run(w_, *input_, dst_);  // before the clock
    }
    j.passes = s.repeats() ? passes_ : 1;
    if (s.long_input() && j.passes > 1 && long_) j.src = long_->path;
    if (part_) {
        j.offset = *part_ * w_.bytes();
        j.length = w_.bytes();
    }
    if (w_.patterned) {
        // Each run does the next operations of the pattern, as fio's time-based jobs go on: a run
        // that repeated the last would find its blocks in the cache the last one filled.
        j.first_op = next_op_;
        next_op_ += w_.op_count();
        // A read's references are computed after it (verify): reading them from a user's file
        // before the run would put the very blocks it reads in the cache.
        if (w_.family == Family::write) {
            // A file of the span, its blocks allocated, as a database's file is: the operations
            // write into it (outside the clock: made here).
            const sys::Fd out = sys::open(dst_, O_WRONLY | O_CREAT | O_EXCL, 0600);
            sys::allocate(out, 0, static_cast<off_t>(w_.span_bytes()));
            struct stat st {};
            if (::fstat(out.get(), &st) != 0) throw IoError(errno, "stat", dst_);
            j.dst_dev = st.st_dev;
            j.dst_ino = st.st_ino;
            j.dst_ctime_ns = static_cast<std::uint64_t>(st.st_ctim.tv_sec) * 1'000'000'000u +
                             static_cast<std::uint64_t>(st.st_ctim.tv_nsec);
        }
        j.pattern = w_.pattern;
        j.block = w_.block;
        j.ops = w_.op_count();
        j.span = w_.span_bytes();
        j.seed = w_.seed;
    }
    return j;
}

Verdict Fixture::verify(const Job& job) const {
    if (kind_) return kind_->verify(w_, *input_, job, checked_);
    Verdict v;
    v.expected_bytes = w_.bytes();
    // A patterned write is checked by the whole file it left: the span.
    if (w_.patterned && w_.family == Family::write) v.expected_bytes = w_.span_bytes();
    if (w_.family == Family::read) {
        v.mode = job.sink->mode();
        // A patterned job: its own operations' references.
        const FileDigest ref = w_.patterned ? patterned_reference(w_, w_.input, job.first_op) : expected();
        v.expected = v.mode == VerifyMode::full ? ref.checksum : job.sink->has_sums() ? ref.byte_sums : ref.fingerprint;
        if (job.sink->count_only()) {
            v.count_only = true;
            v.actual_bytes = job.sink->bytes();
            v.ok = v.actual_bytes == v.expected_bytes;
            return v;
        }
        if (!checked_) {
            v.ok = true;
            v.checked = false;
            return v;
        }
        v.actual = job.sink->digest();
        v.actual_bytes = job.sink->bytes();
        if (job.sink->has_crc32()) {
            v.crc32 = true;
            v.expected = input_crc32();
        }
    } else {
        v.expected =
            w_.patterned ? written_reference(w_, *input_->records, job.first_op).checksum : expected().checksum;
        // And the order: the operations the strategy says it did, against the pattern's.
        if (w_.patterned && checked_ && job.sink->ops_digest() != operations_reference(w_, job.first_op)) {
            v.actual = job.sink->ops_digest();
            v.expected = operations_reference(w_, job.first_op);
            v.actual_bytes = v.expected_bytes;
            return v;
        }
        if (!checked_) {
            v.ok = true;
            v.checked = false;
            return v;
        }
        try {
            const FileDigest d = part_     ? checksum_range(dst_, *part_ * w_.bytes(), w_.bytes())
                                 : decode_ ? decode_(job)
                                           : checksum_file(dst_);
            v.actual = d.checksum;
            v.actual_bytes = d.size;
        } catch (const IoError&) {
            return v;  // no output at all
        }
    }
    v.ok = v.actual == v.expected && v.actual_bytes == v.expected_bytes;
    return v;
}

void Fixture::remove_output() const {
    if (kind_) return kind_->remove(dst_);
    if (makes_output_ && ::unlink(dst_.c_str()) != 0 && errno != ENOENT) throw IoError(errno, "remove", dst_);
}

}  // namespace iolab
