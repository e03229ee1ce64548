// The public library iolab::io (include/iolab/io): peek/consume, read_file, write_file_atomic,
// MappedFile, and every public function under the fault matrix (short counts, EINTR, EAGAIN,
// ENOSPC and EIO at its first, middle and last call): a transient fault changes nothing, a hard
// one is an IoError naming the call and the file, and leaves no partial result behind.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "iolab/core/scratch.hpp"
#include "iolab/io.hpp"
#include "iolab/sys/fault.hpp"
#include "support.hpp"

namespace iolab {
namespace {

namespace fs = std::filesystem;
using sys::Fault;

std::string pattern(std::size_t n) {
    std::string s(n, '\0');
    for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 131 + i / 7) % 251);
    return s;
}

void put(const std::string& path, const std::string& content) {
    const sys::Fd fd = sys::open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    sys::write_all(fd, content.data(), content.size());
}

std::string text_of(const std::vector<std::byte>& v) { return {reinterpret_cast<const char*>(v.data()), v.size()}; }

TEST(Library, PeekAndConsumeHandOutEveryByteOnce) {
    ScratchDir dir;
    const std::string content = pattern(1'000'003);
    put(dir.file("in"), content);
    for (std::size_t capacity : {1u, 7u, 4096u, 65536u, 2u << 20}) {
        SCOPED_TRACE(capacity);
        const sys::Fd fd = sys::open(dir.file("in"), O_RDONLY);
        BufferedReader in(fd, capacity);
        std::string seen;
        // Mixed with get() and read(): the same stream of bytes.
        seen.push_back(static_cast<char>(in.get()));
        for (auto bytes = in.peek(); !bytes.empty(); bytes = in.peek()) {
            const std::size_t take = std::max<std::size_t>(1, bytes.size() / 2);  // half at a time
            seen.append(reinterpret_cast<const char*>(bytes.data()), take);
            in.consume(take);
            if (seen.size() % 5 == 0) {
                char c;
                if (in.read(&c, 1) == 1) seen.push_back(c);
            }
        }
        EXPECT_EQ(seen, content);
        EXPECT_TRUE(in.peek().empty());  // and stays so at end of file
        EXPECT_EQ(in.get(), -1);
    }
    const sys::Fd fd = sys::open(dir.file("in"), O_RDONLY);
    BufferedReader in(fd, 16);
    const auto bytes = in.peek();
    EXPECT_THROW(in.consume(bytes.size() + 1), std::out_of_range);
    EXPECT_NO_THROW(in.consume(bytes.size()));
}

// A read that fails does not make the reader hand out again what it had handed out.
TEST(Library, AReaderAfterAFailedReadGoesOnWhereItWas) {
    ScratchDir dir;
    put(dir.file("f"), "ABCDEFGH");
    const sys::Fd fd = sys::open(dir.file("f"), O_RDONLY);
    BufferedReader in(fd, 4);
    char first[4];
    ASSERT_EQ(in.read(first, 4), 4u);
    {
        const sys::ScopedFault armed(sys::fault_at(sys::call_bit(sys::Call::read), 1, 1, Fault::eio));
        EXPECT_THROW(in.get(), IoError);
    }
    EXPECT_EQ(in.get(), 'E');
    const auto rest = in.peek();
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(rest.data()), rest.size()), "FGH");
}

