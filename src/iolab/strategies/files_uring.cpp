// The files family's io_uring methods: Q files in flight, each opened (created; for a copy, both)
// into registered slots, with its first read (a write's first write) linked behind that open, read
// or written on at the offset each call reached until the file is whole (a short count is
// resubmitted for the rest, never taken for the end), then closed; every ready completion is taken
// before one submission of all they queued.
#include <array>
#include <deque>

#include <fmt/format.h>

#include "iolab/strategies/common.hpp"
#include "iolab/strategies/files_uring.hpp"

namespace iolab {

namespace {

// What a completion was: one of 8 (slot_tag). A source's are opened, read and closed; a written
// file's created, written and closed.
enum Op : unsigned { kOpen = 0, kCreate = 1, kRead = 2, kWrite = 3, kCloseSrc = 4, kClose = 5 };
constexpr std::array<const char*, 6> kVerb = {"open", "create", "read", "write", "close", "close"};
bool on_source(Op op) { return op == kOpen || op == kRead || op == kCloseSrc; }

std::uint64_t tag(unsigned k, Op op) { return detail::slot_tag(k, op); }

constexpr int kCreateFlags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW;

using detail::files_in_flight;

// Registers `slots` files with the ring; an open-files limit below them is a skip, with the reason.
void register_slots(sys::Ring& ring, unsigned slots) {
    try {
        ring.register_slots(slots);
    } catch (const IoError& e) {
        // Registered files count against the open-files limit.
        if (e.code() != EMFILE) throw;
        throw CannotRun(fmt::format(
            "io_uring cannot register {} files: the open-files limit (ulimit -n) is lower; a smaller --queue runs",
            slots));
    }
}

// One file in a slot; a copy's also: the bytes read into its buffer and written of them, whether
// its copy is open and its source at its end, and how many of the two closes came back.
struct Slot : detail::SlotFile {
    std::size_t held = 0, done = 0;
    bool dst_open = false, at_end = false;
    unsigned closes = 0;
};

// What the reader, the writer and the copier share: Q slots of files in flight on one ring (with a
// buffer each where the files are read), the next file to start, and the drive: a file started in
// each slot, then every completion checked (complete) and handed to the runner's done(k, op, res),
// which starts the next file in its slot (start(k)) when one is whole.
template <class Runner>
class SlotRing {
public:
    // entries: the ring's size; label names the files for the ring's own errors.
    SlotRing(const Job& j, unsigned entries, const std::string& label)
        : j_(j), slots_(files_in_flight(j)), ring_(entries, label) {}
    ~SlotRing() {
        sys::keep_if_abandoned(ring_, bufs_);
        sys::keep_if_abandoned(ring_, slots_);
    }
    SlotRing(const SlotRing&) = delete;
    SlotRing& operator=(const SlotRing&) = delete;

    void run() {
        for (unsigned k = 0; k < slots_.size() && next_ < files_; ++k) self().start(k);
        detail::drive(ring_, [&](unsigned k, unsigned op, int res) { complete(k, static_cast<Op>(op), res); });
    }

protected:
    // A buffer for each slot, of the job's buffer size (at most 1 GiB).
    void add_buffers() {
        for (unsigned k = 0; k < slots_.size(); ++k)
            bufs_.emplace_back(std::min<std::size_t>(j_.buffer, 1u << 30), detail::kPage);
    }
    // The next read of slot k's file, at the offset it reached, into the slot's buffer: through
    // the ring's registered file `file` (the reader's k, the copier's 2k).
    void read_next(unsigned file, unsigned k) {
        ring_.read_slot(file, bufs_[k].data(), static_cast<unsigned>(bufs_[k].size()), slots_[k].offset, tag(k, kRead),
                        false);
    }
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
        if (next_ < files_) self().start(k);
    }

    const Job& j_;
    const std::uint64_t files_ = j_.tree_of().files;
    const detail::OpClock clock_{j_};
    std::deque<Slot> slots_;  // before the ring: outlive what the kernel still does with them
    std::deque<AlignedBuffer> bufs_;
    sys::Ring ring_;
    std::uint64_t next_ = 0;

private:
    Runner& self() { return static_cast<Runner&>(*this); }

    // What every completion is checked for: a read or write that came back -EAGAIN or -EINTR goes
    // again as it was (again(k, op)); any other failure, or a write of nothing (a full device), is
    // an error naming the call and the file. The rest go to the runner.
    void complete(unsigned k, Op op, int res) {
        if ((op == kRead || op == kWrite) && (res == -EAGAIN || res == -EINTR)) return self().again(k, op);
        if (res < 0) throw IoError(-res, kVerb[op], path(k, op));
        if (op == kWrite && res == 0) throw IoError(ENOSPC, kVerb[op], path(k, op));
        self().done(k, op, res);
    }

    std::string path(unsigned k, Op op) const {
        return (on_source(op) ? j_.src : j_.dst) + "/" + tree_file(tree_shape(j_), slots_[k].file);
    }
};

class TreeReader : public SlotRing<TreeReader> {
public:
    TreeReader(const Job& j, const detail::TreeFolders& t)
        : SlotRing(j, 3 * files_in_flight(j), j.src), t_(t), hashers_(files_in_flight(j)) {
        register_slots(ring_, files_in_flight(j));
        add_buffers();
    }

private:
    friend class SlotRing<TreeReader>;

