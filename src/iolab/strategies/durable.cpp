// Durable appends: every record is on the device when the call that wrote it returns (a log's
// commit). Each method pays for that differently: a sync call per record, a synced descriptor,
// a sync linked behind the write in an io_uring, or one sync for the records of many producers
// (group commit). The harness checks the file's content and counts the sync calls (a method that
// skips one fails); each commit's time goes to Job::latency.
#include <fcntl.h>

#include <algorithm>
#include <cstring>

#include "iolab/core/aligned.hpp"
#include "iolab/strategies/common.hpp"
#include "iolab/strategies/direct.hpp"
#include "iolab/strategies/strategy.hpp"
#include "iolab/sys/uring.hpp"

namespace iolab {

namespace {

using detail::OpClock;

// Appends each record at its place, made durable by commit(fd, record, offset) before the next
// one starts; each commit (write and sync) is timed. `extra` flags open the file with them; a
// log laid out before the clock (`laid_out`, by prepare) is opened as it is.
template <class Commit>
void append_each(const Job& j, int extra, Commit&& commit, bool laid_out = false) {
    const sys::Fd out = laid_out ? sys::open(j.dst, O_WRONLY | extra) : detail::open_dst(j.dst, O_WRONLY, extra);
    const OpClock clock(j);
    off_t off = 0;
    std::uint64_t i = 0;
    j.records->for_each_record([&](const std::byte* p, std::size_t n) {
        const std::uint64_t began = clock.now();
        commit(out, std::span<const std::byte>(p, n), off, i++);
        clock.done(began);
        off += static_cast<off_t>(n);
    });
}

// A log laid out before the clock, as a database lays out its next segment ahead of the commits:
// its blocks allocated (fallocate: allocated, never written), or written with zeros (as
// PostgreSQL fills a WAL segment), and made durable.
void allocate_log(const Job& j) {
    const sys::Fd out = detail::open_dst(j.dst, O_WRONLY);
    sys::allocate(out, 0, static_cast<off_t>(j.records->size()));
    sys::fsync(out);
}

void zero_log(const Job& j) {
    const sys::Fd out = detail::open_dst(j.dst, O_WRONLY);
    AlignedBuffer zeros(std::min<std::uint64_t>(j.records->size(), 1u << 20) + 1, detail::kPage);
    std::memset(zeros.data(), 0, zeros.size());
    for (std::uint64_t off = 0; off < j.records->size();) {
        const std::size_t n = detail::at_most(zeros.size(), j.records->size() - off);
        sys::pwrite_all(out, zeros.data(), n, static_cast<off_t>(off));
        off += n;
    }
    sys::fsync(out);
}

void write_fsync(const sys::Fd& out, std::span<const std::byte> r, off_t off) {
    sys::pwrite_all(out, r.data(), r.size(), off);
    sys::fsync(out);
}

void write_fdatasync(const sys::Fd& out, std::span<const std::byte> r, off_t off) {
    sys::pwrite_all(out, r.data(), r.size(), off);
    sys::fdatasync(out);
}

void durable_fsync(const Job& j) {
    append_each(j, 0, [](const sys::Fd& out, auto r, off_t off, std::uint64_t) { write_fsync(out, r, off); });
}

void durable_fdatasync(const Job& j) {
    append_each(j, 0, [](const sys::Fd& out, auto r, off_t off, std::uint64_t) { write_fdatasync(out, r, off); });
}

// Into a log laid out by prepare.
void durable_fsync_laid_out(const Job& j) {
    append_each(
        j, 0, [](const sys::Fd& out, auto r, off_t off, std::uint64_t) { write_fsync(out, r, off); }, true);
}

void durable_fdatasync_laid_out(const Job& j) {
    append_each(
        j, 0, [](const sys::Fd& out, auto r, off_t off, std::uint64_t) { write_fdatasync(out, r, off); }, true);
}

void durable_odsync(const Job& j) {
    append_each(j, O_DSYNC, [](const sys::Fd& out, std::span<const std::byte> r, off_t off, std::uint64_t) {
        sys::pwrite_all(out, r.data(), r.size(), off);
    });
}

// O_DIRECT|O_DSYNC: each record goes to the device from an aligned buffer, and the write returns
// once it is there (and, with O_DSYNC, once the device's cache holds it no longer).
template <bool kLaidOut>
void durable_direct_dsync(const Job& j) {
    const sys::Fd out = kLaidOut ? sys::open(j.dst, O_WRONLY | O_DIRECT | O_DSYNC)
                                 : detail::open_dst(j.dst, O_WRONLY, O_DIRECT | O_DSYNC);
    const sys::DirectAlignment a = sys::direct_alignment(out);
    if (j.records_of().record % a.offset != 0)
        throw CannotRun("O_DIRECT needs records of a multiple of " + std::to_string(a.offset) +
                        " bytes here; record is " + std::to_string(j.records_of().record));
    AlignedBuffer buf(j.records_of().record, std::max(a.memory, detail::kPage));
    const OpClock clock(j);
    off_t off = 0;
    j.records->for_each_record([&](const std::byte* p, std::size_t n) {
        const std::uint64_t began = clock.now();
        std::memcpy(buf.data(), p, n);
        direct_pwrite_all(out, buf.data(), n, off, a.offset);
        clock.done(began);
        off += static_cast<off_t>(n);
    });
}

// sync_file_range starts the record's writeback and waits for it; the fdatasync after it then
// has only the metadata and the device's cache left to flush.
void durable_sync_file_range(const Job& j) {
    append_each(j, 0, [](const sys::Fd& out, std::span<const std::byte> r, off_t off, std::uint64_t) {
        sys::pwrite_all(out, r.data(), r.size(), off);
        sys::sync_file_range(out, off, static_cast<off_t>(r.size()),
                             SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
        sys::fdatasync(out);
    });
}

// One submission a record: its write linked to an fdatasync, which starts only once the write
// completed in full. A short write cancels the sync: the rest is written and synced again.
void durable_uring_linked(const Job& j) {
    sys::Ring ring(2, j.dst);
    append_each(j, 0, [&](const sys::Fd& out, std::span<const std::byte> r, off_t off, std::uint64_t) {
        for (std::size_t done = 0;;) {
            const auto left = static_cast<unsigned>(r.size() - done);
            ring.write(out, r.data() + done, left, off + static_cast<off_t>(done), 0, true);
            ring.fsync(out, true, 1);
            int wrote = 0, synced = 0;
            for (int k = 0; k < 2; ++k) {
                const sys::Completion c = ring.next();
                (c.tag == 0 ? wrote : synced) = c.res;
            }
            if (wrote < 0) throw IoError(-wrote, "write", out.path());
            if (wrote == 0) throw IoError(ENOSPC, "write", out.path());
            done += static_cast<std::size_t>(wrote);
            if (synced < 0 && !(synced == -ECANCELED && done < r.size()))
                throw IoError(-synced, "fdatasync", out.path());
            if (done == r.size() && synced == 0) return;
        }
    });
}

}  // namespace

// Group commit, in its own file (group_commit.cpp).
void durable_group_commit(const Job& j);

namespace {

// clang-format off
constexpr StrategyDef kDurable[] = {
    {.name = "durable.fsync", .params = kParamRecord, .run = durable_fsync,
     .description = "pwrite(2) each record, then fsync(2): the file grows by a record a commit"},
    {.name = "durable.fdatasync", .params = kParamRecord, .run = durable_fdatasync,
     .description = "pwrite(2) each record, then fdatasync(2) (the file grows)"},
    {.name = "durable.fsync-preallocated", .params = kParamRecord, .run = durable_fsync_laid_out,
     .prepare = allocate_log,
     .description = "the log fallocate(2)d before the clock, then pwrite(2) + fsync(2) each record into it"},
    {.name = "durable.fdatasync-preallocated", .params = kParamRecord, .run = durable_fdatasync_laid_out,
     .prepare = allocate_log,
     .description = "the log fallocate(2)d before the clock, then pwrite(2) + fdatasync(2) each record into it"},
    {.name = "durable.fsync-zeroed", .params = kParamRecord, .run = durable_fsync_laid_out, .prepare = zero_log,
     .description = "the log written with zeros and synced before the clock, then pwrite(2) + fsync(2) each record"},
    {.name = "durable.fdatasync-zeroed", .params = kParamRecord, .run = durable_fdatasync_laid_out,
     .prepare = zero_log,
     .description = "the log written with zeros and synced before the clock (a WAL segment), then pwrite(2) + "
                    "fdatasync(2) each record"},
    {.name = "durable.odsync", .params = kParamRecord, .run = durable_odsync,
     .description = "open with O_DSYNC: each pwrite(2) returns once its record is durable"},
    {.name = "durable.direct-dsync", .params = kParamRecord, .flags = kBypassesCache,
     .run = durable_direct_dsync<false>, .unavailable = direct_unavailable,
     .description = "open with O_DIRECT|O_DSYNC: each record from an aligned buffer straight to the device"},
    {.name = "durable.direct-dsync-zeroed", .params = kParamRecord, .flags = kBypassesCache,
     .run = durable_direct_dsync<true>, .unavailable = direct_unavailable, .prepare = zero_log,
     .description = "O_DIRECT|O_DSYNC writes into a log written with zeros and synced before the clock"},
    {.name = "durable.sync-file-range", .params = kParamRecord, .run = durable_sync_file_range,
     .description = "pwrite(2), sync_file_range(2) of the record (write and wait), then fdatasync(2)"},
    {.name = "durable.io-uring-linked", .params = kParamRecord, .run = durable_uring_linked,
     .unavailable = [](const std::string&) { return sys::uring_unavailable(); },
     .description = "io_uring: each record's write linked to an fdatasync, submitted together"},
    {.name = "durable.group-commit", .params = kParamRecord | kParamProducers, .run = durable_group_commit,
     .description = "P producer threads hand records to one writer, which writes what has gathered, "
                    "fdatasyncs once, and wakes them"},
};
// clang-format on

}  // namespace

void register_durable_strategies(Registry& r) { r.add(kDurable); }

}  // namespace iolab
