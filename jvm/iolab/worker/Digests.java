package iolab.worker;

import java.util.Arrays;
import java.util.zip.CRC32;

// What a read proves it read, computed as iolab's sink computes it (src/iolab/core/sink.hpp), so
// that iolab checks a JVM read against the same references as its own reads: the sampled
// fingerprint (one word of every 4 KiB page and the byte count), the byte sums of a byte-at-a-time
// reader, or, when every byte is checked (a case's first run), CRC-32 (java.util.zip, checked by
// iolab against zlib's crc32).
final class Digests {
    private Digests() {}

    // The sampled fingerprint of a stream fed in chunks of any size (Fingerprint in sink.hpp).
    static final class Fingerprint {
        private static final long PAGE = 4096;
        private long bytes, nextPage, sum, page;
        private int pending;
        private final byte[] word = new byte[8];

        void update(byte[] p, int off, int n) {
            final long begin = bytes, end = bytes + n;
            if (pending > 0) {  // finish a word begun in an earlier chunk
                final int take = Math.min(8 - pending, n);
                System.arraycopy(p, off, word, pending, take);
                pending += take;
                if (pending == 8) addWord();
            }
            for (long pg = nextPage; pg * PAGE < end; pg = nextPage) {
                final long at = pg * PAGE + wordOffset(pg);
                if (at >= end) break;  // the sampled word of this page is in a later chunk
                ++nextPage;
                if (at < begin) continue;
                final int take = (int) Math.min(8, end - at);
                Arrays.fill(word, (byte) 0);
                System.arraycopy(p, off + (int) (at - begin), word, 0, take);
                page = pg;
                pending = take;
                if (pending == 8) addWord();
            }
            bytes = end;
        }

        long digest() {
            long acc = sum;
            if (pending > 0) acc += term(page, word);
            return mix(acc ^ mix(bytes + 0x9e3779b97f4a7c15L));
        }

        long bytes() { return bytes; }

        private static long wordOffset(long page) { return ((page * 0x9e3779b1L) >>> 7 & 511) * 8; }

        private static long term(long page, byte[] w) {
            long v = 0;
            for (int i = 7; i >= 0; --i) v = v << 8 | (w[i] & 0xff);  // little-endian, as memcpy on x86
            return mix(v ^ mix(page + 1));
        }

        private void addWord() {
            sum += term(page, word);
            pending = 0;
        }
    }

    static long mix(long x) {  // splitmix64's finaliser
        x ^= x >>> 30;
        x *= 0xbf58476d1ce4e5b9L;
        x ^= x >>> 27;
        x *= 0x94d049bb133111ebL;
        return x ^ (x >>> 31);
    }

    // Where a reader puts what it read: CRC-32 of every byte (full) or the fingerprint (sampled).
    static final class ChunkSink {
        private final boolean full;
        private final CRC32 crc = new CRC32();
        private final Fingerprint fingerprint = new Fingerprint();
        private long bytes;

        ChunkSink(boolean full) { this.full = full; }

        void consume(byte[] p, int off, int n) {
            if (full) {
                crc.update(p, off, n);
                bytes += n;
            } else {
                fingerprint.update(p, off, n);
            }
        }

        String report() {
            return full ? String.format("bytes=%d crc=%08x", bytes, crc.getValue())
                        : String.format("bytes=%d fp=%016x", fingerprint.bytes(), fingerprint.digest());
        }
    }

    // A byte-at-a-time reader's: full mode stages the bytes in a 64 KiB block for CRC-32; sampled
    // mode adds each byte into position-weighted sums (ByteSums in sink.hpp), two adds a byte.
    interface ByteSource {
        int next() throws java.io.IOException;  // the next byte, or -1 at the end
    }

    static String drain(ByteSource in, boolean full) throws java.io.IOException {
        if (full) {
            final ChunkSink sink = new ChunkSink(true);
            final byte[] block = new byte[64 * 1024];
            int n = 0;
            for (int c; (c = in.next()) >= 0;) {
                block[n++] = (byte) c;
                if (n == block.length) {
                    sink.consume(block, 0, n);
                    n = 0;
                }
            }
            sink.consume(block, 0, n);
            return sink.report();
        }
        long s1 = 0, s2 = 0, count = 0;
        for (int c; (c = in.next()) >= 0; ++count) {
            s1 += c;
            s2 += s1;
        }
        return String.format("bytes=%d sums=%d,%s,%s", count, count, Long.toUnsignedString(s1), Long.toUnsignedString(s2));
    }
}
