package dev.hintmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.testkit.StoreKind;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The seed contract (docs/DESIGN.md §5): the reference design's behaviours, asked through its six
 * questions, on the shared vectors {@code vectors/seed.txt} that C's {@code test_seed.c} and Python's
 * {@code test_seed.py} replay too. Then what a vector cannot say: one thread records while another
 * asks.
 */
class SeedContractTest {
    private static final String GEMM =
            "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)";

    @TempDir Path dir;

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void everyCaseOfTheSharedVectorsHolds(StoreKind kind) {
        int steps = 0;
        List<SeedVectors.Case> cases = SeedVectors.load();
        for (SeedVectors.Case c : cases) {
            try (HintStore store = kind.open(options(c))) {
                for (SeedVectors.Step step : c.steps()) {
                    check(store, c, step);
                    steps++;
                }
            }
        }
        assertEquals(8, cases.size(), "cases in seed.txt");
        assertEquals(105, steps, "lines of the cases in seed.txt");
    }

    /**
     * The reader's own threshold, the second form: a read-only store opened on the written file with
     * each {@code hot_at} line's threshold answers {@code isHot} by it, where a writer asking for it is
     * refused.
     */
    @Test
    void aReadOnlyStoreOpenedWithAThresholdAnswersByIt() throws Exception {
        int asked = 0;
        int n = 0;
        for (SeedVectors.Case c : SeedVectors.load()) {
            Path file = dir.resolve("seed-" + n++ + ".hints");
            try (HintStore writer = HintStore.open(file, options(c))) {
                for (SeedVectors.Step step : c.steps()) {
                    if (step.verb().equals("record")) {
                        writer.record(step.name(), step.number(0), step.number(1));
                    } else if (step.verb().equals("hot_at")) {
                        try (HintStore reader = HintStore.open(file,
                                HintStoreOptions.defaults().readOnly(true).hotThresholdNs(step.number(0)))) {
                            assertEquals(step.hot(), reader.isHot(step.name()), c.title() + ": " + step.line());
                            assertEquals(step.number(0), reader.hotThresholdNs());
                            assertEquals(c.hotThresholdNs(), reader.info().hotThresholdNs(), "the file keeps its own");
                        }
                        asked++;
                    }
                }
            }
        }
        assertEquals(14, asked, "hot_at lines in seed.txt");
    }

    private static HintStoreOptions options(SeedVectors.Case c) {
        return HintStoreOptions.defaults().capacity(c.capacity()).hotThresholdNs(c.hotThresholdNs());
    }

    private static void check(HintStore store, SeedVectors.Case c, SeedVectors.Step step) {
        String where = c.title() + ": " + step.line();
        switch (step.verb()) {
            case "record" -> store.record(step.name(), step.number(0), step.number(1));
            case "expect" -> {
                RegionRecord want = new RegionRecord(step.name(), step.number(0), step.number(1), step.number(2),
                        step.number(3));
                assertEquals(Optional.of(want), store.recordFor(step.name()), where);
                assertEquals(step.number(0), store.dispatchCount(step.name()), where);
                assertEquals(step.number(4), store.meanKernelNs(step.name()), where);
                assertEquals(step.hot(), store.isHot(step.name()), where);
            }
            case "absent" -> {
                assertEquals(Optional.empty(), store.recordFor(step.name()), where);
                assertEquals(0, store.dispatchCount(step.name()), where);
                assertEquals(0, store.meanKernelNs(step.name()), where);
                assertEquals(false, store.isHot(step.name()), where);
            }
            case "size" -> {
                assertEquals(step.number(0), store.size(), where);
                assertEquals(step.number(0) == 0, store.isEmpty(), where);
            }
            case "evictions" -> assertEquals(step.number(0), store.evictions(), where);
            case "hot_at" -> {
                assertEquals(step.hot(), store.isHot(step.name(), step.number(0)), where);
                assertEquals(step.hot(), store.region(step.name()).isHot(step.number(0)), where + " (handle)");
            }
            default -> throw new IllegalStateException(where);
        }
        assertTrue(store.size() <= c.capacity(), where + ": size " + store.size() + " over the capacity");
    }

    /**
     * One thread records while another asks every question: each answer comes from one whole
     * record (every sample is 150 µs and 4 KiB, so a record of {@code n} dispatches is exactly
     * {@code (n, 150,000 n, 150,000, 4,096 n)}), counts never go back, and the last count is every
     * sample recorded.
     */
    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void oneThreadRecordsWhileAnotherAsks(StoreKind kind) throws Exception {
        int samples = 200_000;
        try (HintStore store = kind.open(HintStoreOptions.defaults().capacity(16).hotThresholdNs(100_000))) {
            AtomicBoolean done = new AtomicBoolean();
            AtomicReference<Throwable> failed = new AtomicReference<>();
            AtomicLong asked = new AtomicLong();
            CountDownLatch started = new CountDownLatch(1);
            Thread reader = new Thread(() -> {
                try {
                    long last = 0;
                    started.countDown();
                    while (!done.get()) {
                        long count = store.dispatchCount(GEMM);
                        assertTrue(count >= last, "count went back from " + last + " to " + count);
                        last = count;
                        Optional<RegionRecord> r = store.recordFor(GEMM);
                        if (r.isPresent()) {
                            long n = r.get().dispatchCount();
                            assertTrue(n >= count, n + " after " + count);
                            assertEquals(new RegionRecord(GEMM, n, 150_000 * n, 150_000, 4_096 * n), r.get());
                            assertTrue(store.isHot(GEMM), "a present region of mean 150 µs is hot at 100 µs");
                            assertEquals(150_000, store.meanKernelNs(GEMM));
                            assertTrue(store.isHot(GEMM, 150_000) && !store.isHot(GEMM, 150_001));
                            assertEquals(1, store.size());
                            assertTrue(!store.isEmpty());
                        }
                        asked.incrementAndGet();
                    }
                } catch (Throwable t) {
                    failed.set(t);
                }
            });
            reader.start();
            started.await();
            for (int i = 0; i < samples; i++) {
                store.record(GEMM, 150_000, 4_096);
            }
            done.set(true);
            reader.join();
            if (failed.get() != null) {
                throw new AssertionError("the reader after " + asked.get() + " questions", failed.get());
            }
            assertTrue(asked.get() > 0);
            assertEquals(samples, store.dispatchCount(GEMM));
        }
    }
}