// copy_file: a file that reads shorter than it says (sysfs) is copied as read, not padded; an
// overwrite's temporary name is unique and short, whatever the destination's name.
TEST(Library, CopyFileCopiesWhatIsReadAndOverwritesWithUniqueNames) {
    ScratchDir dir;
    const char* sys_file = "/sys/kernel/mm/transparent_hugepage/enabled";
    if (::access(sys_file, R_OK) == 0) {
        const auto want = read_file(sys_file, no_profile());
        copy_file(sys_file, dir.file("sys"));
        EXPECT_EQ(read_file(dir.file("sys"), no_profile()), want);
    }
    const std::string long_name = dir.file(std::string(250, 'n'));
    put(dir.file("src"), pattern(100000));
    put(long_name, "old");
    CopyOptions o;
    o.overwrite = true;
    EXPECT_NO_THROW(copy_file(dir.file("src"), long_name, o));
    EXPECT_EQ(read_file(long_name, no_profile()), read_file(dir.file("src"), no_profile()));
    std::vector<std::thread> writers;
    std::atomic<int> failures{0};
    for (int t = 0; t < 4; ++t)
        writers.emplace_back([&] {
            for (int i = 0; i < 20; ++i) try {
                    copy_file(dir.file("src"), long_name, o);
                } catch (const IoError&) {
                    ++failures;
                }
        });
    for (auto& w : writers) w.join();
    EXPECT_EQ(failures.load(), 0);
    for (const auto& e : fs::directory_iterator(dir.path()))
        EXPECT_EQ(e.path().filename().string().find(".iolab-copy-"), std::string::npos) << e.path();
}

// A copy's mode is the source's less the umask, never setuid, on a new file and over an old one.
TEST(Library, CopyFileGivesTheSourcesModeLessTheUmask) {
    ScratchDir dir;
    put(dir.file("src"), "data");
    ASSERT_EQ(::chmod(dir.file("src").c_str(), 04755), 0);
    const mode_t old = ::umask(027);
    copy_file(dir.file("src"), dir.file("new"));
    put(dir.file("old"), "x");
    ASSERT_EQ(::chmod(dir.file("old").c_str(), 0600), 0);
    CopyOptions o;
    o.overwrite = true;
    copy_file(dir.file("src"), dir.file("old"), o);
    EXPECT_EQ(process_umask(), 027u);
    ::umask(old);
    for (const char* name : {"new", "old"}) {
        struct stat st {};
        ASSERT_EQ(::stat(dir.file(name).c_str(), &st), 0);
        EXPECT_EQ(st.st_mode & 07777, 0750u) << name;
    }
}

TEST(Library, ReadFileReadsWholeFilesOfAnySize) {
    ScratchDir dir;
    for (std::size_t n : {0u, 1u, 4095u, 4096u, 3u << 20}) {
        const std::string content = pattern(n);
        put(dir.file("f"), content);
        EXPECT_EQ(text_of(read_file(dir.file("f"))), content) << n;
    }
    // A file larger than memory (sparse: it takes no room) is refused before any memory is taken.
    {
        const sys::Fd huge = sys::open(dir.file("huge"), O_WRONLY | O_CREAT | O_EXCL, 0600);
        const auto memory = static_cast<off_t>(::sysconf(_SC_PHYS_PAGES)) * static_cast<off_t>(::sysconf(_SC_PAGESIZE));
        sys::ftruncate(huge, memory + 4096);
    }
    try {
        read_file(dir.file("huge"));
        ADD_FAILURE() << "no error";
    } catch (const IoError& e) {
        EXPECT_EQ(e.code(), EFBIG) << e.what();
    }
    // A file that says it is empty but is not (/proc): read to its end all the same.
    const auto status = read_file("/proc/self/status");
    EXPECT_NE(text_of(status).find("Name:"), std::string::npos);
    try {
        read_file(dir.file("missing"));
        ADD_FAILURE() << "no error";
    } catch (const IoError& e) {
        EXPECT_EQ(e.code(), ENOENT);
        EXPECT_NE(std::string(e.what()).find(dir.file("missing")), std::string::npos) << e.what();
    }
}

