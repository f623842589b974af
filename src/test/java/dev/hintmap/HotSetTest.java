package dev.hintmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.format.Layouts;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link HintStore#hotSet}: one cut per answer under concurrent insertion and eviction (FORMAT.md
 * §7.5), names read twice counted once, and the store's states. The rule itself is checked against
 * the shared vectors by {@link HotSetVectorsTest}.
 */
class HotSetTest {
    private static final String GEMM =
            "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)";
    private static final String FLASH =
            "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t>, true, false>(Flash_fwd_params)";
    private static final String GELU =
            "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}, std::array<char*, 2> >(int, ...)";
    private static final String NORM =
            "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>(int, float, c10::BFloat16 const*, ...)";
    private static final String NEW_GEMM =
            "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_bf16_256x128_32x3_tn_align8>(Params)";

    @TempDir Path dir;

    private static HintStore fullStoreOfFour() {
        HintStore store = HintStore.inMemory(HintStoreOptions.defaults().capacity(4));
        store.add(new RegionRecord(GEMM, 100, 50_000_000, 600_000, 0));
        store.add(new RegionRecord(FLASH, 100, 30_000_000, 400_000, 0));
        store.add(new RegionRecord(GELU, 1000, 15_000_000, 30_000, 0));
        store.add(new RegionRecord(NORM, 1000, 5_000_000, 9_000, 0));
        return store;
    }

    private static List<String> names(HotSet set) {
        return set.regions().stream().map(HotRegion::name).toList();
    }

    /** {@code store}'s regions read in one cut, with {@code afterSlot} run after each slot of each scan. */
    private static RegionCut.Regions readCalling(HintStore store, IntConsumer afterSlot) {
        if (!TestSeams.ENABLED) {
            throw new IllegalStateException("the test seams are off: run with -D" + TestSeams.PROPERTY + "=true");
        }
        TestSeams.afterSlot = afterSlot;
        try {
            return RegionCut.read(store.engine(), new RegionView(store.maxNameBytes(), 100_000));
        } finally {
            TestSeams.afterSlot = null;
        }
    }

    @Test
    void aRegionInsertedDuringTheScanIsReadInOneCutNotHalfBeforeAndHalfAfter() {
        try (HintStore store = fullStoreOfFour()) {
            AtomicInteger slotsSeen = new AtomicInteger();
            // After the scan read slots 0 and 1, a writer inserts a new region, which evicts one (the
            // CLOCK hand's first slot without its reference bit): a scan that kept going would report
            // the evicted region from the slots it had read and miss the new one, or the reverse.
            RegionCut.Regions read = readCalling(store, k -> {
                if (slotsSeen.incrementAndGet() == 2) {
                    store.add(new RegionRecord(NEW_GEMM, 10, 90_000_000, 9_000_000, 0));
                }
            });
            assertTrue(read.consistent());
            assertTrue(slotsSeen.get() > 4, "the scan the insertion overlapped was made again");
            HotSet got = HotSetRule.select(read.regions(), read.consistent(), 1, 0);
            HotSet after = HotSetRule.select(store.snapshot().regions(), true, 1, 0);
            assertEquals(names(after), names(got));
            assertEquals(after.totalNs(), got.totalNs());
            assertEquals(NEW_GEMM, got.regions().getFirst().name());
            assertEquals(4, got.regionsRead());
        }
    }

    @Test
    void writersThatNeverStopChangingTheFileGetAHintWithEachNameOnce() {
        try (HintStore store = HintStore.inMemory(HintStoreOptions.defaults().capacity(4))) {
            AtomicInteger inserted = new AtomicInteger();
            for (int i = 0; i < 4; i++) {
                store.record("void churn_kernel<" + inserted.getAndIncrement() + ">(float*)", 1_000, 0);
            }
            // Every slot of every scan: one new region, evicting one (a workload of endless new names).
            RegionCut.Regions read = readCalling(store,
                    k -> store.record("void churn_kernel<" + inserted.getAndIncrement() + ">(float*)", 1_000, 0));
            assertFalse(read.consistent());
            assertEquals(RegionCut.MAX_SCANS * 4 + 4, inserted.get(), "every scan was made, and only those");
            HotSet got = HotSetRule.select(read.regions(), read.consistent(), 1, 0);
            assertFalse(got.consistent());
            assertEquals(got.regionsRead(), new HashSet<>(names(got)).size());
            assertTrue(got.regionsRead() <= 4);
        }
    }

