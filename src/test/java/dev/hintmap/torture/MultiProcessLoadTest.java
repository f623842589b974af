package dev.hintmap.torture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.testkit.ChildJvm;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import dev.hintmap.torture.Writers.Kind;
import dev.hintmap.torture.Writers.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * 2 C processes x 2 threads + 2 JVM writers + 1 JVM reader polling snapshots on one file,
 * 10^7 records in all: exact totals, no reader violation, monotonic counts (docs/archive/RELIABILITY.md).
 * Scale with {@code -Dhintmap.load.scale=10} for the long mode.
 */
class MultiProcessLoadTest {
    private static final int SCALE = Integer.getInteger("hintmap.load.scale", 1);

    @TempDir
    Path dir;

    @Test
    void writersOfBothLanguagesAndALiveReaderAgreeOnEveryRecord() throws Exception {
        Path file = dir.resolve("load.hints");
        int regions = 32;
        long cPerThread = 2_000_000L * SCALE;
        long javaPerProcess = 1_000_000L * SCALE;
        HintStore.open(file, HintStoreOptions.defaults()).close();
        Path stop = dir.resolve("stop");
        Process reader = ChildJvm.builder(SnapshotPoller.class, file.toString(), Integer.toString(regions), stop.toString())
                .redirectOutput(dir.resolve("reader.log").toFile()).start();
        Process c = new ProcessBuilder(Writers.NATIVE.resolve("hm-bench").toString(), "-f", file.toString(), "--shared",
                "-p", "2", "-t", "2", "-r", Integer.toString(regions), "-n", Long.toString(cPerThread), "-s", "0.8",
                "-k", "lognormal:50000:1.0", "-S", "11").redirectErrorStream(true).start();
        Writers java = new Writers(file, dir, regions);
        try {
            runAndCheck(file, regions, cPerThread, javaPerProcess, stop, reader, c, java);
        } finally { // a failed run leaves no process behind
            java.close();
            c.destroyForcibly();
            reader.destroyForcibly();
        }
    }

    private void runAndCheck(Path file, int regions, long cPerThread, long javaPerProcess, Path stop,
            Process reader, Process c, Writers java) throws Exception {
        Writer j1 = java.start(Kind.JAVA_BY_NAME, javaPerProcess);
        Writer j2 = java.start(Kind.JAVA_HANDLES, javaPerProcess);
        String cOut = new String(c.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(c.waitFor(300, TimeUnit.SECONDS));
        assertEquals(0, c.exitValue(), cOut);
        for (Writer w : new Writer[] {j1, j2}) {
            assertTrue(w.process().waitFor(300, TimeUnit.SECONDS));
            assertEquals(0, w.process().exitValue(), Files.readString(dir.resolve("writer-" + (w == j1 ? 0 : 1) + ".log")));
        }
        Files.createFile(stop);
        assertTrue(reader.waitFor(120, TimeUnit.SECONDS));
        String readerOut = Files.readString(dir.resolve("reader.log"));
        assertEquals(0, reader.exitValue(), readerOut);
        assertTrue(readerOut.contains("violations=0"), readerOut);

        Map<String, long[]> expected = new HashMap<>();
        for (String line : cOut.split("\n")) {
            String[] f = line.split(" ");
            if (f[0].equals("region") && f.length == 5) {
                expected.put(f[1], new long[] {Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4])});
            }
        }
        long[] javaCounts = java.progressAll();
        long total = 0;
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            for (int r = 0; r < regions; r++) {
                String name = String.format("region-%05d", r);
                long[] e = expected.getOrDefault(name, new long[3]);
                long count = e[0] + javaCounts[r];
                RegionRecord got = store.recordFor(name).orElseThrow();
                assertEquals(count, got.dispatchCount(), name);
                assertEquals(e[1] + javaCounts[r] * (1000L + r), got.kernelNsTotal(), name);
                assertEquals(e[2] + javaCounts[r] * r, got.bytesTotal(), name);
                total += got.dispatchCount();
            }
        }
        assertEquals(2 * 2 * cPerThread + 2 * javaPerProcess, total);
        System.out.printf("MultiProcessLoadTest: %,d records checked exactly; reader: %s%n", total, readerOut.trim());
    }
}