TEST(Library, WriteFileAtomicReplacesWholeOrNotAtAll) {
    ScratchDir dir;
    const std::string path = dir.file("state");
    std::vector<std::string> tracked;
    AtomicWriteOptions o;
    o.track_temporary = [&](const std::string& tmp, bool made) { tracked.push_back((made ? "+" : "-") + tmp); };
    write_file_atomic(path, std::string_view("one"), o);
    EXPECT_EQ(text_of(read_file(path)), "one");
    ASSERT_EQ(tracked.size(), 2u);  // made, then gone
    EXPECT_EQ(tracked[0].substr(1), tracked[1].substr(1));
    EXPECT_FALSE(fs::exists(tracked[0].substr(1)));
    // A replaced file keeps its mode.
    ASSERT_EQ(::chmod(path.c_str(), 0640), 0);
    write_file_atomic(path, std::string_view("two"));
    struct stat st {};
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0640u);
    EXPECT_EQ(text_of(read_file(path)), "two");
    // replace = false: refused, and the file is untouched.
    AtomicWriteOptions keep;
    keep.replace = false;
    try {
        write_file_atomic(path, std::string_view("three"), keep);
        ADD_FAILURE() << "replaced";
    } catch (const IoError& e) {
        EXPECT_EQ(e.code(), EEXIST);
    }
    EXPECT_EQ(text_of(read_file(path)), "two");
    // Only the file and the scratch folder's lock: no temporary file left.
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir.path()))
        if (!ScratchDir::bookkeeping(e.path().filename().string())) names.push_back(e.path().filename().string());
    EXPECT_EQ(names, (std::vector<std::string>{"state"}));
}

TEST(Library, MappedFileSeesTheFile) {
    ScratchDir dir;
    const std::string content = pattern(1 << 20);
    put(dir.file("m"), content);
    for (auto a : {MappedFile::Access::normal, MappedFile::Access::sequential, MappedFile::Access::random,
                   MappedFile::Access::willneed}) {
        const MappedFile f(dir.file("m"), a);
        ASSERT_EQ(f.size(), content.size());
        EXPECT_TRUE(std::equal(f.bytes().begin(), f.bytes().end(), reinterpret_cast<const std::byte*>(content.data())));
    }
    put(dir.file("empty"), "");
    EXPECT_EQ(MappedFile(dir.file("empty")).size(), 0u);
    EXPECT_THROW(MappedFile(dir.file("none")), IoError);
}

// One public function, run on a fresh folder: it either does all of its work (checked by `ok`)
// or throws IoError and leaves `clean` true (no partial result).
struct PublicCall {
    const char* name;
    std::function<void(const ScratchDir&)> setup;
    std::function<void(const ScratchDir&)> run;
    std::function<bool(const ScratchDir&)> ok;     // the whole work was done
    std::function<bool(const ScratchDir&)> clean;  // after an error: nothing partial
};

