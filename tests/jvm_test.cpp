// The jvm.* strategies: every method over awkward sizes in one worker, proofs that agree with
// iolab's own for every chunking, the published bugs caught, and a worker that dies, hangs or
// answers garbage failing its case (never hanging iolab), and a stop that leaves no JVM behind.
#include <gtest/gtest.h>

#include <signal.h>

#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "iolab/core/process.hpp"
#include "iolab/core/scratch.hpp"
#include "iolab/core/worker.hpp"
#include "iolab/harness/fixture.hpp"
#include "iolab/harness/runner.hpp"
#include "iolab/strategies/jvm.hpp"
#include "process_support.hpp"
#include "support.hpp"

namespace iolab {
namespace {

using namespace test;

std::vector<const Strategy*> jvm_rows() {
    std::vector<const Strategy*> out;
    for (const Strategy& s : Registry::builtin().all())
        if (s.worker()) out.push_back(&s);
    return out;
}

// Whether the JVM and the worker's jar are here; the reason when not.
std::optional<std::string> no_jvm() {
    ScratchDir dir;
    return Registry::builtin().find("jvm.read-stream-chunks")->skip_reason(dir.path());
}

Workload workload_for(const Strategy& s, std::uint64_t size, std::size_t buffer) {
    Workload w;
    w.family = s.family;
    w.size = size;
    w.buffer = buffer;
    if (s.family == Family::write) {
        // One record of the size, or 256 records of 4097 bytes (five pieces of a reused buffer each).
        w.records_of().record = size > 65536 ? 4097 : std::max<std::uint64_t>(size, 1);
        w.records_of().count = size > 65536 ? 256 : size == 0 ? 0 : 1;
    }
    return w;
}

// Runs the job the way the harness does (prepare, then run) and checks it against the reference.
Verdict run_checked(const Strategy& s, Fixture& fx, Sink& sink, VerifyMode mode) {
    const Job job = fx.job(s, sink, mode);
    s.prepare(job);
    s.run(job);
    return fx.verify(job);
}

TEST(JvmMethods, EveryMethodOverAwkwardSizesMatchesTheReferenceInBothModes) {
    if (auto why = no_jvm()) GTEST_SKIP() << *why;
    ScratchDir dir;  // one folder: the worker stays up for every method, as in a group
    for (const Strategy* s : jvm_rows()) {
        const bool published_bug = s->name.ends_with("-as-published");
        const std::vector<std::size_t> buffers = s->honours(kParamBuffer) && !s->byte_at_a_time()
                                                     ? std::vector<std::size_t>{7, 4096, 65536}
                                                     : std::vector<std::size_t>{8192};
        for (const std::uint64_t size : {0ull, 1ull, 4095ull, 4097ull, (1ull << 20) + 13}) {
            for (const std::size_t buffer : buffers) {
                Workload w = workload_for(*s, size, buffer);
                if (s->honours(kParamChain)) w.records_of().chain = "deflate:6>buffer:8K>file";
                Fixture fx(w, dir);
                Sink sink;
                for (const VerifyMode mode : {VerifyMode::full, VerifyMode::sampled}) {
                    if (s->family != Family::read && mode == VerifyMode::sampled) continue;
                    const Verdict v = run_checked(*s, fx, sink, mode);
                    const std::string where = fmt::format("{} size {} buffer {} {}: {}", s->name, size, buffer,
                                                          to_string(mode), v.describe());
                    if (published_bug && size > 1) {
                        EXPECT_FALSE(v.ok) << where;  // the published code does not copy or write the file
                        continue;
                    }
                    if (published_bug) continue;
                    EXPECT_TRUE(v.ok) << where;
                    EXPECT_TRUE(v.checked) << where;
                    EXPECT_EQ(v.crc32, s->family == Family::read && mode == VerifyMode::full) << where;
                    EXPECT_EQ(v.actual_bytes, w.bytes()) << where;
                }
            }
        }
    }
}

TEST(JvmMethods, WritersMakeTheRecordsOfEveryDataKindAndEveryChainAsIolabDoes) {
    if (auto why = no_jvm()) GTEST_SKIP() << *why;
    ScratchDir dir;
    const Strategy& stream = *Registry::builtin().find("jvm.write-stream");
    for (const char* data : {"random", "text", "zeros", "compressible:4", "compressible:3.5"}) {
        Workload w = workload_for(stream, 1 << 20, 8192);
        w.records_of().record = 1000;
        w.records_of().count = 3000;  // records from many places of a 16 MiB pool... of a 3 MB file's pool
        w.data = parse_data_spec(data);
        Fixture fx(w, dir);
        Sink sink;
        const Verdict v = run_checked(stream, fx, sink, VerifyMode::full);
        EXPECT_TRUE(v.ok) << data << ": " << v.describe();
    }
    const Strategy& chain = *Registry::builtin().find("jvm.write-chain");
    for (const char* text : {"file", "buffer:64K>deflate:1>file", "deflate:9>file", "buffer:1>buffer:3>deflate:0>file"})
        for (const bool bytes : {false, true}) {
            Workload w = workload_for(chain, 200000, 8192);
            w.records_of().chain = text;
            w.records_of().feed_bytes = bytes;
            Fixture fx(w, dir);
            Sink sink;
            const Verdict v = run_checked(chain, fx, sink, VerifyMode::full);
            EXPECT_TRUE(v.ok) << text << (bytes ? " fed bytes: " : ": ") << v.describe();
        }
}

// A read that skips a page must fail: the proof the worker computes is not taken on trust.
TEST(JvmMethods, AReadThatSkipsAPageFailsInBothModes) {
    if (auto why = no_jvm()) GTEST_SKIP() << *why;
    Strategy skipping = *Registry::builtin().find("jvm.read-stream-chunks");
    skipping.run = [](const Job& j) { run_jvm_method(j, "fault-read-skips-page"); };
    ScratchDir dir;
    Fixture fx(workload_for(skipping, 5 * 4096 + 100, 4096), dir);
    Sink sink;
    for (const VerifyMode mode : {VerifyMode::full, VerifyMode::sampled}) {
        const Verdict v = run_checked(skipping, fx, sink, mode);
        EXPECT_FALSE(v.ok) << to_string(mode);
        EXPECT_EQ(v.actual_bytes, 4 * 4096 + 100u) << to_string(mode);
    }
    // The same method without the skip passes: what fails is the skip.
    const Verdict v = run_checked(*Registry::builtin().find("jvm.read-stream-chunks"), fx, sink, VerifyMode::sampled);
    EXPECT_TRUE(v.ok) << v.describe();
}

// A run records the JVM and its flags, and each sample the round trip taken away (fixed_s) and the
// worker's own time (tool_s); the file reads back.
TEST(JvmMethods, ARunRecordsTheJvmItsFlagsAndEachRoundTrip) {
    if (auto why = no_jvm()) GTEST_SKIP() << *why;
    ScratchDir dir;
    const std::string json = dir.file("r.json");
    // Options the JVM would take from the environment are not the worker's: its logging would
    // have gone to its standard output (the protocol), and -Xint would change what is measured.
    ::setenv("JAVA_TOOL_OPTIONS", "-Xlog:gc -Xint", 1);
    const CliResult r =
        run_cli("run -s jvm.read-stream-chunks --size 1M --iterations 3 --jvm-heap 256M --quiet --json " + json +
                " --dir " + dir.path());
    ::unsetenv("JAVA_TOOL_OPTIONS");
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(slurp(json));
    const std::string jvm = j["environment"]["jvm"].get<std::string>();
    EXPECT_NE(jvm.find("-Xms256m -Xmx256m"), std::string::npos) << jvm;
    EXPECT_NE(jvm.find("iolab.worker.Worker"), std::string::npos) << jvm;
    // docs/jvm.md shows the command line (at the default heap): the one recorded is that line.
    const std::string doc = slurp(IOLAB_SOURCE_DIR "/docs/jvm.md");
    const std::size_t from = doc.find("`java -X");
    ASSERT_NE(from, std::string::npos);
    std::string shown;
    for (const char ch : doc.substr(from + 1, doc.find('`', from + 1) - from - 1))
        if (ch != '\n' && ch != ' ')
            shown += ch;
        else if (!shown.empty() && shown.back() != ' ')
            shown += ' ';  // the line's breaks and indents: one space
    for (std::size_t at; (at = shown.find("1024m")) != std::string::npos;) shown.replace(at, 5, "256m");
    ASSERT_NE(jvm.find("java -X"), std::string::npos) << jvm;
    EXPECT_EQ(jvm.substr(jvm.find("java -X")), shown);
    EXPECT_EQ(j["options"]["jvm_heap_bytes"], 256u << 20);
    const auto& c = j["cases"].at(0);
    EXPECT_TRUE(c["verified"].get<bool>());
    ASSERT_EQ(c["samples"].size(), 3u);
    for (const auto& smp : c["samples"]) {
        EXPECT_GT(smp["fixed_s"].get<double>(), 0);
        EXPECT_GT(smp["tool_s"].get<double>(), 0);
    }
    const CliResult back = run_cli("report --all " + json);
    EXPECT_EQ(back.status, 0) << back.err;
    EXPECT_NE(back.out.find("JVM: "), std::string::npos) << back.out;
    EXPECT_NE(back.out.find("round trip of an empty request"), std::string::npos) << back.out;
}

// A mapped read in the JVM unmaps its file before it returns: a mapping left to the collector keeps
// its pages in the page cache (a mapped page cannot be evicted), and the next cold iteration of any
// case found the file fully resident (read-large's cold group: one iteration in four).
TEST(JvmMethods, AMappedReadLeavesTheFileEvictable) {
    if (auto why = no_jvm()) GTEST_SKIP() << *why;
    ScratchDir dir;
    const auto r = run_cli(
        "run -s jvm.read-mapped,read.chunk --buffer 16K --size 32M --cache cold --warmup 0 "
        "--iterations 4 -q --json " +
        dir.file("out.json") + " --dir " + dir.path());
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(slurp(dir.file("out.json")));
    ASSERT_EQ(j.at("cases").size(), 2u);
    for (const auto& c : j.at("cases")) {
        ASSERT_EQ(c.at("samples").size(), 4u) << c.at("label");
        for (const auto& s : c.at("samples")) EXPECT_LT(s.at("resident").get<double>(), 0.05) << c.at("label");
        EXPECT_FALSE(c.at("cold_unproven").get<bool>()) << c.at("label");
    }
}

TEST(JvmMethods, ListByTheJvmFamilyNamesEveryRowAndOnlyThem) {
    const CliResult r = run_cli("list --family jvm --names");
    ASSERT_EQ(r.status, 0) << r.err;
    std::istringstream lines(r.out);
    std::size_t n = 0;
    for (std::string line; std::getline(lines, line); ++n) EXPECT_TRUE(line.starts_with("jvm.")) << line;
    EXPECT_EQ(n, jvm_rows().size());
    EXPECT_GE(n, 20u);
}

// A claim judged in both runtimes: two verdicts, kept apart in the result file and read back.
TEST(JvmMethods, AFindingWithJvmSidesIsJudgedInBothRuntimes) {
    if (auto why = no_jvm()) GTEST_SKIP() << *why;
    ScratchDir dir;
    const std::string suite = dir.file("both.toml");
    std::ofstream(suite) << R"(
name = "both"
description = "a claim in both runtimes"
[[group]]
id = "g"
size = "256K"
strategies = ["copy.chunk", "copy.byte-buffered", "jvm.copy-stream-chunks", "jvm.copy-byte-buffered"]
[[finding]]
claim = "chunks beat buffered bytes"
faster = { group = "g", strategy = "copy.chunk" }
slower = { group = "g", strategy = "copy.byte-buffered" }
jvm_faster = { group = "g", strategy = "jvm.copy-stream-chunks" }
jvm_slower = { group = "g", strategy = "jvm.copy-byte-buffered" }
at_least = 2
)";
    const std::string json = dir.file("r.json");
    const CliResult r =
        run_cli("run --suite-file " + suite + " --iterations 5 --quiet --json " + json + " --dir " + dir.path());
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(slurp(json));
    ASSERT_EQ(j["findings"].size(), 2u);
    EXPECT_EQ(j["findings"][0]["runtime"], "C++");
    EXPECT_EQ(j["findings"][0]["faster_case"], "copy.chunk buffer=64K");
    EXPECT_EQ(j["findings"][1]["runtime"], "JVM");
    EXPECT_EQ(j["findings"][1]["faster_case"], "jvm.copy-stream-chunks buffer=64K");
    const CliResult back = run_cli("report " + json);
    EXPECT_EQ(back.status, 0) << back.err;
    // Whatever the verdicts (five samples may leave them undecided), each says its runtime.
    EXPECT_NE(back.out.find(" in C++ "), std::string::npos) << back.out;
    EXPECT_NE(back.out.find(" on the JVM "), std::string::npos) << back.out;
    // A note for the JVM's verdict without its sides is refused, naming it.
    std::string text = slurp(suite);
    for (const char* side : {"jvm_faster", "jvm_slower"}) {
        const std::size_t at = text.find(side);
        text.erase(at, text.find('\n', at) + 1 - at);
    }
    std::ofstream(suite) << text << "jvm_note = \"x\"\n";
    const CliResult bad = run_cli("run --suite-file " + suite + " --smoke --dir " + dir.path());
    EXPECT_EQ(bad.status, 2) << bad.out;
    EXPECT_NE(bad.err.find("jvm_note"), std::string::npos) << bad.err;
}

// Without java, or without the worker's jar, every row is skipped, saying what to install.
TEST(JvmMethods, WithoutAJvmOrTheWorkerEveryRowIsSkippedSayingWhy) {
    ScratchDir dir;
    const char* path = std::getenv("PATH");
    const std::string saved = path ? path : "";
    ::setenv("PATH", dir.path().c_str(), 1);
    for (const Strategy* s : jvm_rows()) {
        const auto why = s->skip_reason(dir.path());
        ASSERT_TRUE(why.has_value()) << s->name;
        EXPECT_NE(why->find("openjdk-17"), std::string::npos) << *why;
    }
    ::setenv("PATH", saved.c_str(), 1);
    if (!find_program("java")) GTEST_SKIP() << "no java here";
    ::setenv("IOLAB_JVM_WORKER", dir.file("no-such.jar").c_str(), 1);
    for (const Strategy* s : jvm_rows()) {
        const auto why = s->skip_reason(dir.path());
        ASSERT_TRUE(why.has_value()) << s->name;
        EXPECT_NE(why->find("IOLAB_JVM_WORKER names '" + dir.file("no-such.jar") + "', which cannot be read"),
                  std::string::npos)
            << *why;
    }
    ::unsetenv("IOLAB_JVM_WORKER");
}

// --- a worker of the test's own, speaking the protocol, that fails on purpose ---

// A shell worker: greets with its pid, answers ping and gc, and does `on_run` to a run request.
std::vector<std::string> fake_worker(const std::string& on_run) {
    return {"sh", "-c",
            "echo \"ready fake $$\"; while read -r line; do case \"$line\" in ping) echo pong;; gc) echo ok;; run*) " +
                on_run + ";; *) echo ok;; esac; done"};
}

struct FakeWorker {
    explicit FakeWorker(const std::string& on_run) { set_worker_command_for_tests(fake_worker(on_run)); }
    ~FakeWorker() {
        end_workers();
        set_worker_command_for_tests({});
    }
};

pid_t fake_pid() {
    const std::string v = jvm_version();  // "fake PID"
    return v.starts_with("fake ") ? std::stoi(v.substr(5)) : -1;
}

// Whether a process has ended: no longer there, or a zombie its (new) parent has yet to reap. A
// kill is delivered a moment after it is sent: up to 20 s are waited for it.
bool gone(pid_t pid) {
    const auto ended = [pid] {
        if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
        const std::string stat = slurp(fmt::format("/proc/{}/stat", pid));
        const std::size_t close = stat.rfind(')');
        return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z';
    };
    return pid > 0 && wait_until(ended, 20s);
}

CaseResult run_jvm_case(const Strategy& s, RunOptions opts, const ScratchDir& dir) {
    CaseSpec c;
    c.strategy = &s;
    c.workload = workload_for(s, 64 * 1024, 4096);
    opts.warmup = Amount{0, 0};
    opts.iterations = Amount{3, 0};
    return run_case(c, opts, dir);
}

CaseResult run_jvm_case(const std::string& name, const RunOptions& opts, const ScratchDir& dir) {
    return run_jvm_case(*Registry::builtin().find(name), opts, dir);
}

// The reason a case of `name` failed for, its worker doing `on_run` to a run request.
std::string failure_with(const std::string& on_run, const std::string& name = "jvm.read-stream-chunks") {
    const FakeWorker fake(on_run);
    ScratchDir dir;
    const CaseResult r = run_jvm_case(name, RunOptions{}, dir);
    EXPECT_EQ(r.status, Status::failed) << on_run;
    return r.reason;
}

TEST(JvmWorker, AWorkerKilledMidIterationFailsItsCaseSayingSo) {
    const std::string why = failure_with("kill -9 $$");
    EXPECT_NE(why.find("was killed by signal 9"), std::string::npos) << why;
}

TEST(JvmWorker, AWorkerThatHangsIsEndedAtItsDeadline) {
    const FakeWorker fake("sleep 1000");
    ScratchDir dir;
    RunOptions opts;
    opts.jvm_deadline_s = 1;
    pid_t pid = -1;
    // The fake's pid, seen before it hangs: prepare asks it first. (A deadline not kept
    // hangs the test past ctest's timeout: it fails.)
    Strategy watched = *Registry::builtin().find("jvm.read-stream-chunks");
    watched.prepare = [&](const Job& j) {
        try {
            prepare_jvm(j);
        } catch (...) {  // a machine so busy that the fake's "gc" missed the deadline
            pid = fake_pid();
            throw;
        }
        pid = fake_pid();
    };
    const CaseResult r = run_jvm_case(watched, opts, dir);
    EXPECT_EQ(r.status, Status::failed);
    EXPECT_NE(r.reason.find("gave no answer within 1 s and was ended"), std::string::npos) << r.reason;
    ASSERT_GT(pid, 0);
    EXPECT_TRUE(gone(pid)) << "the hung worker " << pid << " is still there";
}

TEST(JvmWorker, AWorkerThatAnswersGarbageFailsItsCaseNamingTheAnswer) {
    for (const char* answer : {"echo hello", "echo done ns=12", "echo 'done ns=x bytes=1 fp=1'",
                               "echo done ns=5 bytes=65536 crc=zz", "echo done ns=5 bytes=65536 sums=1,2"}) {
        const std::string why = failure_with(answer);
        EXPECT_NE(why.find("which is not an answer to it"), std::string::npos) << answer << ": " << why;
    }
    // A line without its end, longer than any answer.
    const std::string why = failure_with("head -c 200000 /dev/zero | tr '\\0' x");
    EXPECT_NE(why.find("a line of over"), std::string::npos) << why;
}

TEST(JvmWorker, AMethodThatThrowsOrCannotRunSaysWhy) {
    const std::string why =
        failure_with("echo 'error java.io.IOException: No space left on device'", "jvm.write-stream");
    EXPECT_NE(why.find("No space left on device"), std::string::npos) << why;
    const FakeWorker fake("echo 'cannot no such stream'");
    ScratchDir dir;
    const CaseResult r = run_jvm_case("jvm.copy-channel", RunOptions{}, dir);
    EXPECT_EQ(r.status, Status::skipped);
    EXPECT_EQ(r.reason, "no such stream");
}

// A JVM that crashes as it starts prints lines of '#' and dies: the reason names how it ended, not
// the '#' it said (it read "it said '#'").
TEST(JvmWorker, AWorkerThatCrashesAsItStartsIsNamedBySignal) {
    set_worker_command_for_tests({"sh", "-c", "echo '#'; echo '#'; kill -SEGV $$"});
    ScratchDir dir;
    const CaseResult r = run_jvm_case("jvm.read-stream-chunks", RunOptions{}, dir);
    end_workers();
    set_worker_command_for_tests({});
    EXPECT_EQ(r.status, Status::failed);
    EXPECT_NE(r.reason.find("did not start"), std::string::npos) << r.reason;
    EXPECT_NE(r.reason.find("was killed by signal 11 (SIGSEGV)"), std::string::npos) << r.reason;
}

// Once the worker did not start, the group's other JVM cases are skipped with that reason: each
// start could take the whole start deadline again (seven cases took 420 s). So whether it said
// something else than its greeting or ended without one (as one past its deadline is ended).
TEST(JvmWorker, AfterAFailedStartTheGroupsOtherJvmCasesAreSkippedSayingWhy) {
    for (const auto& [command, said] : {std::pair{std::string("echo nope"), std::string("it said 'nope'")},
                                        std::pair{std::string("exit 3"), std::string("ended with status 3")}}) {
        SCOPED_TRACE(command);
        set_worker_command_for_tests({"sh", "-c", command});
        ScratchDir dir;
        std::vector<CaseSpec> specs;
        for (const char* name : {"jvm.read-stream-chunks", "jvm.read-channel", "jvm.write-stream"}) {
            CaseSpec c;
            c.strategy = Registry::builtin().find(name);
            c.workload = workload_for(*c.strategy, 64 * 1024, 4096);
            specs.push_back(c);
        }
        RunOptions opts;
        opts.warmup = Amount{0, 0};
        opts.iterations = Amount{3, 0};
        const std::vector<CaseResult> r = run_group(specs, opts, dir, system_clock());
        // The next group starts afresh: its first case tries again.
        const std::vector<CaseResult> again = run_group({specs.front()}, opts, dir, system_clock());
        set_worker_command_for_tests({});
        ASSERT_EQ(r.size(), 3u);
        std::size_t failed = 0, skipped = 0;
        for (const CaseResult& c : r) {
            EXPECT_NE(c.reason.find("the JVM worker did not start"), std::string::npos) << c.reason;
            EXPECT_NE(c.reason.find(said), std::string::npos) << c.reason;
            failed += c.status == Status::failed;
            skipped += c.status == Status::skipped;
            if (c.status == Status::skipped) {
                EXPECT_NE(c.reason.find("in an earlier case of this group"), std::string::npos) << c.reason;
            }
        }
        EXPECT_EQ(failed, 1u);
        EXPECT_EQ(skipped, 2u);
        EXPECT_EQ(again.front().status, Status::failed) << again.front().reason;
    }
}

// The worker client alone: its deadline holds for a greeting that never comes too.
TEST(JvmWorker, AWorkerThatNeverGreetsIsEnded) {
    Worker w({"sh", "-c", "sleep 1000"});
    const pid_t pid = w.pid();
    EXPECT_THROW(w.greeting(0.5), WorkerFailed);
    EXPECT_FALSE(w.running());
    EXPECT_TRUE(gone(pid));
}

// What a worker leaves running in its process group (a wrapper script's children) ends with it.
TEST(JvmWorker, WhatAWorkerLeftRunningEndsWithIt) {
    ScratchDir dir;
    const std::string child = dir.file("child.pid");
    {
        // A worker that answers every request and ends at the end of its input, as the JVM's does,
        // leaving a child behind: the group's end ends it.
        const FakeWorker fake("echo done ns=1");
        set_worker_command_for_tests({"sh", "-c",
                                      "sleep 1000 & echo $! > " + child +
                                          "; echo ready fake $$; while read -r l; do case \"$l\" in ping) echo pong;; "
                                          "run*) echo done ns=1;; *) echo ok;; esac; done"});
        const CaseResult r = run_jvm_case("jvm.write-stream", RunOptions{}, dir);
        EXPECT_NE(r.reason.find("output differs"), std::string::npos) << r.reason;  // it wrote nothing
    }
    const std::string pid = slurp(child);
    ASSERT_FALSE(pid.empty());
    EXPECT_TRUE(gone(std::stoi(pid))) << "the worker's child " << pid << " outlived it";
}

// Under a cache budget a JVM case is skipped: its heap would count against the page cache. A run
// whose only case was skipped measured nothing: it ends with status 1, its result file still written.
TEST(JvmWorker, ACacheBudgetSkipsJvmCasesSayingWhy) {
    if (auto why = no_jvm()) GTEST_SKIP() << *why;
    ScratchDir dir;
    const std::string json = dir.file("r.json");
    const CliResult r = run_cli("run -s jvm.read-channel --size 1M --iterations 3 --cache-budget 64M --quiet --json " +
                                json + " --dir " + dir.path());
    ASSERT_EQ(r.status, 1) << r.err;
    const auto j = nlohmann::json::parse(slurp(json));
    EXPECT_EQ(j["cases"].at(0)["status"], "skipped");
    EXPECT_NE(j["cases"].at(0)["reason"].get<std::string>().find("--cache-budget"), std::string::npos);
}

// The ppid of a process, or -1.
int parent_of(int pid) {
    const std::string stat = slurp(fmt::format("/proc/{}/stat", pid));
    const std::size_t close = stat.rfind(')');
    if (close == std::string::npos) return -1;
    std::istringstream rest(stat.substr(close + 2));
    char state = 0;
    int ppid = -1;
    rest >> state >> ppid;
    return ppid;
}

TEST(JvmWorker, SigintDuringAJvmCaseLeavesNoJvm) {
    if (auto why = no_jvm()) GTEST_SKIP() << *why;
    ScratchDir dir;
    // One byte per call through FileInputStream.read() over 256 MiB: seconds, longer than the wait below.
    const pid_t pid = spawn({"run", "-s", "jvm.read-byte-stream", "--size", "256M", "--byte-slice", "0", "--warmup",
                             "0", "--iterations", "3", "--dir", dir.path(), "--json", dir.file("r.json")},
                            dir.file("out"));
    int jvm = -1;
    ASSERT_TRUE(wait_until(
        [&] {
            for (const int p : pids_mentioning({"iolab.worker.Worker"}))
                if (parent_of(p) == pid) jvm = p;
            return jvm > 0;
        },
        180s))
        << slurp(dir.file("out"));
    ASSERT_EQ(::kill(pid, SIGINT), 0);
    EXPECT_EQ(wait_for(pid, 60s), 130) << slurp(dir.file("out"));
    EXPECT_TRUE(gone(jvm)) << "the JVM worker " << jvm << " outlived iolab";
    EXPECT_TRUE(scratch_folders(dir.path()).empty()) << "scratch folder left behind";
}

}  // namespace
}  // namespace iolab