    void start(unsigned k) {
        const Slot& s = fresh(k);
        hashers_[k].reset();
        ring_.open_into(t_.of(s.file), s.name.c_str(), O_RDONLY | O_NOFOLLOW, k, tag(k, kOpen), true);
        read(k);
    }

    void read(unsigned k) { read_next(k, k); }
    void again(unsigned k, Op) { read(k); }

    void done(unsigned k, Op op, int res) {
        Slot& s = slots_[k];
        switch (op) {
            case kRead:
                if (res == 0) return ring_.close_slot(k, tag(k, kCloseSrc));
                hashers_[k].update(bufs_[k].data(), static_cast<std::size_t>(res));
                s.offset += res;
                return read(k);
            case kCloseSrc: j_.tree->add(s.file, hashers_[k].digest(), hashers_[k].bytes()); return next_in(k, s);
            default: return;  // opened: its read is already in the ring
        }
    }

    const detail::TreeFolders& t_;
    std::deque<Hasher> hashers_;  // a Hasher does not move
};

class TreeWriter : public SlotRing<TreeWriter> {
public:
    TreeWriter(const Job& j, const detail::TreeFolders& t) : SlotRing(j, 2 * files_in_flight(j), j.dst), t_(t) {
        register_slots(ring_, files_in_flight(j));
    }

private:
    friend class SlotRing<TreeWriter>;

    void start(unsigned k) {
        const Slot& s = fresh(k);
        ring_.open_into(t_.of(s.file), s.name.c_str(), kCreateFlags, k, tag(k, kCreate), true);
        write(k);
    }

    void write(unsigned k) {
        const Slot& s = slots_[k];
        const std::span<const std::byte> b = detail::file_bytes(j_, s.file);
        const auto at = static_cast<std::size_t>(s.offset);
        ring_.write_slot(k, b.data() + at, static_cast<unsigned>(b.size() - at), s.offset, tag(k, kWrite));
    }
    void again(unsigned k, Op) { write(k); }

    void done(unsigned k, Op op, int res) {
        Slot& s = slots_[k];
        switch (op) {
            case kWrite:
                s.offset += res;
                if (static_cast<std::uint64_t>(s.offset) < detail::file_bytes(j_, s.file).size()) return write(k);
                return ring_.close_slot(k, tag(k, kClose));
            case kClose: return next_in(k, s);
            default: return;  // created: its write is already in the ring
        }
    }

    const detail::TreeFolders& t_;
};

// A copy: slot 2k holds file i of the source, slot 2k + 1 its copy; a buffer per file in flight.
class TreeCopier : public SlotRing<TreeCopier> {
public:
    TreeCopier(const Job& j, const detail::TreeFolders& from, const detail::TreeFolders& to)
        : SlotRing(j, 4 * files_in_flight(j), j.dst), from_(from), to_(to) {
        register_slots(ring_, 2 * files_in_flight(j));
        add_buffers();
    }

private:
    friend class SlotRing<TreeCopier>;

    void start(unsigned k) {
        const Slot& s = fresh(k);
        ring_.open_into(from_.of(s.file), s.name.c_str(), O_RDONLY | O_NOFOLLOW, 2 * k, tag(k, kOpen), true);
        read(k);
        ring_.open_into(to_.of(s.file), s.name.c_str(), kCreateFlags, 2 * k + 1, tag(k, kCreate), false);
    }

    void read(unsigned k) { read_next(2 * k, k); }

    void write(unsigned k) {
        const Slot& s = slots_[k];
        ring_.write_slot(2 * k + 1, bufs_[k].data() + s.done, static_cast<unsigned>(s.held - s.done),
                         s.offset + static_cast<off_t>(s.done), tag(k, kWrite));
    }
    void again(unsigned k, Op op) { op == kRead ? read(k) : write(k); }

    // Both files closed once the source is read to its end and all of it written.
    void finish(unsigned k) {
        ring_.close_slot(2 * k, tag(k, kCloseSrc));
        ring_.close_slot(2 * k + 1, tag(k, kClose));
    }

    void done(unsigned k, Op op, int res) {
        Slot& s = slots_[k];
        switch (op) {
            case kOpen: return;  // its read is already in the ring
            case kCreate:
                s.dst_open = true;
                if (s.at_end) return finish(k);
                if (s.held > 0) write(k);
                return;
            case kRead:
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
                s.done += static_cast<std::size_t>(res);
                if (s.done < s.held) return write(k);
                s.offset += static_cast<off_t>(s.held);
                s.held = 0;
                return read(k);
            case kCloseSrc:
            case kClose:
                if (++s.closes < 2) return;
                return next_in(k, s);
        }
    }

    const detail::TreeFolders& from_;
    const detail::TreeFolders& to_;
};

}  // namespace

void read_files_uring(const Job& j) {
    const detail::TreeFolders t = detail::open_tree(j.src, j.tree_of().folders);
    TreeReader(j, t).run();
}

void write_files_uring(const Job& j) {
    const detail::TreeFolders t = detail::make_tree(j.dst, j.tree_of().folders);
    TreeWriter(j, t).run();
}

void copy_files_uring(const Job& j) {
    const detail::TreeFolders from = detail::open_tree(j.src, j.tree_of().folders),
                              to = detail::make_tree(j.dst, j.tree_of().folders);
    TreeCopier(j, from, to).run();
}

}  // namespace iolab
