// The advanced strategies: queue depths and O_DIRECT for io_uring, the pipelined copy's
// shutdown on error, compression chains in every order, the timeline, the throttle, and
// copy.auto / iolab::copy_file.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "iolab/chain/chain.hpp"
#include "iolab/core/copy_file.hpp"
#include "iolab/core/scratch.hpp"
#include "iolab/core/timeline.hpp"
#include "iolab/harness/fixture.hpp"
#include "iolab/strategies/direct.hpp"
#include "iolab/strategies/strategy.hpp"
#include "iolab/sys/error.hpp"
#include "iolab/sys/fault.hpp"
#include "iolab/sys/throttle.hpp"
#include "support.hpp"

namespace iolab {
namespace {

const Strategy& strategy(const char* name) {
    const Strategy* s = Registry::builtin().find(name);
    if (!s) throw std::logic_error(std::string("no strategy ") + name);
    return *s;
}

// Runs s on a workload and returns whether the output verified.
Verdict run_verified(const Strategy& s, Workload w, const ScratchDir& dir, bool direct = false,
                     Timeline* tl = nullptr) {
    w.family = s.family;
    Fixture fx(w, dir);
    Sink sink;
    Job job = fx.job(s, sink);
    job.direct = direct;
    job.timeline = tl;
    s.run(job);
    return fx.verify(job);
}

Workload sized(Family family, std::uint64_t size, std::size_t buffer, unsigned queue) {
    Workload w;
    w.family = family;
    w.size = size;
    w.buffer = buffer;
    w.queue = queue;
    // Writes: `size` bytes as records of 1000 (and one record for small sizes).
    if (writes_records(family)) {
        w.records_of().record = size >= 1000 ? 1000 : std::max<std::uint64_t>(size, 1);
        w.records_of().count = size >= 1000 ? size / 1000 : (size ? 1 : 0);
    }
    return w;
}

TEST(QueueDepths, UringAndPipelinedOverOddSizes) {
    ScratchDir dir;
    for (const char* name : {"read.io-uring", "write.io-uring", "copy.io-uring", "copy.pipelined-threads"}) {
        const Strategy& s = strategy(name);
        if (auto why = s.skip_reason(dir.path())) {
            std::cout << name << " skipped: " << *why << "\n";
            continue;
        }
        for (std::uint64_t size : {0ull, 1ull, 4095ull, 4097ull, (1ull << 20) + 13})
            for (std::size_t buffer : {std::size_t{512}, std::size_t{4096}, std::size_t{65536}})
                for (unsigned q : {1u, 3u, 32u}) {
                    const Verdict v = run_verified(s, sized(s.family, size, buffer, q), dir);
                    EXPECT_TRUE(v.ok) << name << " size " << size << " buffer " << buffer << " queue " << q << ": "
                                      << v.describe();
                }
    }
}

TEST(Direct, OddSizesWithODirect) {
    ScratchDir dir;
    if (auto why = direct_unavailable(dir.path())) GTEST_SKIP() << *why;
    for (const char* name : {"read.direct", "write.direct", "read.io-uring", "write.io-uring", "copy.io-uring"}) {
        const Strategy& s = strategy(name);
        if (s.skip_reason(dir.path())) continue;
        for (std::uint64_t size : {0ull, 1ull, 4095ull, 4097ull, (1ull << 20) + 13})
            for (std::size_t buffer : {std::size_t{1}, std::size_t{4096}, std::size_t{65536}}) {
                const Verdict v = run_verified(s, sized(s.family, size, buffer, 4), dir, true);
                EXPECT_TRUE(v.ok) << name << " size " << size << " buffer " << buffer << ": " << v.describe();
            }
    }
}

TEST(Direct, ShortReadsAndWritesRealign) {
    ScratchDir dir;
    if (auto why = direct_unavailable(dir.path())) GTEST_SKIP() << *why;
    for (const char* name : {"read.direct", "write.direct"}) {
        for (std::uint64_t at : {1ull, 2ull, 3ull}) {
            const Strategy& s = strategy(name);
            Workload w = sized(s.family, 100000, 16384, 1);
            Fixture fx(w, dir);
            Sink sink;
            const Job job = fx.job(s, sink);
            {
                // 4 short counts in a row: the position ends up unaligned and must be realigned.
                sys::ScopedFault f(sys::fault_at(sys::data_calls_mask(), at, 4, sys::Fault::short_count));
                s.run(job);
            }
            EXPECT_TRUE(fx.verify(job).ok) << name << " at " << at;
        }
    }
}

TEST(Pipelined, EitherSideFailingStopsBothWithoutDeadlock) {
    ScratchDir dir;
    const Strategy& s = strategy("copy.pipelined-threads");
    for (auto mask : {sys::read_calls_mask(), sys::write_calls_mask()})
        for (std::uint64_t at : {1ull, 5ull, 40ull}) {
            Workload w = sized(Family::copy, 4u << 20, 65536, 2);
            Fixture fx(w, dir);
            Sink sink;
            const Job job = fx.job(s, sink);
            const auto t0 = std::chrono::steady_clock::now();
            sys::ScopedFault f(sys::fault_at(mask, at, 1, sys::Fault::eio));
            try {
                s.run(job);
                ADD_FAILURE() << "no error reported";
            } catch (const IoError& e) {
                EXPECT_EQ(e.code(), EIO);
            }
            EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(20));
        }
}

TEST(Pipelined, TimelineIsAValidChromeTraceWithMatchedEvents) {
    ScratchDir dir;
    Timeline tl;
    const Verdict v =
        run_verified(strategy("copy.pipelined-threads"), sized(Family::copy, 2u << 20, 65536, 4), dir, false, &tl);
    ASSERT_TRUE(v.ok);
    const auto j = nlohmann::json::parse(chrome_trace_json({&tl}, {"copy.pipelined-threads"}));
    ASSERT_TRUE(j.at("traceEvents").is_array());
    std::map<std::string, int> open;
    int begins = 0;
    for (const auto& e : j["traceEvents"]) {
        const std::string ph = e.at("ph");
        if (ph == "M") continue;
        ASSERT_TRUE(e.contains("ts") && e.contains("pid") && e.contains("tid") && e.contains("name"));
        const std::string id = e.at("id");
        if (ph == "b") {
            ++open[id];
            ++begins;
        } else {
            ASSERT_EQ(ph, "e");
            ASSERT_GT(open[id], 0) << "end without begin: " << id;
            --open[id];
        }
    }
    for (const auto& [id, n] : open) EXPECT_EQ(n, 0) << "begin without end: " << id;
    // 32 blocks read plus the end-of-file read, 32 written.
    EXPECT_EQ(begins, 33 + 32);
    const auto o = tl.overlap();
    EXPECT_GT(o.span_s, 0);
    EXPECT_GE(o.read_busy_s, o.both_s);
    EXPECT_GE(o.write_busy_s, o.both_s);
}

TEST(Timeline, OverlapOfKnownIntervals) {
    Timeline tl;
    EXPECT_EQ(tl.overlap().span_s, 0);
    EXPECT_EQ(tl.summary(), "no events");
    using K = Timeline::Kind;
    const std::uint64_t s = 1'000'000'000;  // times in ns: reads [0,10] and [20,30] s, writes [5,25] s
    tl.add(0, {K::read, true, 1, 0 * s, 0});
    tl.add(0, {K::read, false, 1, 10 * s, 0});
    tl.add(0, {K::read, true, 2, 20 * s, 0});
    tl.add(0, {K::read, false, 2, 30 * s, 0});
    tl.add(1, {K::write, true, 1, 5 * s, 0});
    tl.add(1, {K::write, false, 1, 25 * s, 0});
    const auto o = tl.overlap();
    EXPECT_DOUBLE_EQ(o.span_s, 30);
    EXPECT_DOUBLE_EQ(o.read_busy_s, 20);
    EXPECT_DOUBLE_EQ(o.write_busy_s, 20);
    EXPECT_DOUBLE_EQ(o.both_s, 10);
    EXPECT_NEAR(o.fraction(), 1.0 / 3, 1e-12);
}

TEST(Chain, EveryOrderRoundTrips) {
    ScratchDir dir;
    const Strategy& s = strategy("write.chain");
    const std::vector<std::string> chains = {"file",
                                             "buffer>file",
                                             "deflate>file",
                                             "deflate>buffer>file",
                                             "buffer>deflate>file",
                                             "buffer:64K>deflate:1>file",
                                             "zstd:3>buffer>file",
                                             "buffer>zstd>file",
                                             "lz4>file",
                                             "buffer:1K>lz4:9>file",
                                             "deflate>zstd>lz4>file",
                                             "lz4>buffer:7>zstd:19>buffer>deflate:9>file"};
    for (const auto& chain : chains)
        for (bool bytes : {false, true}) {
            Workload w = sized(Family::write, 300000, 4096, 1);
            w.data = parse_data_spec("text");
            w.records_of().chain = chain;
            w.records_of().feed_bytes = bytes;
            const Verdict v = run_verified(s, w, dir);
            EXPECT_TRUE(v.ok) << chain << (bytes ? " fed bytes" : " fed records") << ": " << v.describe();
        }
}

TEST(Chain, CompressorsReallyCompress) {
    ScratchDir dir;
    for (const char* chain : {"deflate>file", "zstd>file", "lz4>file"}) {
        Workload w = sized(Family::write, 1u << 20, 4096, 1);
        w.data = parse_data_spec("compressible:4");
        w.records_of().chain = chain;
        Fixture fx(w, dir);
        Sink sink;
        const Job job = fx.job(strategy("write.chain"), sink);
        strategy("write.chain").run(job);
        struct stat st {};
        ASSERT_EQ(::stat(job.dst.c_str(), &st), 0);
        EXPECT_LT(st.st_size, (1 << 20) / 3) << chain;
        EXPECT_TRUE(fx.verify(job).ok);
    }
}

TEST(Chain, BadChainsAreOneLineNamingTheProblem) {
    const std::vector<std::pair<const char*, const char*>> bad = {
        {"gzip>file", "'gzip'"},       {"deflate:12>file", "'12'"},
        {"zstd:0>file", "'0'"},        {"buffer:0>file", "1 byte"},
        {"buffer:big>file", "'big'"},  {"deflate", "end in 'file'"},
        {"file>deflate>file", "last"}, {"", "'"}};
    for (const auto& [text, mention] : bad) {
        try {
            parse_chain(text);
            ADD_FAILURE() << "accepted " << text;
        } catch (const std::invalid_argument& e) {
            const std::string msg = e.what();
            EXPECT_NE(msg.find(mention), std::string::npos) << msg;
            EXPECT_EQ(msg.find('\n'), std::string::npos);
            EXPECT_NE(msg.find(std::string("'") + text + "'"), std::string::npos) << msg;
        }
    }
    EXPECT_EQ(describe(parse_chain("buffer>deflate>file")), "buffer:8K>deflate:6>file");
}

TEST(Throttle, LimitsTheWriteRate) {
    ScratchDir dir;
    const Strategy& s = strategy("copy.chunk");
    Workload w = sized(Family::copy, 512 * 1024, 16384, 1);
    Fixture fx(w, dir);
    Sink sink;
    const Job job = fx.job(s, sink);
    const auto t0 = std::chrono::steady_clock::now();
    {
        sys::ScopedThrottle slow(2.0 * 1024 * 1024);  // 512 KiB at 2 MiB/s: at least ~0.24 s
        s.run(job);
    }
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_GT(took, 0.2);
    EXPECT_TRUE(fx.verify(job).ok);
}

// ---- copy.auto and iolab::copy_file --------------------------------------------------------

std::string make_file(const ScratchDir& d, const std::string& name, std::uint64_t size) {
    write_input_file(d.file(name), DataSpec{}, size);
    return d.file(name);
}

TEST(CopyFile, CopiesAndRefusesToClobberOrCopyOntoItself) {
    ScratchDir d;
    const std::string src = make_file(d, "src", 300001);
    const CopyResult r = copy_file(src, d.file("dst"));
    EXPECT_EQ(r.bytes, 300001u);
    EXPECT_EQ(checksum_file(d.file("dst")).checksum, checksum_file(src).checksum);
    // An existing destination is left alone unless overwrite.
    write_input_file(d.file("other"), DataSpec{DataKind::zeros}, 10);
    EXPECT_THROW(copy_file(src, d.file("other")), IoError);
    EXPECT_EQ(checksum_file(d.file("other")).size, 10u);
    CopyOptions o;
    o.overwrite = true;
    copy_file(src, d.file("other"), o);
    EXPECT_EQ(checksum_file(d.file("other")).checksum, checksum_file(src).checksum);
    // Onto itself, even by another name, even with overwrite.
    ASSERT_EQ(::link(src.c_str(), d.file("hardlink").c_str()), 0);
    EXPECT_THROW(copy_file(src, src, o), IoError);
    EXPECT_THROW(copy_file(src, d.file("hardlink"), o), IoError);
    EXPECT_EQ(checksum_file(src).size, 300001u);
}

TEST(CopyFile, FallsBackOnEveryNotSupportedErrno) {
    ScratchDir d;
    const std::string src = make_file(d, "src", 1u << 20);
    const std::uint64_t want = checksum_file(src).checksum;
    int n = 0;
    for (int err : {EXDEV, EINVAL, ENOSYS, EOPNOTSUPP, EPERM, ETXTBSY}) {
        // copy_file_range refused: sendfile takes over.
        std::string dst = d.file("a" + std::to_string(n++));
        CopyResult r;
        {
            sys::ScopedFault f(
                sys::fault_at(sys::call_bit(sys::Call::copy_file_range), 1, 1000, sys::Fault::errno_value, err));
            r = copy_file(src, dst);
        }
        EXPECT_EQ(checksum_file(dst).checksum, want) << std::strerror(err);
        ASSERT_FALSE(r.methods.empty());
        EXPECT_EQ(r.methods.front(), CopyMethod::sendfile) << std::strerror(err);
        // Both offloads refused: the read/write loop.
        dst = d.file("b" + std::to_string(n++));
        {
            sys::ScopedFault f(sys::fault_at(sys::calls_mask({sys::Call::copy_file_range, sys::Call::sendfile}), 1,
                                             1000, sys::Fault::errno_value, err));
            r = copy_file(src, dst);
        }
        EXPECT_EQ(checksum_file(dst).checksum, want) << std::strerror(err);
        EXPECT_EQ(r.methods, std::vector<CopyMethod>{CopyMethod::read_write}) << std::strerror(err);
    }
}

TEST(CopyFile, ResumesWhereTheOffloadStopped) {
    ScratchDir d;
    const std::string src = make_file(d, "src", 3u << 20);
    // copy_file_range copies the first 1 MiB chunk, then is refused: sendfile goes on from there.
    sys::FaultPlan plan =
        sys::fault_at(sys::call_bit(sys::Call::copy_file_range), 2, 1000, sys::Fault::errno_value, EXDEV);
    CopyOptions o;
    o.chunk = 1u << 20;
    CopyResult r;
    {
        sys::ScopedFault f(plan);
        r = copy_file(src, d.file("dst"), o);
    }
    EXPECT_EQ(checksum_file(d.file("dst")).checksum, checksum_file(src).checksum);
    EXPECT_EQ(r.bytes, 3u << 20);
    ASSERT_EQ(r.methods.size(), 2u);
    EXPECT_EQ(r.methods[0], CopyMethod::copy_file_range);
    EXPECT_EQ(r.methods[1], CopyMethod::sendfile);
}

TEST(CopyFile, HardErrorsRemoveThePartialDestination) {
    ScratchDir d;
    const std::string src = make_file(d, "src", 1u << 20);
    {
        sys::ScopedFault f(sys::fault_at(sys::call_bit(sys::Call::copy_file_range), 1, 1, sys::Fault::eio));
        EXPECT_THROW(copy_file(src, d.file("dst")), IoError);
    }
    struct stat st {};
    EXPECT_NE(::stat(d.file("dst").c_str(), &st), 0) << "partial destination left behind";
}

TEST(CopyFile, KeepsHoles) {
    ScratchDir d;
    const std::string src = d.file("sparse");
    {
        const sys::Fd fd = sys::open(src, O_WRONLY | O_CREAT | O_EXCL);
        std::vector<std::byte> block(1 << 20, std::byte{0x5a});
        sys::pwrite_all(fd, block.data(), block.size(), 0);
        sys::pwrite_all(fd, block.data(), block.size(), 40 << 20);
        sys::ftruncate(fd, 64 << 20);  // a trailing hole too
    }
    struct stat s {
    }, t{};
    ASSERT_EQ(::stat(src.c_str(), &s), 0);
    if (s.st_blocks * 512 > (8 << 20)) GTEST_SKIP() << "this filesystem does not make sparse files";
    const CopyResult r = copy_file(src, d.file("copy"));
    ASSERT_EQ(::stat(d.file("copy").c_str(), &t), 0);
    EXPECT_EQ(t.st_size, s.st_size);
    EXPECT_LE(t.st_blocks, s.st_blocks + 64) << "holes were filled";
    EXPECT_EQ(checksum_file(d.file("copy")).checksum, checksum_file(src).checksum);
    EXPECT_EQ(r.bytes, 2u << 20);
}

TEST(CopyFile, ASourceThatGrowsIsCopiedToItsEnd) {
    ScratchDir d;
    const std::string src = make_file(d, "src", 1u << 20);
    sys::FaultPlan plan = sys::fault_at(sys::call_bit(sys::Call::copy_file_range), 1, 1, sys::Fault::hook);
    plan.hook = [&] {
        // Another writer appends 1 MiB while the copy is under way.
        const sys::Fd fd = sys::open(src, O_WRONLY | O_APPEND);
        std::vector<std::byte> more(1 << 20, std::byte{7});
        sys::write_all(fd, more.data(), more.size());
    };
    {
        sys::ScopedFault f(plan);
        copy_file(src, d.file("dst"));
    }
    EXPECT_EQ(checksum_file(d.file("dst")).size, 2u << 20);
    EXPECT_EQ(checksum_file(d.file("dst")).checksum, checksum_file(src).checksum);
}

}  // namespace
}  // namespace iolab
