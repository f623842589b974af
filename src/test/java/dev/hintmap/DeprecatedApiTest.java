package dev.hintmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The methods of {@link HintStore} deprecated for one release (docs/DESIGN.md §5) keep working until
 * they go: each answers exactly what the read that replaces it answers, and fails as it fails. This
 * is the one file of the repository that calls them ({@link DeprecatedApiUnusedTest} checks that).
 */
@SuppressWarnings("removal") // the deprecated methods themselves, on purpose
class DeprecatedApiTest {
    private static final String CUTLASS =
            "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)";
    private static final String FLASH = "void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64, 64, 4, false, false, "
            + "cutlass::bfloat16_t>, false, true>(Flash_fwd_params)";
    private static final String LAYER_NORM = "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>"
            + "(int, float, float const*, float const*, float const*, float*, float*, float*)";
    private static final String ABSENT = "void at::native::elementwise_kernel<128, 2, void at::native::gpu_kernel_impl<"
            + "at::native::AbsFunctor<float>>(at::TensorIteratorBase&, at::native::AbsFunctor<float> const&)::{lambda(int)#1}>(int, "
            + "void at::native::gpu_kernel_impl<at::native::AbsFunctor<float>>::{lambda(int)#1})";

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void deprecatedReadsAnswerAsTheReadsThatReplaceThem(StoreKind kind) {
        // names over the 64-byte limit (stored shortened), capacity 2 for three regions: one eviction
        try (HintStore store = kind.open(HintStoreOptions.defaults().capacity(2).maxNameBytes(64))) {
            assertTrue(store.isEmpty());
            store.record(CUTLASS, 420_000, 1 << 20);
            store.record(CUTLASS, 380_001, 1 << 20);
            store.record(FLASH, 90_000, 1 << 16);
            assertTrue(!store.isEmpty());
            store.record(LAYER_NORM, 7_000, 1 << 12);
            int present = 0;
            for (String name : List.of(CUTLASS, FLASH, LAYER_NORM, ABSENT)) {
                MutableRecord m = new MutableRecord();
                present += store.readInto(name, m) ? 1 : 0;
                assertEquals(m.dispatchCount(), store.dispatchCount(name), name);
                assertEquals(m.meanKernelNs(), store.meanKernelNs(name), name);
                assertEquals(store.region(name).dispatchCount(), store.dispatchCount(name), name);
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
    void deprecatedReadsOfACapacityZeroStoreAnswerAbsent() {
        try (HintStore store = HintStore.inMemory(HintStoreOptions.defaults().capacity(0))) {
            store.record(CUTLASS, 420_000, 1 << 20);
            assertEquals(0, store.dispatchCount(CUTLASS));
            assertEquals(0, store.meanKernelNs(CUTLASS));
            assertTrue(store.isEmpty());
            assertEquals(0, store.evictions());
            store.forEach(r -> {
                throw new AssertionError("nothing to list: " + r);
            });
        }
    }

    @Test
    void deprecatedReadsRejectWhatTheirReplacementsReject() {
        HintStore store = HintStore.inMemory(HintStoreOptions.defaults());
        assertThrows(IllegalArgumentException.class, () -> store.dispatchCount(""));
        assertThrows(IllegalArgumentException.class, () -> store.meanKernelNs("x\uDFFF"));
        assertThrows(NullPointerException.class, () -> store.forEach(null));
        store.close();
        for (Runnable call : new Runnable[] {
            () -> store.dispatchCount(CUTLASS), () -> store.meanKernelNs(CUTLASS), store::isEmpty,
            store::evictions, () -> store.forEach(r -> { }),
        }) {
            IllegalStateException e = assertThrows(IllegalStateException.class, call::run);
            assertTrue(e.getMessage().contains("closed"), e.getMessage());
        }
    }
}
