// Access patterns, latency histograms and patterned verification.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <vector>

#include "fakes.hpp"
#include "iolab/core/latency.hpp"
#include "iolab/core/pattern.hpp"
#include "iolab/core/scratch.hpp"
#include "iolab/harness/fixture.hpp"
#include "iolab/harness/plan.hpp"
#include "iolab/harness/runner.hpp"
#include "iolab/strategies/common.hpp"
#include "iolab/sys/cgroup.hpp"
#include "iolab/sys/io.hpp"
#include "iolab/sys/reserve.hpp"
#include "support.hpp"

namespace iolab {
namespace {

std::vector<std::uint64_t> blocks_of(const Offsets& at, std::uint64_t first, std::uint64_t n, std::size_t block) {
    std::vector<std::uint64_t> out;
    for (std::uint64_t i = first; i < first + n; ++i) out.push_back(at(i) / block);
    return out;
}

TEST(Pattern, ParsesAndPrintsItsNames) {
    EXPECT_EQ(to_string(parse_pattern("random")), "random");
    EXPECT_EQ(to_string(parse_pattern("sequential")), "sequential");
    EXPECT_EQ(parse_pattern("strided:1M").stride, 1u << 20);
    EXPECT_EQ(to_string(parse_pattern("strided:1048576")), "strided:1M");
    for (const char* bad : {"", "randm", "random:4K", "strided", "strided:", "strided:0", "strided:x", "sequential:1",
                            "/\n\x8d", "strided:\n"}) {
        try {
            parse_pattern(bad);
            ADD_FAILURE() << bad;
        } catch (const InputError& e) {
            EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();  // one line
        }
    }
}

TEST(Pattern, SequentialGoesBlockAfterBlockAndStartsAgain) {
    const Offsets at(Pattern{}, 10 * 4096 + 100, 4096, 1);  // the partial last block is never read
    EXPECT_EQ(blocks_of(at, 0, 12, 4096), (std::vector<std::uint64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1}));
}

TEST(Pattern, RandomVisitsEveryBlockOncePerPassInASeededOrder) {
    for (const std::uint64_t blocks : {1u, 2u, 3u, 1000u, 4097u}) {
        SCOPED_TRACE(blocks);
        const Offsets at(parse_pattern("random"), blocks * 512, 512, 7);
        for (std::uint64_t pass = 0; pass < 3; ++pass) {
            auto seen = blocks_of(at, pass * blocks, blocks, 512);
            std::sort(seen.begin(), seen.end());
            for (std::uint64_t b = 0; b < blocks; ++b) ASSERT_EQ(seen[b], b) << "pass " << pass;
        }
        if (blocks >= 1000) {
            // Not in order; another pass, another order; another seed, another order; the same
            // seed, the same order.
            const auto first = blocks_of(at, 0, blocks, 512);
            EXPECT_NE(first, blocks_of(Offsets(Pattern{}, blocks * 512, 512, 7), 0, blocks, 512));
            EXPECT_NE(first, blocks_of(at, blocks, blocks, 512));
            EXPECT_NE(first, blocks_of(Offsets(parse_pattern("random"), blocks * 512, 512, 8), 0, blocks, 512));
            EXPECT_EQ(first, blocks_of(Offsets(parse_pattern("random"), blocks * 512, 512, 7), 0, blocks, 512));
        }
    }
}

TEST(Pattern, RandomOverAHugeSpanNeedsNoMemory) {
    const std::uint64_t blocks = 1ull << 40;  // 4 PiB of 4 KiB blocks
    const Offsets at(parse_pattern("random"), blocks * 4096, 4096, 1);
    std::set<std::uint64_t> seen;
    for (std::uint64_t i = 0; i < 10000; ++i) {
        const std::uint64_t off = at(i);
        ASSERT_LT(off, blocks * 4096);
        ASSERT_EQ(off % 4096, 0u);
        seen.insert(off);
    }
    EXPECT_EQ(seen.size(), 10000u);  // a permutation: no block twice in a pass
}

TEST(Pattern, StridedSkipsAndMovesOnByABlockEachPass) {
    const Offsets even(parse_pattern("strided:8K"), 8 * 4096, 4096, 0);
    EXPECT_EQ(blocks_of(even, 0, 9, 4096), (std::vector<std::uint64_t>{0, 2, 4, 6, 1, 3, 5, 7, 0}));
    const Offsets odd(parse_pattern("strided:8K"), 7 * 4096, 4096, 0);
    EXPECT_EQ(blocks_of(odd, 0, 8, 4096), (std::vector<std::uint64_t>{0, 2, 4, 6, 1, 3, 5, 0}));
    // A stride that is not a whole number of blocks is rounded up to one.
    const Offsets up(parse_pattern("strided:5000"), 8 * 4096, 4096, 0);
    EXPECT_EQ(blocks_of(up, 0, 4, 4096), (std::vector<std::uint64_t>{0, 2, 4, 6}));
    // A stride sharing a factor with the blocks without dividing them: 10 blocks, every 4th.
    const Offsets shared(parse_pattern("strided:16K"), 10 * 4096, 4096, 0);
    EXPECT_EQ(blocks_of(shared, 0, 11, 4096), (std::vector<std::uint64_t>{0, 4, 8, 2, 6, 1, 5, 9, 3, 7, 0}));
}

TEST(Latency, BucketsHoldEveryValueWithinThreePercent) {
    for (std::uint64_t v : {0ull, 1ull, 31ull, 32ull, 33ull, 63ull, 64ull, 65ull, 1000ull, 123456789ull, ~0ull}) {
        const unsigned b = Latency::bucket_of(v);
        ASSERT_LT(b, Latency::kBuckets) << v;
        const std::uint64_t up = Latency::upper_edge(b);
        EXPECT_GE(up, v);
        EXPECT_LE(static_cast<double>(up - v), static_cast<double>(v) / 32 + 1) << v;
        if (b > 0) {
            EXPECT_LT(Latency::upper_edge(b - 1), v) << v;  // the bucket below ends below it
        }
    }
}

TEST(Latency, PercentilesOfAKnownSpread) {
    Latency l;
    for (std::uint64_t v = 1; v <= 10000; ++v) l.add(v * 1000, v * 1'000'000);  // 1 us .. 10 ms, over 10 s
    EXPECT_EQ(l.count(), 10000u);
    EXPECT_EQ(l.max(), 10'000'000u);
    const auto near = [](std::uint64_t got, double want) {
        return std::abs(static_cast<double>(got) - want) <= want / 32;
    };
    EXPECT_TRUE(near(l.percentile(0.5), 5e6)) << l.percentile(0.5);
    EXPECT_TRUE(near(l.percentile(0.9), 9e6)) << l.percentile(0.9);
    EXPECT_TRUE(near(l.percentile(0.99), 9.9e6)) << l.percentile(0.99);
    EXPECT_TRUE(near(l.percentile(0.999), 9.99e6)) << l.percentile(0.999);
    EXPECT_EQ(l.percentile(1.0), l.max());
    // Ended over 10 s, in 0.1 s slices: 99 in the first, 100 in each after, 1 in the last.
    ASSERT_EQ(l.slices().size(), 101u);
    EXPECT_EQ(l.slices()[0], 99u);
    EXPECT_EQ(l.slices()[50], 100u);
    Latency twice = l;
    twice.merge(l);
    EXPECT_EQ(twice.count(), 20000u);
    EXPECT_EQ(twice.percentile(0.5), l.percentile(0.5));
    EXPECT_EQ(twice.slices()[50], 200u);
    Latency back;
    back.restore(l.counts(), l.max(), l.slices());
    EXPECT_EQ(back.count(), l.count());
    EXPECT_EQ(back.percentile(0.99), l.percentile(0.99));
}

// A file of 64 blocks of 4 KiB, `ops` operations of a block at random offsets.
Workload random_blocks(Family family, std::uint64_t ops) {
    Workload w;
    w.family = family;
    w.size = 64 * 4096;
    w.patterned = true;
    w.pattern = parse_pattern("random");
    w.block = 4096;
    w.ops = ops;
    return w;
}

// One operation of a faulty test strategy: the operation's index, the offset it reads or writes at,
// and the offset whose block it says it read (a read) or whose bytes it writes (a write).
struct FaultyOp {
    std::uint64_t index, where, what;
};

// A patterned job's operations as a faulty test strategy does them. At the middle operation: fault
// 1 goes to the next block's place, 2 skips it, 3 does the one before it again. Fault 4 completes
// them in another order (fine); fault 5 takes the same blocks in the order of their offsets (the
// pattern ignored); otherwise the pattern's order.
std::vector<FaultyOp> faulty_operations(const Job& j, int fault) {
    const Offsets at(j.ops.pattern, j.ops.span, j.ops.block, j.ops.seed);
    std::vector<FaultyOp> ops;
    for (std::uint64_t i = 0; i < j.ops.count; ++i) {
        const std::uint64_t off = at(j.ops.first + i);
        ops.push_back({j.ops.first + i, off, off});
    }
    if (fault == 4) std::reverse(ops.begin(), ops.end());
    if (fault == 5) {
        std::vector<std::uint64_t> offs;
        for (const auto& o : ops) offs.push_back(o.where);
        std::sort(offs.begin(), offs.end());
        for (std::size_t k = 0; k < ops.size(); ++k) ops[k].where = ops[k].what = offs[k];
    }
    const std::size_t mid = ops.size() / 2;
    FaultyOp& m = ops[mid];
    if (fault == 1) m.where = (m.where + j.ops.block) % j.ops.span;             // the wrong place
    if (fault == 2) ops.erase(ops.begin() + static_cast<std::ptrdiff_t>(mid));  // skipped
    if (fault == 3) m.where = m.what = ops[mid - 1].where;                      // one twice
    return ops;
}

// A patterned read that reads one block from the wrong place, skips one, reads one twice, or
// ignores the pattern (the same blocks, in the order of their offsets) fails; the pattern's
// operations completed in another order (io_uring completes them so) pass.
TEST(PatternedRead, AWrongBlockFailsItsVerificationAndTheOrderDoesNot) {
    ScratchDir dir;
    const Workload w = random_blocks(Family::read, 100);
    for (const VerifyMode mode : {VerifyMode::full, VerifyMode::sampled}) {
        Fixture fx(w, dir, std::string("pattern-") + std::string(to_string(mode)));
        for (const int fault : {0, 1, 2, 3, 4, 5}) {
            SCOPED_TRACE(fault);
            const Strategy s = test::made_strategy("read.test", Family::read, [fault](const Job& j) {
                const sys::Fd in = detail::open_src(j.src);
                std::vector<std::byte> buf(j.ops.block);
                for (const FaultyOp& o : faulty_operations(j, fault)) {
                    sys::pread_full(in, buf.data(), buf.size(), static_cast<off_t>(o.where));
                    j.sink->consume_block(o.index, o.what, buf.data(), buf.size());
                }
            });
            Sink sink;
            const Job j = fx.job(s, sink, mode);
            s.run(j);
            EXPECT_EQ(fx.verify(j).ok, fault == 0 || fault == 4) << fx.verify(j).describe();
        }
    }
}

// Every patterned strategy, run through the harness: verified, one latency per operation, and
// the operations' rate.
TEST(PatternedRead, EveryStrategyTimesEachOperation) {
    PlanRequest req;
    req.strategies = {"read.*-ops", "write.*-ops"};
    req.sizes = {1 << 20};
    req.access_patterns = {parse_pattern("random"), parse_pattern("strided:64K")};
    req.blocks = {4096};
    req.ops = 300;
    const auto plan = build_plan(req);
    ASSERT_GE(plan.size(), 12u);
    ScratchDir dir;
    const auto results = run_group(plan, test::three_iterations(), dir);
    for (const CaseResult& r : results) {
        SCOPED_TRACE(r.spec.label());
        if (r.status == Status::skipped) continue;  // no O_DIRECT or io_uring here
        ASSERT_EQ(r.status, Status::ok) << r.reason;
        EXPECT_TRUE(r.verified);
        ASSERT_TRUE(r.latency);
        EXPECT_EQ(r.latency->count(), 3u * 300u);  // the measured iterations' operations
        EXPECT_GT(r.ops_per_s, 0);
        EXPECT_LE(r.latency->percentile(0.5), r.latency->percentile(0.99));
        EXPECT_EQ(r.samples[0].bytes, 300u * 4096u);
    }
}

// A patterned write that puts a block at the wrong offset, skips one, writes one twice or ignores
// the pattern (the same blocks in the order of their offsets) fails; the pattern's operations
// completed in another order pass. A file put in the place of the laid-out one is never written.
TEST(PatternedWrite, AWrongBlockFailsItsVerificationAndAnotherFileIsNotWritten) {
    ScratchDir dir;
    Fixture fx(random_blocks(Family::write, 40), dir, "pattern-write");  // some blocks stay unwritten: zeros
    for (const int fault : {0, 1, 2, 3, 4, 5}) {
        SCOPED_TRACE(fault);
        const Strategy s = test::made_strategy("write.test", Family::write, [fault](const Job& j) {
            const sys::Fd out = sys::open(j.dst, O_WRONLY);
            for (const FaultyOp& o : faulty_operations(j, fault)) {
                const std::byte* bytes = j.records->at(o.what / j.ops.block).data();
                sys::pwrite_all(out, bytes, j.ops.block, static_cast<off_t>(o.where));
                j.sink->note_op(o.index, o.where);
            }
        });
        Sink sink;
        const Job j = fx.job(s, sink);
        s.run(j);
        EXPECT_EQ(fx.verify(j).ok, fault == 0 || fault == 4) << fx.verify(j).describe();
    }
    // Another file in the laid-out one's place: refused, left as it was.
    const Strategy& pwrite = *Registry::builtin().find("write.pwrite-ops");
    Sink sink;
    const Job j = fx.job(pwrite, sink);
    ::unlink(j.dst.c_str());
    write_input_file(j.dst, DataSpec{DataKind::zeros}, 10);
    EXPECT_THROW(pwrite.run(j), IoError);
    EXPECT_EQ(checksum_file(j.dst).size, 10u);
}

TEST(PatternedRead, BadSettingsAreRefusedWithTheValue) {
    const auto refused = [](const std::string& args, const std::string& mention) {
        const auto r = test::run_cli("run -s read.pread-ops " + args);
        EXPECT_EQ(r.status, 2) << args;
        EXPECT_NE(r.err.find(mention), std::string::npos) << args << ": " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    };
    refused("--pattern sideways --size 1M", "'sideways'");
    refused("--pattern strided:0 --size 1M", "strided:0");
    refused("--block 2M --size 1M", "block 2M");
    refused("--span 2M --size 1M", "span 2M");
    refused("--block 0 --size 1M", "--block '0'");
    refused("--ops 0 --size 1M", "--ops '0'");
    refused("--seed -1 --size 1M", "--seed '-1'");
    refused("--ops 2000000000 --block 1G --size 1G", "limit of one case");
    refused("--ops 1e3 --size 1M", "--ops '1e3'");
}

}  // namespace
}  // namespace iolab

