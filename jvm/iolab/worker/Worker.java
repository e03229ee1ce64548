package iolab.worker;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

// iolab's JVM worker (docs/jvm.md): started once per group, driven over its standard input and
// output, one request line and one answer line at a time:
//   ping                          -> pong                  (the round trip iolab states as its fixed cost)
//   gc                            -> ok                    (System.gc(), between iterations, outside the clock)
//   prepare data=K ratio=R seed=S record=N count=C -> ok  (a write's records, made before the clock)
//   run method=M src=P dst=P buffer=N queue=Q verify=full|sampled chain=C feed=bytes|records
//                                 -> done ns=T [bytes=B crc=X | fp=X | sums=C,S1,S2]
//   anything that fails           -> error TEXT  (cannot TEXT: the job cannot run here)
// Values are percent-encoded (%XX) where they hold a space, a percent sign or a byte outside ASCII.
// The worker ends at the end of its input.
public final class Worker {
    private Worker() {}

    public static void main(String[] args) throws Exception {
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.ISO_8859_1));
        final PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, StandardCharsets.ISO_8859_1);
        out.println("ready " + clean(System.getProperty("java.vm.name")) + " " + clean(System.getProperty("java.vm.version")));
        out.flush();
        Data data = null;
        for (String line; (line = in.readLine()) != null;) {
            String answer;
            try {
                final String[] words = line.split(" ");
                final Map<String, String> r = new HashMap<>();
                for (int i = 1; i < words.length; ++i) {
                    final int eq = words[i].indexOf('=');
                    if (eq > 0) r.put(words[i].substring(0, eq), decode(words[i].substring(eq + 1)));
                }
                switch (words[0]) {
                    case "ping": answer = "pong"; break;
                    case "gc": System.gc(); answer = "ok"; break;
                    case "prepare": {
                        final String kind = r.get("data");
                        final double ratio = Double.parseDouble(r.get("ratio"));
                        final long seed = Long.parseUnsignedLong(r.get("seed"));
                        final int record = Integer.parseInt(r.get("record"));
                        final long count = Long.parseLong(r.get("count"));
                        if (data == null || !data.key.equals(Data.key(kind, ratio, seed, record, count))) {
                            data = null;  // the old records' memory is free before the new are made
                            data = new Data(kind, ratio, seed, record, count);
                        }
                        answer = "ok";
                        break;
                    }
                    case "run": {
                        final Methods.Request q = new Methods.Request(r, data);
                        final long t0 = System.nanoTime();
                        final String proof = Methods.run(r.get("method"), q);
                        final long t1 = System.nanoTime();
                        answer = "done ns=" + (t1 - t0) + (proof.isEmpty() ? "" : " " + proof);
                        break;
                    }
                    default: answer = "error unknown request " + clean(words[0]);
                }
            } catch (Methods.CannotRun e) {
                answer = "cannot " + clean(e.getMessage());
            } catch (Throwable e) {
                answer = "error " + clean(e.toString());
            }
            out.println(answer);
            out.flush();
        }
    }

    // One line: no newline or carriage return in an answer.
    private static String clean(String s) { return s == null ? "" : s.replace('\n', ' ').replace('\r', ' '); }

    private static String decode(String s) {
        if (s.indexOf('%') < 0) return s;
        final byte[] b = new byte[s.length()];
        int n = 0;
        for (int i = 0; i < s.length(); ++i) {
            final char c = s.charAt(i);
            if (c == '%' && i + 2 < s.length()) {
                b[n++] = (byte) Integer.parseInt(s.substring(i + 1, i + 3), 16);
                i += 2;
            } else {
                b[n++] = (byte) c;
            }
        }
        return new String(b, 0, n, StandardCharsets.UTF_8);
    }
}