std::vector<PublicCall> public_calls() {
    const std::string content = pattern(300'000);
    const auto has = [content](const std::string& path) {
        return fs::exists(path) && text_of(read_file(path)) == content;
    };
    const auto only = [](const ScratchDir& d, std::vector<std::string> want) {
        std::vector<std::string> names;
        for (const auto& e : fs::directory_iterator(d.path()))
            if (!ScratchDir::bookkeeping(e.path().filename().string())) names.push_back(e.path().filename().string());
        std::sort(names.begin(), names.end());
        std::sort(want.begin(), want.end());
        return names == want;
    };
    const auto with_input = [content](const ScratchDir& d) { put(d.file("in"), content); };
    return {
        {"read_file", with_input, [](const ScratchDir& d) { (void)read_file(d.file("in")); },
         [](const ScratchDir&) { return true; }, [](const ScratchDir&) { return true; }},
        {"write_file_atomic", [](const ScratchDir& d) { put(d.file("out"), "old"); },
         [content](const ScratchDir& d) { write_file_atomic(d.file("out"), std::string_view(content)); },
         [has](const ScratchDir& d) { return has(d.file("out")); },
         // The old file or the new one, whole (the last call, the folder's fsync, comes after the
         // rename), never a mix, and no temporary file.
         [only, has](const ScratchDir& d) {
             return (text_of(read_file(d.file("out"))) == "old" || has(d.file("out"))) && only(d, {"out"});
         }},
        {"copy_file", with_input, [](const ScratchDir& d) { copy_file(d.file("in"), d.file("out")); },
         [has](const ScratchDir& d) { return has(d.file("out")); },
         [only](const ScratchDir& d) { return only(d, {"in"}); }},
        {"BufferedReader", with_input,
         [content](const ScratchDir& d) {
             const sys::Fd fd = sys::open(d.file("in"), O_RDONLY);
             BufferedReader in(fd, 4096);
             std::string seen;
             for (auto b = in.peek(); !b.empty(); b = in.peek()) {
                 seen.append(reinterpret_cast<const char*>(b.data()), b.size());
                 in.consume(b.size());
             }
             if (seen != content) throw std::logic_error("the reader lost bytes");
         },
         [](const ScratchDir&) { return true; }, [](const ScratchDir&) { return true; }},
        {"BufferedWriter", [](const ScratchDir&) {},
         [content](const ScratchDir& d) {
             const sys::Fd fd = sys::open(d.file("out"), O_WRONLY | O_CREAT | O_EXCL, 0600);
             BufferedWriter w(fd, 4096);
             for (std::size_t i = 0; i < content.size(); i += 1000)
                 w.write(content.data() + i, std::min<std::size_t>(1000, content.size() - i));
             w.flush();
         },
         [has](const ScratchDir& d) { return has(d.file("out")); },
         [](const ScratchDir&) { return true; }},  // a writer's caller owns its partial file
        {"MappedFile", with_input,
         [content](const ScratchDir& d) {
             const MappedFile f(d.file("in"));
             if (f.size() != content.size()) throw std::logic_error("short mapping");
         },
         [](const ScratchDir&) { return true; }, [](const ScratchDir&) { return true; }},
    };
}

TEST(Library, EveryPublicFunctionUnderTheFaultMatrix) {
    (void)profile();  // loaded once per process, by the first call that uses it: not inside a count
    int cells = 0;
    for (const PublicCall& call : public_calls()) {
        // A clean run tells how many calls there are to aim at (every call but close and munmap,
        // which run in destructors and are never faulted).
        const std::uint64_t mask = ~(sys::call_bit(sys::Call::close) | sys::call_bit(sys::Call::munmap));
        std::uint64_t calls = 0;
        {
            ScratchDir d;
            call.setup(d);
            const sys::Counters before = sys::thread_counters();
            call.run(d);
            const sys::Counters made = sys::thread_counters() - before;
            ASSERT_TRUE(call.ok(d)) << call.name;
            for (std::size_t c = 0; c < sys::kCallKinds; ++c)
                if (mask & (std::uint64_t{1} << c)) calls += made.calls[c];
        }
        ASSERT_GT(calls, 2u) << call.name;
        for (Fault fault : {Fault::short_count, Fault::eintr, Fault::eagain, Fault::enospc, Fault::eio})
            for (std::uint64_t at : {std::uint64_t{1}, (calls + 1) / 2, calls}) {
                SCOPED_TRACE(fmt::format("{}: {} at call {} of {}", call.name, sys::fault_name(fault), at, calls));
                ++cells;
                ScratchDir d;
                call.setup(d);
                const bool transient = fault == Fault::short_count || fault == Fault::eintr || fault == Fault::eagain;
                try {
                    {
                        const sys::ScopedFault armed(sys::fault_at(mask, at, 1, fault));
                        call.run(d);
                    }
                    EXPECT_TRUE(transient) << "success claimed despite the fault";
                    EXPECT_TRUE(call.ok(d));
                } catch (const IoError& e) {
                    EXPECT_FALSE(transient) << "transient fault not absorbed: " << e.what();
                    EXPECT_TRUE(std::string(e.what()).starts_with("cannot ")) << e.what();
                    EXPECT_NE(std::string(e.what()).find(d.path()), std::string::npos)
                        << "the error does not name the file: " << e.what();
                    EXPECT_TRUE(call.clean(d)) << "a partial result was left";
                }
            }
    }
    EXPECT_EQ(cells, 6 * 5 * 3);
}

}  // namespace
}  // namespace iolab