namespace iolab {
namespace {

// A cache budget: the group runs in a memory cgroup where the machine has one, and the input's
// resident share stays near the budget; elsewhere every case is skipped, saying why.
TEST(CacheBudget, HoldsTheCacheToTheBudgetOrSaysWhyNot) {
    // Without a cgroup, root would lock most of the machine's memory away (the reserve, tested
    // on its own below): not while other tests run.
    std::string why;
    if (!sys::MemoryCgroup::make(64u << 20, &why) && ::geteuid() == 0) GTEST_SKIP() << why;
    PlanRequest req;
    req.strategies = {"read.pread-ops"};
    req.sizes = {128u << 20};
    req.access_patterns = {parse_pattern("random")};
    req.ops = 256;
    const auto plan = build_plan(req);
    RunOptions opts = test::three_iterations();
    opts.cache_budget = 8u << 20;
    ScratchDir dir;
    const auto results = run_group_forked(plan, opts, dir);
    ASSERT_EQ(results.size(), 1u);
    const CaseResult& r = results[0];
    if (r.status == Status::skipped) {
        EXPECT_EQ(r.reason.rfind("no page-cache budget here: ", 0), 0u) << r.reason;
        GTEST_SKIP() << r.reason;
    }
    ASSERT_EQ(r.status, Status::ok) << r.reason;
    EXPECT_TRUE(r.verified);
    ASSERT_FALSE(r.samples.empty());
    // Before each run the cgroup's limit is the budget above what the process holds (and 1 MiB):
    // about 9 MiB of the 128 MiB file stays cached, not all of it.
    for (const Sample& s : r.samples) {
        EXPECT_GE(s.resident_after, 0);
        EXPECT_LT(s.resident, 0.15);
        EXPECT_LT(s.resident_after, 0.15);
    }
}

}  // namespace
}  // namespace iolab

