// A two-thread copy: a reader and a writer joined by a bounded queue of Q recycled buffers of
// N bytes (the published version allocated a buffer per read). Either side failing stops the
// other; the first error is the one reported.
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "iolab/core/aligned.hpp"
#include "iolab/core/timeline.hpp"
#include "iolab/strategies/common.hpp"
#include "iolab/strategies/strategy.hpp"

namespace iolab {

namespace {

struct Packet {
    unsigned buffer;
    std::size_t bytes;  // 0: end of file
};

class Pipeline {
public:
    explicit Pipeline(unsigned depth) {
        for (unsigned i = 0; i < depth; ++i) free_.push_back(i);
    }

    // Block until an item is available or the pipeline has stopped (then return false).
    bool take_free(unsigned& buffer) { return take(free_, buffer); }
    bool take_full(Packet& p) { return take(full_, p); }
    void give_full(Packet p) {
        {
            std::lock_guard lock(m_);
            full_.push_back(p);
        }
        cv_.notify_all();
    }
    void give_free(unsigned buffer) {
        {
            std::lock_guard lock(m_);
            free_.push_back(buffer);
        }
        cv_.notify_all();
    }
    void fail(std::exception_ptr e) {
        {
            std::lock_guard lock(m_);
            if (!error_) error_ = e;
            stopped_ = true;
        }
        cv_.notify_all();
    }
    std::exception_ptr error() {
        std::lock_guard lock(m_);
        return error_;
    }

private:
    template <class T>
    bool take(std::deque<T>& queue, T& out) {
        std::unique_lock lock(m_);
        cv_.wait(lock, [&] { return stopped_ || !queue.empty(); });
        if (stopped_) return false;
        out = queue.front();
        queue.pop_front();
        return true;
    }

    std::mutex m_;
    std::condition_variable cv_;
    std::deque<unsigned> free_;
    std::deque<Packet> full_;
    bool stopped_ = false;
    std::exception_ptr error_;
};

void copy_pipelined(const Job& j) {
    const sys::Fd in = detail::open_src(j.src);
    const sys::Fd out = detail::open_dst(j.dst);
    const unsigned depth = std::max(1u, j.queue);
    const std::size_t n = j.buffer;
    AlignedBuffer memory(n * depth, detail::kPage);
    Pipeline pipe(depth);
    Timeline* tl = j.timeline;
    // Each thread's system calls are counted in its own counters; they join the caller's.
    sys::Counters counted[2];

    std::thread reader([&] {
        try {
            std::uint64_t seq = 0;
            for (unsigned b; pipe.take_free(b); ++seq) {
                std::byte* buf = memory.data() + b * n;
                if (tl) tl->begin(0, Timeline::Kind::read, seq, n);
                const std::size_t got = sys::read_some(in, buf, n);
                if (tl) tl->end(0, Timeline::Kind::read, seq, got);
                pipe.give_full({b, got});
                if (got == 0) break;
            }
        } catch (...) {
            pipe.fail(std::current_exception());
        }
        counted[0] = sys::thread_counters();
    });
    std::thread writer([&] {
        try {
            std::uint64_t seq = 0;
            for (Packet p; pipe.take_full(p); ++seq) {
                if (p.bytes == 0) break;
                if (tl) tl->begin(1, Timeline::Kind::write, seq, p.bytes);
                sys::write_all(out, memory.data() + p.buffer * n, p.bytes);
                if (tl) tl->end(1, Timeline::Kind::write, seq, p.bytes);
                pipe.give_free(p.buffer);
            }
        } catch (...) {
            pipe.fail(std::current_exception());
        }
        counted[1] = sys::thread_counters();
    });
    reader.join();
    writer.join();
    sys::thread_counters() += counted[0];
    sys::thread_counters() += counted[1];
    if (auto e = pipe.error()) std::rethrow_exception(e);
}

// One entry per row, fields in declaration order.
// clang-format off
constexpr StrategyDef kPipelined[] = {
    {.name = "copy.pipelined-threads", .params = kParamBuffer | kParamQueue, .flags = kTimeline | kOwnThreads, .run = copy_pipelined,
     .description = "a reader and a writer thread joined by a bounded queue of Q recycled N-byte buffers",
     .jvm = "two threads and an ArrayBlockingQueue of 8 packets (the published pipelined copy)"},
};
// clang-format on

}  // namespace

void register_pipelined_strategies(Registry& r) { r.add(kPipelined); }

}  // namespace iolab
