package dev.hintmap.nativelib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.Region;
import dev.hintmap.RegionRecord;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Java and the C library (native-bench/, built by the Maven build) on the same files: what one
 * writes the other reads exactly, and writers of both languages at once lose no update.
 */
class NativeConformanceTest {
    private static final Path BUILD = dev.hintmap.testkit.NativeTools.BUILD;

    @TempDir
    Path dir;

    /** Sums one writer reports: count, kernel ns total, bytes total. */
    record Sums(long count, long kernelNs, long bytes) {
        Sums plus(Sums o) {
            return new Sums(count + o.count, kernelNs + o.kernelNs, bytes + o.bytes);
        }
    }

    private static String run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "timed out: " + command);
        assertEquals(0, p.exitValue(), () -> command + " failed:\n" + out);
        return out;
    }

    /** hm-bench's checksum lines: {@code region <name> <count> <kernel_ns_total> <bytes_total>}. */
    private static Map<String, Sums> benchSums(String out) {
        Map<String, Sums> sums = new TreeMap<>();
        for (String line : out.split("\n")) {
            String[] f = line.split(" ");
            if (f[0].equals("region") && f.length == 5) {
                sums.put(f[1], new Sums(Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4])));
            }
        }
        return sums;
    }

    /**
     * FORMAT.md §3.4, one source per language: C's description and fingerprint (from its X-macro
     * field lists, {@code hm-layout}) are Java's (walked from the StructLayouts), line for line.
     * A field added on one side only changes that side's output and fails here (and against the
     * committed vector, LayoutTest and the C suite).
     */
    @Test
    void theCLayoutDescriptionIsTheJavaOne() throws Exception {
        String c = run(List.of(BUILD.resolve("hm-layout").toString()));
        String java = dev.hintmap.format.Layouts.describe()
                + String.format("layout_fingerprint %016x%n", dev.hintmap.format.Layouts.fingerprint());
        assertEquals(java, c);
    }

    @Test
    void recordsWrittenByTheCLibraryReadBackExactlyInJava() throws Exception {
        Path file = dir.resolve("c-wrote.hints");
        String out = run(List.of(BUILD.resolve("hm-bench").toString(), "-f", file.toString(), "-t", "2", "-r", "40",
                "-n", "20000", "-s", "0.9", "-k", "lognormal:150000:1.0", "-S", "7"));
        assertTrue(out.contains("verify ok"), out);
        Map<String, Sums> sums = benchSums(out);
        assertEquals(40, sums.size(), out);
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            assertEquals(40, store.size());
            long total = 0;
            for (Map.Entry<String, Sums> e : sums.entrySet()) {
                RegionRecord r = store.recordFor(e.getKey()).orElseThrow(() -> new AssertionError(e.getKey()));
                assertEquals(e.getValue(), new Sums(r.dispatchCount(), r.kernelNsTotal(), r.bytesTotal()), e.getKey());
                assertTrue(r.kernelNsMax() <= r.kernelNsTotal() && r.meanKernelNs() <= r.kernelNsMax(), r::toString);
                total += r.dispatchCount();
            }
            assertEquals(40_000, total);
        }
    }

    /**
     * {@code hm-bench --disjoint} (the contention curve's "no shared slot" end, docs/GPU.md): each of
     * 3 threads records into its own 10 regions, so every block of 10 names sums to one thread's
     * records, and the file holds all 30 with exactly those counts.
     */
    @Test
    void hmBenchDisjointGivesEveryThreadItsOwnRegions() throws Exception {
        Path file = dir.resolve("disjoint.hints");
        String out = run(List.of(BUILD.resolve("hm-bench").toString(), "-f", file.toString(), "-t", "3", "-r", "10",
                "--disjoint", "-n", "3000", "-S", "5"));
        assertTrue(out.contains("verify ok"), out);
        assertTrue(out.contains("regions=30 disjoint=1"), out);
        Map<String, Sums> sums = benchSums(out);
        assertEquals(30, sums.size(), out);
        long[] perThread = new long[3];
        for (Map.Entry<String, Sums> e : sums.entrySet()) {
            int index = Integer.parseInt(e.getKey().substring("region-".length()));
            perThread[index / 10] += e.getValue().count();
            assertTrue(e.getValue().count() > 0, e::toString); // Zipf 1.0 over 10: every region drawn in 3,000
        }
        assertEquals(List.of(3000L, 3000L, 3000L), List.of(perThread[0], perThread[1], perThread[2]), out);
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            assertEquals(30, store.size());
            for (Map.Entry<String, Sums> e : sums.entrySet()) {
                assertEquals(e.getValue().count(), store.recordFor(e.getKey()).orElseThrow().dispatchCount(), e.getKey());
            }
        }
    }

    @Test
    void recordsWrittenInJavaReadBackExactlyThroughTheCLibrary() throws Exception {
        Path file = dir.resolve("java-wrote.hints");
        Map<String, RegionRecord> written = new HashMap<>();
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(64).maxNameBytes(48))) {
            String[] names = {"gemm_bf16_128x128x64", "カーネル_matmul", "\uD83D\uDE80fused_add", "conv.2d/fwd", "x"};
            for (int i = 0; i < names.length; i++) {
                Region region = store.region(names[i]);
                for (int n = 0; n < 100 * (i + 1); n++) {
                    region.record(1_000L * (i + 1) + n, 64L * n);
                }
                store.record(names[i], Long.MAX_VALUE, 1); // saturates the total
            }
            store.snapshot().regions().forEach(r -> written.put(r.name(), r));
        }
        String out = run(List.of(BUILD.resolve("hm-dump").toString(), file.toString()));
        Map<String, RegionRecord> read = new HashMap<>();
        for (String line : out.split("\n")) {
            if (line.startsWith("region ")) {
                String[] f = line.split(" ");
                int n = f.length;
                String name = String.join(" ", java.util.Arrays.copyOfRange(f, 1, n - 4));
                read.put(name, new RegionRecord(name, Long.parseLong(f[n - 4]), Long.parseLong(f[n - 3]),
                        Long.parseLong(f[n - 2]), Long.parseLong(f[n - 1])));
            }
        }
        assertEquals(5, written.size());
        assertEquals(written, read, out);
        assertTrue(out.contains("size 5 capacity 64"), out);
        for (RegionRecord r : read.values()) {
            assertEquals(Long.MAX_VALUE, r.kernelNsTotal());
            assertEquals(Long.MAX_VALUE, r.kernelNsMax());
        }
    }

    @Test
    void cWriterProcessesAndJavaThreadsOnTheSameRegionsLoseNoUpdate() throws Exception {
        Path file = dir.resolve("both.hints");
        int regions = 16;
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            store.record("region-00000", 1, 1); // create the file before the C writers attach
            Process c = new ProcessBuilder(BUILD.resolve("hm-bench").toString(), "-f", file.toString(), "--shared", "-p", "2",
                    "-t", "1", "-r", Integer.toString(regions), "-n", "200000", "-s", "0", "-k", "fixed:500", "-S", "3")
                    .redirectErrorStream(true).start();
            int javaThreads = 2;
            int perThread = 100_000;
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < javaThreads; t++) {
                threads.add(Thread.ofPlatform().start(() -> {
                    Region[] handles = new Region[regions];
                    for (int r = 0; r < regions; r++) {
                        handles[r] = store.region(String.format("region-%05d", r));
                    }
                    for (int i = 0; i < perThread; i++) {
                        handles[i % regions].record(7, 3);
                    }
                }));
            }
            for (Thread t : threads) {
                t.join();
            }
            String out = new String(c.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(c.waitFor(120, TimeUnit.SECONDS));
            assertEquals(0, c.exitValue(), out);
            Map<String, Sums> cSums = benchSums(out);
            assertEquals(regions, cSums.size(), out);
            long javaPerRegion = (long) javaThreads * perThread / regions;
            for (int r = 0; r < regions; r++) {
                String name = String.format("region-%05d", r);
                Sums expected = cSums.get(name).plus(new Sums(javaPerRegion, 7 * javaPerRegion, 3 * javaPerRegion));
                if (r == 0) {
                    expected = expected.plus(new Sums(1, 1, 1));
                }
                RegionRecord got = store.recordFor(name).orElseThrow();
                assertEquals(expected, new Sums(got.dispatchCount(), got.kernelNsTotal(), got.bytesTotal()), name);
            }
        }
    }
}