namespace iolab {
namespace {

// Two jobs at once, each on its own file: each times its own operations, and the case has both
// jobs' (run under TSan with the threaded tests).
TEST(PatternedJobs, EachJobTimesItsOwnOperations) {
    PlanRequest req;
    req.strategies = {"read.pread-ops", "write.pwrite-ops"};
    req.sizes = {1 << 20};
    req.access_patterns = {parse_pattern("random")};
    req.ops = 200;
    req.jobs = {2};
    const auto plan = build_plan(req);
    ASSERT_EQ(plan.size(), 2u);
    ScratchDir dir;
    for (const CaseResult& r : run_group(plan, test::three_iterations(), dir)) {
        SCOPED_TRACE(r.spec.label());
        ASSERT_EQ(r.status, Status::ok) << r.reason;
        EXPECT_TRUE(r.verified);
        ASSERT_TRUE(r.latency);
        EXPECT_EQ(r.latency->count(), 3u * 2u * 200u);
    }
}

}  // namespace
}  // namespace iolab

namespace iolab {
namespace {

// The reserve locks what it is asked to (as root), and frees it; elsewhere it says why not.
TEST(CacheBudget, AMemoryReserveLocksItsBytesOrSaysWhyNot) {
    const auto locked_kib = [] {
        std::ifstream in("/proc/self/status");
        for (std::string line; std::getline(in, line);)
            if (line.rfind("VmLck:", 0) == 0) return std::stoull(line.substr(6));
        return 0ull;
    };
    const unsigned long long before = locked_kib();
    std::string why;
    auto r = sys::MemoryReserve::lock(16u << 20, &why);
    if (!r) {
        EXPECT_FALSE(why.empty());
        GTEST_SKIP() << why;
    }
    EXPECT_GE(locked_kib(), before + (16u << 10));
    r.reset();
    EXPECT_EQ(locked_kib(), before);
    EXPECT_GT(sys::memory_available(), 0u);
}

}  // namespace
}  // namespace iolab
