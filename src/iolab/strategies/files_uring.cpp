// The files family's io_uring reader: Q files in flight, each opened into a registered slot with
// its first read linked behind the open, read on at the offset each read reached until a read
// returns 0 (a short read is resubmitted, never taken for the end), then closed; many files'
// operations go in one submission.
#include <deque>

#include <fmt/format.h>

#include "iolab/strategies/common.hpp"
#include "iolab/strategies/files_uring.hpp"

namespace iolab {

namespace detail {

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

}  // namespace detail

namespace {

enum Op : unsigned { kOpen = 0, kRead = 1, kClose = 2 };
std::uint64_t tag(unsigned k, Op op) { return detail::slot_tag(k, op); }

struct Slot : detail::SlotFile {
    AlignedBuffer buf;
    Hasher h;
    explicit Slot(std::size_t n) : buf(n, detail::kPage) {}
};

class TreeReader {
public:
    TreeReader(const Job& j, const detail::TreeFolders& t, unsigned q) : j_(j), t_(t), ring_(3 * q, j.src), q_(q) {
        detail::register_slots(ring_, q);
        for (unsigned k = 0; k < q; ++k) slots_.emplace_back(std::min<std::size_t>(j.buffer, 1u << 30));
    }
    ~TreeReader() { sys::keep_if_abandoned(ring_, slots_); }
    TreeReader(const TreeReader&) = delete;
    TreeReader& operator=(const TreeReader&) = delete;

    void run() {
        for (unsigned k = 0; k < q_ && next_ < j_.files; ++k) start(k);
        detail::drive(ring_, [&](unsigned k, unsigned op, int res) { done(k, static_cast<Op>(op), res); });
    }

private:
    void start(unsigned k) {
        Slot& s = slots_[k];
        s.begin(next_++, clock_.now());
        s.h.reset();
        ring_.open_into(t_.of(s.file), s.name.c_str(), O_RDONLY | O_NOFOLLOW, k, tag(k, kOpen), true);
        read(k);
    }

    void read(unsigned k) {
        Slot& s = slots_[k];
        ring_.read_slot(k, s.buf.data(), static_cast<unsigned>(s.buf.size()), s.offset, tag(k, kRead), false);
    }

    std::string name(const Slot& s) const {
        return j_.src + "/" + tree_file(TreeShape{j_.files, j_.file_size, j_.folders}, s.file);
    }

    void done(unsigned k, Op op, int res) {
        Slot& s = slots_[k];
        if (op == kOpen) {
            if (res < 0) throw IoError(-res, "open", name(s));  // its read is cancelled
            return;
        }
        if (op == kClose) {
            if (res < 0) throw IoError(-res, "close", name(s));
            j_.tree->add(s.file, s.h.digest(), s.h.bytes());
            clock_.done(s.began);
            if (next_ < j_.files) start(k);
            return;
        }
        if (res == -EAGAIN || res == -EINTR) return read(k);  // again, at the same offset
        if (res < 0) throw IoError(-res, "read", name(s));
        if (res == 0) return ring_.close_slot(k, tag(k, kClose));
        s.h.update(s.buf.data(), static_cast<std::size_t>(res));
        s.offset += res;
        read(k);
    }

    const Job& j_;
    const detail::OpClock clock_{j_};
    const detail::TreeFolders& t_;
    // The buffers before the ring: destroyed after it, so that reads still in the kernel when an
    // error ends the run (the ring's destructor waits for them) never write into freed memory.
    std::deque<Slot> slots_;  // a Slot does not move (its hasher)
    sys::Ring ring_;
    unsigned q_;
    std::uint64_t next_ = 0;
};

}  // namespace

void read_files_uring(const Job& j) {
    const detail::TreeFolders t = detail::open_tree(j.src, j.folders);
    TreeReader(j, t, detail::files_in_flight(j)).run();
}

}  // namespace iolab
