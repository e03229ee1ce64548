// Several jobs running one case at once (--jobs): each does the whole work on its own file and is
// verified; the aggregate is all bytes over the first start to the last end; one failing job
// fails the case and is named. Threads: these run under ThreadSanitizer too (make test).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <optional>
#include <regex>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include <fcntl.h>

#include "expect.hpp"
#include "iolab/core/checksum.hpp"
#include "iolab/harness/fixture.hpp"
#include "iolab/harness/measure.hpp"
#include "iolab/harness/params.hpp"
#include "iolab/harness/plan.hpp"
#include "iolab/harness/runner.hpp"
#include "iolab/suite/findings.hpp"
#include "iolab/suite/suite.hpp"
#include "iolab/sys/fault.hpp"
#include "iolab/sys/io.hpp"
#include "support.hpp"

namespace iolab {
namespace {

std::vector<CaseSpec> plan_of(const std::string& strategy, unsigned jobs) {
    PlanRequest req;
    req.strategies = {strategy};
    req.sizes = {1u << 20};
    req.buffers = {64u << 10};
    req.records = {4096};
    req.jobs = {jobs};
    return build_plan(req);
}

// The one case of `strategy` with `jobs` jobs, run with three iterations and `edit` made to the options.
template <class Edit>
CaseResult run_one(const std::string& strategy, unsigned jobs, Edit edit) {
    ScratchDir dir;
    RunOptions opts = test::three_iterations();
    edit(opts);
    const auto results = run_group(plan_of(strategy, jobs), opts, dir);
    if (results.size() != 1) throw std::logic_error("not one case: " + strategy);
    return results[0];
}

// A shared file of n parts, made here.
InputPool::Shared parts_of(unsigned n) {
    InputPool::Shared s;
    s.parts = n;
    return s;
}

TEST(Jobs, EveryJobDoesTheWholeWorkOnItsOwnFileAndIsVerified) {
    for (const char* name : {"read.chunk", "write.record-buffered", "copy.chunk"})
        for (unsigned jobs : {2u, 4u}) {
            SCOPED_TRACE(fmt::format("{} jobs={}", name, jobs));
            ScratchDir dir;
            const auto results = run_group(plan_of(name, jobs), test::three_iterations(), dir);
            ASSERT_EQ(results.size(), 1u);
            const CaseResult& c = results.front();
            ASSERT_EQ(c.status, Status::ok) << c.reason;
            EXPECT_TRUE(c.verified);
            EXPECT_NE(c.spec.label().find(fmt::format("jobs={}", jobs)), std::string::npos) << c.spec.label();
            ASSERT_EQ(c.samples.size(), 3u);
            for (const Sample& s : c.samples) {
                // Aggregate bytes: the sum of the jobs', each the whole workload.
                EXPECT_EQ(s.bytes, jobs * c.spec.workload.bytes());
                ASSERT_EQ(s.job_s.size(), jobs);
                // From the first start to the last end spans every job's own time.
                for (double t : s.job_s) {
                    EXPECT_GT(t, 0);
                    EXPECT_LE(t, s.wall_s);
                }
            }
            EXPECT_DOUBLE_EQ(c.throughput_mib_s,
                             static_cast<double>(jobs * c.spec.workload.bytes()) / c.stats.median / (1 << 20));
        }
}

TEST(Jobs, EachJobReadsAndCopiesItsOwnInputFile) {
    ScratchDir dir;
    InputPool pool(dir);
    Workload w;
    w.family = Family::copy;
    w.size = 4096;
    w.jobs = 3;
    const auto a = pool.get(w, 0), b = pool.get(w, 1), again = pool.get(w, 1);
    EXPECT_NE(a->path, b->path);
    EXPECT_EQ(b.get(), again.get());
    EXPECT_EQ(pool.files().size(), 2u);
    // A write's records are shared: read only, the same for every job.
    w.family = Family::write;
    EXPECT_EQ(pool.get(w, 0).get(), pool.get(w, 2).get());
}

TEST(Jobs, AFailingJobFailsTheRunAndIsNamed) {
    ScratchDir dir;
    const auto specs = plan_of("copy.chunk", 2);
    Fixture f0(specs[0].workload, dir, "j0"), f1(specs[0].workload, dir, "j1");
    Sink s0, s1;
    const std::vector<Fixture*> fixtures{&f0, &f1};
    const std::vector<Sink*> sinks{&s0, &s1};
    RunOptions opts;
    {
        // The third write of either job fails with EIO, persistently.
        const sys::ScopedFault armed(sys::fault_at(sys::call_bit(sys::Call::write), 3, UINT64_MAX, sys::Fault::eio));
        try {
            measure_jobs(*specs[0].strategy, fixtures, sinks, opts, system_clock(), nullptr, VerifyMode::full);
            ADD_FAILURE() << "the failed job went unnoticed";
        } catch (const std::exception& e) {
            EXPECT_TRUE(std::regex_search(e.what(), std::regex("^job [12] of 2: "))) << e.what();
        }
    }
    // Unarmed, the same jobs run and verify.
    const auto [smp, checked] =
        measure_jobs(*specs[0].strategy, fixtures, sinks, opts, system_clock(), nullptr, VerifyMode::full);
    EXPECT_EQ(checked, Checked::content);
    EXPECT_EQ(smp.bytes, 2u * specs[0].workload.bytes());
}

// --stonewall: when the first job ends the others stop at their next call, and count what they
// did. One job is slowed (200 ms before each of its writes) so that the other ends first.
TEST(Jobs, TheStonewallStopsTheOthersWhenTheFirstEnds) {
    ScratchDir dir;
    const auto specs = plan_of("copy.chunk", 2);  // 1 MiB in 64 KiB writes: 16 of them
    Fixture f0(specs[0].workload, dir, "j0"), f1(specs[0].workload, dir, "j1");
    Sink s0, s1;
    RunOptions opts;
    opts.stonewall = true;
    std::mutex m;
    std::optional<std::thread::id> fast;
    sys::FaultPlan slow = sys::fault_at(sys::call_bit(sys::Call::write), 1, UINT64_MAX, sys::Fault::hook);
    slow.hook = [&] {
        {
            const std::lock_guard lock(m);
            if (!fast) fast = std::this_thread::get_id();
            if (*fast == std::this_thread::get_id()) return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    };
    const std::uint64_t one = specs[0].workload.bytes();
    {
        const sys::ScopedFault armed(slow);
        const auto [smp, checked] =
            measure_jobs(*specs[0].strategy, {&f0, &f1}, {&s0, &s1}, opts, system_clock(), nullptr, VerifyMode::full);
        // The fast job did all of its work, the slow one some of it (a write or two, not 16).
        EXPECT_GE(smp.bytes, one);
        EXPECT_LT(smp.bytes, 2 * one);
        EXPECT_EQ((smp.bytes - one) % (64u << 10), 0u);
        // The stopped job's output is checked by its size only.
        EXPECT_EQ(checked, Checked::byte_count);
    }
    // Without the stonewall the same slowed pair moves everything and verifies both.
    opts.stonewall = false;
    const auto [smp, checked] =
        measure_jobs(*specs[0].strategy, {&f0, &f1}, {&s0, &s1}, opts, system_clock(), nullptr, VerifyMode::full);
    EXPECT_EQ(smp.bytes, 2 * one);
    EXPECT_EQ(checked, Checked::content);
}

TEST(Jobs, TheStonewallSkipsStrategiesItCannotStop) {
    const auto stonewall = [](RunOptions& o) { o.stonewall = true; };
    EXPECT_TRUE(test::skipped_saying(run_one("copy.pipelined-threads", 2, stonewall), "threads of its own"));
}

// --shared-file: one input and one output for all jobs, job k on part k of each (IOR's
// segmented layout); each part is verified on its own.
TEST(Jobs, SharedFileJobsEachDoTheirPartOfOneFileAndAreVerified) {
    for (const char* name : {"read.chunk", "read.pread-chunk", "write.record-syscall", "copy.chunk", "copy.pread-chunk",
                             "copy.copy-file-range"})
        for (unsigned jobs : {2u, 4u}) {
            SCOPED_TRACE(fmt::format("{} jobs={}", name, jobs));
            ScratchDir dir;
            RunOptions opts = test::three_iterations();
            opts.shared_file = true;
            const auto results = run_group(plan_of(name, jobs), opts, dir);
            ASSERT_EQ(results.size(), 1u);
            const CaseResult& c = results.front();
            ASSERT_EQ(c.status, Status::ok) << c.reason;
            EXPECT_EQ(c.checked, Checked::content);
            for (const Sample& s : c.samples) {
                EXPECT_EQ(s.bytes, jobs * c.spec.workload.bytes());
                EXPECT_EQ(s.job_s.size(), jobs);
            }
        }
}

TEST(Jobs, ASharedInputIsOneFileOfUnlikeParts) {
    ScratchDir dir;
    InputPool pool(dir);
    Workload w;
    w.family = Family::read;
    w.size = 64 << 10;
    w.jobs = 3;
    const auto in = pool.get_shared(w, parts_of(3));
    EXPECT_EQ(pool.get_shared(w, parts_of(3)).get(), in.get());
    ASSERT_EQ(pool.files().size(), 1u);
    EXPECT_EQ(checksum_file(in->path).size, 3u * w.size);
    ASSERT_EQ(in->parts.size(), 3u);
    for (unsigned k = 0; k < 3; ++k) {
        // Each part's digest is that of its bytes in the file, and no two parts are alike.
        EXPECT_EQ(checksum_range(in->path, k * w.size, w.size).checksum, in->parts[k].checksum);
        EXPECT_EQ(in->parts[k].size, w.size);
    }
    EXPECT_NE(in->parts[0].checksum, in->parts[1].checksum);
    EXPECT_NE(in->parts[1].checksum, in->parts[2].checksum);
    EXPECT_EQ(pool.files().size(), 1u);
}

// Under MPI rank 0 makes the shared file empty; each rank then writes its own parts into it and
// keeps the digests of the parts it reads (here: rank 1 of 2, shifted to read rank 0's part).
TEST(Jobs, EachRankWritesItsOwnPartsOfTheSharedFile) {
    ScratchDir zero, one;
    InputPool pool0(zero), pool1(one);
    Workload w;
    w.family = Family::read;
    w.size = 64 << 10;
    pool0.make_shared(w, 2);
    InputPool::Shared mine;
    mine.parts = 2;
    mine.write_first = 0;
    mine.write_count = 1;
    mine.read_first = 0;
    mine.read_count = 1;
    InputPool::Shared theirs = mine;
    theirs.write_first = 1;
    theirs.maker_folder = zero.name();
    const auto in0 = pool0.get_shared(w, mine);
    // Before rank 1 writes, its part is a hole: zeros, not the data.
    EXPECT_NE(checksum_range(in0->path, w.size, w.size).checksum, in0->parts[0].checksum);
    const auto in1 = pool1.get_shared(w, theirs);
    EXPECT_EQ(checksum_file(in0->path).size, 2u * w.size);
    // Rank 1 reads part 0 (written by rank 0) and knows its digests from the data alone.
    EXPECT_EQ(in1->parts[0].checksum, in0->parts[0].checksum);
    EXPECT_EQ(in1->parts[0].fingerprint, in0->parts[0].fingerprint);
    EXPECT_EQ(in1->parts[1].size, 0u);  // not read there: not computed
    EXPECT_EQ(checksum_range(in0->path, 0, w.size).checksum, in0->parts[0].checksum);
    // Part 1, as rank 1 wrote it, is the data that follows part 0.
    InputPool whole_pool(zero);
    Workload w2 = w;
    w2.size = 2 * w.size;
    const FileDigest whole = checksum_file(whole_pool.get(w2)->path);
    EXPECT_EQ(checksum_file(in0->path).checksum, whole.checksum);
    EXPECT_TRUE(pool1.files().empty());  // not rank 1's to warm or to remove
}

// A job that works on another part than its own is caught: a read that reads part 0 for part 1,
// a write that writes part 1's records at part 0's place (leaving part 1 empty).
TEST(Jobs, APartInTheWrongPlaceFailsItsVerification) {
    for (const Family family : {Family::read, Family::write, Family::copy}) {
        SCOPED_TRACE(std::string(to_string(family)));
        ScratchDir dir;
        InputPool pool(dir);
        const char* name = family == Family::read    ? "read.chunk"
                           : family == Family::write ? "write.record-syscall"
                                                     : "copy.chunk";
        const auto specs = plan_of(name, 2);
        const Workload& w = specs[0].workload;
        const auto input = pool.get_shared(w, parts_of(2));
        Fixture part0(w, dir, "shared", input, 0), part1(w, dir, "shared", input, 1);
        const Strategy& s = *specs[0].strategy;
        for (const bool wrong : {false, true}) {
            Sink sink0, sink1;
            const Job j0 = part0.job(s, sink0);
            Job j1 = part1.job(s, sink1);
            EXPECT_EQ(j1.part.offset, w.bytes());
            EXPECT_EQ(j1.part.length, w.bytes());
            if (family != Family::read) sys::open(j0.dst, O_WRONLY | O_CREAT | O_EXCL, 0600).close();
            // The job is told part 1's place; a wrong one is given part 0's.
            if (wrong) j1.part.offset = 0;
            s.run(j1);
            if (family == Family::read) {
                EXPECT_EQ(part1.verify(j1).ok, !wrong);
            } else {
                if (!wrong) s.run(j0);
                // Part 1 is checked where it belongs, whatever offset the job was given.
                EXPECT_EQ(part1.verify(j1).ok, !wrong);
                if (!wrong) {
                    EXPECT_TRUE(part0.verify(j0).ok);
                }
            }
        }
    }
}

// A job that writes past the end of its part: the last part's overrun is seen by no other part's
// check, so the shared output's size is checked too.
TEST(Jobs, ASharedOutputHoldsItsPartsAndNothingMore) {
    ScratchDir dir;
    InputPool pool(dir);
    const auto specs = plan_of("write.record-syscall", 2);
    const Workload& w = specs[0].workload;
    const auto input = pool.get_shared(w, parts_of(2));
    Fixture part0(w, dir, "shared", input, 0), part1(w, dir, "shared", input, 1);
    Sink s0, s1;
    Strategy overrun = *specs[0].strategy;
    overrun.run = [original = overrun.run](const Job& j) {
        original(j);
        if (j.part.offset > 0) {  // the last part: one byte more
            const sys::Fd out = sys::open(j.dst, O_WRONLY);
            const char extra = 'x';
            sys::pwrite_all(out, &extra, 1, static_cast<off_t>(j.part.offset + j.part.length));
        }
    };
    RunOptions opts;
    try {
        measure_jobs(overrun, {&part0, &part1}, {&s0, &s1}, opts, system_clock(), nullptr, VerifyMode::full);
        ADD_FAILURE() << "the overrun went unnoticed";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("holds " + std::to_string(2 * w.bytes() + 1) + " bytes"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_NO_THROW(measure_jobs(*specs[0].strategy, {&part0, &part1}, {&s0, &s1}, opts, system_clock(), nullptr,
                                 VerifyMode::full));
}

TEST(Jobs, SharedFileSkipsStrategiesThatWorkOnWholeFilesAndRefusesWhatItCannotDo) {
    const auto shared = [](RunOptions& o) { o.shared_file = true; };
    EXPECT_TRUE(test::skipped_saying(run_one("read.mmap-chunks", 2, shared), "--shared-file"));
    // One job alone has the whole file: nothing is shared, nothing skipped.
    EXPECT_EQ(run_one("read.mmap-chunks", 1, shared).status, Status::ok);

    PlanRequest req;
    RunOptions o;
    apply_setting(*find_parameter("shared_file"), "true", Syntax::command_line, req, o);
    EXPECT_TRUE(o.shared_file);
    o.stonewall = true;
    EXPECT_THROW(check_settings(req, o, Syntax::command_line), InputError);
    o.stonewall = false;
    req.input = "/some/file";
    EXPECT_THROW(check_settings(req, o, Syntax::command_line), InputError);
    req.input.clear();
    EXPECT_NO_THROW(check_settings(req, o, Syntax::command_line));
}

TEST(Jobs, AListMakesASweepAndEachCountIsALabelledCase) {
    PlanRequest req;
    RunOptions opts;
    apply_setting(*find_parameter("jobs"), "1,2,4", Syntax::command_line, req, opts);
    req.strategies = {"read.chunk"};
    req.sizes = {1u << 20};
    const auto plan = build_plan(req);
    ASSERT_EQ(plan.size(), 3u);
    EXPECT_EQ(plan[0].label(), "read.chunk buffer=64K");
    EXPECT_EQ(plan[1].label(), "read.chunk buffer=64K jobs=2");
    EXPECT_EQ(plan[2].label(), "read.chunk buffer=64K jobs=4");
    // Every job's input and output counted before anything is written.
    EXPECT_EQ(scratch_needed({plan[2]}), 4u << 20);
    for (const char* bad : {"0", "257", "two"})
        EXPECT_THROW(apply_setting(*find_parameter("jobs"), bad, Syntax::command_line, req, opts), InputError) << bad;
}

TEST(Jobs, AKneeOverJobsIsTheFewestJobsNearTheBest) {
    std::vector<CaseResult> cases;
    for (const auto& [jobs, mib] : {std::pair{1u, 100.0}, {2u, 192.0}, {4u, 200.0}, {8u, 198.0}}) {
        CaseResult c;
        c.spec.strategy = Registry::builtin().find("read.chunk");
        c.spec.group = "g";
        c.spec.workload.jobs = jobs;
        c.spec.workload.size = 1 << 20;
        c.status = Status::ok;
        for (int i = 0; i < 6; ++i) {  // steady: stable
            Sample smp;
            smp.bytes = 1 << 20;
            smp.wall_s = 1 / mib * (1 + 0.001 * i);
            c.samples.push_back(smp);
        }
        finish(c, RunOptions{}, 1e-9);
        cases.push_back(c);
    }
    const KneeResult r = find_knee(KneeSpec{"s", "g", "read.chunk", 0.95, true}, cases);
    EXPECT_EQ(r.knee_buffer, 2u);
    EXPECT_EQ(r.best_buffer, 4u);
    EXPECT_EQ(r.describe(),
              "read.chunk in g: 2 jobs surely reach 95% of the best aggregate throughput (199.5 MiB/s with 4 jobs)");
    // The suite says what it sweeps; anything else is refused with the value.
    const std::string suite = R"(name = "s"
description = "d"
[[group]]
id = "g"
jobs = [1, 2]
strategies = ["read.chunk"]
[[knee]]
group = "g"
strategy = "read.chunk"
over = "sideways"
)";
    try {
        parse_suite(suite, "s.toml");
        ADD_FAILURE() << "over = sideways was accepted";
    } catch (const SuiteError& e) {
        EXPECT_NE(std::string(e.what()).find("invalid over 'sideways': expected buffer or jobs"), std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace iolab
