package dev.hintmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.testkit.Await;
import dev.hintmap.testkit.ChildJvm;
import dev.hintmap.testkit.StoreKind;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The allocation-free queries (issue 14, targets 3 and 6): {@link HintStore#readInto},
 * the {@link Region} queries and {@link HintStore#forEachView}: what they read, how a handle
 * follows its region, that nothing is allocated once compiled (the steady state), and that
 * concurrent writers never tear a record.
 */
class AllocationFreeQueryTest {
    private static final long THRESHOLD = 1_000;

    private static HintStoreOptions options(int capacity) {
        return HintStoreOptions.defaults().capacity(capacity).hotThresholdNs(THRESHOLD);
    }

    /** A holder with junk in it, to see that an absent query clears it. */
    private static MutableRecord dirty(HintStore store) {
        MutableRecord r = new MutableRecord();
        store.record("dirt", 7, 7);
        assertTrue(store.readInto("dirt", r));
        return r;
    }

    private static void assertCleared(MutableRecord r) {
        assertEquals(0, r.dispatchCount());
        assertEquals(0, r.kernelNsTotal());
        assertEquals(0, r.kernelNsMax());
        assertEquals(0, r.bytesTotal());
        assertFalse(r.isPresent());
        assertFalse(r.isHot(0));
    }

    private static void assertReadsAs(Optional<RegionRecord> expected, HintStore store, String name) {
        MutableRecord byName = dirty(store);
        assertEquals(expected.isPresent(), store.readInto(name, byName), name);
        MutableRecord byHandle = dirty(store);
        Region region = store.region(name);
        assertEquals(expected.isPresent(), region.readInto(byHandle), name);
        if (expected.isPresent()) {
            RegionRecord r = expected.orElseThrow();
            assertEquals(r, byName.toRecord(name));
            assertEquals(r, byHandle.toRecord(name));
            assertTrue(byName.sameFieldsAs(r));
            assertEquals(r.meanKernelNs(), byName.meanKernelNs());
            assertEquals(r.meanBytes(), byName.meanBytes());
            assertEquals(store.isHot(name), byName.isHot(store.hotThresholdNs()));
        } else {
            assertCleared(byName);
            assertCleared(byHandle);
        }
        assertEquals(store.isHot(name), region.isHot(), name);
        assertEquals(byName.dispatchCount(), region.dispatchCount(), name);
        assertEquals(byName.meanKernelNs(), region.meanKernelNs(), name);
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void readIntoEqualsRecordForForPresentAbsentAndEvictedRegions(StoreKind kind) {
        try (HintStore store = kind.open(options(4))) {
            store.record("a", 2_000, 10);
            store.record("a", 500, 30);
            store.record("b", 100, 1);
            assertReadsAs(store.recordFor("a"), store, "a");
            assertReadsAs(store.recordFor("b"), store, "b");
            assertReadsAs(Optional.empty(), store, "never-recorded");
            int sizeBefore = store.size();
            for (int i = 0; i < 20; i++) {
                store.record("evictor-" + i, 3, 3);
            }
            assertTrue(store.recordFor("b").isEmpty(), "b was evicted");
            assertReadsAs(Optional.empty(), store, "b");
            for (int i = 0; i < 20; i++) {
                assertReadsAs(store.recordFor("evictor-" + i), store, "evictor-" + i);
            }
            assertTrue(store.size() >= sizeBefore);
        }
    }

    @Test
    void aBadNameIsRejectedAndLeavesTheHolderAsItWas() {
        try (HintStore store = HintStore.inMemory(options(4))) {
            MutableRecord r = dirty(store);
            assertThrows(IllegalArgumentException.class, () -> store.readInto("", r));
            try (HintStore strict = HintStore.inMemory(options(4).rejectLongNames(true))) { // else found by its stored form
                assertThrows(IllegalArgumentException.class, () -> strict.readInto("x".repeat(strict.maxNameBytes() + 1), r));
            }
            assertThrows(IllegalArgumentException.class, () -> store.readInto(null, r));
            assertThrows(NullPointerException.class, () -> store.readInto("dirt", null));
            assertEquals(1, r.dispatchCount());
        }
    }

    @Test
    void aQueryNeverInsertsAndCapacityZeroReadsEverythingAbsent() {
        try (HintStore store = HintStore.inMemory(options(4)); HintStore none = HintStore.inMemory(options(0))) {
            Region region = store.region("q");
            MutableRecord r = new MutableRecord();
            assertFalse(region.readInto(r));
            assertFalse(store.readInto("q", r));
            assertEquals(0, region.dispatchCount());
            assertFalse(region.isHot());
            assertEquals(0, store.size());
            none.record("q", 5_000, 1);
            none.region("q").record(5_000, 1);
            assertFalse(none.readInto("q", r));
            assertFalse(none.region("q").readInto(r));
            int[] visits = new int[1];
            none.forEachView(v -> visits[0]++);
            assertEquals(0, visits[0]);
        }
    }

    @Test
    void aClosedStoreRefusesEveryQuery() {
        HintStore store = HintStore.inMemory(options(4));
        store.record("a", 1, 1);
        Region region = store.region("a");
        store.close();
        MutableRecord r = new MutableRecord();
        assertThrows(IllegalStateException.class, () -> store.readInto("a", r));
        assertThrows(IllegalStateException.class, () -> region.readInto(r));
        assertThrows(IllegalStateException.class, region::isHot);
        assertThrows(IllegalStateException.class, region::dispatchCount);
        assertThrows(IllegalStateException.class, () -> store.forEachView(v -> { }));
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void aRegionQueryReadsAbsentAfterEvictionAndTheNewRecordAfterReinsertion(StoreKind kind) {
        try (HintStore store = kind.open(options(2))) {
            Region a = store.region("a");
            a.record(4_000, 8);
            a.record(2_000, 8);
            MutableRecord r = new MutableRecord();
            assertTrue(a.readInto(r));
            assertEquals(new RegionRecord("a", 2, 6_000, 4_000, 16), r.toRecord("a"));
            assertTrue(a.isHot());
            int evictor = 0;
            while (store.recordFor("a").isPresent()) {
                store.record("evictor-" + evictor++, 1, 1);
                assertTrue(evictor < 100, "a is never evicted");
            }
            assertFalse(a.readInto(r));
            assertCleared(r);
            assertEquals(0, a.dispatchCount());
            assertEquals(0, a.meanKernelNs());
            assertFalse(a.isHot());
            // re-inserted by name, so the handle's remembered slot is stale, wherever "a" lands now
            store.record("a", 10, 3);
            assertTrue(a.readInto(r));
            assertEquals(new RegionRecord("a", 1, 10, 10, 3), r.toRecord("a"));
            assertEquals(store.recordFor("a").orElseThrow(), r.toRecord("a"));
            assertFalse(a.isHot());
            // and move it around a few times more: each time the handle reads what recordFor reads
            for (int round = 0; round < 6; round++) {
                while (store.recordFor("a").isPresent()) {
                    store.record("evictor-" + evictor++, 1, 1);
                }
                assertFalse(a.readInto(r));
                a.record(100 * (round + 1), round);
                assertTrue(a.readInto(r));
                assertEquals(store.recordFor("a").orElseThrow(), r.toRecord("a"));
                assertEquals(1, a.dispatchCount());
            }
        }
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void theVisitorVisitsExactlyTheLiveRegionsWithTheirRecords(StoreKind kind) {
        try (HintStore store = kind.open(options(16))) {
            SplittableRandom random = new SplittableRandom(14);
            for (int i = 0; i < 2_000; i++) {
                store.record("r" + random.nextInt(40), random.nextLong(1, 5_000), random.nextLong(100));
            }
            Set<RegionRecord> expected = new HashSet<>(store.snapshot().regions());
            List<RegionRecord> viaViews = new ArrayList<>();
            List<RegionRecord> viaHolders = new ArrayList<>();
            byte[] nameBuffer = new byte[store.maxNameBytes()];
            int[] hot = new int[1];
            store.forEachView(v -> {
                viaViews.add(v.toRecord());
                MutableRecord m = new MutableRecord();
                v.readInto(m);
                int length = v.nameBytes(nameBuffer);
                String name = new String(nameBuffer, 0, length, StandardCharsets.UTF_8);
                viaHolders.add(m.toRecord(name));
                assertTrue(v.nameEquals(name));
                assertTrue(v.nameStartsWith("r"));
                assertFalse(v.nameEquals(name + "x"));
                assertEquals(store.isHot(name), v.isHot());
                assertEquals(m.meanKernelNs(), v.meanKernelNs());
                assertEquals(m.meanBytes(), v.meanBytes());
                if (v.isHot()) {
                    hot[0]++;
                }
            });
            assertEquals(expected.size(), viaViews.size(), "each live region once");
            assertEquals(expected, new HashSet<>(viaViews));
            assertEquals(expected, new HashSet<>(viaHolders));
            assertEquals(store.size(), viaViews.size());
            assertEquals(expected.stream().filter(r -> r.meanKernelNs() >= THRESHOLD).count(), hot[0]);
        }
    }

    @Test
    void aViewComparesNamesInUtf8() {
        String name = "gemm_é_∑_\uD83D\uDE00_end"; // 2-, 3- and 4-byte sequences
        try (HintStore store = HintStore.inMemory(options(4))) {
            store.record(name, 1, 1);
            List<String> seen = new ArrayList<>();
            store.forEachView(v -> {
                assertEquals(name.getBytes(StandardCharsets.UTF_8).length, v.nameLength());
                assertEquals(name.getBytes(StandardCharsets.UTF_8)[9], v.nameByte(9));
                assertThrows(IndexOutOfBoundsException.class, () -> v.nameByte(v.nameLength()));
                assertThrows(IndexOutOfBoundsException.class, () -> v.nameBytes(new byte[v.nameLength() - 1]));
                assertTrue(v.nameEquals(name));
                assertTrue(v.nameStartsWith(""));
                assertTrue(v.nameStartsWith("gemm_é_∑"));
                assertTrue(v.nameStartsWith("gemm_é_∑_\uD83D\uDE00"));
                assertFalse(v.nameStartsWith("gemm_é_∑_\uD83D")); // unpaired surrogate: not encodable
                assertFalse(v.nameStartsWith("gemm_e"));
                assertFalse(v.nameEquals("gemm_é_∑_\uD83D\uDE01_end"));
                assertFalse(v.nameEquals(name.substring(0, name.length() - 1)));
                assertFalse(v.nameEquals(name + "_"));
                seen.add(v.name());
            });
            assertEquals(List.of(name), seen);
        }
    }

    // ------------------------------------------------------------------ allocation

    /**
     * {@code com.sun.management.ThreadMXBean.getCurrentThreadAllocatedBytes()}, reached reflectively:
     * the tests compile inside the module, which does not read {@code jdk.management}.
     */
    private static final java.lang.invoke.MethodHandle ALLOCATED;

    static {
        try {
            Object bean = Class.forName("java.lang.management.ManagementFactory").getMethod("getThreadMXBean").invoke(null);
            ALLOCATED = java.lang.invoke.MethodHandles.publicLookup()
                    .findVirtual(Class.forName("com.sun.management.ThreadMXBean"), "getCurrentThreadAllocatedBytes",
                            java.lang.invoke.MethodType.methodType(long.class))
                    .bindTo(bean);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static long allocated() {
        try {
            return (long) ALLOCATED.invokeExact();
        } catch (Throwable e) {
            throw new AssertionError(e);
        }
    }

    /**
     * Bytes allocated per call of {@code query} over {@code calls} calls, from the 17th call on: for
     * the scans, whose fixed cost and cost per region it compares (a cost per region of the cold
     * tiers would show in both).
     */
    private static double bytesPerCall(int calls, Runnable query) {
        for (int i = 0; i < 16; i++) {
            query.run(); // thread-local buffers, class initialisation
        }
        long before = allocated();
        for (int i = 0; i < calls; i++) {
            query.run();
        }
        return (double) (allocated() - before) / calls;
    }

    /**
     * The queries' promise, tested as HintStore makes it: allocation-free once compiled (the steady
     * state, as JMH's {@code -prof gc} measures it). The queries run in a JVM of their own (no other
     * test's stores in its type profiles; {@code -Xbatch}, so a call waits for its compilation), each
     * in rounds of {@link SteadyStateQueries#ROUND} calls until a round allocates not one byte. A query
     * that allocates on every call once compiled (an object that escapes) never gets there and fails;
     * one that allocates only before C2 compiles it (the slot's slice, which C2 scalar-replaces) passes.
     */
    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void queriesByNameAndByHandleAllocateNothingOnceCompiled(StoreKind kind) throws Exception {
        List<String> command = new ArrayList<>(ChildJvm.builder(SteadyStateQueries.class, kind.name()).command());
        command.add(1, "-Xbatch");
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = child.getInputStream().readAllBytes();
        if (!child.waitFor(60, TimeUnit.SECONDS)) {
            child.destroyForcibly();
            throw new AssertionError("the child did not finish");
        }
        String text = new String(out, StandardCharsets.UTF_8);
        System.out.print(kind + ", once compiled:\n" + text);
        assertEquals(0, child.exitValue(), text);
        assertTrue(text.contains("steady state: every query allocates nothing"), text);
    }

    /** The child JVM of {@link #queriesByNameAndByHandleAllocateNothingOnceCompiled}; its argument is a {@link StoreKind}. */
    public static final class SteadyStateQueries {
        /** Calls of a query per round; a round passes when the thread allocated 0 bytes over all of them. */
        static final int ROUND = 10_000;
        /**
         * Rounds a query may take to reach one that allocates nothing: its warm-up and compilation (with
         * {@code -Xbatch} a count of calls, not a time, however loaded the machine).
         */
        static final int MAX_ROUNDS = 100;
        /** Where the control's records go, so that C2 cannot scalar-replace them. */
        static final Object[] ESCAPE = new Object[1];

        private SteadyStateQueries() {}

        /**
         * Bytes per call of {@code query} in the first round that allocated nothing (so 0), else in
         * round {@link #MAX_ROUNDS}: the rounds before run interpreted, in C1 and while C2 compiles,
         * which is the warm-up, not the steady state.
         */
        static double steadyBytesPerCall(Runnable query) {
            long bytes = 0;
            for (rounds = 1; rounds <= MAX_ROUNDS; rounds++) {
                long before = allocated();
                for (int i = 0; i < ROUND; i++) {
                    query.run();
                }
                bytes = allocated() - before;
                if (rounds == 1) {
                    firstRound = (double) bytes / ROUND;
                }
                if (bytes == 0) {
                    break;
                }
            }
            return (double) bytes / ROUND;
        }

        /** What the last {@link #steadyBytesPerCall} saw: its rounds, and the bytes per call of its first. */
        private static int rounds;
        private static double firstRound;

        private static void check(List<String> failures, String what, Runnable query) {
            double perCall = steadyBytesPerCall(query);
            System.out.println(what + ": " + perCall + " B/call in round " + Math.min(rounds, MAX_ROUNDS)
                    + " (the first: " + firstRound + ")");
            if (perCall != 0) {
                failures.add(what + ": " + perCall + " B/call");
            }
        }

        public static void main(String[] args) {
            StoreKind kind = StoreKind.valueOf(args[0]);
            List<String> failures = new ArrayList<>();
            long[] sink = new long[1];
            int[] i = new int[1];
            try (HintStore store = kind.open(options(64).maxNameBytes(64))) {
                String[] names = new String[32];
                Region[] regions = new Region[names.length];
                for (int n = 0; n < names.length; n++) {
                    names[n] = "gemm_bf16_" + n;
                    store.record(names[n], 500L * n, 64);
                    regions[n] = store.region(names[n]);
                }
                Region absent = store.region("absent");
                MutableRecord r = new MutableRecord();
                check(failures, "readInto(name)", () -> sink[0] += store.readInto(names[i[0]++ & 31], r) ? r.meanKernelNs() : 1);
                check(failures, "readInto(absent name)", () -> sink[0] += store.readInto("absent", r) ? 1 : 0);
                check(failures, "isHot(name)", () -> sink[0] += store.isHot(names[i[0]++ & 31]) ? 1 : 0);
                check(failures, "isHot(name, threshold)", () -> sink[0] += store.isHot(names[i[0]++ & 31], 7_000) ? 1 : 0);
                check(failures, "dispatchCount(name)", () -> sink[0] += store.dispatchCount(names[i[0]++ & 31]));
                check(failures, "meanKernelNs(name)", () -> sink[0] += store.meanKernelNs(names[i[0]++ & 31]));
                check(failures, "isEmpty()", () -> sink[0] += store.isEmpty() ? 0 : 1);
                check(failures, "Region.readInto", () -> sink[0] += regions[i[0]++ & 31].readInto(r) ? r.kernelNsMax() : 1);
                check(failures, "Region.readInto(absent)", () -> sink[0] += absent.readInto(r) ? 1 : 0);
                check(failures, "Region.isHot", () -> sink[0] += regions[i[0]++ & 31].isHot() ? 1 : 0);
                check(failures, "Region.isHot(threshold)", () -> sink[0] += regions[i[0]++ & 31].isHot(7_000) ? 1 : 0);
                check(failures, "Region.dispatchCount", () -> sink[0] += regions[i[0]++ & 31].dispatchCount());
                check(failures, "Region.meanKernelNs", () -> sink[0] += regions[i[0]++ & 31].meanKernelNs());
                // A name over the limit, recorded and queried under its stored form (FORMAT.md §1.1), each
                // call with one of 8,192 copies of the String, which the thread's identity-keyed name cache
                // (1,024 entries) has almost surely not kept: nearly every call digests the whole name,
                // through the thread's StoredName.Encoder (a reused MessageDigest and buffer).
                String kernel = "void cute::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, int>,"
                        + " cutlass::gemm::collective::CollectiveMma<cute::Shape<cute::C<128>, cute::C<256>>>>>(Params)";
                String[] fresh = new String[8_192];
                for (int n = 0; n < fresh.length; n++) {
                    fresh[n] = new String(kernel);
                }
                store.record(kernel, 200_000, 64);
                long[] recorded = {1};
                check(failures, "record(long name)", () -> {
                    store.record(fresh[i[0]++ & (fresh.length - 1)], 200_000, 64);
                    recorded[0]++;
                });
                check(failures, "isHot(long name)", () -> sink[0] += store.isHot(fresh[i[0]++ & (fresh.length - 1)]) ? 1 : 0);
                if (store.dispatchCount(kernel) != recorded[0]) { // one region, found by the whole name
                    failures.add("the long name counts " + store.dispatchCount(kernel) + " dispatches, " + recorded[0] + " were recorded");
                }
                // the control: a query whose result escapes is seen allocating (an Optional and a RegionRecord)
                double recordFor = steadyBytesPerCall(() -> ESCAPE[0] = store.recordFor(names[i[0]++ & 31]));
                System.out.println("control, recordFor kept: " + recordFor + " B/call");
                if (recordFor < 16) {
                    failures.add("recordFor measured at " + recordFor + " B/call: the measurement sees nothing");
                }
            }
            if (sink[0] == 0 || !failures.isEmpty()) {
                System.out.println("FAILED " + failures + " (sink " + sink[0] + ")");
                System.exit(1);
            }
            System.out.println("steady state: every query allocates nothing");
        }
    }

    /**
     * A scan costs a fixed amount (the view, and for a file the {@code checkFile} system calls),
     * nothing per region: a scan of 4,096 regions allocates what a scan of 16 does.
     */
    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void theVisitorAllocatesNothingPerRegion(StoreKind kind) {
        long[] sum = new long[1];
        RecordVisitor visitor = v -> sum[0] += v.dispatchCount() + v.kernelNsMax() + v.nameLength()
                + (v.nameStartsWith("region-1") ? 1 : 0) + (v.nameEquals("region-7") ? 1 : 0);
        double[] perScan = new double[2];
        int[] sizes = {16, 4_096};
        for (int s = 0; s < 2; s++) {
            try (HintStore store = kind.open(options(sizes[s]))) {
                for (int i = 0; i < sizes[s]; i++) {
                    store.record("region-" + i, i, i);
                }
                perScan[s] = bytesPerCall(20, () -> store.forEachView(visitor));
            }
        }
        double perRegion = (perScan[1] - perScan[0]) / (sizes[1] - sizes[0]);
        assertTrue(perRegion < 0.05, perRegion + " B per region (" + perScan[0] + " B per scan of 16, "
                + perScan[1] + " of 4096)");
        assertTrue(perScan[0] < 8_192, perScan[0] + " B of fixed cost per scan");
        assertTrue(sum[0] > 0);
    }

    // ------------------------------------------------------------------ concurrency

    /**
     * Writers record only samples of each region's own kernel time (1000 + n ns, n bytes) while a
     * small capacity keeps evicting and re-inserting regions; readers query through every
     * allocation-free path. A record whose total is not count x that time, or whose bytes are not
     * count x n, is torn (a mix of two updates) or misattributed (another region's samples); a
     * dispatch count above the samples ever sent to its name is another region's count. The run
     * lasts until the work below is done, not for a time: on a loaded machine it just takes longer.
     */
    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void concurrentWritersNeverTearARecordReadThroughAnyPath(StoreKind kind) throws Exception {
        int names = 48;
        int capacity = 16;
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong reads = new AtomicLong();
        // samples sent to each name, counted before the record: a count read later never exceeds it
        AtomicLongArray sent = new AtomicLongArray(names);
        try (HintStore store = kind.open(options(capacity))) {
            List<Thread> threads = new ArrayList<>();
            CountDownLatch start = new CountDownLatch(1);
            for (int t = 0; t < 2; t++) {
                long seed = t;
                threads.add(thread(start, failures, () -> {
                    SplittableRandom random = new SplittableRandom(seed);
                    Region[] handles = new Region[names];
                    while (!stop.get()) {
                        int n = random.nextInt(random.nextBoolean() ? 8 : names); // a hot set that stays, and churn
                        sent.incrementAndGet(n);
                        if (random.nextBoolean()) {
                            store.record("r" + n, 1000L + n, n);
                        } else {
                            if (handles[n] == null) {
                                handles[n] = store.region("r" + n);
                            }
                            handles[n].record(1000L + n, n);
                        }
                    }
                }));
            }
            threads.add(thread(start, failures, () -> {
                SplittableRandom random = new SplittableRandom(99);
                Region[] handles = new Region[names];
                for (int n = 0; n < names; n++) {
                    handles[n] = store.region("r" + n);
                }
                MutableRecord r = new MutableRecord();
                while (!stop.get()) {
                    int n = random.nextInt(names);
                    if (store.readInto("r" + n, r)) {
                        checkRecord(n, r);
                        reads.incrementAndGet();
                    }
                    if (handles[n].readInto(r)) {
                        checkRecord(n, r);
                        reads.incrementAndGet();
                    }
                    long c = handles[n].dispatchCount();
                    long bound = sent.get(n);
                    if (c < 0 || c > bound) {
                        throw new AssertionError("r" + n + " counts " + c + " dispatches, " + bound + " were sent to it");
                    }
                    if (random.nextInt(32) == 0) {
                        int[] seen = new int[1];
                        store.forEachView(v -> {
                            v.readInto(r);
                            checkRecord(Integer.parseInt(v.name().substring(1)), r);
                            assertTrue(v.nameEquals("r" + v.name().substring(1)));
                            seen[0]++;
                        });
                        assertTrue(seen[0] <= capacity, "a scan saw " + seen[0] + " regions");
                        reads.addAndGet(seen[0]);
                    }
                }
            }));
            start.countDown();
            Await.until("evictions and reads under way", () -> !failures.isEmpty()
                    || store.info().evictions() >= CHURN_EVICTIONS && reads.get() >= CHURN_READS);
            stop.set(true);
            for (Thread t : threads) {
                t.join();
            }
            assertTrue(failures.isEmpty(), () -> failures.peek().toString());
            assertTrue(store.info().evictions() >= CHURN_EVICTIONS, "churn evicted only " + store.info().evictions());
            assertTrue(reads.get() >= CHURN_READS, "only " + reads + " reads");
            System.out.printf("%s: %,d evictions, %,d reads%n", kind, store.info().evictions(), reads.get());
        }
    }

    /** Work of the churn test: evictions made, and consistent records read, before it stops. */
    private static final long CHURN_EVICTIONS = 20_000;
    private static final long CHURN_READS = 200_000;

    private static void checkRecord(int n, MutableRecord r) {
        long c = r.dispatchCount();
        if (c < 1 || r.kernelNsTotal() != c * (1000L + n) || r.kernelNsMax() != 1000L + n || r.bytesTotal() != c * n) {
            throw new AssertionError("r" + n + " torn or misattributed: " + r);
        }
    }

    private static Thread thread(CountDownLatch start, ConcurrentLinkedQueue<Throwable> failures, Runnable task) {
        return Thread.ofPlatform().start(() -> {
            try {
                start.await();
                task.run();
            } catch (Throwable t) {
                failures.add(t);
            }
        });
    }

    private static final int CONTENDED_RECORDS = 200_000;

    /**
     * Recording allocates nothing when the slot lock is contended either: two threads hammer one
     * region, and each thread's allocated bytes over its records stay far below one object per
     * contended acquire (a boxed lock offset in the give-up memo's lookup cost 16 B each, found by
     * the 2-thread JMH row, docs/PERFORMANCE.md).
     */
    @Test
    void twoThreadsRecordingIntoOneRegionAllocateNothingPerRecord() throws Exception {
        java.nio.file.Path contendedDir = java.nio.file.Files.createTempDirectory("contended");
        try (HintStore store = HintStore.open(contendedDir.resolve("hot.hints"), HintStoreOptions.defaults())) {
            Region hot = store.region("hot");
            java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(2);
            java.util.concurrent.atomic.AtomicLong[] allocatedBytes = {new java.util.concurrent.atomic.AtomicLong(), new java.util.concurrent.atomic.AtomicLong()};
            Thread[] writers = new Thread[2];
            for (int t = 0; t < 2; t++) {
                int id = t;
                writers[t] = new Thread(() -> {
                    try {
                        for (int i = 0; i < CONTENDED_RECORDS; i++) { // warm-up: compiled, caches made
                            hot.record(100, 1);
                            store.record("hot", 100, 1);
                        }
                        start.await();
                        long before = allocated();
                        for (int i = 0; i < CONTENDED_RECORDS; i++) {
                            hot.record(100, 1);
                            store.record("hot", 100, 1);
                        }
                        allocatedBytes[id].set(allocated() - before);
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                });
                writers[t].start();
            }
            for (Thread w : writers) {
                w.join();
            }
            assertEquals(8L * CONTENDED_RECORDS, store.dispatchCount("hot"), "every record counted");
            for (java.util.concurrent.atomic.AtomicLong bytes : allocatedBytes) {
                // 400,000 records per thread: the boxed key cost about 90 KB here, nothing else allocates
                assertTrue(bytes.get() < 16 * 1024, bytes.get() + " bytes allocated by one thread's 400,000 records");
            }
        }
        java.nio.file.Files.deleteIfExists(contendedDir.resolve("hot.hints"));
        java.nio.file.Files.deleteIfExists(contendedDir);
    }
}
