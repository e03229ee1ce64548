// The pieces under the strategies: sizes, generated data, checksums, the buffered reader and
// writer, the scratch folder and the syscall layer's counting and retries.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "iolab/core/buffered.hpp"
#include "iolab/core/checksum.hpp"
#include "iolab/core/data.hpp"
#include "iolab/core/scratch.hpp"
#include "iolab/core/units.hpp"
#include "iolab/sys/error.hpp"
#include "iolab/sys/fault.hpp"
#include "iolab/sys/io.hpp"

namespace iolab {
namespace {

TEST(Units, ParsesBinarySizes) {
    EXPECT_EQ(parse_size("0"), 0u);
    EXPECT_EQ(parse_size("4096"), 4096u);
    EXPECT_EQ(parse_size("512B"), 512u);
    EXPECT_EQ(parse_size("4K"), 4096u);
    EXPECT_EQ(parse_size("4k"), 4096u);
    EXPECT_EQ(parse_size("64KiB"), 65536u);
    EXPECT_EQ(parse_size("1M"), 1u << 20);
    EXPECT_EQ(parse_size("1.5G"), 3ull << 29);
    EXPECT_EQ(parse_size("2TB"), 2ull << 40);
}

TEST(Units, RejectsMalformedSizesNamingThem) {
    for (const char* bad : {"12Q", "-1", "", "K", "1.3B", "1e3", "4 KX", "99999999999T"}) {
        try {
            parse_size(bad);
            ADD_FAILURE() << "accepted " << bad;
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos) << e.what();
        }
    }
}

TEST(Units, ErrorsStayOneLineWhateverWasTyped) {
    // Found by fuzz_units: a value with a line break made a two-line error.
    for (const char* bad : {"/\n", "4K\r\nrm", "\x01\x7f"}) {
        try {
            parse_size(bad);
            ADD_FAILURE() << "accepted";
        } catch (const std::invalid_argument& e) {
            EXPECT_EQ(std::string(e.what()).find_first_of("\n\r"), std::string::npos) << e.what();
        }
    }
    EXPECT_EQ(one_line("a\nb\x01"), "a\\nb\\x01");
}

TEST(Units, RatesAndFormatting) {
    EXPECT_EQ(parse_rate("1MiB/s"), 1048576.0);
    EXPECT_EQ(parse_rate("512K"), 524288.0);
    EXPECT_THROW(parse_rate("0/s"), std::invalid_argument);
    EXPECT_THROW(parse_rate("fast"), std::invalid_argument);
    EXPECT_EQ(format_size(1000), "1000 B");
    EXPECT_EQ(format_size(4095), "3.999 KiB");
    EXPECT_EQ(format_size(64ull << 20), "64 MiB");
    EXPECT_EQ(format_size(3ull << 29), "1.5 GiB");
    EXPECT_EQ(format_compact(65536), "64K");
    EXPECT_EQ(format_compact(4097), "4097");
}

TEST(Data, IsReproducibleAndIndependentOfHowItIsCut) {
    for (const char* kind : {"random", "text", "zeros", "compressible:3"}) {
        const DataSpec spec = parse_data_spec(kind);
        std::vector<std::byte> whole(300000), pieces(300000);
        fill(spec, 0, whole);
        // The same stream generated in odd pieces at odd offsets.
        for (std::size_t off = 0; off < pieces.size();) {
            const std::size_t n = std::min<std::size_t>(pieces.size() - off, 7919);
            fill(spec, off, std::span(pieces.data() + off, n));
            off += n;
        }
        EXPECT_EQ(whole, pieces) << kind;
        EXPECT_EQ(checksum(whole), reference_checksum(spec, whole.size())) << kind;
    }
}

TEST(Data, KindsHaveTheirShape) {
    std::vector<std::byte> buf(1 << 16);
    fill(parse_data_spec("text"), 0, buf);
    int newlines = 0;
    for (auto b : buf) {
        const auto c = static_cast<unsigned char>(b);
        EXPECT_TRUE(c == '\n' || (c >= 32 && c < 127));
        newlines += c == '\n';
    }
    EXPECT_EQ(newlines, (1 << 16) / 72);
    fill(parse_data_spec("zeros"), 0, buf);
    EXPECT_EQ(std::count(buf.begin(), buf.end(), std::byte{0}), 1 << 16);
    fill(parse_data_spec("compressible:4"), 0, buf);
    const auto zeros = std::count(buf.begin(), buf.end(), std::byte{0});
    EXPECT_GE(zeros, (1 << 16) * 3 / 4);
    EXPECT_LT(zeros, (1 << 16) * 4 / 5);
    EXPECT_THROW(parse_data_spec("compressible:0.5"), std::invalid_argument);
    EXPECT_THROW(parse_data_spec("noise"), std::invalid_argument);
}

TEST(Checksum, StreamingEqualsOneShotAndFilesAgree) {
    std::vector<std::byte> buf(100000);
    fill(DataSpec{}, 0, buf);
    Hasher h;
    h.update(buf.data(), 1);
    h.update(buf.data() + 1, buf.size() - 1);
    EXPECT_EQ(h.digest(), checksum(buf));
    EXPECT_NE(checksum(std::span(buf.data(), buf.size() - 1)), checksum(buf));
    ScratchDir dir;
    const sys::Fd fd = sys::open(dir.file("f"), O_WRONLY | O_CREAT | O_EXCL);
    sys::write_all(fd, buf.data(), buf.size());
    const FileDigest d = checksum_file(dir.file("f"));
    EXPECT_EQ(d.checksum, checksum(buf));
    EXPECT_EQ(d.size, buf.size());
}

TEST(Buffered, ReaderMixesBytesAndBlocksAcrossRefills) {
    ScratchDir dir;
    std::vector<std::byte> data(10007);
    fill(DataSpec{}, 0, data);
    {
        const sys::Fd fd = sys::open(dir.file("in"), O_WRONLY | O_CREAT | O_EXCL);
        sys::write_all(fd, data.data(), data.size());
    }
    const sys::Fd in = sys::open(dir.file("in"), O_RDONLY);
    BufferedReader r(in, 100);
    std::vector<std::byte> got;
    std::vector<std::byte> block(333);
    for (int round = 0;; ++round) {
        if (round % 2 == 0) {
            const int c = r.get();
            if (c < 0) break;
            got.push_back(static_cast<std::byte>(c));
        } else {
            // Alternate small reads (through the buffer) and large ones (around it).
            const std::size_t want = round % 4 == 1 ? 37 : block.size();
            const std::size_t n = r.read(block.data(), want);
            got.insert(got.end(), block.begin(), block.begin() + static_cast<long>(n));
            if (n < want) break;
        }
    }
    EXPECT_EQ(got, data);
    EXPECT_EQ(r.get(), -1);
}

TEST(Buffered, WriterMixesBytesAndBlocksAndCountsFewCalls) {
    ScratchDir dir;
    std::vector<std::byte> data(10007);
    fill(DataSpec{}, 0, data);
    const sys::Counters before = sys::thread_counters();
    {
        const sys::Fd out = sys::open(dir.file("out"), O_WRONLY | O_CREAT | O_EXCL);
        BufferedWriter w(out, 4096);
        std::size_t i = 0;
        while (i < data.size()) {
            const std::size_t n = std::min<std::size_t>(i % 3 == 0 ? 1 : (i % 3 == 1 ? 700 : 5000), data.size() - i);
            if (n == 1) {
                w.put(static_cast<unsigned char>(data[i]));
            } else {
                w.write(data.data() + i, n);
            }
            i += n;
        }
        w.flush();
    }
    const sys::Counters made = sys::thread_counters() - before;
    EXPECT_LT(made.calls[static_cast<std::size_t>(sys::Call::write)], 10u);
    EXPECT_EQ(made.bytes[static_cast<std::size_t>(sys::Call::write)], data.size());
    EXPECT_EQ(checksum_file(dir.file("out")).checksum, checksum(data));
}

TEST(Scratch, IsPrivateAndRemovedWithoutFollowingLinks) {
    ScratchDir outside;
    const std::string sentinel = outside.file("sentinel");
    { const sys::Fd fd = sys::open(sentinel, O_WRONLY | O_CREAT | O_EXCL); }
    std::string path;
    {
        ScratchDir d;
        path = d.path();
        struct stat st {};
        ASSERT_EQ(::stat(path.c_str(), &st), 0);
        EXPECT_EQ(st.st_mode & 0777, 0700u);
        ASSERT_EQ(::mkdir(d.file("sub").c_str(), 0700), 0);
        { const sys::Fd fd = sys::open(d.file("sub/f"), O_WRONLY | O_CREAT | O_EXCL); }
        ASSERT_EQ(::symlink(outside.path().c_str(), d.file("link").c_str()), 0);
        ASSERT_EQ(::symlink(sentinel.c_str(), d.file("sub/filelink").c_str()), 0);
    }
    struct stat st {};
    EXPECT_NE(::stat(path.c_str(), &st), 0) << "scratch folder left behind";
    EXPECT_EQ(::stat(sentinel.c_str(), &st), 0) << "cleanup followed a symlink out of the scratch folder";
}

TEST(Syscalls, CountsCallsAndBytes) {
    ScratchDir dir;
    const sys::Counters before = sys::thread_counters();
    const sys::Fd fd = sys::open(dir.file("f"), O_RDWR | O_CREAT | O_EXCL);
    sys::write_all(fd, "hello", 5);
    char buf[8];
    EXPECT_EQ(sys::pread_full(fd, buf, sizeof buf, 0), 5u);
    const sys::Counters d = sys::thread_counters() - before;
    EXPECT_EQ(d.calls[static_cast<std::size_t>(sys::Call::open)], 1u);
    EXPECT_EQ(d.calls[static_cast<std::size_t>(sys::Call::write)], 1u);
    EXPECT_EQ(d.bytes[static_cast<std::size_t>(sys::Call::write)], 5u);
    // pread_full: one call for 5 bytes, one more that finds end of file.
    EXPECT_EQ(d.calls[static_cast<std::size_t>(sys::Call::pread)], 2u);
    EXPECT_EQ(d.data_calls(), 3u);
}

TEST(Syscalls, ShortCountsLoopAndTransientErrorsRetry) {
    ScratchDir dir;
    const sys::Fd fd = sys::open(dir.file("f"), O_RDWR | O_CREAT | O_EXCL);
    std::vector<char> data(1000, 'x');
    {
        sys::ScopedFault f(sys::fault_at(sys::write_calls_mask(), 1, 3, sys::Fault::short_count));
        sys::write_all(fd, data.data(), data.size());
        EXPECT_EQ(sys::faults_fired(), 3u);
    }
    EXPECT_EQ(sys::file_size(fd), 1000u);
    for (auto fault : {sys::Fault::eintr, sys::Fault::eagain}) {
        sys::ScopedFault f(sys::fault_at(sys::read_calls_mask(), 1, 2, fault));
        std::vector<char> back(1000);
        EXPECT_EQ(sys::pread_full(fd, back.data(), back.size(), 0), 1000u);
        EXPECT_EQ(back, data);
        EXPECT_EQ(sys::faults_fired(), 2u);
    }
}

TEST(Syscalls, HardErrorsNameTheCallAndPath) {
    ScratchDir dir;
    const std::string path = dir.file("f");
    const sys::Fd fd = sys::open(path, O_WRONLY | O_CREAT | O_EXCL);
    sys::ScopedFault f(sys::fault_at(sys::write_calls_mask(), 1, 1, sys::Fault::enospc));
    try {
        sys::write_all(fd, "x", 1);
        FAIL() << "no error";
    } catch (const IoError& e) {
        EXPECT_EQ(e.code(), ENOSPC);
        EXPECT_EQ(std::string(e.what()), "cannot write " + path + ": No space left on device");
    }
    try {
        sys::open(dir.file("missing/x"), O_RDONLY);
        FAIL() << "no error";
    } catch (const IoError& e) {
        EXPECT_EQ(e.code(), ENOENT);
        EXPECT_EQ(e.op(), "open");
    }
}

TEST(Syscalls, VectoredWriteSurvivesShortCounts) {
    ScratchDir dir;
    const sys::Fd fd = sys::open(dir.file("f"), O_RDWR | O_CREAT | O_EXCL);
    std::string a(100, 'a'), b(50, 'b'), c(70, 'c');
    iovec iov[3] = {{a.data(), a.size()}, {b.data(), b.size()}, {c.data(), c.size()}};
    {
        sys::ScopedFault f(sys::fault_at(sys::write_calls_mask(), 1, 4, sys::Fault::short_count));
        sys::writev_all(fd, iov, 3);
    }
    std::string back(220, '\0');
    EXPECT_EQ(sys::pread_full(fd, back.data(), back.size(), 0), 220u);
    EXPECT_EQ(back, a + b + c);
}

}  // namespace
}  // namespace iolab
