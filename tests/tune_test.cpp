// The library's profile (include/iolab/io/profile.hpp) and iolab tune: a profile is read back as
// written, ignored with a reason when it is another machine's, another version's or unreadable;
// read_file, copy_file and the buffered classes follow its choice only for files on the
// filesystem it was measured on; iolab tune writes one from verified cases only.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>

#include <string>

#include "iolab/core/scratch.hpp"
#include "iolab/harness/plan.hpp"
#include "iolab/io.hpp"
#include "iolab/report/analysis/tune.hpp"
#include "support.hpp"

namespace iolab {
namespace {

std::uint64_t device_of(const std::string& path) {
    struct stat st {};
    EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
    return st.st_dev;
}

Profile here(const ScratchDir& dir) {
    Profile p;
    p.version = std::string(library_version());
    p.machine = this_machine();
    p.device = device_of(dir.path());
    p.folder = dir.path();
    return p;
}

void put(const std::string& path, std::size_t n) {
    std::string s(n, 'x');
    for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>(i * 7 + i / 13);
    write_file_atomic(path, std::string_view(s));
}

TEST(Tune, AProfileReadsBackAsWrittenAndIsIgnoredWithAReason) {
    ScratchDir dir;
    Profile p = here(dir);
    p.choices["read.small"] = {"read", 0, 123.4};
    p.choices["copy.large"] = {"sendfile", 1 << 20, 99.0};
    p.read_buffer = 256 << 10;
    p.write_buffer = 1 << 20;
    write_file_atomic(dir.file("profile"), p.text());
    const Profile back = load_profile(dir.file("profile"));
    ASSERT_TRUE(back.usable()) << back.ignored;
    EXPECT_EQ(back.choices.at("read.small").method, "read");
    EXPECT_EQ(back.choices.at("copy.large").buffer, 1u << 20);
    EXPECT_DOUBLE_EQ(back.choices.at("copy.large").mib_s, 99.0);
    EXPECT_EQ(back.read_buffer, 256u << 10);
    EXPECT_EQ(back.text(), p.text());
    // Which class a size is in, and only on its own filesystem.
    EXPECT_NE(back.choice("read", 1000, p.device), nullptr);
    EXPECT_EQ(back.choice("read", 2 << 20, p.device), nullptr);  // medium: not in it
    EXPECT_EQ(back.choice("read", 1000, p.device + 1), nullptr);

    const auto ignored = [&](Profile q, const char* why) {
        write_file_atomic(dir.file("other"), q.text());
        const Profile r = load_profile(dir.file("other"));
        EXPECT_FALSE(r.usable());
        EXPECT_NE(r.ignored.find(why), std::string::npos) << r.ignored;
    };
    Profile other_machine = p;
    other_machine.machine = "somewhere-else";
    ignored(other_machine, "another machine (somewhere-else)");
    Profile older = p;
    older.version = "0.0.1";
    ignored(older, "made by iolab 0.0.1");
    write_file_atomic(dir.file("bad"), std::string_view("version = 0.1.0\nread.small = teleport 0 1.0\n"));
    EXPECT_NE(load_profile(dir.file("bad")).ignored.find(":2: cannot read 'read.small = teleport 0 1.0'"),
              std::string::npos)
        << load_profile(dir.file("bad")).ignored;
    EXPECT_NE(load_profile(dir.file("none")).ignored.find("no profile at"), std::string::npos);
    // What it cannot read is quoted without control characters, and nothing of it is kept.
    write_file_atomic(dir.file("ctl"), std::string_view("version = 0.1.0\x01\nbuffer.read = 65536\n"));
    const Profile ctl = load_profile(dir.file("ctl"));
    EXPECT_NE(ctl.ignored.find("cannot read 'version = 0.1.0?'"), std::string::npos) << ctl.ignored;
    EXPECT_TRUE(ctl.version.empty());
    // Never waits on a FIFO nor reads a device; buffers outside 4 KiB..1 GiB are not taken.
    ASSERT_EQ(::mkfifo(dir.file("fifo").c_str(), 0600), 0);
    EXPECT_NE(load_profile(dir.file("fifo")).ignored.find("not a regular file"), std::string::npos);
    EXPECT_NE(load_profile("/dev/zero").ignored.find("not a regular file"), std::string::npos);
    for (const char* line : {"buffer.read = 1", "buffer.read = 2147483648", "read.small = read 7 1.0",
                             "read.small = mmap 0 1.0",      // never a mapping: SIGBUS
                             "read.small = sendfile 0 1.0",  // not a way to read
                             "copy.small = read 4096 1.0",   // not a way to copy
                             "read.small = read 4096 inf",   // not a rate
                             "device = 1\ndevice = 2"}) {    // a key twice
        write_file_atomic(dir.file("tiny"), std::string_view(line));
        EXPECT_NE(load_profile(dir.file("tiny")).ignored.find("cannot read"), std::string::npos) << line;
    }
}

TEST(Tune, ReadFileFollowsTheProfilesChoice) {
    ScratchDir dir;
    put(dir.file("f"), 300000);
    const std::vector<std::byte> want = read_file(dir.file("f"), no_profile());
    const auto calls = [&](const Profile& p, sys::Call c) {
        const sys::Counters before = sys::thread_counters();
        EXPECT_EQ(read_file(dir.file("f"), p), want);
        return (sys::thread_counters() - before).calls[static_cast<std::size_t>(c)];
    };
    EXPECT_EQ(calls(no_profile(), sys::Call::mmap), 0u);
    EXPECT_EQ(calls(no_profile(), sys::Call::read), 2u);  // all of it, then end of file
    Profile reads = here(dir);
    reads.choices["read.small"] = {"read", 4096, 1};
    EXPECT_EQ(calls(reads, sys::Call::read), (300000 + 4095) / 4096 + 1);
    reads.device += 1;  // measured on another filesystem: not for this file
    EXPECT_EQ(calls(reads, sys::Call::read), 2u);
}

TEST(Tune, CopyFileAndTheBufferedClassesFollowTheProfile) {
    ScratchDir dir;
    put(dir.file("src"), 3 << 20);
    Profile p = here(dir);
    p.choices["copy.medium"] = {"read/write", 65536, 1};
    CopyOptions o;
    o.profile = &p;
    const CopyResult r = copy_file(dir.file("src"), dir.file("a"), o);
    if (r.methods.front() != CopyMethod::reflink) {  // a reflink comes first where it works
        EXPECT_EQ(r.methods, std::vector<CopyMethod>{CopyMethod::read_write});
        o.profile = &no_profile();
        EXPECT_NE(copy_file(dir.file("src"), dir.file("b"), o).methods.front(), CopyMethod::read_write);
    }
    EXPECT_EQ(read_file(dir.file("a"), no_profile()), read_file(dir.file("src"), no_profile()));

    p.read_buffer = 12345;
    p.write_buffer = 54321;
    const sys::Fd fd = sys::open(dir.file("src"), O_RDONLY);
    EXPECT_EQ(tuned_buffer(fd, true, p), 12345u);
    EXPECT_EQ(tuned_buffer(fd, false, p), 54321u);
    EXPECT_EQ(tuned_buffer(fd, true, no_profile()), kDefaultBufferSize);
    p.device += 1;
    EXPECT_EQ(tuned_buffer(fd, true, p), kDefaultBufferSize);
    EXPECT_EQ(BufferedReader(fd, 4096).capacity(), 4096u);  // an explicit size is kept
}

TEST(Tune, TheProfileKeepsEachGroupsFastestVerifiedCase) {
    Report r;
    const auto add = [&](const char* group, const char* strategy, std::size_t buffer, double mib_s, bool verified) {
        PlanRequest req;
        req.strategies = {strategy};
        req.sizes = {std::string(group) == "read-medium" ? 8u << 20 : 256u << 10};
        req.buffers = {buffer};
        CaseResult c;
        c.spec = build_plan(req).at(0);
        c.spec.group = group;
        c.status = Status::ok;
        // Six steady samples at that rate: stable.
        for (int i = 0; i < 6; ++i) {
            Sample smp;
            smp.bytes = c.spec.workload.bytes();
            smp.wall_s = static_cast<double>(smp.bytes) / (mib_s * (1 << 20)) * (1 + 0.001 * i);
            c.samples.push_back(smp);
        }
        finish(c, RunOptions{}, 1e-9);
        c.verified = verified;
        r.cases.push_back(c);
    };
    add("read-small", "read.chunk", 64u << 10, 100, true);
    add("read-small", "read.chunk", 256u << 10, 300, true);        // the whole file in one read
    add("read-small", "read.mmap-chunks", 64u << 10, 900, false);  // faster, but not verified
    add("copy-small", "copy.sendfile", 64u << 10, 50, true);
    add("read-medium", "read.chunk", 64u << 10, 80, true);
    add("read-medium", "read.chunk", 8u << 20, 99, true);  // over 1 MiB: not a buffer for a reader
    const Profile p = profile_from(r, "/data", 42);
    EXPECT_EQ(p.choices.at("read.small").method, "read");
    EXPECT_EQ(p.choices.at("read.small").buffer, 0u);
    EXPECT_EQ(p.choices.at("copy.small").method, "sendfile");
    EXPECT_EQ(p.choices.count("copy.large"), 0u);
    EXPECT_EQ(p.read_buffer, 64u << 10);
    EXPECT_EQ(p.device, 42u);
}

// Noise decides nothing: a group whose fastest median is unstable gets no choice (the library
// keeps its default) and says why; a tie goes to the smaller buffer.
TEST(Tune, ANoisyWinnerIsChosenWhenSurelyFasterAndATieTheSmallerBuffer) {
    Report r;
    const auto add = [&](const char* group, const char* strategy, std::size_t buffer, std::vector<double> ms) {
        PlanRequest req;
        req.strategies = {strategy};
        req.sizes = {256u << 10};
        req.buffers = {buffer};
        CaseResult c;
        c.spec = build_plan(req).at(0);
        c.spec.group = group;
        c.status = Status::ok;
        for (double t : ms) {
            Sample smp;
            smp.bytes = c.spec.workload.bytes();
            smp.wall_s = t * 1e-3;
            c.samples.push_back(smp);
        }
        finish(c, RunOptions{}, 1e-9);
        c.verified = true;
        c.checked = Checked::content;
        r.cases.push_back(c);
    };
    // copy-small: sendfile varies ±50 %, but its whole interval against copy_file_range (steady,
    // twice as slow) lies beyond the margin: noise vetoes nothing, and sendfile is the choice.
    add("copy-small", "copy.sendfile", 64u << 10, {1.0, 0.5, 1.5, 0.6, 0.9, 1.4, 0.55});
    add("copy-small", "copy.copy-file-range", 64u << 10, {2.0, 2.01, 1.99, 2.0, 2.02, 1.98, 2.0});
    // read-small: 64K and 256K tied (the same times): the smaller buffer is the choice.
    add("read-small", "read.chunk", 256u << 10, {1.0, 1.01, 0.99, 1.0, 1.02, 0.98});
    add("read-small", "read.chunk", 64u << 10, {1.0, 1.01, 0.99, 1.0, 1.02, 0.98});
    std::vector<std::string> notes;
    const Profile p = profile_from(r, "/data", 42, &notes);
    ASSERT_EQ(p.choices.count("copy.small"), 1u);
    EXPECT_EQ(p.choices.at("copy.small").method, "sendfile");
    ASSERT_EQ(p.choices.count("read.small"), 1u);
    EXPECT_EQ(p.choices.at("read.small").buffer, 64u << 10);
    // The tie is said: the other case of the winner group would do as well.
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_NE(notes[0].find("read.small: read.chunk buffer=64K, picked"), std::string::npos) << notes[0];
    EXPECT_NE(notes[0].find("as good here: read.chunk buffer=256K"), std::string::npos) << notes[0];
}

TEST(Tune, TheCommandWritesAProfileTheLibraryUses) {
    ScratchDir dir, results;
    const auto r = test::run_cli("tune --smoke -q --dir " + dir.path() + " --profile " + results.file("p"));
    ASSERT_EQ(r.status, 0) << r.err << r.out;
    const Profile p = load_profile(results.file("p"));
    EXPECT_TRUE(p.usable()) << p.ignored;
    EXPECT_EQ(p.device, device_of(dir.path()));
    // Each choice is made, or (a smoke run's one sample says nothing) named as kept at the default.
    for (const char* key : {"read.small", "read.medium", "read.large", "copy.small", "copy.medium", "copy.large"})
        EXPECT_TRUE(p.choices.count(key) == 1 ||
                    r.out.find(std::string(key) + ": no stable winner") != std::string::npos)
            << key << "\n"
            << r.out;
    // Where the profile goes is checked before anything is measured.
    const auto folder = test::run_cli("tune --smoke -q --dir " + dir.path() + " --profile " + results.path());
    EXPECT_EQ(folder.status, 2) << folder.err;
    EXPECT_NE(folder.err.find("not a regular file"), std::string::npos) << folder.err;
    // --smoke alone writes nothing; a folder that is not there is bad input.
    const auto smoke = test::run_cli("tune --smoke -q --dir " + dir.path());
    EXPECT_EQ(smoke.status, 0) << smoke.err;
    EXPECT_NE(smoke.out.find("no profile written"), std::string::npos) << smoke.out;
    const auto bad = test::run_cli("tune --smoke --dir /nonexistent-iolab");
    EXPECT_EQ(bad.status, 2);
    EXPECT_NE(bad.err.find("/nonexistent-iolab"), std::string::npos) << bad.err;
}

// A profile is read back before tune says it is in use, and where the library reads it from.
TEST(Tune, TheProfileIsReadBackAndSaidInUseOnlyWhereTheLibraryReadsIt) {
    ScratchDir dir, results;
    auto r = test::run_cli("tune --smoke -q --dir " + dir.path() + " --profile " + results.file("p"));
    ASSERT_EQ(r.status, 0) << r.err << r.out;
    EXPECT_NE(r.out.find("and read back; the library reads"), std::string::npos) << r.out;
    ::setenv("XDG_CONFIG_HOME", results.path().c_str(), 1);
    r = test::run_cli("tune --smoke -q --dir " + dir.path() + " --profile " + results.file("iolab/profile"));
    ::unsetenv("XDG_CONFIG_HOME");
    ASSERT_EQ(r.status, 0) << r.err << r.out;
    EXPECT_NE(r.out.find("and read back: read_file, copy_file"), std::string::npos) << r.out;
    // A folder whose name would end the profile's line, and start one of its own, is refused
    // before anything is measured (it made a profile the library ignored whole, "a key twice").
    const std::string odd = dir.file("a\nread.small = read 0 1.0");
    ASSERT_EQ(::mkdir(odd.c_str(), 0700), 0);
    r = test::run_cli("tune --smoke -q --dir '" + odd + "' --profile " + results.file("odd"));
    EXPECT_EQ(r.status, 2) << r.err << r.out;
    EXPECT_NE(r.err.find("holds a control character"), std::string::npos) << r.err;
    EXPECT_NE(load_profile(results.file("odd")).ignored.find("no profile at"), std::string::npos);
    // A --profile that is a link is refused before anything is measured (it was replaced only
    // after the run, and failed with status 1).
    ASSERT_EQ(::symlink(results.file("p").c_str(), results.file("plink").c_str()), 0);
    r = test::run_cli("tune --smoke -q --dir " + dir.path() + " --profile " + results.file("plink"));
    EXPECT_EQ(r.status, 2) << r.err << r.out;
    EXPECT_NE(r.err.find("(a symbolic link)"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
    // What a line break in a value does to a profile: the library ignores it whole.
    Profile p = load_profile(results.file("p"));
    p.choices["read.small"] = {"read", 1 << 20, 100.0};
    ASSERT_TRUE(parse_profile(p.text(), "x").usable());
    p.folder = odd;
    EXPECT_FALSE(parse_profile(p.text(), "x").usable());
}

}  // namespace
}  // namespace iolab
