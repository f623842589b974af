package dev.hintmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.testkit.StoreKind;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The reference design's questions ({@code is_hot}, {@code dispatch_count}, {@code mean_kernel_ns},
 * {@code record_for}, {@code len}, {@code is_empty}) are first-class methods of {@link HintStore}
 * (docs/DESIGN.md §5), and each answers exactly what the cheaper form beside it answers, and fails as
 * it fails. What they answer is the seed contract ({@link SeedContractTest}, on the shared vectors).
 */
class SeedQuestionsTest {
    private static final String CUTLASS =
            "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)";
    private static final String FLASH = "void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64, 64, 4, false, false, "
            + "cutlass::bfloat16_t>, false, true>(Flash_fwd_params)";
    private static final String LAYER_NORM = "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>"
            + "(int, float, float const*, float const*, float const*, float*, float*, float*)";
    private static final String ABSENT = "void at::native::elementwise_kernel<128, 2, void at::native::gpu_kernel_impl<"
            + "at::native::AbsFunctor<float>>(at::TensorIteratorBase&, at::native::AbsFunctor<float> const&)::{lambda(int)#1}>(int, "
            + "void at::native::gpu_kernel_impl<at::native::AbsFunctor<float>>::{lambda(int)#1})";

    @Test
    void theReferenceDesignsQuestionsArePublicAndNotDeprecated() throws NoSuchMethodException {
        List<Method> questions = List.of(HintStore.class.getMethod("isHot", String.class),
                HintStore.class.getMethod("isHot", String.class, long.class),
                HintStore.class.getMethod("dispatchCount", String.class),
                HintStore.class.getMethod("meanKernelNs", String.class),
                HintStore.class.getMethod("recordFor", String.class),
                HintStore.class.getMethod("size"), HintStore.class.getMethod("isEmpty"),
                HintStore.class.getMethod("forEach", Consumer.class), HintStore.class.getMethod("evictions"));
        for (Method m : questions) {
            assertNull(m.getAnnotation(Deprecated.class), m + " is first-class");
        }
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void eachQuestionAnswersAsTheCheaperFormBesideIt(StoreKind kind) {
        // names over the 64-byte limit (stored shortened), capacity 2 for three regions: one eviction
        try (HintStore store = kind.open(HintStoreOptions.defaults().capacity(2).maxNameBytes(64).hotThresholdNs(100_000))) {
            assertTrue(store.isEmpty());
            store.record(CUTLASS, 420_000, 1 << 20);
            store.record(CUTLASS, 380_001, 1 << 20);
            store.record(FLASH, 90_000, 1 << 16);
            assertFalse(store.isEmpty());
            store.record(LAYER_NORM, 7_000, 1 << 12);
            int present = 0;
            for (String name : List.of(CUTLASS, FLASH, LAYER_NORM, ABSENT)) {
                MutableRecord m = new MutableRecord();
                present += store.readInto(name, m) ? 1 : 0;
                Region region = store.region(name);
                assertEquals(m.dispatchCount(), store.dispatchCount(name), name);
                assertEquals(m.meanKernelNs(), store.meanKernelNs(name), name);
                assertEquals(region.dispatchCount(), store.dispatchCount(name), name);
                assertEquals(region.meanKernelNs(), store.meanKernelNs(name), name);
                assertEquals(store.recordFor(name).map(RegionRecord::dispatchCount).orElse(0L), store.dispatchCount(name), name);
                for (long threshold : new long[] {0, 7_000, 90_000, 100_000, 400_000, 400_001, Long.MAX_VALUE}) {
                    assertEquals(m.isHot(threshold), store.isHot(name, threshold), name + " at " + threshold);
                    assertEquals(m.isHot(threshold), region.isHot(threshold), name + " at " + threshold);
                }
                assertEquals(store.isHot(name, store.hotThresholdNs()), store.isHot(name), name);
            }
            assertEquals(2, present, "two of the three regions stay");
            assertEquals(store.size() == 0, store.isEmpty());
            assertEquals(1, store.info().evictions());
            assertEquals(store.info().evictions(), store.evictions());
            List<RegionRecord> listed = new ArrayList<>();
            store.forEach(listed::add);
            assertEquals(store.snapshot().regions(), listed);
            assertEquals(2, listed.size());
        }
    }

    @Test
    void theQuestionsOfACapacityZeroStoreAnswerAbsent() {
        try (HintStore store = HintStore.inMemory(HintStoreOptions.defaults().capacity(0))) {
            store.record(CUTLASS, 420_000, 1 << 20);
            assertEquals(0, store.dispatchCount(CUTLASS));
            assertEquals(0, store.meanKernelNs(CUTLASS));
            assertFalse(store.isHot(CUTLASS, 0), "absent is never hot, whatever the threshold");
            assertTrue(store.isEmpty());
            assertEquals(0, store.evictions());
            store.forEach(r -> {
                throw new AssertionError("nothing to list: " + r);
            });
        }
    }

    @Test
    void theQuestionsRejectWhatTheirCheaperFormsReject() {
        HintStore store = HintStore.inMemory(HintStoreOptions.defaults());
        assertThrows(IllegalArgumentException.class, () -> store.dispatchCount(""));
        assertThrows(IllegalArgumentException.class, () -> store.meanKernelNs("x\uDFFF"));
        assertThrows(IllegalArgumentException.class, () -> store.isHot("", 10));
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class, () -> store.isHot(CUTLASS, -1));
        assertTrue(negative.getMessage().contains("-1"), negative.getMessage());
        assertThrows(IllegalArgumentException.class, () -> store.region(CUTLASS).isHot(-1));
        assertThrows(NullPointerException.class, () -> store.forEach(null));
        Region region = store.region(CUTLASS);
        store.close();
        for (Runnable call : new Runnable[] {
            () -> store.dispatchCount(CUTLASS), () -> store.meanKernelNs(CUTLASS), store::isEmpty,
            store::evictions, () -> store.forEach(r -> { }), () -> store.isHot(CUTLASS, 10), () -> region.isHot(10),
        }) {
            IllegalStateException e = assertThrows(IllegalStateException.class, call::run);
            assertTrue(e.getMessage().contains("closed"), e.getMessage());
        }
    }
}