    @Test
    void aNameReadTwiceIsOneRegionWithItsRecordsCombined() {
        // Two slots of one name: a damaged index, or a scan that was not one cut.
        List<RegionRecord> read = List.of(new RegionRecord(GEMM, 6, 60, 20, 6), new RegionRecord(FLASH, 10, 70, 9, 0),
                new RegionRecord(GEMM, 4, 40, 30, 4));
        HotSet got = HotSetRule.select(read, false, 0.5, 10);
        assertEquals(List.of(GEMM), names(got), "6 + 4 dispatches make the region count, 100 ns of 170 make it first");
        assertEquals(new RegionRecord(GEMM, 10, 100, 30, 10), got.regions().getFirst().record());
        assertEquals(2, got.regionsRead());
        assertEquals(170, got.totalNs());
    }

    @Test
    void aStructuralChangeThatNeverEndsIsWaitedForBoundedlyThenReadAsItIs() throws Exception {
        Path file = dir.resolve("stalled.hints");
        try (HintStore writer = HintStore.open(file, HintStoreOptions.defaults())) {
            writer.record(GEMM, 500_000, 0);
            writer.record(GELU, 20_000, 0);
        }
        // index_seq left odd: a writer died inside a structural change; the next insertion recovers
        // it (§8), a reader only waits the stall bound for it.
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer word = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            ch.read(word, Layouts.HDR_INDEX_SEQ);
            long seq = word.flip().getLong();
            ch.write(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, seq | 1), Layouts.HDR_INDEX_SEQ);
        }
        try (HintStore reader = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            HotSet got = reader.hotSet(1, 0);
            assertFalse(got.consistent());
            assertEquals(List.of(GEMM, GELU), names(got));
            assertEquals(520_000, got.totalNs());
        }
    }

    @Test
    void aClosedStoreIsRefusedClearly() {
        HintStore store = fullStoreOfFour();
        store.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> store.hotSet(0.95, 10));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
    }

    @Test
    void badParametersAreRefusedBeforeTheFileIsRead() {
        HintStore store = fullStoreOfFour();
        store.close(); // the parameters are checked first: the caller's mistake is named, not the store's state
        assertThrows(IllegalArgumentException.class, () -> store.hotSet(Double.NaN, 10));
        assertThrows(IllegalArgumentException.class, () -> store.hotSet(0.5, Long.MIN_VALUE));
    }

    /** The one check, public for callers that refuse a question before they open a file (the tool's {@code hot}). */
    @Test
    void theParameterCheckIsTheStoresAndNamesTheParameter() {
        try (HintStore store = fullStoreOfFour()) {
            for (double coverage : new double[] {Double.NaN, -0.1, 1.5, 95}) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> HotSet.requireValid(coverage, 1));
                assertTrue(e.getMessage().startsWith("coverage " + coverage + " is not a fraction in [0, 1]"), e.getMessage());
                assertEquals(e.getMessage(), assertThrows(IllegalArgumentException.class, () -> store.hotSet(coverage, 1))
                        .getMessage());
            }
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> HotSet.requireValid(0.5, -1));
            assertEquals("minDispatches must be >= 0, not -1", e.getMessage());
            assertEquals(e.getMessage(), assertThrows(IllegalArgumentException.class, () -> store.hotSet(0.5, -1)).getMessage());
            for (double coverage : new double[] {0, 0.95, 1}) {
                HotSet.requireValid(coverage, 0); // accepted
                HotSet.requireValid(coverage, Long.MAX_VALUE);
            }
        }
    }

    @Test
    void aLongNameIsInTheSetByItsStoredForm() {
        String longName = GEMM + " ".repeat(20) + FLASH;
        try (HintStore store = HintStore.inMemory(HintStoreOptions.defaults().maxNameBytes(64))) {
            store.record(longName, 1_000_000, 0);
            store.record("memcpy32_post", 1_000, 0);
            HotSet got = store.hotSet(0.9, 1);
            assertEquals(List.of(store.storedName(longName)), names(got));
            assertTrue(got.contains(store.storedName(longName)));
            assertFalse(got.contains("memcpy32_post"));
        }
    }
}
