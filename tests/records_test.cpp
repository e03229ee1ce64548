// A write's records: handed out from a bounded pool, every block different, and memory that does
// not grow with the file.
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <cstring>
#include <set>
#include <vector>

#include "fakes.hpp"
#include "iolab/core/records.hpp"
#include "iolab/core/scratch.hpp"
#include "iolab/harness/fixture.hpp"
#include "iolab/strategies/common.hpp"
#include "iolab/sys/io.hpp"
#include "support.hpp"

namespace iolab {
namespace {

std::vector<std::byte> all_records(const Records& r) {
    std::vector<std::byte> v;
    r.for_each_record([&](const std::byte* p, std::size_t n) { v.insert(v.end(), p, p + n); });
    return v;
}

TEST(Records, EveryWayOfReadingThemAgrees) {
    for (const std::size_t record : {1u, 1000u, 4096u, 70000u}) {
        SCOPED_TRACE(record);
        const Records r(DataSpec{}, record, 300000 / record + 3);
        const auto whole = all_records(r);
        ASSERT_EQ(whole.size(), r.size());
        for (std::uint64_t i = 0; i < r.count(); i += 7)
            ASSERT_EQ(std::memcmp(r.at(i).data(), whole.data() + i * record, record), 0) << i;
        // Ranges across block boundaries, in odd pieces.
        for (const std::uint64_t off : {std::uint64_t{0}, r.block() - 5, r.block() * 2 + 3, r.size() - 9}) {
            std::vector<std::byte> piece(std::min<std::uint64_t>(r.block() + 11, r.size() - off));
            r.copy(off, piece);
            EXPECT_EQ(std::memcmp(piece.data(), whole.data() + off, piece.size()), 0) << off;
        }
        EXPECT_EQ(r.digest().checksum, checksum(whole));
        EXPECT_EQ(r.digest().size, whole.size());
    }
}

TEST(Records, ThePoolIsBoundedWhateverTheSize) {
    const Records small(DataSpec{}, 4096, 10);
    EXPECT_LE(small.pool_bytes(), small.block() + small.size());
    // 4 TiB of records: nothing is generated beyond one block and the spread.
    const Records huge(DataSpec{}, 1 << 20, 4u << 20);
    EXPECT_EQ(huge.size(), 4ull << 40);
    EXPECT_EQ(huge.pool_bytes(), huge.block() + Records::kSpread);
}

// No block is like its neighbours, nor like the blocks a power of two or the pool away: a block
// written twice, or at another's place, is a different file.
TEST(Records, NoBlockRepeatsAtAnyDistanceAStrategyMightGetWrong) {
    const Records r(DataSpec{}, 1 << 16, 1ull << 22);  // 256 GiB: offsets past 2^32
    const std::uint64_t blocks = r.count() * r.record() / r.block();
    for (std::uint64_t k = 0; k < 2000; ++k) {
        for (const std::uint64_t d : {std::uint64_t{1}, std::uint64_t{2}, std::uint64_t{Records::kSpread} / r.block(),
                                      (Records::kSpread + r.block()) / r.block(), std::uint64_t{1} << 32 >> 16}) {
            ASSERT_LT(k + d, blocks);
            ASSERT_NE(std::memcmp(r.block_at(k), r.block_at(k + d), 64), 0) << k << " and " << k + d;
        }
    }
}

TEST(Records, TextStaysText) {
    DataSpec text;
    text.kind = DataKind::text;
    const Records r(text, 100, 5000);
    for (const std::byte b : all_records(r)) {
        const auto c = static_cast<unsigned char>(b);
        ASSERT_TRUE(c == '\n' || (c >= 32 && c < 127)) << int(c);
    }
}

// A strategy that writes one block twice (block 1 in block 2's place), or two blocks swapped,
// fails its verification; the honest one passes.
TEST(Records, AStrategyThatWritesABlockTwiceFailsItsVerification) {
    ScratchDir dir;
    Workload w;
    w.family = Family::write;
    w.records_of().record = 4096;
    w.records_of().count = 64;  // four blocks of 64 KiB
    Fixture f(w, dir, "twice");
    for (const int fault : {0, 1, 2}) {
        SCOPED_TRACE(fault);
        const Strategy s = test::made_strategy("write.test", Family::write, [fault](const Job& j) {
            const sys::Fd out = detail::open_dst(j.dst);
            const Records& r = *j.records;
            for (std::uint64_t k = 0; k * r.block() < r.size(); ++k) {
                std::uint64_t from = k;
                if (fault == 1 && k == 2) from = 1;  // block 1 again
                if (fault == 2 && (k == 1 || k == 2)) from = 3 - k;
                sys::write_all(out, r.block_at(from), r.block());
            }
        });
        Sink sink;
        const Job j = f.job(s, sink);
        s.run(j);
        EXPECT_EQ(f.verify(j).ok, fault == 0);
    }
}

// A write of eight times the pool: the records are not all in memory at once (fio keeps a few
// buffers per job whatever the size).
TEST(Records, AWriteOfEightPoolsKeepsMemoryUnderHalfTheFile) {
    const std::uint64_t file = 8 * ((16u << 20) + (1u << 20));  // 136 MiB, record 1 MiB
    const auto run = [](const std::string& size) {
        return test::run_cli("run -s write.record-syscall --record 1M --size " + size +
                             " --warmup 0 --iterations 1 --cache warm -q");
    };
    // The largest child so far: the small run first, then the large one.
    ASSERT_EQ(run("1M").status, 0);
    rusage before{};
    ::getrusage(RUSAGE_CHILDREN, &before);
    const auto r = run(std::to_string(file));
    ASSERT_EQ(r.status, 0) << r.err;
    rusage after{};
    ::getrusage(RUSAGE_CHILDREN, &after);
    const auto grew = static_cast<std::uint64_t>(after.ru_maxrss - before.ru_maxrss) * 1024;  // KiB
    EXPECT_LT(grew, file / 2) << "peak resident " << after.ru_maxrss << " KiB, " << before.ru_maxrss
                              << " KiB for a 1 MiB write";
}

}  // namespace
}  // namespace iolab
