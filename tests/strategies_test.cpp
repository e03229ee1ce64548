// Every strategy, over awkward sizes and buffer sizes, must produce exactly the reference.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "iolab/core/checksum.hpp"
#include "iolab/core/scratch.hpp"
#include "iolab/harness/fixture.hpp"
#include "iolab/strategies/common.hpp"
#include "iolab/strategies/strategy.hpp"
#include "iolab/sys/error.hpp"

namespace iolab {
namespace {

struct Point {
    std::string strategy;
    std::uint64_t size;
    std::size_t buffer;
    std::string pattern = {};  // patterned strategies
};

std::string point_name(const testing::TestParamInfo<Point>& info) {
    std::string n = info.param.strategy + "_size" + std::to_string(info.param.size) + "_buf" +
                    std::to_string(info.param.buffer) + (info.param.pattern.empty() ? "" : "_" + info.param.pattern);
    for (char& c : n)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return n;
}

std::vector<Point> all_points() {
    const std::vector<std::uint64_t> sizes = {0, 1, 4095, 4097, (1u << 20) + 13};
    const std::vector<std::size_t> buffers = {1, 7, 4096, 65536};
    std::vector<Point> out;
    for (const auto& s : Registry::builtin().all()) {
        if (s.worker()) continue;         // the JVM's methods: jvm_test.cpp, in one worker
        if (is_tree(s.family)) continue;  // trees of files: files_test.cpp
        for (auto size : sizes) {
            if (s.honours(kParamPattern)) {
                // Blocks of 4 KiB (of the whole file when smaller), queue 8: every pattern.
                if (size > 0)
                    for (const char* pattern : {"sequential", "random", "strided:12K"})
                        out.push_back({s.name, size, 65536, pattern});
            } else if (s.honours(kParamBuffer)) {
                for (auto b : buffers) out.push_back({s.name, size, b});
            } else {
                out.push_back({s.name, size, 65536});
            }
        }
    }
    return out;
}

Workload workload_for(const Strategy& s, std::uint64_t size, std::size_t buffer, const std::string& pattern = {}) {
    Workload w;
    w.family = s.family;
    w.size = size;
    w.buffer = buffer;
    if (!pattern.empty()) {
        w.patterned = true;
        w.pattern = parse_pattern(pattern);
        w.block = static_cast<std::size_t>(std::min<std::uint64_t>(size, 4096));
        w.ops = 3 * w.op_count() + 1;  // three passes and one more: the pattern starts again
    }
    if (writes_records(s.family)) {
        // Small sizes are one record of that size; the large one is 256 records of 4097 bytes
        // (1 MiB + 256: 1 MiB + 13 is prime, so no record size divides it).
        if (size > 65536) {
            w.records_of().record = 4097;
            w.records_of().count = 256;
        } else {
            w.records_of().record = size == 0 ? 1 : size;
            w.records_of().count = size == 0 ? 0 : 1;
        }
    }
    return w;
}

void PrintTo(const Point& p, std::ostream* os) {
    *os << p.strategy << " size " << p.size << " buffer " << p.buffer;
    if (!p.pattern.empty()) *os << " pattern " << p.pattern;
}

class EveryStrategy : public testing::TestWithParam<Point> {};

TEST_P(EveryStrategy, OutputMatchesReference) {
    const Point& p = GetParam();
    const Strategy* s = Registry::builtin().find(p.strategy);
    ASSERT_NE(s, nullptr);
    ScratchDir dir;
    if (auto why = s->skip_reason(dir.path())) GTEST_SKIP() << *why;
    Fixture fx(workload_for(*s, p.size, p.buffer, p.pattern), dir);
    Sink sink;
    // Reads are checked both ways: every byte hashed, and the sampled fingerprint that measured
    // iterations use.
    for (const VerifyMode mode : {VerifyMode::full, VerifyMode::sampled}) {
        if (s->family != Family::read && mode == VerifyMode::sampled) continue;
        const Job job = fx.job(*s, sink, mode);
        try {
            if (s->prepare) s->prepare(job);  // before the clock: a durable log laid out
            s->run(job);
        } catch (const CannotRun& e) {
            GTEST_SKIP() << e.what();
        }
        const Verdict v = fx.verify(job);
        EXPECT_TRUE(v.ok) << to_string(mode) << ": " << v.describe();
        if (s->external() && s->family == Family::read) {
            // Never counted as verified: dd and fio are held to the byte count they report, cat
            // to nothing.
            EXPECT_FALSE(v.checked && !v.count_only) << s->name;
            if (v.count_only) {
                EXPECT_EQ(v.actual_bytes, fx.workload().bytes());
            }
        } else {
            EXPECT_TRUE(v.checked) << s->name;
            EXPECT_FALSE(v.count_only) << s->name;
            EXPECT_EQ(v.actual_bytes, v.expected_bytes);
            // A patterned write leaves its whole file; every other case moves its bytes.
            EXPECT_EQ(v.expected_bytes, fx.workload().patterned && s->family == Family::write
                                            ? fx.workload().span_bytes()
                                            : fx.workload().bytes());
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Catalogue, EveryStrategy, testing::ValuesIn(all_points()), point_name);

TEST(Registry, NamesAreFamilyDotWhatAndUnique) {
    const auto& all = Registry::builtin().all();
    EXPECT_GE(all.size(), 35u);
    for (const auto& s : all) {
        // family.what, jvm.family-what (a method run in the JVM worker, and only those), or
        // files.what-how (a tree of files: the files-what family).
        const bool jvm = s.name.starts_with("jvm.");
        const std::string family(to_string(s.family));
        EXPECT_TRUE(s.name.starts_with(jvm                 ? "jvm." + family + "-"
                                       : is_tree(s.family) ? "files." + family.substr(6) + "-"
                                                           : family + "."))
            << s.name;
        EXPECT_EQ(jvm, s.worker()) << s.name;
        // One call per byte is what "byte-" means, and only there.
        EXPECT_EQ(s.byte_at_a_time(), s.name.find(jvm ? "-byte-" : ".byte-") != std::string::npos) << s.name;
        EXPECT_FALSE(s.description.empty()) << s.name;
        EXPECT_TRUE(static_cast<bool>(s.run)) << s.name;
    }
}

TEST(Registry, GlobAndSuggestions) {
    const auto& r = Registry::builtin();
    const auto copies = r.match("copy.*");
    ASSERT_FALSE(copies.empty());
    for (const auto* s : copies) EXPECT_EQ(s->family, Family::copy);
    EXPECT_EQ(r.match("read.chunk").size(), 1u);
    EXPECT_TRUE(r.match("nothing.*").empty());
    const auto near = r.closest("read.chunks");
    ASSERT_FALSE(near.empty());
    EXPECT_EQ(near[0], "read.chunk");
}

TEST(Registry, ReflinkIsSkippedWithAReasonOrWorks) {
    const Strategy* s = Registry::builtin().find("copy.reflink");
    ASSERT_NE(s, nullptr);
    ScratchDir dir;
    const auto why = s->skip_reason(dir.path());
    if (why) {
        EXPECT_NE(why->find("FICLONE"), std::string::npos) << *why;
    }
}

TEST(Strategies, DestinationThatExistsIsNeverOverwritten) {
    ScratchDir dir;
    for (const auto& s : Registry::builtin().all()) {
        // A removal's output is the tree it removes, a replacement's the files it replaces (laid out for them).
        if (s.family == Family::read || s.family == Family::files_read || s.family == Family::files_remove ||
            s.family == Family::replace || s.skip_reason(dir.path()))
            continue;
        Workload w = workload_for(s, 4097, 4096);
        if (is_tree(s.family)) {
            w.tree_of().files = 5;
            w.tree_of().folders = 2;
        }
        Fixture fx(w, dir, "clobber-" + s.name);
        Sink sink;
        const Job job = fx.job(s, sink);
        write_input_file(job.dst, DataSpec{DataKind::zeros}, 10);
        // Run as the harness runs it: its prepare (a durable log laid out with O_EXCL) first.
        EXPECT_ANY_THROW({
            if (s.prepare) s.prepare(job);
            s.run(job);
        }) << s.name;
        EXPECT_EQ(checksum_file(job.dst).size, 10u) << s.name << " touched an existing file";
    }
}

// A mapping strategy maps the file one window at a time, each unmapped before the next, so the
// pages it holds resident stay under a window whatever the file's size (with a whole 1 GiB file
// mapped, `iolab replicate` held 0.9 GB of mapped file). A file of two windows and a page: three
// maps, and the output still the reference.
TEST(Strategies, AMappingHoldsOneWindowOfTheFileAtATime) {
    ScratchDir dir;
    const std::uint64_t size = 2 * detail::kMapWindow + 4096;
    for (const char* name : {"read.mmap-chunks", "read.mmap-scan", "copy.mmap-write", "write.mmap"}) {
        const Strategy* s = Registry::builtin().find(name);
        ASSERT_NE(s, nullptr) << name;
        Workload w = workload_for(*s, size, 1 << 20);
        if (writes_records(s->family)) {
            w.records_of().record = 4096;
            w.records_of().count = size / 4096;
        }
        Fixture fx(w, dir, std::string("window-") + name);
        Sink sink;
        const Job job = fx.job(*s, sink, VerifyMode::sampled);
        const sys::Counters before = sys::thread_counters();
        s->run(job);
        const sys::Counters made = sys::thread_counters() - before;
        EXPECT_EQ(made.calls[static_cast<std::size_t>(sys::Call::mmap)], 3u) << name;
        EXPECT_EQ(made.calls[static_cast<std::size_t>(sys::Call::munmap)], 3u) << name;
        const Verdict v = fx.verify(job);
        EXPECT_TRUE(v.ok) << name << ": " << v.describe();
        EXPECT_EQ(v.actual_bytes, size) << name;
    }
}

}  // namespace
}  // namespace iolab
