// Copy strategies: from the byte-at-a-time loop to the kernel's own copy offloads. The
// destination is a new file that must end up equal to the source.
#include <sys/mman.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <vector>

#include "iolab/core/aligned.hpp"
#include "iolab/core/buffered.hpp"
#include "iolab/core/copy_file.hpp"
#include "iolab/core/scratch.hpp"
#include "iolab/io/profile.hpp"
#include "iolab/strategies/common.hpp"
#include "iolab/strategies/strategy.hpp"
#include "iolab/sys/stdio.hpp"

namespace iolab {

namespace {

using detail::open_dst;
using detail::open_src;

void copy_byte_syscall(const Job& j) {
    const sys::Fd in = open_src(j.src);
    const sys::Fd out = open_dst(j.dst);
    unsigned char b;
    while (sys::read_some(in, &b, 1) == 1) sys::write_all(out, &b, 1);
}

void copy_byte_stdio(const Job& j) {
    sys::StdioFile in(open_src(j.src), "r", j.buffer);
    sys::StdioFile out(open_dst(j.dst), "w", j.buffer);
    for (int c; (c = std::getc(in.get())) != EOF;)
        if (std::putc(c, out.get()) == EOF) out.check();
    in.check();
    out.close();
}

void copy_byte_buffered(const Job& j) {
    const sys::Fd in = open_src(j.src);
    const sys::Fd out = open_dst(j.dst);
    BufferedReader r(in, j.buffer);
    BufferedWriter w(out, j.buffer);
    for (int c; (c = r.get()) >= 0;) w.put(static_cast<unsigned char>(c));
    w.flush();
}

void copy_byte_iostream(const Job& j) {
    std::ifstream in;
    detail::open_stream(in, j.src, std::ios::in);
    std::ofstream out;
    detail::open_stream(out, j.dst, std::ios::out | std::ios::trunc);
    for (int c; (c = in.get()) != std::char_traits<char>::eof();) out.put(static_cast<char>(c));
    if (in.bad()) detail::stream_failed("read", j.src);
    out.close();
    if (!out) detail::stream_failed("write", j.dst);
}

void copy_pread_chunk(const Job& j) {
    const sys::Fd in = open_src(j.src);
    const sys::Fd out = detail::open_dst_part(j);
    AlignedBuffer buf(j.buffer, detail::kPage);
    auto pos = static_cast<off_t>(j.part.offset);
    for (std::uint64_t left = detail::part_length(j); left > 0;) {
        const std::size_t n = sys::pread_some(in, buf.data(), detail::at_most(buf.size(), left), pos);
        if (n == 0) break;
        sys::pwrite_all(out, buf.data(), n, pos);
        pos += static_cast<off_t>(n);
        left -= n;
    }
}

void copy_stdio_chunk(const Job& j) {
    sys::StdioFile in(open_src(j.src), "r");
    sys::StdioFile out(open_dst(j.dst), "w");
    AlignedBuffer buf(j.buffer, detail::kPage);
    while (const std::size_t n = std::fread(buf.data(), 1, buf.size(), in.get()))
        if (std::fwrite(buf.data(), 1, n, out.get()) != n) out.check();
    in.check();
    out.close();
}

void copy_chunk(const Job& j) {
    const sys::Fd in = detail::open_src_part(j);
    const sys::Fd out = detail::open_dst_part(j);
    AlignedBuffer buf(j.buffer, detail::kPage);
    for (std::uint64_t left = detail::part_length(j); left > 0;) {
        const std::size_t n = sys::read_some(in, buf.data(), detail::at_most(buf.size(), left));
        if (n == 0) break;
        sys::write_all(out, buf.data(), n);
        left -= n;
    }
}

void copy_iostream_rdbuf(const Job& j) {
    std::ifstream in;
    detail::open_stream(in, j.src, std::ios::in);
    std::ofstream out;
    detail::open_stream(out, j.dst, std::ios::out | std::ios::trunc);
    // operator<< sets failbit when it inserts nothing, which an empty source legitimately does.
    if (in.peek() != std::char_traits<char>::eof()) out << in.rdbuf();
    if (in.bad()) detail::stream_failed("read", j.src);
    // operator<< stops quietly when the output fails part-way (a full disk): the input is then
    // not at its end, and that is the only sign of it.
    if (in.peek() != std::char_traits<char>::eof()) detail::stream_failed("write", j.dst);
    out.close();
    if (!out) detail::stream_failed("write", j.dst);
}

void copy_std_filesystem(const Job& j) {
    std::error_code ec;
    // copy_options::none: fails if the destination exists, as every strategy must.
    std::filesystem::copy_file(j.src, j.dst, std::filesystem::copy_options::none, ec);
    if (ec) throw IoError(ec.value(), "copy (std::filesystem::copy_file) to", j.dst);
}

void copy_sendfile(const Job& j) {
    const sys::Fd in = open_src(j.src);
    const sys::Fd out = open_dst(j.dst);
    // Until sendfile reports end of file, not until the size seen at open.
    while (sys::sendfile_some(out, in, nullptr, j.buffer) > 0) {
    }
}

void copy_copy_file_range(const Job& j) {
    const sys::Fd in = detail::open_src_part(j);
    const sys::Fd out = detail::open_dst_part(j);
    for (std::uint64_t left = detail::part_length(j); left > 0;) {
        const std::size_t n = sys::copy_file_range_some(in, nullptr, out, nullptr, detail::at_most(j.buffer, left));
        if (n == 0) break;
        left -= n;
    }
}

void copy_splice(const Job& j) {
    const sys::Fd in = open_src(j.src);
    const sys::Fd out = open_dst(j.dst);
    sys::Pipe pipe = sys::make_pipe();
    for (;;) {
        std::size_t pending = sys::splice_some(in, nullptr, pipe.write_end, nullptr, j.buffer, SPLICE_F_MOVE);
        if (pending == 0) break;
        while (pending > 0) {
            const std::size_t n = sys::splice_some(pipe.read_end, nullptr, out, nullptr, pending, SPLICE_F_MOVE);
            if (n == 0) throw IoError(ENOSPC, "splice to", j.dst);
            pending -= n;
        }
    }
}

void copy_reflink(const Job& j) {
    const sys::Fd in = open_src(j.src);
    const sys::Fd out = open_dst(j.dst);
    sys::clone_file(out, in);
}

// Tries a clone between two files in dir: nullopt when the filesystem shares extents.
std::optional<std::string> reflink_unavailable(const std::string& dir) {
    try {
        ScratchDir probe(dir);
        const sys::Fd a = open_dst(probe.at("a"), O_RDWR);
        sys::write_all(a, "iolab", 5);
        const sys::Fd b = open_dst(probe.at("b"));
        sys::clone_file(b, a);
        return std::nullopt;
    } catch (const IoError& e) {
        return "this filesystem cannot share extents (FICLONE: " + std::string(std::strerror(e.code())) + ")";
    }
}

void copy_mmap_write(const Job& j) {
    const sys::Fd in = open_src(j.src);
    const sys::Fd out = open_dst(j.dst);
    const std::uint64_t size = sys::file_size(in);
    for (std::uint64_t off = 0; off < size; off += detail::kMapWindow) {
        const auto len = static_cast<std::size_t>(std::min<std::uint64_t>(detail::kMapWindow, size - off));
        sys::Mapping m = sys::map(in, len, PROT_READ, MAP_SHARED, static_cast<off_t>(off));
        m.advise(MADV_SEQUENTIAL);
        for (std::size_t done = 0; done < len; done += j.buffer)
            sys::write_all(out, m.data() + done, std::min(j.buffer, len - done));
    }
}

void copy_auto(const Job& j) {
    const sys::Fd in = open_src(j.src);
    const sys::Fd out = open_dst(j.dst);
    CopyOptions o;
    o.buffer = j.buffer;
    o.profile = &no_profile();  // what copy_file does untuned: a measurement never depends on a profile
    copy_contents(in, out, o);
}

// One entry per row, fields in declaration order.
// clang-format off
constexpr StrategyDef kCopies[] = {
    {.name = "copy.byte-syscall", .flags = kByteAtATime, .run = copy_byte_syscall,
     .description = "read(2) and write(2) one byte per call",
     .jvm = "FileInputStream.read() / FileOutputStream.write(int)"},
    {.name = "copy.byte-stdio", .params = kParamBuffer, .flags = kByteAtATime, .run = copy_byte_stdio,
     .description = "getc(3)/putc(3) one byte at a time through stdio buffers of N bytes",
     .jvm = "BufferedInputStream.read() / BufferedOutputStream.write(int)"},
    {.name = "copy.byte-buffered", .params = kParamBuffer, .flags = kByteAtATime, .run = copy_byte_buffered,
     .description = "one byte at a time through iolab's BufferedReader and BufferedWriter",
     .jvm = "BufferedInputStream.read() / BufferedOutputStream.write(int)"},
    {.name = "copy.byte-iostream", .flags = kByteAtATime | kUncounted, .run = copy_byte_iostream,
     .description = "std::istream::get / std::ostream::put one byte at a time (fstreams)",
     .jvm = "BufferedInputStream.read() / BufferedOutputStream.write(int)"},
    {.name = "copy.chunk", .params = kParamBuffer, .flags = kParts, .run = copy_chunk,
     .description = "read(2)/write(2) with an N-byte buffer", .jvm = "in.read(byte[N]) / out.write(buf, 0, n)"},
    {.name = "copy.pread-chunk", .params = kParamBuffer, .flags = kParts, .run = copy_pread_chunk,
     .description = "pread(2)/pwrite(2) with an N-byte buffer at an advancing position",
     .jvm = "FileChannel.read/write(ByteBuffer, position)"},
    {.name = "copy.stdio-chunk", .params = kParamBuffer, .run = copy_stdio_chunk,
     .description = "fread(3)/fwrite(3) of N bytes through stdio's buffers",
     .jvm = "BufferedInputStream / BufferedOutputStream with byte[N]"},
    {.name = "copy.iostream-rdbuf", .flags = kUncounted, .run = copy_iostream_rdbuf,
     .description = "out << in.rdbuf() between std::fstreams"},
    {.name = "copy.std-filesystem", .flags = kUncounted, .run = copy_std_filesystem,
     .description = "std::filesystem::copy_file (libstdc++ picks the kernel call)", .jvm = "Scala IO Path.copyTo"},
    {.name = "copy.sendfile", .params = kParamBuffer, .run = copy_sendfile,
     .description = "sendfile(2) N bytes per call until end of file", .jvm = "FileChannel.transferTo"},
    {.name = "copy.copy-file-range", .params = kParamBuffer, .flags = kParts, .run = copy_copy_file_range,
     .description = "copy_file_range(2) N bytes per call until end of file"},
    {.name = "copy.splice", .params = kParamBuffer, .run = copy_splice,
     .description = "splice(2) file -> pipe -> file, N bytes per round"},
    {.name = "copy.reflink", .flags = kUnthrottled, .run = copy_reflink, .unavailable = reflink_unavailable,
     .description = "ioctl(FICLONE): share the source's extents, copy nothing"},
    {.name = "copy.auto", .params = kParamBuffer, .run = copy_auto,
     .description = "iolab::copy_file: reflink, else copy_file_range, else sendfile, else read/write; keeps holes",
     .jvm = "Files.copy"},
    {.name = "copy.mmap-write", .params = kParamBuffer, .run = copy_mmap_write,
     .description = "mmap(2) the source, write(2) N bytes at a time from the mapping"},
};
// clang-format on

}  // namespace

void register_copy_strategies(Registry& r) { r.add(kCopies); }

}  // namespace iolab
