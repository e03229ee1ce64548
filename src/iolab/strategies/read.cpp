// Read strategies: every way the published experiments read a file, and the modern ones.
#include <sys/mman.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <vector>

#include "iolab/core/aligned.hpp"
#include "iolab/core/buffered.hpp"
#include "iolab/strategies/common.hpp"
#include "iolab/strategies/strategy.hpp"
#include "iolab/sys/stdio.hpp"

namespace iolab {

namespace {

using detail::open_src;

void read_byte_syscall(const Job& j) {
    const sys::Fd in = open_src(j.src);
    ByteStager(*j.sink).drain([&] {
        unsigned char b;
        return sys::read_some(in, &b, 1) == 1 ? int{b} : -1;
    });
}

void read_byte_pread(const Job& j) {
    const sys::Fd in = open_src(j.src);
    off_t pos = 0;
    ByteStager(*j.sink).drain([&] {
        unsigned char b;
        return sys::pread_some(in, &b, 1, pos++) == 1 ? int{b} : -1;
    });
}

void read_byte_stdio(const Job& j) {
    sys::StdioFile in(open_src(j.src), "r", j.buffer);
    std::FILE* f = in.get();
    ByteStager(*j.sink).drain([f] { return std::getc(f); });  // EOF is -1
    in.check();
}

void read_byte_iostream(const Job& j) {
    std::ifstream in;
    detail::open_stream(in, j.src, std::ios::in);
    ByteStager(*j.sink).drain([&] {
        const int c = in.get();
        return c == std::char_traits<char>::eof() ? -1 : c;
    });
    if (in.bad()) detail::stream_failed("read", j.src);
}

void read_byte_buffered(const Job& j) {
    const sys::Fd in = open_src(j.src);
    BufferedReader r(in, j.buffer);
    ByteStager(*j.sink).drain([&] { return r.get(); });
}

void read_chunk(const Job& j) {
    const sys::Fd in = detail::open_src_part(j);
    AlignedBuffer buf(j.buffer, detail::kPage);
    for (std::uint64_t left = detail::part_length(j); left > 0;) {
        const std::size_t n = sys::read_some(in, buf.data(), detail::at_most(buf.size(), left));
        if (n == 0) break;
        j.sink->consume(buf.data(), n);
        left -= n;
    }
}

void read_pread_chunk(const Job& j) {
    const sys::Fd in = open_src(j.src);
    AlignedBuffer buf(j.buffer, detail::kPage);
    auto pos = static_cast<off_t>(j.part.offset);
    for (std::uint64_t left = detail::part_length(j); left > 0;) {
        const std::size_t n = sys::pread_some(in, buf.data(), detail::at_most(buf.size(), left), pos);
        if (n == 0) break;
        j.sink->consume(buf.data(), n);
        pos += static_cast<off_t>(n);
        left -= n;
    }
}

void read_iostream_chunk(const Job& j) {
    std::ifstream in;
    detail::open_stream(in, j.src, std::ios::in);
    AlignedBuffer buf(j.buffer, detail::kPage);
    for (;;) {
        in.read(reinterpret_cast<char*>(buf.data()), static_cast<std::streamsize>(buf.size()));
        const auto n = static_cast<std::size_t>(in.gcount());
        if (n > 0) j.sink->consume(buf.data(), n);
        if (!in) break;
    }
    if (in.bad()) detail::stream_failed("read", j.src);
}

void read_stdio_chunk(const Job& j) {
    sys::StdioFile in(open_src(j.src), "r");
    AlignedBuffer buf(j.buffer, detail::kPage);
    while (const std::size_t n = std::fread(buf.data(), 1, buf.size(), in.get())) j.sink->consume(buf.data(), n);
    in.check();
}

// Maps the file window by window and hands each window to f(data, size).
template <class F>
void for_each_window(const sys::Fd& in, int advice, F&& f) {
    const std::uint64_t size = sys::file_size(in);
    for (std::uint64_t off = 0; off < size; off += detail::kMapWindow) {
        const auto len = static_cast<std::size_t>(std::min<std::uint64_t>(detail::kMapWindow, size - off));
        sys::Mapping m = sys::map(in, len, PROT_READ, MAP_SHARED, static_cast<off_t>(off));
        if (advice != MADV_NORMAL) m.advise(advice);
        f(m.data(), m.size());
    }
}

void read_mmap_chunks(const Job& j) {
    const sys::Fd in = open_src(j.src);
    AlignedBuffer buf(j.buffer, detail::kPage);
    for_each_window(in, MADV_NORMAL, [&](const std::byte* p, std::size_t len) {
        for (std::size_t off = 0; off < len; off += buf.size()) {
            const std::size_t n = std::min(buf.size(), len - off);
            std::memcpy(buf.data(), p + off, n);
            j.sink->consume(buf.data(), n);
        }
    });
}

void read_mmap_scan(const Job& j) {
    const sys::Fd in = open_src(j.src);
    for_each_window(in, MADV_SEQUENTIAL,
                    [&](const std::byte* p, std::size_t len) { j.sink->consume_in_place(p, len); });
}

// One entry per row, fields in declaration order.
// clang-format off
constexpr StrategyDef kReads[] = {
    {.name = "read.byte-syscall", .flags = kByteAtATime, .run = read_byte_syscall,
     .description = "read(2) one byte per call", .jvm = "FileInputStream.read()"},
    {.name = "read.byte-pread", .flags = kByteAtATime, .run = read_byte_pread,
     .description = "pread(2) one byte per call at an advancing position", .jvm = "RandomAccessFile.read()"},
    {.name = "read.byte-stdio", .params = kParamBuffer, .flags = kByteAtATime, .run = read_byte_stdio,
     .description = "getc(3) one byte at a time through a stdio buffer of N bytes",
     .jvm = "BufferedInputStream.read()"},
    {.name = "read.byte-iostream", .flags = kByteAtATime | kUncounted, .run = read_byte_iostream,
     .description = "std::istream::get() one byte at a time (std::ifstream)", .jvm = "BufferedInputStream.read()"},
    {.name = "read.byte-buffered", .params = kParamBuffer, .flags = kByteAtATime, .run = read_byte_buffered,
     .description = "one byte at a time through iolab's BufferedReader of N bytes",
     .jvm = "BufferedInputStream.read()"},
    {.name = "read.chunk", .params = kParamBuffer, .flags = kParts, .run = read_chunk,
     .description = "read(2) into an N-byte buffer", .jvm = "InputStream.read(byte[N])"},
    {.name = "read.pread-chunk", .params = kParamBuffer, .flags = kParts, .run = read_pread_chunk,
     .description = "pread(2) into an N-byte buffer at an advancing position",
     .jvm = "FileChannel.read(ByteBuffer, position)"},
    {.name = "read.iostream-chunk", .params = kParamBuffer, .flags = kUncounted, .run = read_iostream_chunk,
     .description = "std::ifstream::read into an N-byte buffer", .jvm = "BufferedInputStream.read(byte[N])"},
    {.name = "read.stdio-chunk", .params = kParamBuffer, .run = read_stdio_chunk,
     .description = "fread(3) into an N-byte buffer", .jvm = "BufferedInputStream.read(byte[N])"},
    {.name = "read.mmap-chunks", .params = kParamBuffer, .run = read_mmap_chunks,
     .description = "mmap(2) the file, copy it out N bytes at a time",
     .jvm = "FileChannel.map() + MappedByteBuffer.get(byte[N])"},
    {.name = "read.mmap-scan", .flags = kInPlace, .run = read_mmap_scan,
     .description = "mmap(2) with MADV_SEQUENTIAL, every byte read in place (no copy out)"},
};
// clang-format on

}  // namespace

void register_read_strategies(Registry& r) { r.add(kReads); }

}  // namespace iolab
