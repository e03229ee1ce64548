#include "iolab/harness/fixture.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include <fmt/format.h>

#include "iolab/core/checksum.hpp"
#include "iolab/sys/error.hpp"
#include "iolab/sys/io.hpp"

namespace iolab {

std::string Verdict::describe() const {
    return fmt::format("checksum {:#018x}, expected {:#018x} ({} bytes, expected {})", actual, expected,
                       actual_bytes, expected_bytes);
}

std::uint64_t write_input_file(const std::string& path, const DataSpec& spec, std::uint64_t size) {
    const sys::Fd fd = sys::open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
    std::vector<std::byte> buf(1 << 20);
    Hasher h;
    for (std::uint64_t off = 0; off < size;) {
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(buf.size(), size - off));
        fill(spec, off, std::span(buf.data(), n));
        h.update(buf.data(), n);
        sys::write_all(fd, buf.data(), n);
        off += n;
    }
    return h.digest();
}

Fixture::Fixture(const Workload& w, const ScratchDir& dir, const std::string& tag)
    : w_(w), src_(w.input.empty() ? dir.file(tag + ".in") : w.input), dst_(dir.file(tag + ".out")) {
    if (!w_.input.empty()) {
        // The user's file: read once here for the reference, never created nor removed.
        const FileDigest d = checksum_file(src_);
        reference_ = d.checksum;
        w_.size = d.size;
    } else if (w_.family == Family::write) {
        records_.resize(w_.record * w_.count);
        fill(w_.data, 0, records_);
        reference_ = checksum(records_);
    } else {
        reference_ = write_input_file(src_, w_.data, w_.size);
    }
}

Fixture::~Fixture() {
    ::unlink(dst_.c_str());
    if (w_.family != Family::write && w_.input.empty()) ::unlink(src_.c_str());
}

Job Fixture::job(const Strategy& s, Sink& sink) {
    remove_output();
    decode_ = s.decode_output;
    checked_ = s.output_checked;
    sink.reset();
    Job j;
    j.family = s.family;
    j.src = src_;
    j.dst = dst_;
    j.buffer = w_.buffer;
    j.record = w_.record;
    j.count = w_.count;
    j.data = records_;
    j.sink = &sink;
    j.queue = w_.queue;
    j.iov = w_.iov;
    j.chain = w_.chain;
    j.feed_bytes = w_.feed_bytes;
    return j;
}

Verdict Fixture::verify(const Job& job) const {
    Verdict v;
    v.expected = reference_;
    v.expected_bytes = w_.bytes();
    if (!checked_) {
        v.ok = true;
        v.checked = false;
        return v;
    }
    if (w_.family == Family::read) {
        v.actual = job.sink->digest();
        v.actual_bytes = job.sink->bytes();
    } else {
        try {
            const FileDigest d = decode_ ? decode_(job) : checksum_file(dst_);
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
    if (::unlink(dst_.c_str()) != 0 && errno != ENOENT) throw IoError(errno, "remove", dst_);
}

}  // namespace iolab
