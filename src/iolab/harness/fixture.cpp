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

std::string input_name(const Workload& w, unsigned job) { return kind_module(w.family).input_name(w, job); }

std::string shared_input_name(const Workload& w, unsigned parts) {
    return fmt::format("shared-{}-{}x{}.in", data_token(w.data), w.bytes(), parts);
}

namespace {

std::shared_ptr<const Input> make_input(const Workload& w, const std::string& generated_path) {
    return kind_module(w.family).make_input(w, generated_path);
}

}  // namespace

InputPool::~InputPool() {
    for (const auto& [key, in] : inputs_) try {  // never throws out of a destructor
            if (in->owned) in->remove(in->path);
        } catch (const std::exception&) {
        }
    for (const auto& path : made_) ::unlink(path.c_str());
}

std::shared_ptr<const Input> InputPool::get(const Workload& w, unsigned job) {
    // A kind names its inputs by what they hold (and by job where jobs must not share): one name,
    // one input.
    const std::string name = input_name(w, job);
    if (auto it = inputs_.find(name); it != inputs_.end()) return it->second;
    return inputs_[name] = make_input(w, dir_.at(name));
}

// A shared input is one file the jobs read parts of: not records made in memory, not the user's file.
bool InputPool::shares_input(const Workload& w) { return has_trait(w.family, kTraitFileInput) && w.input.empty(); }

void InputPool::make_shared(const Workload& w, unsigned parts) {
    if (!shares_input(w)) return;
    const std::string path = dir_.at(shared_input_name(w, parts));
    if (std::find(made_.begin(), made_.end(), path) != made_.end()) return;
    const sys::Fd fd = sys::open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
    made_.push_back(path);
    sys::ftruncate(fd, static_cast<off_t>(w.bytes() * parts));
}

std::shared_ptr<const Input> InputPool::get_shared(const Workload& w, const Shared& layout) {
    if (!shares_input(w)) return get(w);
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
    // Never throws out of a destructor; an output that cannot be removed still leaves the input to go.
    try {
        if (makes_output_) kind_.remove(dst_);
    } catch (const std::exception&) {
    }
    try {
        if (input_.use_count() == 1 && input_->owned) input_->remove(input_->path);
    } catch (const std::exception&) {
    }
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
    tree_.reset();
    j.tree = &tree_;
    j.tool.passes = s.repeats() ? passes_ : 1;
    if (s.long_input() && j.tool.passes > 1 && long_) j.src = long_->path;
    if (part_) j.part = {.offset = *part_ * w_.bytes(), .length = w_.bytes()};
    if (w_.patterned) {
        // Each run does the next operations of the pattern, as fio's time-based jobs go on: a run
        // that repeated the last would find its blocks in the cache the last one filled.
        j.ops = {.pattern = w_.pattern,
                 .block = w_.block,
                 .count = w_.op_count(),
                 .first = next_op_,
                 .span = w_.span_bytes(),
                 .seed = w_.seed};
        next_op_ += w_.op_count();
    }
    if (kind_.before_run) kind_.before_run(w_, *input_, j);  // before the clock
    return j;
}

Verdict Fixture::verify(const Job& job) const {
    const RunCheck c{
        .checked = checked_, .part = part_, .decode = decode_, .input_crc32 = [this] { return input_crc32(); }};
    return kind_.verify(w_, *input_, job, c);
}

void Fixture::remove_output() const {
    if (makes_output_) kind_.remove(dst_);
}

}  // namespace iolab
