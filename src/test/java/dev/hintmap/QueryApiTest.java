package dev.hintmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.testkit.StoreKind;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The optimizer's query API: hottest, snapshot, add, decay, info. */
class QueryApiTest {
    @TempDir
    Path dir;

    /** Four regions whose orders by total, mean, count and max all differ. */
    private static void fill(HintStore store) {
        // name      count  each ns          total      mean    max
        // a         10     100              1000       100     100
        // b         1      5000             5000       5000    5000
        // c         100    20 (one of 900)  2880       28      900
        // d         4      250/750          2000       500     750
        for (int i = 0; i < 10; i++) {
            store.record("a", 100, 8);
        }
        store.record("b", 5000, 64);
        for (int i = 0; i < 99; i++) {
            store.record("c", 20, 1);
        }
        store.record("c", 900, 1);
        store.record("d", 250, 0);
        store.record("d", 750, 0);
        store.record("d", 250, 0);
        store.record("d", 750, 0);
    }

    private static List<String> names(List<RegionRecord> records) {
        return records.stream().map(RegionRecord::name).toList();
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void hottestRanksByEachOrderLargestFirst(StoreKind kind) {
        try (HintStore store = kind.open(HintStoreOptions.defaults())) {
            fill(store);
            assertEquals(List.of("b", "c", "d", "a"), names(store.hottest(10, RegionOrder.TOTAL_NS)));
            assertEquals(List.of("b", "d", "a", "c"), names(store.hottest(10, RegionOrder.MEAN_NS)));
            assertEquals(List.of("c", "a", "d", "b"), names(store.hottest(10, RegionOrder.COUNT)));
            assertEquals(List.of("b", "c", "d", "a"), names(store.hottest(10, RegionOrder.MAX_NS)));
            assertEquals(List.of("b", "c"), names(store.hottest(2, RegionOrder.TOTAL_NS)));
            assertEquals(List.of("c"), names(store.hottest(1, RegionOrder.COUNT)));
            assertEquals(List.of(), store.hottest(0, RegionOrder.COUNT));
            assertEquals(new RegionRecord("d", 4, 2000, 750, 0), store.hottest(2, RegionOrder.MEAN_NS).get(1));
        }
    }

    @Test
    void hottestBreaksTiesByNameWhateverTheSlotOrder() {
        try (HintStore store = HintStore.inMemory(HintStoreOptions.defaults())) {
            for (String name : List.of("zeta", "beta", "alpha", "gamma")) {
                store.record(name, 1000, 1);
            }
            store.record("hot", 5000, 1);
            assertEquals(List.of("hot", "alpha", "beta"), names(store.hottest(3, RegionOrder.TOTAL_NS)));
            assertEquals(List.of("hot", "alpha", "beta"), names(store.snapshot().hottest(3, RegionOrder.TOTAL_NS)));
        }
    }

    @Test
    void hottestAgreesWithSortingTheWholeSnapshot() {
        try (HintStore store = HintStore.inMemory(HintStoreOptions.defaults().capacity(64))) {
            java.util.SplittableRandom random = new java.util.SplittableRandom(7);
            for (int i = 0; i < 5_000; i++) {
                store.record("r" + random.nextInt(200), random.nextLong(1, 1_000_000), random.nextLong(4096));
            }
            HintSnapshot snapshot = store.snapshot();
            for (RegionOrder order : RegionOrder.values()) {
                for (int k : new int[] {1, 5, 63, 64, 100}) {
                    assertEquals(snapshot.hottest(k, order), store.hottest(k, order), order + " k=" + k);
                }
            }
        }
    }

    @Test
    void negativeCountIsRejected() {
        try (HintStore store = HintStore.inMemory(HintStoreOptions.defaults())) {
            assertThrows(IllegalArgumentException.class, () -> store.hottest(-1, RegionOrder.TOTAL_NS));
            assertThrows(IllegalArgumentException.class, () -> store.snapshot().hottest(-1, RegionOrder.TOTAL_NS));
            assertThrows(NullPointerException.class, () -> store.hottest(1, null));
        }
    }

    @Test
    void snapshotIsACopyThatOutlivesTheStore() throws Exception {
        Path file = dir.resolve("s.hints");
        HintSnapshot snapshot;
        Instant before = Instant.now();
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            fill(store);
            snapshot = store.snapshot();
            store.record("a", 1_000_000, 0); // after the snapshot: not in it
            store.record("late", 1, 1);
        }
        assertEquals(4, snapshot.size());
        assertEquals(Optional.of(file), snapshot.file());
        assertEquals(256, snapshot.capacity());
        assertEquals(100_000, snapshot.hotThresholdNs());
        assertFalse(snapshot.takenAt().isBefore(before));
        assertEquals(new RegionRecord("a", 10, 1000, 100, 80), snapshot.recordFor("a").orElseThrow());
        assertEquals(Optional.empty(), snapshot.recordFor("late"));
        assertFalse(snapshot.isHot("a"));
        assertFalse(snapshot.isHot("late"));
        assertEquals(0, snapshot.hotCount());
        assertEquals(List.of("a", "b", "c", "d"), names(snapshot.regions()));
    }

