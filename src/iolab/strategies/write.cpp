// Write strategies: `count` records of `record` bytes each (the workload's content), in every
// style the log and decorator experiments timed, to a new file.
#include <sys/mman.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <string_view>

#include "iolab/core/buffered.hpp"
#include "iolab/strategies/common.hpp"
#include "iolab/strategies/strategy.hpp"
#include "iolab/sys/stdio.hpp"

namespace iolab {

namespace {

using detail::open_dst;

// Calls f(pointer, size) for each record of the job.
template <class F>
void for_each_record(const Job& j, F&& f) {
    j.records->for_each_record(f);
}

// Calls f(const unsigned char*) for each byte of the job's records.
template <class F>
void for_each_byte(const Job& j, F&& f) {
    j.records->for_each_piece(0, j.records->size(), [&](const std::byte* b, std::size_t n) {
        for (const auto *p = reinterpret_cast<const unsigned char*>(b), *e = p + n; p != e; ++p) f(p);
    });
}

void write_byte_syscall(const Job& j) {
    const sys::Fd out = open_dst(j.dst);
    for_each_byte(j, [&](const unsigned char* p) { sys::write_all(out, p, 1); });
}

void write_byte_stdio(const Job& j) {
    sys::StdioFile out(open_dst(j.dst), "w", j.buffer);
    for_each_byte(j, [&](const unsigned char* p) {
        if (std::putc(*p, out.get()) == EOF) out.check();
    });
    out.close();
}

void write_byte_iostream(const Job& j) {
    std::ofstream out;
    detail::open_stream(out, j.dst, std::ios::out | std::ios::trunc);
    for_each_byte(j, [&](const unsigned char* p) { out.put(static_cast<char>(*p)); });
    out.close();
    if (!out) detail::stream_failed("write", j.dst);
}

void write_byte_buffered(const Job& j) {
    const sys::Fd out = open_dst(j.dst);
    BufferedWriter w(out, j.buffer);
    for_each_byte(j, [&](const unsigned char* p) { w.put(*p); });
    w.flush();
}

void write_record_syscall(const Job& j) {
    const sys::Fd out = detail::open_dst_part(j);
    for_each_record(j, [&](const std::byte* p, std::size_t n) { sys::write_all(out, p, n); });
}

void write_record_buffered(const Job& j) {
    const sys::Fd out = open_dst(j.dst);
    BufferedWriter w(out, j.buffer);
    for_each_record(j, [&](const std::byte* p, std::size_t n) { w.write(p, n); });
    w.flush();
}

void write_record_stdio(const Job& j) {
    sys::StdioFile out(open_dst(j.dst), "w", j.buffer);
    for_each_record(j, [&](const std::byte* p, std::size_t n) {
        if (std::fwrite(p, 1, n, out.get()) != n) out.check();
    });
    out.close();
}

template <class Put>
void write_with_ofstream(const Job& j, bool unbuffered, Put&& put) {
    std::ofstream out;
    // pubsetbuf must come before open to take effect in libstdc++.
    if (unbuffered) out.rdbuf()->pubsetbuf(nullptr, 0);
    detail::open_stream(out, j.dst, std::ios::out | std::ios::trunc);
    for_each_record(j, [&](const std::byte* p, std::size_t n) { put(out, reinterpret_cast<const char*>(p), n); });
    out.close();
    if (!out) detail::stream_failed("write", j.dst);
}

void write_record_iostream(const Job& j) {
    write_with_ofstream(
        j, false, [](std::ofstream& o, const char* p, std::size_t n) { o.write(p, static_cast<std::streamsize>(n)); });
}

void write_text(const Job& j, bool unbuffered) {
    write_with_ofstream(j, unbuffered,
                        [](std::ofstream& o, const char* p, std::size_t n) { o << std::string_view(p, n); });
}

void write_text_iostream(const Job& j) { write_text(j, false); }
void write_text_iostream_unbuffered(const Job& j) { write_text(j, true); }

void write_record_new_buffer(const Job& j) {
    const sys::Fd out = open_dst(j.dst);
    for_each_record(j, [&](const std::byte* p, std::size_t n) {
        // A fresh buffer for every record, as ByteBuffer.wrap(s.getBytes()) does.
        std::unique_ptr<std::byte[]> buf(new std::byte[n]);
        std::memcpy(buf.get(), p, n);
        sys::write_all(out, buf.get(), n);
    });
}

void write_record_reused_pieces(const Job& j) {
    // The published variant wrote `length - offset - 1` bytes for the last piece and lost a
    // byte per record; this one writes min(1000, left).
    constexpr std::size_t kPiece = 1000;
    const sys::Fd out = open_dst(j.dst);
    std::byte buf[kPiece];
    for_each_record(j, [&](const std::byte* p, std::size_t n) {
        for (std::size_t off = 0; off < n; off += kPiece) {
            const std::size_t k = std::min(kPiece, n - off);
            std::memcpy(buf, p + off, k);
            sys::write_all(out, buf, k);
        }
    });
}

void write_mmap(const Job& j) {
    // A writable shared mapping needs the descriptor open for reading too.
    const sys::Fd rw = open_dst(j.dst, O_RDWR);
    const std::uint64_t size = j.records->size();
    // Reserve the blocks first: a store into a mapping of a full filesystem is a SIGBUS.
    sys::allocate(rw, 0, static_cast<off_t>(size));
    for (std::uint64_t off = 0; off < size; off += detail::kMapWindow) {
        const auto len = static_cast<std::size_t>(std::min<std::uint64_t>(detail::kMapWindow, size - off));
        sys::Mapping m = sys::map(rw, len, PROT_READ | PROT_WRITE, MAP_SHARED, static_cast<off_t>(off));
        j.records->copy(off, std::span(m.data(), len));
    }
}

// Every write takes records (kParamRecord): the harness hands it record * count bytes.
constexpr unsigned kRec = kParamRecord;

// One entry per row, fields in declaration order.
// clang-format off
constexpr StrategyDef kWrites[] = {
    {.name = "write.byte-syscall", .params = kRec, .flags = kByteAtATime, .run = write_byte_syscall,
     .description = "write(2) one byte per call", .jvm = "FileOutputStream.write(int)"},
    {.name = "write.byte-stdio", .params = kRec | kParamBuffer, .flags = kByteAtATime, .run = write_byte_stdio,
     .description = "putc(3) one byte at a time through a stdio buffer of N bytes",
     .jvm = "BufferedOutputStream.write(int)"},
    {.name = "write.byte-iostream", .params = kRec, .flags = kByteAtATime | kUncounted, .run = write_byte_iostream,
     .description = "std::ostream::put() one byte at a time (std::ofstream)", .jvm = "BufferedOutputStream.write(int)"},
    {.name = "write.byte-buffered", .params = kRec | kParamBuffer, .flags = kByteAtATime, .run = write_byte_buffered,
     .description = "one byte at a time through iolab's BufferedWriter of N bytes",
     .jvm = "BufferedOutputStream.write(int)"},
    {.name = "write.record-syscall", .params = kRec, .flags = kParts, .run = write_record_syscall,
     .description = "write(2) once per record", .jvm = "FileOutputStream.write(byte[])"},
    {.name = "write.record-buffered", .params = kRec | kParamBuffer, .run = write_record_buffered,
     .description = "each record through iolab's BufferedWriter of N bytes",
     .jvm = "BufferedOutputStream.write(byte[])"},
    {.name = "write.record-stdio", .params = kRec | kParamBuffer, .run = write_record_stdio,
     .description = "fwrite(3) once per record through a stdio buffer of N bytes",
     .jvm = "BufferedOutputStream.write(byte[])"},
    {.name = "write.record-iostream", .params = kRec, .flags = kUncounted, .run = write_record_iostream,
     .description = "std::ofstream::write once per record", .jvm = "BufferedOutputStream.write(byte[])"},
    {.name = "write.text-iostream", .params = kRec, .flags = kUncounted, .run = write_text_iostream,
     .description = "ofstream << string per record, with the stream's buffer",
     .jvm = "BufferedWriter(FileWriter).write(String)"},
    {.name = "write.text-iostream-unbuffered", .params = kRec, .flags = kUncounted,
     .run = write_text_iostream_unbuffered,
     .description = "ofstream << string per record, stream buffer off (pubsetbuf(0, 0))",
     .jvm = "FileWriter.write(String)"},
    {.name = "write.record-new-buffer", .params = kRec, .run = write_record_new_buffer,
     .description = "a newly allocated buffer per record, filled, then write(2)",
     .jvm = "FileChannel.write(ByteBuffer.wrap(...)) per record"},
    {.name = "write.record-reused-pieces", .params = kRec, .run = write_record_reused_pieces,
     .description = "one reused 1,000-byte buffer, each record in 1,000-byte pieces",
     .jvm = "FileChannel.write(reused 1,000-byte ByteBuffer)"},
    {.name = "write.mmap", .params = kRec, .flags = kUnthrottled, .run = write_mmap,
     .description = "posix_fallocate(3), mmap(2) the new file, memcpy the records in", .jvm = "MappedByteBuffer.put"},
};
// clang-format on

}  // namespace

void register_write_strategies(Registry& r) { r.add(kWrites); }

}  // namespace iolab
