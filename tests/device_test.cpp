// The simulated slow device (a bandwidth plus a cost per write request): its syntax, what it
// charges each write, and that buffer-sweep's model reproduces seed 002's published table.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>

#include "iolab/harness/fixture.hpp"
#include "iolab/harness/options.hpp"
#include "iolab/suite/findings.hpp"
#include "iolab/suite/suite.hpp"
#include "iolab/sys/throttle.hpp"
#include "support.hpp"

namespace iolab {
namespace {

TEST(ThrottleDevice, RateAndLatencyParse) {
    const Device d = parse_device("0.84MB/s+45ms");
    EXPECT_DOUBLE_EQ(d.bytes_per_s, 0.84 * 1024 * 1024);
    EXPECT_DOUBLE_EQ(d.latency_s, 0.045);
    EXPECT_DOUBLE_EQ(parse_device("1MiB/s").latency_s, 0);
    EXPECT_EQ(parse_device("1MiB/s+2ms").describe(), "1 MiB/s + 2.00 ms a write");
    EXPECT_DOUBLE_EQ(parse_device("1MiB/s+ 5ms ").latency_s, 0.005);
    EXPECT_EQ(parse_device("1.5B/s").describe(), "1.5 B/s");
    for (const char* bad :
         {"1MiB/s+", "1MiB/s+5", "+45ms", "1MiB/s+0ms", "0/s+1ms", "1MiB/s+1ms+1ms", "0.5/s", "1MiB/s+1e-300ms"})
        EXPECT_THROW(parse_device(bad), InputError) << bad;
}

// Device seconds the throttle charges for copying `size` bytes with copy.chunk and `buffer`.
double charged_copy(const Device& device, std::uint64_t size, std::size_t buffer) {
    ScratchDir dir;
    const Strategy& s = *Registry::builtin().find("copy.chunk");
    Workload w;
    w.family = Family::copy;
    w.size = size;
    w.buffer = buffer;
    Fixture fx(w, dir);
    Sink sink;
    const Job job = fx.job(s, sink);
    const double before = sys::throttle_charged_seconds();
    {
        const sys::ScopedThrottle slow(device.bytes_per_s, device.latency_s);
        s.run(job);
    }
    EXPECT_TRUE(fx.verify(job).ok);
    return sys::throttle_charged_seconds() - before;
}

TEST(ThrottleDevice, EveryWriteCostsItsBytesAndOneLatency) {
    const Device d{1 << 30, 0.002};  // 1 GiB/s + 2 ms: 10 writes of 4 KiB
    const double charged = charged_copy(d, 40960, 4096);
    EXPECT_NEAR(charged, d.seconds(40960, 10), 1e-9);
}

TEST(ThrottleDevice, TheWritesWaitAtLeastWhatTheModelCharges) {
    // A lower bound only (sleeps never end early): the device is synchronous, with no credit.
    const Device d{1 << 30, 0.005};  // 1 GiB/s + 5 ms: 4 writes of 16 KiB, at least 20 ms
    const auto t0 = std::chrono::steady_clock::now();
    const double charged = charged_copy(d, 65536, 16384);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_NEAR(charged, d.seconds(65536, 4), 1e-9);
    EXPECT_GE(took, charged);
}

TEST(ThrottleDevice, BufferSweepsModelReproducesSeed002) {
    // The slow groups of buffer-sweep: the model fitted to seed 002, scaled 16x faster.
    const Suite suite = builtin_suite("buffer-sweep");
    const auto slow =
        std::find_if(suite.groups.begin(), suite.groups.end(), [](const Group& g) { return g.id == "slow"; });
    ASSERT_NE(slow, suite.groups.end());
    const Device model = slow->options.throttle;
    ASSERT_TRUE(model.active());
    EXPECT_GT(model.latency_s, 0);
    // The seed's file (6.3 MB) through the model 4x faster again (every ratio is kept), so the
    // test takes half a second; the charges scaled back are the published seconds within 10%.
    constexpr double kScale = 16 * 4;
    const Device fast{model.bytes_per_s * 4, model.latency_s / 4};
    const std::uint64_t seed_file = 6'300'000;
    const double t16k = charged_copy(fast, seed_file, 16 * 1024) * kScale;
    const double t1m = charged_copy(fast, seed_file, 1024 * 1024) * kScale;
    EXPECT_NEAR(t16k, 25.15, 2.515) << "seed 002: streams, 16 KiB buffers, 25.15 s";
    EXPECT_NEAR(t1m, 7.79, 0.779) << "seed 002: streams, 1 MiB buffers, 7.79 s";

    // The suite's finding over the model's times (deterministic: every run is charged alike).
    const Finding* finding = nullptr;
    for (const auto& f : suite.findings)
        if (f.claim.find("buffer size matters") != std::string::npos) finding = &f;
    ASSERT_NE(finding, nullptr);
    std::vector<CaseResult> cases;
    for (const auto& [buffer, seconds] : {std::pair{1024 * 1024, t1m}, std::pair{16 * 1024, t16k}}) {
        CaseResult c;
        c.spec.strategy = Registry::builtin().find("copy.chunk");
        c.spec.group = "slow";
        c.spec.workload.family = Family::copy;
        c.spec.workload.size = seed_file;
        c.spec.workload.buffer = buffer;
        c.checked = Checked::content;
        c.verified = true;
        for (int i = 0; i < 6; ++i) {
            Sample smp;
            smp.wall_s = seconds;
            smp.bytes = seed_file;
            c.samples.push_back(smp);
        }
        finish(c, RunOptions{}, 1e-9);
        cases.push_back(c);
    }
    const FindingResult r = evaluate(*finding, cases);
    EXPECT_EQ(r.verdict, Verdict3::holds) << r.note;
    EXPECT_NEAR(r.ratio, 25.15 / 7.79, 0.1 * 25.15 / 7.79);
}

}  // namespace
}  // namespace iolab
