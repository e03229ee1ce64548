// The files family's io_uring writes and copies: Q files in flight, each created (and, for a copy,
// its source opened) into registered slots, written (read) on at the offset each call reached until
// the file is whole, then closed; every ready completion is taken before one submission of all
// they queued.
#include <deque>

#include <fmt/format.h>

#include "iolab/strategies/common.hpp"
#include "iolab/strategies/files_uring.hpp"

namespace iolab {

namespace {

enum Op : unsigned { kOpen = 0, kOpenDst = 1, kRead = 2, kWrite = 3, kClose = 4 };
std::uint64_t tag(unsigned k, Op op) { return detail::slot_tag(k, op); }

constexpr int kCreate = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW;

using detail::files_in_flight;
using detail::register_slots;

// One file in a slot; a copy's also: the bytes read into its buffer and written of them, whether
// its copy is open and its source at its end, and how many of the two closes came back.
struct Slot : detail::SlotFile {
    std::size_t held = 0, done = 0;
    bool dst_open = false, at_end = false;
    unsigned closes = 0;
};

// What the writer and the copier share: Q slots of files in flight on one ring (with a buffer each
// where the files are copied), the next file to start, and the drive: a file started in each slot,
// then every completion handed to the runner's done(k, op, res), which starts the next file in its
// slot (start(k)) when one is whole.
template <class Runner>
class SlotRing {
public:
    SlotRing(const Job& j, unsigned entries) : j_(j), slots_(files_in_flight(j)), ring_(entries, j.dst) {}
    ~SlotRing() {
        sys::keep_if_abandoned(ring_, bufs_);
        sys::keep_if_abandoned(ring_, slots_);
    }
    SlotRing(const SlotRing&) = delete;
    SlotRing& operator=(const SlotRing&) = delete;

    void run() {
        Runner& self = static_cast<Runner&>(*this);
        for (unsigned k = 0; k < slots_.size() && next_ < j_.files; ++k) self.start(k);
        detail::drive(ring_, [&](unsigned k, unsigned op, int res) { self.done(k, static_cast<Op>(op), res); });
    }

protected:
    // Slot k made fresh for the next file, its clock started.
    Slot& fresh(unsigned k) {
        Slot& s = slots_[k];
        s = Slot{};
        s.begin(next_++, clock_.now());
        return s;
    }
    // The slot's file is done: the next one in its place, if any is left.
    void next_in(unsigned k, const Slot& s) {
        clock_.done(s.began);
        if (next_ < j_.files) static_cast<Runner&>(*this).start(k);
    }

    const Job& j_;
    const detail::OpClock clock_{j_};
    std::deque<Slot> slots_;  // before the ring: outlive what the kernel still does with them
    std::deque<AlignedBuffer> bufs_;
    sys::Ring ring_;
    std::uint64_t next_ = 0;
};

class TreeWriter : public SlotRing<TreeWriter> {
public:
    TreeWriter(const Job& j, const detail::TreeFolders& t) : SlotRing(j, 2 * files_in_flight(j)), t_(t) {
        register_slots(ring_, files_in_flight(j));
    }

private:
    friend class SlotRing<TreeWriter>;

    void start(unsigned k) {
        Slot& s = fresh(k);
        ring_.open_into(t_.of(s.file), s.name.c_str(), kCreate, k, tag(k, kOpen), true);
        write(k);
    }

    void write(unsigned k) {
        const Slot& s = slots_[k];
        const std::span<const std::byte> b = detail::file_bytes(j_, s.file);
        const auto at = static_cast<std::size_t>(s.offset);
        ring_.write_slot(k, b.data() + at, static_cast<unsigned>(b.size() - at), s.offset, tag(k, kWrite));
    }

    std::string name(const Slot& s) const {
        return fmt::format("{}/d{}/{}", j_.dst, s.file % j_.folders, s.name.c_str());
    }

    void done(unsigned k, Op op, int res) {
        Slot& s = slots_[k];
        if (op == kOpen) {
            if (res < 0) throw IoError(-res, "create", name(s));  // its write is cancelled
            return;
        }
        if (op == kClose) {
            if (res < 0) throw IoError(-res, "close", name(s));
            return next_in(k, s);
        }
        if (res == -EAGAIN || res == -EINTR) return write(k);  // again, from the same offset
        if (res < 0) throw IoError(-res, "write", name(s));
        if (res == 0) throw IoError(ENOSPC, "write", name(s));
        s.offset += res;
        if (static_cast<std::uint64_t>(s.offset) < detail::file_bytes(j_, s.file).size()) return write(k);
        ring_.close_slot(k, tag(k, kClose));
    }

