// Group commit (a database's log writer): P producer threads each take the next record and wait
// until it is durable; one writer writes every record that has gathered at its place, makes them
// durable with one fdatasync, and wakes their producers. With P producers a sync covers at most P
// records, so a run makes at least count / P syncs (what the harness checks).
#include <fcntl.h>

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "iolab/strategies/common.hpp"
#include "iolab/strategies/strategy.hpp"

namespace iolab {

namespace {

class Committer {
public:
    Committer(const Job& j, const sys::Fd& out) : j_(j), out_(out) {}

    // A producer: records until none are left, each commit (hand-over to wake-up) timed.
    void produce(Latency* latency) {
        const detail::OpClock clock(latency);
        for (;;) {
            std::unique_lock lock(m_);
            if (failed_ || next_ >= records_.count) return;
            pending_.push_back(next_++);
            const std::uint64_t began = clock.now();
            const std::uint64_t batch = taken_ + 1;  // the writer's next batch takes it
            gathered_.notify_one();
            committed_.wait(lock, [&] { return failed_ || synced_ >= batch; });
            if (failed_) return;
            lock.unlock();
            clock.done(began);
        }
    }

    // The writer (the calling thread, so that its calls are the job's): batch after batch until
    // every record is durable.
    void write() {
        std::vector<std::uint64_t> batch;
        for (std::uint64_t written = 0; written < records_.count; written += batch.size()) {
            {
                std::unique_lock lock(m_);
                gathered_.wait(lock, [&] { return !pending_.empty(); });
                batch.swap(pending_);
                pending_.clear();
                ++taken_;
            }
            for (const std::uint64_t i : batch) {
                const std::span<const std::byte> r = j_.records->at(i);
                sys::pwrite_all(out_, r.data(), r.size(), static_cast<off_t>(i * records_.record));
            }
            sys::fdatasync(out_);
            {
                const std::lock_guard lock(m_);
                ++synced_;
            }
            committed_.notify_all();
        }
    }

    // The writer failed: every producer returns.
    void fail() {
        {
            const std::lock_guard lock(m_);
            failed_ = true;
        }
        committed_.notify_all();
    }

private:
    const Job& j_;
    const RecordValues& records_ = j_.records_of();
    const sys::Fd& out_;
    std::mutex m_;
    std::condition_variable gathered_, committed_;
    std::vector<std::uint64_t> pending_;  // records handed over, not yet taken by the writer
    std::uint64_t next_ = 0;              // the next record to hand out
    std::uint64_t taken_ = 0;             // batches the writer has taken
    std::uint64_t synced_ = 0;            // batches durable
    bool failed_ = false;
};

}  // namespace

void durable_group_commit(const Job& j) {
    const sys::Fd out = detail::open_dst(j.dst, O_WRONLY);
    Committer c(j, out);
    std::vector<Latency> latencies(j.latency ? j.records_of().producers : 0);
    std::exception_ptr error;
    {
        std::vector<std::jthread> producers;
        try {
            for (unsigned p = 0; p < j.records_of().producers; ++p)
                producers.emplace_back([&c, l = j.latency ? &latencies[p] : nullptr] { c.produce(l); });
            c.write();
        } catch (...) {
            error = std::current_exception();
            c.fail();
        }
    }  // every producer joined
    if (error) std::rethrow_exception(error);
    for (const Latency& l : latencies) j.latency->merge(l);
}

}  // namespace iolab
