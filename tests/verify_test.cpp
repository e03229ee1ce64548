// Sampled verification, the group runner's interleaving and its stopping rule.
#include <gtest/gtest.h>

#include <fcntl.h>

#include <algorithm>
#include <functional>
#include <set>
#include <vector>

#include "iolab/core/aligned.hpp"
#include "iolab/core/scratch.hpp"
#include "iolab/harness/fixture.hpp"
#include "iolab/harness/runner.hpp"
#include "iolab/sys/io.hpp"
#include "support.hpp"

namespace iolab {
namespace {

std::vector<std::byte> generated(std::size_t n) {
    std::vector<std::byte> v(n);
    fill(DataSpec{}, 0, v);
    return v;
}

std::uint64_t fingerprint_in_chunks(const std::vector<std::byte>& data, std::size_t chunk) {
    Fingerprint f;
    for (std::size_t off = 0; off < data.size(); off += chunk)
        f.update(data.data() + off, std::min(chunk, data.size() - off));
    return f.digest();
}

TEST(Fingerprint, SameForAnyChunking) {
    const auto data = generated((1 << 20) + 13);
    const std::uint64_t whole = fingerprint_in_chunks(data, data.size());
    for (std::size_t chunk : {1u, 3u, 7u, 4095u, 4096u, 4097u, 65536u})
        EXPECT_EQ(fingerprint_in_chunks(data, chunk), whole) << chunk;
}

TEST(Fingerprint, CatchesSkipsRepeatsReordersAndTruncation) {
    const auto data = generated(64 * 4096);
    const std::uint64_t good = fingerprint_in_chunks(data, 4096);
    const auto page = [&](std::size_t i) {
        return std::vector<std::byte>(data.begin() + i * 4096, data.begin() + (i + 1) * 4096);
    };
    std::vector<std::vector<std::byte>> streams;
    // A page skipped (the stream is a page short), a page read twice in place of the next,
    // two pages swapped, the last byte missing, one byte changed in a sampled word.
    std::vector<std::byte> skip, twice, swapped;
    for (std::size_t i = 0; i < 64; ++i) {
        const auto p = page(i);
        if (i != 10) skip.insert(skip.end(), p.begin(), p.end());
        const auto t = page(i == 11 ? 10 : i);
        twice.insert(twice.end(), t.begin(), t.end());
        const auto s = page(i == 20 ? 21 : i == 21 ? 20 : i);
        swapped.insert(swapped.end(), s.begin(), s.end());
    }
    streams = {skip, twice, swapped, std::vector<std::byte>(data.begin(), data.end() - 1)};
    for (std::size_t k = 0; k < streams.size(); ++k) EXPECT_NE(fingerprint_in_chunks(streams[k], 4096), good) << k;
}

// A read strategy for the tests below.
Strategy test_reader(const char* name, std::function<void(const Job&)> run) {
    Strategy s;
    s.name = name;
    s.family = Family::read;
    s.description = "test";
    s.run = std::move(run);
    return s;
}

// A reader that breaks on chosen runs: it skips a page, reads one twice, or stops short.
enum class Break { skip_page, repeat_page, stop_short };
int g_run = 0;
int g_break_on = 0;
Break g_how = Break::skip_page;

void breaking_read(const Job& j) {
    ++g_run;
    const sys::Fd in = sys::open(j.src, O_RDONLY);
    const std::uint64_t size = sys::file_size(in);
    AlignedBuffer buf(4096, 4096);
    const bool broken = g_run == g_break_on;
    for (std::uint64_t off = 0; off < size; off += 4096) {
        std::uint64_t from = off;
        if (broken && off == 8 * 4096) {
            if (g_how == Break::stop_short) break;
            if (g_how == Break::skip_page) continue;
            from = off - 4096;  // repeat_page: the previous page again in place of this one
        }
        const std::size_t n =
            sys::pread_some(in, buf.data(), std::min<std::uint64_t>(4096, size - from), static_cast<off_t>(from));
        j.sink->consume(buf.data(), n);
    }
}

Strategy breaking_reader() { return test_reader("read.breaking", breaking_read); }

CaseSpec read_case(const Strategy& s, std::uint64_t size) {
    CaseSpec c;
    c.strategy = &s;
    c.workload.family = Family::read;
    c.workload.size = size;
    return c;
}

// Every measured iteration is checked under --verify sampled: whichever one goes wrong fails
// the case, whatever the fault.
TEST(SampledVerification, ABrokenReaderFailsInEveryMeasuredIteration) {
    ScratchDir dir;
    const Strategy s = breaking_reader();
    RunOptions opts;
    opts.warmup = Amount{1, 0};
    opts.iterations = Amount{5, 0};
    ASSERT_EQ(opts.verify, VerifyMode::sampled);
    for (Break how : {Break::skip_page, Break::repeat_page, Break::stop_short})
        for (int bad = 2; bad <= 6; ++bad) {  // run 1 is the warm-up (full hash)
            g_run = 0;
            g_break_on = bad;
            g_how = how;
            const CaseResult r = run_case(read_case(s, 64 * 4096 + 100), opts, dir);
            EXPECT_EQ(r.status, Status::failed) << "broken at run " << bad;
            EXPECT_NE(r.reason.find("sampled fingerprint"), std::string::npos) << r.reason;
            EXPECT_FALSE(r.verified);
        }
    // And a correct reader passes, in both modes.
    g_break_on = 0;
    for (VerifyMode mode : {VerifyMode::sampled, VerifyMode::full}) {
        opts.verify = mode;
        const CaseResult r = run_case(read_case(s, 64 * 4096 + 100), opts, dir);
        EXPECT_EQ(r.status, Status::ok) << r.reason;
        EXPECT_TRUE(r.verified);
    }
}

// Byte-at-a-time readers: two bytes swapped, or one dropped, fail a measured iteration.
TEST(SampledVerification, AByteReaderThatSwapsOrDropsABytesFails) {
    ScratchDir dir;
    Strategy s = test_reader("read.byte-swapping", [](const Job& j) {
        ++g_run;
        const sys::Fd in = sys::open(j.src, O_RDONLY);
        std::vector<unsigned char> all(sys::file_size(in));
        sys::read_full(in, all.data(), all.size());
        const bool broken = g_run == g_break_on;
        if (broken && g_how == Break::repeat_page) std::swap(all[1000], all[1001]);
        if (broken && g_how == Break::skip_page) all.erase(all.begin() + 5000);
        std::size_t i = 0;
        ByteStager(*j.sink).drain([&] { return i < all.size() ? int{all[i++]} : -1; });
    });
    s.flags |= kByteAtATime;
    RunOptions opts;
    opts.iterations = Amount{4, 0};
    for (Break how : {Break::repeat_page, Break::skip_page}) {
        g_run = 0;
        g_break_on = 3;
        g_how = how;
        const CaseResult r = run_case(read_case(s, 3 * 4096), opts, dir);
        EXPECT_EQ(r.status, Status::failed);
        EXPECT_NE(r.reason.find("sampled fingerprint"), std::string::npos) << r.reason;
    }
    g_break_on = 0;
    EXPECT_EQ(run_case(read_case(s, 3 * 4096), opts, dir).status, Status::ok);
}

// The warm-up verifies every byte: a fault that keeps the sampled words intact (a byte changed
// between them) is caught there.
TEST(SampledVerification, TheFirstRunHashesEveryByte) {
    ScratchDir dir;
    const Strategy s = test_reader("read.flipping", [](const Job& j) {
        const sys::Fd in = sys::open(j.src, O_RDONLY);
        std::vector<std::byte> all(sys::file_size(in));
        sys::read_full(in, all.data(), all.size());
        // Page 0's sampled word is its bytes 0-7: its last byte is one no fingerprint sees.
        all[4095] ^= std::byte{1};
        j.sink->consume(all.data(), all.size());
    });
    RunOptions opts;
    opts.iterations = Amount{5, 0};
    const CaseResult r = run_case(read_case(s, 8 * 4096), opts, dir);
    EXPECT_EQ(r.status, Status::failed);
    EXPECT_NE(r.reason.find("checksum"), std::string::npos) << r.reason;
}

// Cases of a group are measured in rounds: each round runs every unfinished case once, in a
// seeded random order.
std::vector<int> g_order;

template <int Id>
void tagged_read(const Job& j) {
    g_order.push_back(Id);
    const sys::Fd in = sys::open(j.src, O_RDONLY);
    std::vector<std::byte> all(sys::file_size(in));
    sys::read_full(in, all.data(), all.size());
    j.sink->consume(all.data(), all.size());
}

TEST(Interleaving, RoundsRunEveryCaseOnceInASeededOrder) {
    ScratchDir dir;
    std::vector<Strategy> s(3);
    void (*runs[3])(const Job&) = {tagged_read<0>, tagged_read<1>, tagged_read<2>};
    for (int i = 0; i < 3; ++i) {
        s[i].name = "read.tag" + std::to_string(i);
        s[i].family = Family::read;
        s[i].description = "test";
        s[i].run = runs[i];
    }
    std::vector<CaseSpec> specs;
    for (auto& st : s) specs.push_back(read_case(st, 3 * 4096));
    RunOptions opts;
    opts.warmup = Amount{1, 0};
    opts.iterations = Amount{6, 0};
    const auto measured = [&] {
        g_order.clear();
        const auto results = run_group(specs, opts, dir);
        for (const auto& r : results) EXPECT_EQ(r.samples.size(), 6u) << r.reason;
        // The warm-ups come first, case by case.
        EXPECT_EQ(std::vector<int>(g_order.begin(), g_order.begin() + 3), (std::vector<int>{0, 1, 2}));
        return std::vector<int>(g_order.begin() + 3, g_order.end());
    };
    const auto order = measured();
    ASSERT_EQ(order.size(), 18u);
    std::set<std::vector<int>> distinct;
    for (std::size_t round = 0; round < 6; ++round) {
        std::vector<int> r(order.begin() + 3 * round, order.begin() + 3 * round + 3);
        distinct.insert(r);
        std::sort(r.begin(), r.end());
        EXPECT_EQ(r, (std::vector<int>{0, 1, 2})) << "round " << round;
    }
    EXPECT_GT(distinct.size(), 1u) << "the order never changes from round to round";
    EXPECT_EQ(measured(), order) << "the same seed gives the same order";
    opts.order_seed += 1;
    EXPECT_NE(measured(), order) << "another seed gives another order";
}

// The stopping rule, on a fake clock: steady times stop at the minimum count; times that never
// settle stop when the budget is spent.
using test::FakeClock;
FakeClock* g_clock = nullptr;
std::vector<std::uint64_t> g_steps;
std::size_t g_step = 0;

TEST(Adaptive, StopsAtThePrecisionTargetOrTheBudget) {
    ScratchDir dir;
    FakeClock clock;
    g_clock = &clock;
    const Strategy s = test_reader("read.timed", [](const Job&) { g_clock->t += g_steps[g_step++ % g_steps.size()]; });
    RunOptions opts;
    ASSERT_TRUE(opts.iterations.adaptive);
    opts.case_budget_s = 10;
    opts.race = false;        // --precision or --budget given: every case to its own end
    g_steps = {100'000'000};  // 100 ms, every time: precise at once
    g_step = 0;
    CaseResult r = run_case(read_case(s, 0), opts, dir, clock);
    EXPECT_EQ(r.samples.size(), opts.min_iterations);
    EXPECT_EQ(r.stopped, StopReason::precise);
    EXPECT_TRUE(r.stable);
    g_steps = {100'000'000, 200'000'000};  // never within 3 %: runs until 10 s are spent
    g_step = 0;
    r = run_case(read_case(s, 0), opts, dir, clock);
    EXPECT_EQ(r.samples.size(), 67u);  // 66 runs of 150 ms on average reach 9.9 s; the 67th passes 10 s
    EXPECT_EQ(r.stopped, StopReason::case_budget);
    EXPECT_FALSE(r.stable);  // ±33 % after its budget: unstable
}

}  // namespace
}  // namespace iolab
