package iolab.worker;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.BufferedWriter;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.FileWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;

// The methods the published experiments timed, as they wrote them (docs/jvm.md): each reads,
// writes or copies one file and returns what a read proves it read ("" for writes and copies,
// which iolab checks from the file). A method does its own opening and closing, as the articles'
// did; nothing else is in the timed region.
final class Methods {
    private Methods() {}

    static final class Request {
        final String src, dst, chain;
        final int buffer, queue;
        final boolean full, feedBytes;
        final Data data;

        Request(java.util.Map<String, String> r, Data data) {
            src = r.getOrDefault("src", "");
            dst = r.getOrDefault("dst", "");
            chain = r.getOrDefault("chain", "file");
            buffer = Integer.parseInt(r.getOrDefault("buffer", "8192"));
            queue = Integer.parseInt(r.getOrDefault("queue", "8"));
            full = "full".equals(r.get("verify"));
            feedBytes = "bytes".equals(r.get("feed"));
            this.data = data;
        }
    }

    // Thrown for a job the method cannot do here (iolab skips the case with the reason).
    static final class CannotRun extends Exception {
        private static final long serialVersionUID = 1L;

        CannotRun(String why) { super(why); }
    }

    static String run(String method, Request q) throws Exception {
        switch (method) {
            case "read-byte-stream": return readByteStream(q);
            case "read-byte-buffered": return readByteBuffered(q);
            case "read-byte-random-access": return readByteRandomAccess(q);
            case "read-stream-chunks": return readStreamChunks(q, false);
            case "read-buffered-chunks": return readStreamChunks(q, true);
            case "read-channel": return readChannel(q);
            case "read-mapped": return readMapped(q);
            case "copy-byte-stream": return copyByte(q, false);
            case "copy-byte-buffered": return copyByte(q, true);
            case "copy-stream-chunks": return copyStreamChunks(q, false);
            case "copy-stream-chunks-as-published": return copyStreamChunks(q, true);
            case "copy-channel": return copyChannel(q);
            case "copy-files-copy": return copyFilesCopy(q);
            case "copy-transfer-to": return copyTransferTo(q);
            case "copy-pipelined-threads": return copyPipelined(q);
            case "write-filewriter": return writeWriter(q, false);
            case "write-filewriter-buffered": return writeWriter(q, true);
            case "write-stream": return writeStream(q, false);
            case "write-stream-buffered": return writeStream(q, true);
            case "write-channel-new-buffer": return writeChannelNewBuffer(q);
            case "write-channel-reused-pieces": return writeChannelPieces(q, false);
            case "write-channel-reused-pieces-as-published": return writeChannelPieces(q, true);
            case "write-chain": return writeChain(q);
            // For iolab's own tests: a read that skips one page, which verification must catch.
            case "fault-read-skips-page": return readSkippingPage(q);
            default: throw new IllegalArgumentException("no method " + method);
        }
    }

    // The output, made new (O_EXCL) before a stream opens it: FileOutputStream and FileWriter would
    // write over a file that is there, and iolab never does.
    private static String fresh(String dst) throws IOException {
        Files.createFile(Path.of(dst));
        return dst;
    }

    // --- reads ---

    private static String readByteStream(Request q) throws IOException {
        try (FileInputStream in = new FileInputStream(q.src)) {
            return Digests.drain(in::read, q.full);
        }
    }

    private static String readByteBuffered(Request q) throws IOException {
        try (InputStream in = new BufferedInputStream(new FileInputStream(q.src), q.buffer)) {
            return Digests.drain(in::read, q.full);
        }
    }

    private static String readByteRandomAccess(Request q) throws IOException {
        try (RandomAccessFile in = new RandomAccessFile(q.src, "r")) {
            return Digests.drain(in::read, q.full);
        }
    }

    // in.read(byte[N]) on a FileInputStream, or through a BufferedInputStream of its default size
    // (the 1 GB article's 16 KiB chunks).
    private static String readStreamChunks(Request q, boolean buffered) throws IOException {
        final Digests.ChunkSink sink = new Digests.ChunkSink(q.full);
        final byte[] buf = new byte[q.buffer];
        try (InputStream in = buffered ? new BufferedInputStream(new FileInputStream(q.src)) : new FileInputStream(q.src)) {
            for (int n; (n = in.read(buf)) >= 0;) sink.consume(buf, 0, n);
        }
        return sink.report();
    }

    private static String readChannel(Request q) throws IOException {
        final Digests.ChunkSink sink = new Digests.ChunkSink(q.full);
        final ByteBuffer buf = ByteBuffer.allocate(q.buffer);
        try (FileChannel ch = FileChannel.open(Path.of(q.src), StandardOpenOption.READ)) {
            for (int n; (n = ch.read(buf)) >= 0; buf.clear()) sink.consume(buf.array(), 0, n);
        }
        return sink.report();
    }