    @Test
    void snapshotIsHotUsesTheStoreThreshold() {
        try (HintStore store = HintStore.inMemory(HintStoreOptions.defaults().hotThresholdNs(500))) {
            fill(store);
            HintSnapshot snapshot = store.snapshot();
            assertTrue(snapshot.isHot("b"));
            assertTrue(snapshot.isHot("d")); // mean 500 == threshold
            assertFalse(snapshot.isHot("a"));
            assertEquals(2, snapshot.hotCount());
            for (RegionRecord r : snapshot.regions()) {
                assertEquals(store.isHot(r.name()), snapshot.isHot(r.name()), r.name());
            }
        }
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void addMergesAWholeRecordAsIfItsSamplesWereRecorded(StoreKind kind) {
        try (HintStore store = kind.open(HintStoreOptions.defaults())) {
            store.record("gemm", 300, 10);
            store.add(new RegionRecord("gemm", 4, 1000, 400, 40));
            assertEquals(new RegionRecord("gemm", 5, 1300, 400, 50), store.recordFor("gemm").orElseThrow());
            store.add(new RegionRecord("conv", 2, 10, 9, Long.MAX_VALUE));
            assertEquals(new RegionRecord("conv", 2, 10, 9, Long.MAX_VALUE), store.recordFor("conv").orElseThrow());
            store.add(new RegionRecord("conv", Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, 5));
            assertEquals(new RegionRecord("conv", Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE),
                    store.recordFor("conv").orElseThrow(), "saturates");
            assertEquals(2, store.size());
        }
    }

    @Test
    void addEvictsByClockAtCapacityLikeRecord() {
        try (HintStore store = HintStore.inMemory(HintStoreOptions.defaults().capacity(2))) {
            store.add(new RegionRecord("a", 1, 1, 1, 1));
            store.add(new RegionRecord("b", 1, 1, 1, 1));
            store.add(new RegionRecord("c", 1, 1, 1, 1));
            assertEquals(2, store.size());
            assertEquals(1, store.info().evictions());
        }
    }

    @Test
    void addRejectsRecordsNoSamplesCanProduceAndRecordsNothing() {
        // rejectLongNames: a name over the limit is refused as in hintmap 0.1 (else stored shortened, LongNameTest)
        try (HintStore store = HintStore.inMemory(HintStoreOptions.defaults().maxNameBytes(64).rejectLongNames(true))) {
            assertThrows(IllegalArgumentException.class, () -> store.add(new RegionRecord("x", 0, 0, 0, 0)));
            assertThrows(IllegalArgumentException.class, () -> store.add(new RegionRecord("x", 1, 5, 6, 0)));
            assertThrows(IllegalArgumentException.class, () -> store.add(new RegionRecord("x", 2, 100, 10, 0)));
            assertThrows(IllegalArgumentException.class, () -> store.add(new RegionRecord("", 1, 1, 1, 0)));
            assertThrows(IllegalArgumentException.class, () -> store.add(new RegionRecord("y".repeat(65), 1, 1, 1, 0)));
            assertEquals(0, store.size());
        }
        try (HintStore disabled = HintStore.inMemory(HintStoreOptions.defaults().capacity(0))) {
            disabled.add(new RegionRecord("x", 1, 1, 1, 1));
            assertEquals(0, disabled.size());
        }
    }

    @Test
    void decayScalesCountsAndTotalsAndKeepsMeans() {
        try (HintStore store = HintStore.inMemory(HintStoreOptions.defaults())) {
            store.add(new RegionRecord("big", 1000, 1_234_567, 9_999, 4_000_000));
            store.add(new RegionRecord("one", 1, 500, 500, 8));
            store.add(new RegionRecord("three", 3, 30, 12, 3));
            assertEquals(new DecayResult(3, List.of()), store.decay(0.5));
            RegionRecord big = store.recordFor("big").orElseThrow();
            assertEquals(new RegionRecord("big", 500, 617_283, 9_999, 2_000_000), big);
            assertEquals(1_234, big.meanKernelNs());
            assertEquals(new RegionRecord("one", 1, 500, 500, 8), store.recordFor("one").orElseThrow(), "count stays >= 1");
            // round(1.5) = 2: total 30 * 2/3 = 20, mean 10 kept; max 12 <= 20 kept
            assertEquals(new RegionRecord("three", 2, 20, 12, 2), store.recordFor("three").orElseThrow());
        }
    }

    @Test
    void decayLowersAMaximumAboveTheNewTotal() {
        try (HintStore store = HintStore.inMemory(HintStoreOptions.defaults())) {
            store.add(new RegionRecord("spiky", 10, 1_000, 900, 0)); // nine samples of ~11 ns and one of 900
            store.decay(0.1);
            RegionRecord r = store.recordFor("spiky").orElseThrow();
            assertEquals(new RegionRecord("spiky", 1, 100, 100, 0), r);
            assertTrue(r.kernelNsMax() <= r.kernelNsTotal());
        }
    }

    @Test
    void decayByOneChangesNothingAndBadFactorsAreRejected() {
        try (HintStore store = HintStore.inMemory(HintStoreOptions.defaults())) {
            store.add(new RegionRecord("x", 7, 700, 300, 70));
            assertEquals(new DecayResult(1, List.of()), store.decay(1.0));
            assertEquals(new RegionRecord("x", 7, 700, 300, 70), store.recordFor("x").orElseThrow());
            for (double bad : new double[] {0, -0.5, 1.01, Double.NaN, Double.POSITIVE_INFINITY}) {
                assertThrows(IllegalArgumentException.class, () -> store.decay(bad), "factor " + bad);
            }
        }
    }

    @Test
    void aDecayResultsSkippedListIsAnImmutableCopy() {
        List<String> names = new java.util.ArrayList<>(List.of("stuck"));
        DecayResult result = new DecayResult(2, names);
        names.add("later");
        assertEquals(List.of("stuck"), result.skipped());
        assertThrows(UnsupportedOperationException.class, () -> result.skipped().add("x"));
        assertThrows(IllegalArgumentException.class, () -> new DecayResult(-1, List.of()));
    }

    @Test
    void readOnlyStoresRefuseAddAndDecay() throws Exception {
        Path file = dir.resolve("ro.hints");
        try (HintStore writer = HintStore.open(file, HintStoreOptions.defaults())) {
            writer.record("x", 1, 1);
        }
        try (HintStore reader = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            assertThrows(IllegalStateException.class, () -> reader.add(new RegionRecord("x", 1, 1, 1, 1)));
            assertThrows(IllegalStateException.class, () -> reader.decay(0.5));
            assertEquals(1, reader.dispatchCount("x"));
        }
    }

    @Test
    void closedStoresRefuseTheQueryApi() {
        HintStore store = HintStore.inMemory(HintStoreOptions.defaults());
        store.close();
        assertThrows(IllegalStateException.class, () -> store.hottest(1, RegionOrder.TOTAL_NS));
        assertThrows(IllegalStateException.class, store::snapshot);
        assertThrows(IllegalStateException.class, () -> store.add(new RegionRecord("x", 1, 1, 1, 1)));
        assertThrows(IllegalStateException.class, () -> store.decay(0.5));
        assertThrows(IllegalStateException.class, store::info);
    }

    @Test
    void infoDescribesHeaderCountersAndAttachedWriters() throws Exception {
        Path file = dir.resolve("info.hints");
        Instant before = Instant.now().minusSeconds(1);
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(2).hotThresholdNs(7))) {
            store.record("a", 1, 1);
            store.record("b", 1, 1);
            store.record("c", 1, 1); // evicts one
            HintFileInfo info = store.info();
            assertEquals(file, info.file());
            assertEquals(HintFiles.FORMAT_VERSION, info.formatVersion());
            assertEquals(2, info.capacity());
            assertEquals(HintStoreOptions.DEFAULT_MAX_NAME_BYTES, info.maxNameBytes());
            assertEquals(7, info.hotThresholdNs());
            assertEquals(2, info.regions());
            assertEquals(2, info.highWater());
            assertEquals(3, info.structuralChanges());
            assertEquals(1, info.evictions());
            assertEquals(0, info.recoveries());
            assertFalse(info.changeInterrupted());
            assertEquals(java.nio.file.Files.size(file), info.fileBytes());
            assertFalse(info.created().isBefore(before));
            assertEquals(1, info.writerAttachments());
            assertEquals(1, info.writers().size());
            HintFileInfo.Writer me = info.writers().get(0);
            assertEquals(ProcessHandle.current().pid(), me.pid());
            assertTrue(me.alive());
        }
        try (HintStore again = HintStore.open(file, HintStoreOptions.defaults())) {
            assertEquals(2, again.info().writerAttachments(), "a second attachment since creation");
            assertEquals(1, again.info().writers().size(), "the first writer released its entry on close");
        }
        try (HintStore reader = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            assertEquals(List.of(), reader.info().writers(), "readers claim no entry");
        }
    }
}
