// The jvm.* rows: each runs the method of jvm/iolab/worker/Methods.java named as the row, in the
// JVM worker (strategies/jvm.hpp, docs/jvm.md).
#include <algorithm>
#include <span>
#include <string_view>

#include "iolab/chain/chain.hpp"
#include "iolab/strategies/jvm.hpp"

namespace iolab {

namespace {

// Each row runs the method named as the row (without "jvm.").
template <std::size_t N>
struct Name {
    char text[N];
    constexpr Name(const char (&s)[N]) { std::copy_n(s, N, text); }
};
template <Name name>
void method(const Job& j) {
    run_jvm_method(j, std::string_view(name.text).substr(4));
}

// jvm.write-chain's output decodes as write.chain's does (a DeflaterOutputStream writes zlib's format).
FileDigest decode_chain_output(const Job& j) { return decode_chain_file(parse_chain(j.records_of().chain), j.dst); }

constexpr unsigned kJvm = kWorker | kUncounted;
constexpr unsigned kByte = kJvm | kByteAtATime;

// clang-format off
constexpr StrategyDef kRows[] = {
    // reads: the 1 GB article (004) and the byte loops of the copy article (000)
    {.name = "jvm.read-byte-stream", .params = kParamJvm, .flags = kByte, .run = method<"jvm.read-byte-stream">,
     .description = "FileInputStream.read(), one byte per call, in the JVM",
     .jvm = "FileInputStream.read()", .counterpart = "read.byte-syscall"},
    {.name = "jvm.read-byte-buffered", .params = kParamJvm | kParamBuffer, .flags = kByte, .run = method<"jvm.read-byte-buffered">,
     .description = "BufferedInputStream(N).read(), one byte per call, in the JVM",
     .jvm = "BufferedInputStream.read()", .counterpart = "read.byte-buffered"},
    {.name = "jvm.read-byte-random-access", .params = kParamJvm, .flags = kByte, .run = method<"jvm.read-byte-random-access">,
     .description = "RandomAccessFile.read(), one byte per call, in the JVM",
     .jvm = "RandomAccessFile.read()", .counterpart = "read.byte-syscall"},
    {.name = "jvm.read-stream-chunks", .params = kParamJvm | kParamBuffer, .flags = kJvm, .run = method<"jvm.read-stream-chunks">,
     .description = "FileInputStream.read(byte[N]) in the JVM",
     .jvm = "FileInputStream.read(byte[N])", .counterpart = "read.chunk"},
    {.name = "jvm.read-buffered-chunks", .params = kParamJvm | kParamBuffer, .flags = kJvm, .run = method<"jvm.read-buffered-chunks">,
    
     .description = "BufferedInputStream.read(byte[N]) (default 8 KiB buffer) in the JVM",
     .jvm = "BufferedInputStream.read(byte[N])"},
    {.name = "jvm.read-channel", .params = kParamJvm | kParamBuffer, .flags = kJvm, .run = method<"jvm.read-channel">,
     .description = "FileChannel.read(ByteBuffer of N bytes) in the JVM",
     .jvm = "FileChannel.read(ByteBuffer)", .counterpart = "read.chunk"},
    {.name = "jvm.read-mapped", .params = kParamJvm | kParamBuffer, .flags = kJvm, .run = method<"jvm.read-mapped">,
    
     .description = "FileChannel.map() copied out in N-byte chunks (MappedByteBuffer.get(byte[N])) in the JVM",
     .jvm = "MappedByteBuffer.get(byte[N])", .counterpart = "read.mmap-chunks"},
    // copies: the copy article (000) and the slow-destination article (002)
    {.name = "jvm.copy-byte-stream", .params = kParamJvm, .flags = kByte, .run = method<"jvm.copy-byte-stream">,
    
     .description = "FileInputStream.read() / FileOutputStream.write(int), one byte per call, in the JVM",
     .jvm = "FileInputStream.read() / FileOutputStream.write(int)", .counterpart = "copy.byte-syscall"},
    {.name = "jvm.copy-byte-buffered", .params = kParamJvm | kParamBuffer, .flags = kByte, .run = method<"jvm.copy-byte-buffered">,
    
     .description = "BufferedInputStream(N).read() / BufferedOutputStream(N).write(int) in the JVM",
     .jvm = "BufferedInputStream.read() / BufferedOutputStream.write(int)", .counterpart = "copy.byte-buffered"},
    {.name = "jvm.copy-stream-chunks", .params = kParamJvm | kParamBuffer, .flags = kJvm, .run = method<"jvm.copy-stream-chunks">,
    
     .description = "byte[N] through BufferedInputStream / BufferedOutputStream in the JVM",
     .jvm = "in.read(byte[N]) / out.write(buf, 0, n)"},
    {.name = "jvm.copy-stream-chunks-as-published", .params = kParamJvm | kParamBuffer, .flags = kJvm,
     .run = method<"jvm.copy-stream-chunks-as-published">,
     .description = "the copy article's chunk loop as published: out.write(readBytes) writes the count, not the chunk",
     .jvm = "in.read(byte[N]) / out.write(n)",
     .bug = "out.write(readBytes) writes the byte count (one byte per chunk), not the chunk"},
    {.name = "jvm.copy-channel", .params = kParamJvm | kParamBuffer, .flags = kJvm, .run = method<"jvm.copy-channel">,
     .description = "FileChannel.read / write of an N-byte ByteBuffer in the JVM",
     .jvm = "FileChannel.read(ByteBuffer) / write(ByteBuffer)", .counterpart = "copy.chunk"},
    {.name = "jvm.copy-files-copy", .params = kParamJvm, .flags = kJvm, .run = method<"jvm.copy-files-copy">,
     .description = "java.nio.file.Files.copy in the JVM", .jvm = "Files.copy", .counterpart = "copy.std-filesystem"},
    {.name = "jvm.copy-transfer-to", .params = kParamJvm, .flags = kJvm, .run = method<"jvm.copy-transfer-to">,
     .description = "FileChannel.transferTo in the JVM",
     .jvm = "FileChannel.transferTo"},
    {.name = "jvm.copy-pipelined-threads", .params = kParamJvm | kParamBuffer | kParamQueue, .flags = kJvm | kOwnThreads,
     .run = method<"jvm.copy-pipelined-threads">,
     .description = "a reader and a writer thread joined by an ArrayBlockingQueue of Q packets of N bytes, in the JVM",
     .jvm = "two threads and an ArrayBlockingQueue of 8 packets (the published pipelined copy)", .counterpart = "copy.pipelined-threads"},
    // writes: the log-writer article (001) and the decorator-order article (003)
    {.name = "jvm.write-filewriter", .params = kParamJvm | kParamRecord, .flags = kJvm, .run = method<"jvm.write-filewriter">,
     .description = "FileWriter.write of each record's characters in the JVM",
     .jvm = "FileWriter.write(String)"},
    {.name = "jvm.write-filewriter-buffered", .params = kParamJvm | kParamRecord, .flags = kJvm,
     .run = method<"jvm.write-filewriter-buffered">,
     .description = "BufferedWriter(FileWriter).write of each record's characters in the JVM",
     .jvm = "new BufferedWriter(new FileWriter(f)).write(String)"},
    {.name = "jvm.write-stream", .params = kParamJvm | kParamRecord, .flags = kJvm, .run = method<"jvm.write-stream">,
    
     .description = "FileOutputStream.write of a new array of each record (as getBytes() makes it) in the JVM",
     .jvm = "FileOutputStream.write(s.getBytes())", .counterpart = "write.record-syscall"},
    {.name = "jvm.write-stream-buffered", .params = kParamJvm | kParamRecord, .flags = kJvm, .run = method<"jvm.write-stream-buffered">,
    
     .description = "BufferedOutputStream(FileOutputStream).write of a new array of each record in the JVM",
     .jvm = "new BufferedOutputStream(new FileOutputStream(f)).write(s.getBytes())"},
    {.name = "jvm.write-channel-new-buffer", .params = kParamJvm | kParamRecord, .flags = kJvm,
     .run = method<"jvm.write-channel-new-buffer">,
     .description = "FileChannel.write of a new ByteBuffer per record in the JVM",
     .jvm = "FileChannel.write(ByteBuffer), a new buffer per write", .counterpart = "write.record-new-buffer"},
    {.name = "jvm.write-channel-reused-pieces", .params = kParamJvm | kParamRecord, .flags = kJvm,
     .run = method<"jvm.write-channel-reused-pieces">,
     .description = "FileChannel.write of each record in 1,000-byte pieces through one reused ByteBuffer, in the JVM",
     .jvm = "FileChannel.write(ByteBuffer), one reused 1,000-byte buffer", .counterpart = "write.record-reused-pieces"},
    {.name = "jvm.write-channel-reused-pieces-as-published", .params = kParamJvm | kParamRecord, .flags = kJvm,
     .run = method<"jvm.write-channel-reused-pieces-as-published">,
     .description = "the log-writer article's reused-buffer writer as published: its last piece of a record is "
                    "length - offset - 1 bytes",
     .jvm = "FileChannel.write(ByteBuffer), one reused 1,000-byte buffer (as published)",
     .bug = "the last piece of each record is length - offset - 1 bytes: a byte of every record is lost"},
    {.name = "jvm.write-chain", .params = kParamJvm | kParamRecord | kParamChain | kParamFeed, .flags = kJvm,
     .run = method<"jvm.write-chain">, .decode_output = decode_chain_output,
     .description = "a chain of BufferedOutputStream and DeflaterOutputStream, outermost first, in the JVM",
     .jvm = "new BufferedOutputStream(new DeflaterOutputStream(new FileOutputStream(f))) and the other orders", .counterpart = "write.chain"},
};
// clang-format on

}  // namespace

// Every row needs the JVM, prepares its worker before the clock (starting it when none runs for
// the group) and ends it with the group.
void register_jvm_strategies(Registry& r) {
    for (StrategyDef d : kRows) {
        d.unavailable = jvm_unavailable;
        d.prepare = prepare_jvm;
        d.teardown = end_workers;
        d.runtime = jvm_description;
        r.add(std::span<const StrategyDef>(&d, 1));
    }
}

}  // namespace iolab
