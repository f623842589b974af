package dev.hintmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.format.RecordRules;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The three shapes of a record in the API (a copy, a reused holder, a scanned view) are one
 * {@link RecordFigures}: for the same region they give the same figures, and the mean and hot answers
 * are the record rules' (FORMAT.md §7.2.1), whichever shape is asked.
 */
class RecordFiguresTest {
    private static final String GEMM = "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>(Params const&)";
    private static final String SOFTMAX = "void softmax_warp_forward<float, float, float, 10, false>(float*, float const*, int, int, int)";
    private static final String ADD = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>(int)";

    /** What a caller that takes any shape computes: the derived answers through the interface. */
    private static List<Long> answers(RecordFigures f, long thresholdNs) {
        return List.of(f.dispatchCount(), f.kernelNsTotal(), f.kernelNsMax(), f.bytesTotal(), f.meanKernelNs(),
                f.meanBytes(), f.isHot(thresholdNs) ? 1L : 0L);
    }

    @Test
    void everyShapeOfARegionGivesTheSameFiguresAndTheRulesAnswers() {
        long threshold = 100_000;
        try (HintStore store = HintStore.inMemory(HintStoreOptions.defaults().capacity(8).hotThresholdNs(threshold))) {
            store.add(new RegionRecord(GEMM, 3, 1_260_000, 630_000, 3L << 20)); // mean 420 µs: hot
            store.add(new RegionRecord(SOFTMAX, 7, 699_999, 100_001, 4096)); // mean 99,999 ns: one short of hot
            store.add(new RegionRecord(ADD, 1, 100_000, 100_000, 12)); // exactly at the threshold: hot
            Map<String, List<Long>> fromViews = new TreeMap<>();
            store.forEachView(v -> {
                fromViews.put(v.name(), answers(v, threshold));
                assertEquals(v.isHot(threshold), v.isHot(), "a view's isHot() is the store threshold's");
            });
            List<String> checked = new ArrayList<>();
            for (RegionRecord r : store.snapshot().regions()) {
                MutableRecord holder = new MutableRecord();
                assertTrue(store.readInto(r.name(), holder));
                List<Long> expected = List.of(r.dispatchCount(), r.kernelNsTotal(), r.kernelNsMax(), r.bytesTotal(),
                        RecordRules.mean(r.kernelNsTotal(), r.dispatchCount()), RecordRules.mean(r.bytesTotal(), r.dispatchCount()),
                        RecordRules.isHot(r.dispatchCount(), r.kernelNsTotal(), threshold) ? 1L : 0L);
                assertEquals(expected, answers(r, threshold), r.name());
                assertEquals(expected, answers(holder, threshold), r.name());
                assertEquals(expected, fromViews.get(r.name()), r.name());
                assertEquals(store.isHot(r.name()), r.isHot(threshold), r.name());
                checked.add(r.name());
            }
            assertEquals(3, checked.size());
            assertTrue(store.isHot(GEMM) && store.isHot(ADD) && !store.isHot(SOFTMAX));
        }
    }

    @Test
    void aClearedHolderHasNoMeanAndIsNeverHot() {
        MutableRecord cleared = new MutableRecord();
        assertEquals(List.of(0L, 0L, 0L, 0L, 0L, 0L, 0L), answers(cleared, 0));
        assertFalse(cleared.isHot(0), "no dispatch, no mean: not hot even at threshold 0");
    }
}