    // FileChannel.map, copied out in N-byte chunks (MappedByteBuffer.get(byte[])), a window of up to
    // 64 MiB at a time, unmapped before the next, as the C++ mappings are (strategies/common.hpp): a
    // worker mapping a 1 GiB file whole held 1.1 GB resident, the peak of a whole `iolab replicate`.
    private static String readMapped(Request q) throws IOException {
        final Digests.ChunkSink sink = new Digests.ChunkSink(q.full);
        final byte[] buf = new byte[q.buffer];
        try (FileChannel ch = FileChannel.open(Path.of(q.src), StandardOpenOption.READ)) {
            final long size = ch.size();
            for (long at = 0; at < size;) {
                final long window = Math.min(64L << 20, size - at);
                final MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_ONLY, at, window);
                while (map.hasRemaining()) {
                    final int n = Math.min(buf.length, map.remaining());
                    map.get(buf, 0, n);
                    sink.consume(buf, 0, n);
                }
                unmap(map);
                at += window;
            }
        }
        return sink.report();
    }

    // Unmaps a mapping now, as munmap(2) would, instead of whenever a collection gets to it: a page
    // still mapped cannot be evicted, so a mapping left to the collector kept the next cold case's
    // file in the page cache (read-large's cold group: one iteration in four fully resident).
    // sun.misc.Unsafe.invokeCleaner, reached by reflection (jdk.unsupported opens it).
    private static void unmap(MappedByteBuffer map) throws IOException {
        try {
            final Class<?> unsafeClass = Class.forName("sun.misc.Unsafe");
            final java.lang.reflect.Field field = unsafeClass.getDeclaredField("theUnsafe");
            field.setAccessible(true);
            unsafeClass.getMethod("invokeCleaner", ByteBuffer.class).invoke(field.get(null), map);
        } catch (ReflectiveOperationException e) {
            throw new IOException("cannot unmap the file: " + e, e);
        }
    }

    private static String readSkippingPage(Request q) throws IOException {
        final Digests.ChunkSink sink = new Digests.ChunkSink(q.full);
        final byte[] buf = new byte[4096];
        try (FileInputStream in = new FileInputStream(q.src)) {
            boolean skipped = false;
            for (int n; (n = in.read(buf)) >= 0;) {
                if (!skipped && n == buf.length) {
                    skipped = true;
                    continue;  // the first page read is dropped
                }
                sink.consume(buf, 0, n);
            }
        }
        return sink.report();
    }

    // --- copies ---

    private static String copyByte(Request q, boolean buffered) throws IOException {
        try (InputStream in = buffered ? new BufferedInputStream(new FileInputStream(q.src), q.buffer) : new FileInputStream(q.src);
             OutputStream out = buffered ? new BufferedOutputStream(new FileOutputStream(fresh(q.dst)), q.buffer) : new FileOutputStream(fresh(q.dst))) {
            for (int c; (c = in.read()) >= 0;) out.write(c);
        }
        return "";
    }

    // byte[N] through BufferedInputStream and BufferedOutputStream. As published (the copy article):
    // out.write(readBytes) writes the byte count, one byte per chunk, not the chunk.
    private static String copyStreamChunks(Request q, boolean asPublished) throws IOException {
        final byte[] buf = new byte[q.buffer];
        try (InputStream in = new BufferedInputStream(new FileInputStream(q.src));
             OutputStream out = new BufferedOutputStream(new FileOutputStream(fresh(q.dst)))) {
            for (int n; (n = in.read(buf)) >= 0;) {
                if (asPublished)
                    out.write(n);
                else
                    out.write(buf, 0, n);
            }
        }
        return "";
    }

    private static String copyChannel(Request q) throws IOException {
        final ByteBuffer buf = ByteBuffer.allocate(q.buffer);
        try (FileChannel in = FileChannel.open(Path.of(q.src), StandardOpenOption.READ);
             FileChannel out = FileChannel.open(Path.of(q.dst), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            while (in.read(buf) >= 0) {
                buf.flip();
                while (buf.hasRemaining()) out.write(buf);
                buf.clear();
            }
        }
        return "";
    }

    private static String copyFilesCopy(Request q) throws IOException {
        Files.copy(Path.of(q.src), Path.of(q.dst));
        return "";
    }

    private static String copyTransferTo(Request q) throws IOException {
        try (FileChannel in = FileChannel.open(Path.of(q.src), StandardOpenOption.READ);
             FileChannel out = FileChannel.open(Path.of(q.dst), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            final long size = in.size();
            for (long at = 0; at < size;) {
                final long n = in.transferTo(at, size - at, out);
                if (n <= 0 && in.size() <= at) break;
                at += n;
            }
        }
        return "";
    }

    // A reader thread and a writer thread joined by a bounded queue of `queue` packets of N bytes
    // (the slow-destination article's pipelined copy); an empty packet ends it.
    private static String copyPipelined(Request q) throws Exception {
        final ArrayBlockingQueue<byte[]> full = new ArrayBlockingQueue<>(q.queue);
        final Throwable[] failed = new Throwable[1];
        try (InputStream in = new FileInputStream(q.src); OutputStream out = new FileOutputStream(fresh(q.dst))) {
            final Thread writer = new Thread(() -> {
                try {
                    for (byte[] p; (p = full.take()).length > 0;) out.write(p);
                } catch (Throwable e) {
                    failed[0] = e;
                }
            });
            writer.start();
            try {
                for (;;) {
                    final byte[] buf = new byte[q.buffer];
                    final int n = in.readNBytes(buf, 0, buf.length);
                    if (n <= 0 || !hand(full, n == buf.length ? buf : Arrays.copyOf(buf, n), writer)) break;
                }
            } finally {
                hand(full, new byte[0], writer);
                writer.join();
            }
        }
        if (failed[0] instanceof IOException) throw (IOException) failed[0];
        if (failed[0] != null) throw new IOException(failed[0]);
        return "";
    }

    // Puts a packet on the queue unless the writer has ended (then it would wait forever).
    private static boolean hand(ArrayBlockingQueue<byte[]> queue, byte[] p, Thread writer) throws InterruptedException {
        while (!queue.offer(p, 10, java.util.concurrent.TimeUnit.MILLISECONDS))
            if (!writer.isAlive()) return false;
        return true;
    }

    // --- writes: `count` records of `record` bytes (Data) ---

    // FileWriter, one write(chars) of a record each (a single-byte charset, as the log-writer article's
    // Windows default was, so that a character is a byte); with BufferedWriter of its default size.
    private static String writeWriter(Request q, boolean buffered) throws IOException {
        final Data d = q.data;
        try (Writer w = buffered ? new BufferedWriter(new FileWriter(fresh(q.dst), StandardCharsets.ISO_8859_1))
                                 : new FileWriter(fresh(q.dst), StandardCharsets.ISO_8859_1)) {
            for (long i = 0; i < d.count; ++i) w.write(d.chars, d.at(i), d.record);
        }
        return "";
    }

    // FileOutputStream.write(record.getBytes()): each record copied into a new array first, as
    // getBytes() does, then written; with BufferedOutputStream of its default size.
    private static String writeStream(Request q, boolean buffered) throws IOException {
        final Data d = q.data;
        try (OutputStream out = buffered ? new BufferedOutputStream(new FileOutputStream(fresh(q.dst))) : new FileOutputStream(fresh(q.dst))) {
            for (long i = 0; i < d.count; ++i) {
                final int at = d.at(i);
                out.write(Arrays.copyOfRange(d.pool, at, at + d.record));
            }
        }
        return "";
    }

    private static String writeChannelNewBuffer(Request q) throws IOException {
        final Data d = q.data;
        try (FileChannel ch = FileChannel.open(Path.of(q.dst), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            for (long i = 0; i < d.count; ++i) {
                final ByteBuffer b = ByteBuffer.allocate(d.record);
                b.put(d.pool, d.at(i), d.record).flip();
                while (b.hasRemaining()) ch.write(b);
            }
        }
        return "";
    }

    // One 1,000-byte ByteBuffer, reused: each record written in pieces of 1,000 bytes. As published
    // (the log-writer article), the last piece is length - offset - 1 bytes: a byte lost per record.
    private static String writeChannelPieces(Request q, boolean asPublished) throws IOException {
        final Data d = q.data;
        final ByteBuffer b = ByteBuffer.allocate(1000);
        try (FileChannel ch = FileChannel.open(Path.of(q.dst), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            for (long i = 0; i < d.count; ++i) {
                final int base = d.at(i);
                for (int off = 0; off < d.record; off += 1000) {
                    final boolean last = off + 1000 >= d.record;
                    final int n = last && asPublished ? d.record - off - 1 : Math.min(1000, d.record - off);
                    b.clear();
                    b.put(d.pool, base + off, n).flip();
                    while (b.hasRemaining()) ch.write(b);
                }
            }
        }
        return "";
    }

    // A chain of output streams named outermost first (buffer:N, deflate:L, then file), fed one
    // byte per call or a record per call: the decorator-order article's streams.
    private static String writeChain(Request q) throws Exception {
        final Data d = q.data;
        try (OutputStream out = chain(q.chain, q.dst)) {
            if (q.feedBytes) {
                for (long i = 0; i < d.count; ++i)
                    for (int at = d.at(i), end = at + d.record; at < end; ++at) out.write(d.pool[at]);
            } else {
                for (long i = 0; i < d.count; ++i) out.write(d.pool, d.at(i), d.record);
            }
        }
        return "";
    }

    private static OutputStream chain(String text, String dst) throws Exception {
        final String[] layers = text.split(">");
        if (layers.length == 0 || !layers[layers.length - 1].equals("file")) throw new IllegalArgumentException("chain " + text + " does not end in file");
        OutputStream out = new FileOutputStream(fresh(dst));
        try {
            for (int k = layers.length - 2; k >= 0; --k) {
                final String[] kv = layers[k].split(":");
                final int value = Integer.parseInt(kv[1]);
                switch (kv[0]) {
                    case "buffer": out = new BufferedOutputStream(out, value); break;
                    case "deflate": out = new DeflaterOutputStream(out, new Deflater(value)); break;
                    default: throw new CannotRun("the JDK has no " + kv[0] + " stream");
                }
            }
        } catch (Exception e) {
            out.close();
            throw e;
        }
        return out;
    }
}
