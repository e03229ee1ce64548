// The replace family: each method leaves every file with its new content whole and nothing else in
// the folder, and the methods that claim to survive a crash made the syncs they need.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "iolab/core/interrupt.hpp"
#include "iolab/core/scratch.hpp"
#include "iolab/harness/fixture.hpp"
#include "iolab/harness/measure.hpp"
#include "iolab/harness/measure_steps.hpp"
#include "iolab/harness/plan.hpp"
#include "iolab/harness/runner.hpp"
#include "iolab/report/analysis/answer.hpp"
#include "iolab/report/table.hpp"
#include "iolab/strategies/strategy.hpp"
#include "iolab/sys/io.hpp"
#include "iolab/sys/stop.hpp"
#include "run_each.hpp"
#include "support.hpp"

namespace iolab {
namespace {

CaseSpec replace_case(const Strategy& s, std::uint64_t count, std::uint64_t file_size) {
    CaseSpec c;
    c.strategy = &s;
    c.workload.family = Family::replace;
    c.workload.set_of().count = count;
    c.workload.set_of().file_size = file_size;
    return c;
}
// The same of a built-in method, by name.
CaseSpec replace_case(const char* name, std::uint64_t count, std::uint64_t file_size) {
    const Strategy* s = Registry::builtin().find(name);
    if (s == nullptr) throw std::runtime_error(std::string("no strategy ") + name);
    return replace_case(*s, count, file_size);
}

// A method of our own: `run` does the replacement of file i in the job's folder.
Strategy method(std::string name, unsigned syncs, void (*one)(const sys::Fd& dir, std::uint64_t i, const Job& j)) {
    Strategy s;
    s.name = "replace.test-" + name;
    s.family = Family::replace;
    s.params = kParamCount | kParamFileSize;
    s.syncs = syncs;
    s.run = [one](const Job& j) {
        const sys::Fd dir = sys::open(j.dst, O_RDONLY | O_DIRECTORY);
        for (std::uint64_t i = 0; i < j.set_of().count; ++i) one(dir, i, j);
    };
    return s;
}

void write_at(const sys::Fd& dir, const std::string& name, std::span<const std::byte> b, bool sync) {
    sys::Fd f = sys::openat(dir, name.c_str(), O_WRONLY | O_CREAT | O_TRUNC);
    sys::write_all(f, b.data(), b.size());
    if (sync) sys::fsync(f);
}

void renamed(const sys::Fd& dir, std::uint64_t i, const std::string& tmp) {
    ASSERT_EQ(::renameat(dir.get(), tmp.c_str(), dir.get(), fmt::format("f{}", i).c_str()), 0);
}

TEST(Replace, EveryMethodLeavesEveryFileNewAndWhole) {
    const auto make = [](const Strategy& s) { return replace_case(s, 12, 5000); };
    const int ran = test::run_each("replace.*", make, [](const Strategy& s, const CaseResult& r) {
        ASSERT_EQ(r.status, Status::ok) << r.reason;
        EXPECT_TRUE(r.verified);
        ASSERT_TRUE(r.latency);  // each replacement timed
        EXPECT_EQ(r.latency->count(), 12 * r.samples.size());
        EXPECT_GT(r.ops_per_s, 0);
        // The syncs each claims, counted: 12 replacements of two (one in place, one without the folder's).
        EXPECT_EQ(syncs_per_job(s, r.spec.workload), 12u * s.syncs);
    });
    EXPECT_GE(ran, 5);  // O_TMPFILE and RENAME_EXCHANGE depend on the filesystem
    EXPECT_EQ(Registry::builtin().find("replace.rename-fsync")->syncs, 2u);
    EXPECT_EQ(Registry::builtin().find("replace.unsafe-rename")->syncs, 0u);
}

// Each way of getting it wrong is caught, and says how.
TEST(Replace, AMethodThatGetsItWrongFailsSayingHow) {
    ScratchDir dir;
    const RunOptions opts = test::three_iterations();
    const auto fails = [&](const Strategy& s, const std::string& says) {
        const CaseResult r = run_case(replace_case(s, 6, 100), opts, dir);
        EXPECT_EQ(r.status, Status::failed) << s.name;
        EXPECT_NE(r.reason.find(says), std::string::npos) << s.name << ": " << r.reason;
    };
    // A temporary left behind.
    fails(method("leaves-temporary", 0,
                 [](const sys::Fd& d, std::uint64_t i, const Job& j) {
                     write_at(d, fmt::format("f{}", i), j.records->at(i), false);
                     if (i == 3) write_at(d, "f3.tmp", j.records->at(i), false);
                 }),
          "'f3.tmp' is left in the folder");
    // A file skipped: it keeps its old content.
    fails(method("skips-one", 0,
                 [](const sys::Fd& d, std::uint64_t i, const Job& j) {
                     if (i != 4) write_at(d, fmt::format("f{}", i), j.records->at(i), false);
                 }),
          "f4 still holds its old content");
    // A file cut short.
    fails(method("short", 0,
                 [](const sys::Fd& d, std::uint64_t i, const Job& j) {
                     write_at(d, fmt::format("f{}", i), j.records->at(i).first(i == 2 ? 50 : 100), false);
                 }),
          "f2 holds 50 bytes, not 100");
    // A safe save that forgets the folder's fsync: one sync a replacement where it claims two.
    fails(method("forgets-folder", 2,
                 [](const sys::Fd& d, std::uint64_t i, const Job& j) {
                     write_at(d, "t", j.records->at(i), true);
                     renamed(d, i, "t");
                 }),
          "6 sync calls (fsync, fdatasync) for 6 replacements; 12 make each survive a crash");
    // The same with the folder's fsync passes.
    const Strategy good = method("whole", 2, [](const sys::Fd& d, std::uint64_t i, const Job& j) {
        write_at(d, "t", j.records->at(i), true);
        renamed(d, i, "t");
        sys::fsync(d);
    });
    EXPECT_EQ(run_case(replace_case(good, 6, 100), opts, dir).status, Status::ok);
}

// Before each run the old files are there, each byte the complement of its new one; after the
// fixture is gone, nothing of the set is left in the scratch folder.
TEST(Replace, TheOldFilesAreLaidOutBeforeEachRunAndRemovedAfter) {
    ScratchDir dir;
    const CaseSpec c = replace_case("replace.rename-fsync", 3, 64);
    const Strategy* s = c.strategy;
    {
        Fixture fx(c.workload, dir);
        Sink sink;
        const Job job = fx.job(*s, sink);
        ASSERT_NE(job.records, nullptr);
        for (std::uint64_t i = 0; i < 3; ++i) {
            const sys::Fd f = sys::open(fmt::format("{}/f{}", job.dst, i), O_RDONLY);
            std::byte old[64];
            ASSERT_EQ(sys::read_full(f, old, sizeof old), 64u);
            for (std::size_t k = 0; k < 64; ++k) ASSERT_EQ(old[k], ~job.records->at(i)[k]);
        }
        EXPECT_FALSE(fx.verify(job).ok);  // not replaced yet
        s->run(job);
        EXPECT_TRUE(fx.verify(job).ok);
        // A second job lays the old files out again.
        const Job again = fx.job(*s, sink);
        EXPECT_FALSE(fx.verify(again).ok);
    }
    for (const auto& e : std::filesystem::directory_iterator(dir.path()))
        EXPECT_TRUE(e.path().filename() == ".iolab-scratch" || e.path().filename() == "lock") << e.path();
}

// Files of 1 byte and of 4 KiB are ranked in a table each, named by their size, each with its own
// answer: one table by MiB/s put every 1-byte case thousands of times behind the 4 KiB ones.
TEST(Replace, EachFileSizeIsATableOfItsOwn) {
    ScratchDir dir;
    Report r;
    r.options = test::three_iterations();
    for (std::uint64_t size : {1u, 4096u})
        for (const char* s : {"replace.unsafe-rename", "replace.unsafe-in-place"})
            r.cases.push_back(run_case(replace_case(s, 4, size), r.options, dir));
    const auto tables = ranked_tables(r);
    ASSERT_EQ(tables.size(), 2u);
    for (const RankedTable& t : tables) {
        ASSERT_EQ(t.cases.size(), 2u);
        EXPECT_EQ(t.cases[0]->spec.workload.set_of().file_size, t.cases[1]->spec.workload.set_of().file_size);
    }
    EXPECT_EQ(table_name(tables[0]), "replace, 4 files of 1 B, warm");
    EXPECT_EQ(table_name(tables[1]), "replace, 4 files of 4 KiB, warm");
    EXPECT_EQ(tables[0].items, "replacements of 1 B");
    EXPECT_EQ(answers(tables).size(), 2u);
    // A group's title names both tables alike: the size of their items tells them apart.
    r.groups.push_back({"", "my saves", r.options, false});
    EXPECT_EQ(table_name(ranked_tables(r)[1]), "replace, my saves (replacements of 4 KiB), warm");
}

// A table whose cases replace different numbers of files (the count of those that sync sized by time)
// names the range, not the count of whichever case ranks first.
TEST(Replace, ATableOfDifferentCountsNamesTheirRange) {
    ScratchDir dir;
    Report r;
    r.options = test::three_iterations();
    r.cases.push_back(run_case(replace_case("replace.unsafe-rename", 6, 4096), r.options, dir));
    r.cases.push_back(run_case(replace_case("replace.unsafe-in-place", 4, 4096), r.options, dir));
    const auto tables = ranked_tables(r);
    ASSERT_EQ(tables.size(), 1u);
    EXPECT_EQ(table_name(tables[0]), "replace, 4 to 6 files of 4 KiB, warm");
}

// The jobs of a case share its new content (one input) but each holds a file's old content and a
// file read back: memory grows with the jobs (8 jobs of 1 GiB files were counted as one).
TEST(Replace, EachJobsFileBuffersAreCountedInItsMemory) {
    CaseSpec c = replace_case("replace.rename-fsync", 2, 1ull << 30);
    const std::uint64_t one = memory_needed(c);
    c.workload.jobs = 8;
    EXPECT_GE(memory_needed(c), one + 7 * (2ull << 30));
    EXPECT_EQ(input_name(c.workload, 0), input_name(c.workload, 7));  // one input for all jobs
    ScratchDir dir;
    InputPool pool(dir);
    c.workload.set_of().file_size = 64;
    EXPECT_EQ(pool.get(c.workload, 0), pool.get(c.workload, 7));
}

// A stop while the old files are laid out (before the clock) is the stop, not a failure of the case:
// the write it cancels (ECANCELED) says Interrupted.
TEST(Replace, AStopWhileTheOldFilesAreLaidOutIsTheStopNotAFailure) {
    ScratchDir dir;
    const CaseSpec c = replace_case("replace.rename-fsync", 4, 4096);
    Fixture fx(c.workload, dir);
    Sink sink;
    interrupt::request(SIGINT);
    sys::request_stop();
    EXPECT_THROW(detail::job_for(*c.strategy, fx, sink, RunOptions{}, VerifyMode::full), Interrupted);
    sys::clear_stop();
    interrupt::reset_for_tests();
    EXPECT_NO_THROW(detail::job_for(*c.strategy, fx, sink, RunOptions{}, VerifyMode::full));
}

}  // namespace
}  // namespace iolab
