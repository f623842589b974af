package dev.hintmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.testkit.StoreKind;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Real threads on one store: no lost update, no torn or misattributed record. */
class ConcurrencyTest {
    private static final int THREADS = 4;

    private static void runAll(List<Runnable> tasks, ConcurrentLinkedQueue<Throwable> failures) throws InterruptedException {
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (Runnable task : tasks) {
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                    task.run();
                } catch (Throwable t) {
                    failures.add(t);
                }
            }));
        }
        start.countDown();
        for (Thread t : threads) {
            t.join();
        }
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void threadsRecordingKnownSamplesWithoutEvictionLoseNothing(StoreKind kind) throws Exception {
        int regions = 32;
        int perThread = 100_000;
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        try (HintStore store = kind.open(HintStoreOptions.defaults().capacity(64))) {
            List<Runnable> tasks = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                tasks.add(() -> {
                    Region[] handles = new Region[regions];
                    for (int r = 0; r < regions; r++) {
                        handles[r] = store.region("region-" + r);
                    }
                    for (int i = 0; i < perThread; i++) {
                        int r = i % regions;
                        long ns = thread + 1 + r;
                        if ((i & 1) == 0) {
                            store.record("region-" + r, ns, 10);
                        } else {
                            handles[r].record(ns, 10);
                        }
                    }
                });
            }
            runAll(tasks, failures);
            assertTrue(failures.isEmpty(), () -> failures.peek().toString());
            assertEquals(regions, store.size());
            for (int r = 0; r < regions; r++) {
                long countPerThread = perThread / regions;
                long total = 0;
                for (int t = 0; t < THREADS; t++) {
                    total += countPerThread * (t + 1 + r);
                }
                assertEquals(new RegionRecord("region-" + r, THREADS * countPerThread, total, THREADS + r,
                        10L * THREADS * countPerThread), store.recordFor("region-" + r).orElseThrow());
            }
        }
    }

    /**
     * Each region only ever receives samples of its own kernel time, so any record whose total is
     * not count x that time contains a torn update or a sample meant for another region.
     */
    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void evictionChurnNeverTearsOrMisattributesARecord(StoreKind kind) throws Exception {
        int names = 200;
        int perThread = 60_000;
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        try (HintStore store = kind.open(HintStoreOptions.defaults().capacity(16))) {
            CountDownLatch writersDone = new CountDownLatch(THREADS - 1);
            List<Runnable> tasks = new ArrayList<>();
            for (int t = 0; t < THREADS - 1; t++) {
                long seed = t;
                tasks.add(() -> {
                    try {
                        java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
                        Region[] handles = new Region[names];
                        for (int i = 0; i < perThread; i++) {
                            int n = random.nextInt(names);
                            if (random.nextBoolean()) {
                                store.record("churn-" + n, kernelNsOf(n), n);
                            } else {
                                if (handles[n] == null) {
                                    handles[n] = store.region("churn-" + n);
                                }
                                handles[n].record(kernelNsOf(n), n);
                            }
                        }
                    } finally {
                        writersDone.countDown();
                    }
                });
            }
            tasks.add(() -> { // reader: snapshots until every writer is done
                java.util.SplittableRandom random = new java.util.SplittableRandom(99);
                while (writersDone.getCount() > 0) {
                    int n = random.nextInt(names);
                    store.recordFor("churn-" + n).ifPresent(ConcurrencyTest::checkRecord);
                    if (random.nextInt(64) == 0) {
                        List<RegionRecord> all = new ArrayList<>();
                        store.snapshot().regions().forEach(all::add);
                        assertTrue(all.size() <= 16, "forEach saw " + all.size() + " regions");
                        all.forEach(ConcurrencyTest::checkRecord);
                    }
                    assertTrue(store.size() <= 16);
                }
            });
            runAll(tasks, failures);
            assertTrue(failures.isEmpty(), () -> failures.peek().toString());
            assertEquals(16, store.size());
            assertTrue(store.info().evictions() > 1000, "churn evicted " + store.info().evictions());
            store.snapshot().regions().forEach(ConcurrencyTest::checkRecord);
        }
    }

    private static long kernelNsOf(int n) {
        return 1000L + n;
    }

    private static void checkRecord(RegionRecord r) {
        int n = Integer.parseInt(r.name().substring("churn-".length()));
        assertTrue(r.dispatchCount() > 0, r::toString);
        assertTrue(r.kernelNsMax() <= r.kernelNsTotal(), r::toString);
        assertTrue(r.meanKernelNs() <= r.kernelNsMax(), r::toString);
        assertEquals(r.dispatchCount() * kernelNsOf(n), r.kernelNsTotal(), () -> "torn or misattributed: " + r);
        assertEquals(kernelNsOf(n), r.kernelNsMax(), r::toString);
        assertEquals(r.dispatchCount() * n, r.bytesTotal(), r::toString);
    }
}