    const detail::TreeFolders& t_;
};

// A copy: slot 2k holds file i of the source, slot 2k + 1 its copy; a buffer per file in flight.
class TreeCopier : public SlotRing<TreeCopier> {
public:
    TreeCopier(const Job& j, const detail::TreeFolders& from, const detail::TreeFolders& to)
        : SlotRing(j, 4 * files_in_flight(j)), from_(from), to_(to) {
        register_slots(ring_, 2 * files_in_flight(j));
        for (unsigned k = 0; k < slots_.size(); ++k)
            bufs_.emplace_back(std::min<std::size_t>(j.buffer, 1u << 30), detail::kPage);
    }

private:
    friend class SlotRing<TreeCopier>;

    void start(unsigned k) {
        Slot& s = fresh(k);
        ring_.open_into(from_.of(s.file), s.name.c_str(), O_RDONLY | O_NOFOLLOW, 2 * k, tag(k, kOpen), true);
        read(k);
        ring_.open_into(to_.of(s.file), s.name.c_str(), kCreate, 2 * k + 1, tag(k, kOpenDst), false);
    }

    void read(unsigned k) {
        ring_.read_slot(2 * k, bufs_[k].data(), static_cast<unsigned>(bufs_[k].size()), slots_[k].offset, tag(k, kRead),
                        false);
    }

    void write(unsigned k) {
        const Slot& s = slots_[k];
        ring_.write_slot(2 * k + 1, bufs_[k].data() + s.done, static_cast<unsigned>(s.held - s.done),
                         s.offset + static_cast<off_t>(s.done), tag(k, kWrite));
    }

    // Both files closed once the source is read to its end and all of it written.
    void finish(unsigned k) {
        ring_.close_slot(2 * k, tag(k, kClose));
        ring_.close_slot(2 * k + 1, tag(k, kClose));
    }

    std::string name(const Slot& s, const std::string& root) const {
        return fmt::format("{}/d{}/{}", root, s.file % j_.folders, s.name.c_str());
    }

    void done(unsigned k, Op op, int res) {
        Slot& s = slots_[k];
        switch (op) {
            case kOpen:
                if (res < 0) throw IoError(-res, "open", name(s, j_.src));  // its read is cancelled
                return;
            case kOpenDst:
                if (res < 0) throw IoError(-res, "create", name(s, j_.dst));
                s.dst_open = true;
                if (s.at_end) return finish(k);
                if (s.held > 0) write(k);
                return;
            case kRead:
                if (res == -EAGAIN || res == -EINTR) return read(k);
                if (res < 0) throw IoError(-res, "read", name(s, j_.src));
                if (res == 0) {
                    s.at_end = true;
                    if (s.dst_open) finish(k);
                    return;
                }
                s.held = static_cast<std::size_t>(res);
                s.done = 0;
                if (s.dst_open) write(k);
                return;
            case kWrite:
                if (res == -EAGAIN || res == -EINTR) return write(k);
                if (res < 0) throw IoError(-res, "write", name(s, j_.dst));
                if (res == 0) throw IoError(ENOSPC, "write", name(s, j_.dst));
                s.done += static_cast<std::size_t>(res);
                if (s.done < s.held) return write(k);
                s.offset += static_cast<off_t>(s.held);
                s.held = 0;
                return read(k);
            case kClose:
                if (res < 0) throw IoError(-res, "close", name(s, j_.dst));
                if (++s.closes < 2) return;
                return next_in(k, s);
        }
    }

    const detail::TreeFolders& from_;
    const detail::TreeFolders& to_;
};

}  // namespace

void write_files_uring(const Job& j) {
    const detail::TreeFolders t = detail::make_tree(j.dst, j.folders);
    TreeWriter(j, t).run();
}

void copy_files_uring(const Job& j) {
    const detail::TreeFolders from = detail::open_tree(j.src, j.folders), to = detail::make_tree(j.dst, j.folders);
    TreeCopier(j, from, to).run();
}

}  // namespace iolab
