package iolab.worker;

// The records a write writes, made as iolab makes them (src/iolab/core/data.cpp and records.cpp):
// a pool of generated data, and record i taken from a place of it drawn from (seed, block), so
// that iolab checks a JVM writer's file against the same checksum as its own writers'. Made once
// per case, before the clock (the "prepare" request).
final class Data {
    private static final int BLOCK = 64 * 1024, UNIT = 4096, LINE = 72;
    private static final long SPREAD = 16L << 20;
    private static final int ALIGN = 64;
    private static final byte[] ALPHABET =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    final String key;  // what it was made from: a prepare with the same key reuses it
    final byte[] pool;
    final char[] chars;  // the pool as characters (ISO-8859-1: one byte each), for the Writers
    final int record;
    final long count;
    private final int perBlock;
    private final long seed, places;

    // kind: random, text, zeros or compressible; ratio for compressible.
    Data(String kind, double ratio, long dataSeed, int record, long count) {
        this.key = key(kind, ratio, dataSeed, record, count);
        this.record = Math.max(record, 1);
        this.count = count;
        this.seed = splitmix64(dataSeed ^ 0x7265636f72647321L);
        perBlock = (BLOCK + this.record - 1) / this.record;
        final long block = (long) this.record * perBlock;
        final long spread = Math.min(SPREAD, (long) this.record * count);
        if (block + spread > Integer.MAX_VALUE - 64) throw new IllegalArgumentException("records too large for the JVM worker");
        pool = new byte[(int) (block + spread)];
        fill(kind, ratio, dataSeed, pool);
        places = spread / ALIGN + 1;
        chars = new char[pool.length];
        for (int i = 0; i < pool.length; ++i) chars[i] = (char) (pool[i] & 0xff);
    }

    static String key(String kind, double ratio, long dataSeed, int record, long count) {
        return kind + " " + ratio + " " + dataSeed + " " + record + " " + count;
    }

    // Where record i begins in the pool.
    int at(long i) {
        final long k = i / perBlock;
        final long place = Long.remainderUnsigned(splitmix64(seed ^ k), places) * ALIGN;
        return (int) (place + (i % perBlock) * record);
    }

    static long splitmix64(long x) {
        x += 0x9e3779b97f4a7c15L;
        x = (x ^ (x >>> 30)) * 0xbf58476d1ce4e5b9L;
        x = (x ^ (x >>> 27)) * 0x94d049bb133111ebL;
        return x ^ (x >>> 31);
    }

    // xoshiro256+, as data.cpp's.
    private static final class Xoshiro {
        private final long[] s = new long[4];

        Xoshiro(long seed) {
            for (int i = 0; i < 4; ++i) s[i] = seed = splitmix64(seed);
        }

        long next() {
            final long r = s[0] + s[3];
            final long t = s[1] << 17;
            s[2] ^= s[0];
            s[3] ^= s[1];
            s[1] ^= s[2];
            s[0] ^= s[3];
            s[2] ^= t;
            s[3] = Long.rotateLeft(s[3], 45);
            return r;
        }
    }

    private static void randomBytes(Xoshiro rng, byte[] p, int at, int n) {
        for (int i = 0; i < n; i += 8) {
            long v = rng.next();
            for (int b = 0; b < 8 && i + b < n; ++b, v >>>= 8) p[at + i + b] = (byte) v;
        }
    }

    // The stream's bytes [0, out.length) (the pool starts at offset 0 of the stream).
    private static void fill(String kind, double ratio, long seed, byte[] out) {
        final byte[] block = new byte[BLOCK];
        for (long off = 0; off < out.length; off += BLOCK) {
            fillBlock(kind, ratio, seed, off / BLOCK, block);
            System.arraycopy(block, 0, out, (int) off, (int) Math.min(BLOCK, out.length - off));
        }
    }

    private static void fillBlock(String kind, double ratio, long seed, long b, byte[] out) {
        final Xoshiro rng = new Xoshiro(seed ^ splitmix64(b));
        switch (kind) {
            case "zeros":
                java.util.Arrays.fill(out, (byte) 0);
                break;
            case "random":
                randomBytes(rng, out, 0, BLOCK);
                break;
            case "compressible": {
                final int live = (int) Math.max(1, Math.min(UNIT, (long) (UNIT / ratio)));
                for (int u = 0; u < BLOCK; u += UNIT) {
                    randomBytes(rng, out, u, live);
                    java.util.Arrays.fill(out, u + live, u + UNIT, (byte) 0);
                }
                break;
            }
            case "text": {
                final long base = b * BLOCK;
                long bits = 0;
                int left = 0;
                for (int i = 0; i < BLOCK; ++i) {
                    if ((base + i) % LINE == LINE - 1) {
                        out[i] = '\n';
                        continue;
                    }
                    if (left == 0) {
                        bits = rng.next();
                        left = 10;
                    }
                    out[i] = ALPHABET[(int) (bits & 63)];
                    bits >>>= 6;
                    --left;
                }
                break;
            }
            default: throw new IllegalArgumentException("unknown data kind " + kind);
        }
    }
}
