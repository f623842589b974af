package dev.hintmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.testkit.StoreKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The semantics of the in-memory reference design, on an anonymous store and on a mapped file. */
class HintStoreBehaviourTest {

    private static HintStoreOptions capacity(int c) {
        return HintStoreOptions.defaults().capacity(c);
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void newStoreIsEmptyWithDefaults(StoreKind kind) {
        try (HintStore store = kind.open(HintStoreOptions.defaults())) {
            assertEquals(0, store.size());
            assertEquals(0, store.size());
            assertEquals(256, store.capacity());
            assertEquals(100_000, store.hotThresholdNs());
            assertEquals(0, store.dispatchCount("gemm"));
            assertEquals(0, store.meanKernelNs("gemm"));
            assertFalse(store.isHot("gemm"));
            assertEquals(Optional.empty(), store.recordFor("gemm"));
        }
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void recordsRunningSumsMeanAndMax(StoreKind kind) {
        try (HintStore store = kind.open(HintStoreOptions.defaults())) {
            store.record("gemm", 100, 1000);
            store.record("gemm", 300, 3000);
            store.record("gemm", 200, 2000);
            RegionRecord r = store.recordFor("gemm").orElseThrow();
            assertEquals(new RegionRecord("gemm", 3, 600, 300, 6000), r);
            assertEquals(200, r.meanKernelNs());
            assertEquals(2000, r.meanBytes());
            assertEquals(3, store.dispatchCount("gemm"));
            assertEquals(200, store.meanKernelNs("gemm"));
            assertEquals(1, store.size());
        }
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void meanIsRoundedDown(StoreKind kind) {
        try (HintStore store = kind.open(HintStoreOptions.defaults())) {
            store.record("k", 1, 1);
            store.record("k", 2, 2);
            assertEquals(1, store.meanKernelNs("k"));
            assertEquals(1, store.recordFor("k").orElseThrow().meanBytes());
        }
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void regionTurnsHotExactlyWhenMeanReachesThreshold(StoreKind kind) {
        try (HintStore store = kind.open(HintStoreOptions.defaults().hotThresholdNs(1000))) {
            store.record("k", 998, 0);
            assertFalse(store.isHot("k"));
            store.record("k", 1001, 0); // mean 999
            assertFalse(store.isHot("k"));
            store.record("k", 1003, 0); // mean 1000
            assertTrue(store.isHot("k"));
            store.record("k", 0, 0); // mean 750
            assertFalse(store.isHot("k"));
        }
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void defaultThresholdIsOneHundredMicroseconds(StoreKind kind) {
        try (HintStore store = kind.open(HintStoreOptions.defaults())) {
            store.record("cold", 99_999, 0);
            store.record("hot", 100_000, 0);
            assertFalse(store.isHot("cold"));
            assertTrue(store.isHot("hot"));
        }
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void zeroThresholdMakesEveryRecordedRegionHotButNotUnknownOnes(StoreKind kind) {
        try (HintStore store = kind.open(HintStoreOptions.defaults().hotThresholdNs(0))) {
            store.record("k", 0, 0);
            assertTrue(store.isHot("k"));
            assertFalse(store.isHot("unknown"));
        }
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void sumsSaturateAtLongMaxInsteadOfWrapping(StoreKind kind) {
        try (HintStore store = kind.open(HintStoreOptions.defaults())) {
            store.record("big", Long.MAX_VALUE, Long.MAX_VALUE);
            store.record("big", Long.MAX_VALUE, 5);
            store.record("big", 7, Long.MAX_VALUE);
            RegionRecord r = store.recordFor("big").orElseThrow();
            assertEquals(3, r.dispatchCount());
            assertEquals(Long.MAX_VALUE, r.kernelNsTotal());
            assertEquals(Long.MAX_VALUE, r.kernelNsMax());
            assertEquals(Long.MAX_VALUE, r.bytesTotal());
            assertEquals(Long.MAX_VALUE / 3, r.meanKernelNs());
            assertTrue(store.isHot("big"));
        }
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void neverHoldsMoreThanCapacityAndEvictsOnlyWhenFull(StoreKind kind) {
        try (HintStore store = kind.open(capacity(4))) {
            for (int i = 0; i < 4; i++) {
                store.record("r" + i, 10, 1);
            }
            assertEquals(4, store.size());
            assertEquals(0, store.info().evictions());
            for (int i = 4; i < 40; i++) {
                store.record("r" + i, 10, 1);
                assertEquals(4, store.size());
            }
            assertEquals(36, store.info().evictions());
            assertTrue(store.recordFor("r39").isPresent(), "the region just recorded is present");
        }
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void evictedRegionReadsAsAbsentAndStartsAfreshWhenRecordedAgain(StoreKind kind) {
        try (HintStore store = kind.open(capacity(2))) {
            store.record("a", 500, 5);
            store.record("a", 700, 5);
            store.record("b", 10, 1);
            store.record("c", 10, 1); // full: one of a, b goes
            store.record("d", 10, 1);
            Set<String> present = names(store);
            assertEquals(2, present.size());
            assertFalse(present.contains("a") && present.contains("b"));
            if (!present.contains("a")) {
                assertEquals(0, store.dispatchCount("a"));
                assertFalse(store.isHot("a"));
                store.record("a", 1, 1);
                assertEquals(new RegionRecord("a", 1, 1, 1, 1), store.recordFor("a").orElseThrow());
            }
        }
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void clockGivesARegionRecordedAgainASecondChance(StoreKind kind) {
        try (HintStore store = kind.open(capacity(3))) {
            store.record("a", 1, 1); // slot 0
            store.record("b", 1, 1); // slot 1
            store.record("c", 1, 1); // slot 2; inserted regions start with a clear bit
            store.record("d", 1, 1); // hand at a: clear bit, a goes; hand -> b
            assertEquals(Set.of("b", "c", "d"), names(store));
            store.record("b", 1, 1); // b's second record sets its bit
            store.record("e", 1, 1); // hand at b: bit set, cleared and spared; c goes; hand -> d
            assertEquals(Set.of("b", "d", "e"), names(store));
            store.record("f", 1, 1); // hand at d: clear bit, d goes
            assertEquals(Set.of("b", "e", "f"), names(store));
            store.record("g", 1, 1); // hand at b: its bit was cleared by the last pass, b goes now
            assertEquals(Set.of("e", "f", "g"), names(store));
        }
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void hotRegionRecordedBetweenInsertionsSurvivesAStreamOfOneOffRegions(StoreKind kind) {
        try (HintStore store = kind.open(capacity(8))) {
            store.record("hot", 200_000, 1);
            for (int i = 0; i < 200; i++) {
                store.record("hot", 200_000, 1);
                store.record("scan-" + i, 5, 1);
            }
            assertEquals(201, store.dispatchCount("hot"));
            assertTrue(store.isHot("hot"));
        }
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void capacityZeroDisablesRecording(StoreKind kind) {
        try (HintStore store = kind.open(capacity(0))) {
            store.record("gemm", 500_000, 10);
            store.region("gemm").record(500_000, 10);
            assertEquals(0, store.capacity());
            assertEquals(0, store.size());
            assertEquals(0, store.size());
            assertEquals(0, store.dispatchCount("gemm"));
            assertFalse(store.isHot("gemm"));
            assertEquals(Optional.empty(), store.recordFor("gemm"));
            List<RegionRecord> all = new ArrayList<>();
            store.snapshot().regions().forEach(all::add);
            assertEquals(List.of(), all);
        }
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void scanVisitsEveryPresentRegionOnce(StoreKind kind) {
        try (HintStore store = kind.open(capacity(16))) {
            for (int i = 0; i < 10; i++) {
                for (int n = 0; n <= i; n++) {
                    store.record("region-" + i, 100 * i, i);
                }
            }
            List<RegionRecord> all = new ArrayList<>();
            store.forEachView(v -> all.add(v.toRecord()));
            assertEquals(10, all.size());
            for (RegionRecord r : all) {
                int i = Integer.parseInt(r.name().substring("region-".length()));
                assertEquals(new RegionRecord(r.name(), i + 1, 100L * i * (i + 1), 100L * i, (long) i * (i + 1)), r);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void unicodeNamesAreDistinctRegions(StoreKind kind) {
        try (HintStore store = kind.open(HintStoreOptions.defaults())) {
            store.record("カーネル_matmul", 1, 1);
            store.record("\uD83D\uDE80fused", 2, 2);
            store.record("e\u0301", 3, 3); // e + combining accent
            store.record("\u00e9", 4, 4); // precomposed: another name
            assertEquals(4, store.size());
            assertEquals(3, store.meanKernelNs("e\u0301"));
            assertEquals(4, store.meanKernelNs("\u00e9"));
            Set<String> names = names(store);
            assertTrue(names.contains("\uD83D\uDE80fused"));
        }
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void nameOfExactlyMaxBytesIsAccepted(StoreKind kind) {
        String name = "gemm_bf16_128x128x64_nn_align8_v1"; // 33 bytes: the smallest limit
        try (HintStore store = kind.open(HintStoreOptions.defaults().maxNameBytes(33))) {
            store.record(name, 1, 1);
            assertEquals(1, store.dispatchCount(name));
            assertEquals(List.of(name), store.snapshot().regions().stream().map(RegionRecord::name).toList());
        }
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void regionHandleRecordsIntoTheSameRecordAsTheName(StoreKind kind) {
        try (HintStore store = kind.open(HintStoreOptions.defaults())) {
            Region gemm = store.region("gemm");
            gemm.record(10, 1);
            store.record("gemm", 20, 2);
            gemm.record(30, 3);
            assertEquals(new RegionRecord("gemm", 3, 60, 30, 6), store.recordFor("gemm").orElseThrow());
            assertEquals("gemm", gemm.name());
        }
    }

    @ParameterizedTest
    @EnumSource(StoreKind.class)
    void regionHandleFollowsItsRegionThroughEvictionAndReinsertion(StoreKind kind) {
        try (HintStore store = kind.open(capacity(2))) {
            Region a = store.region("a");
            a.record(5, 5);
            for (int i = 0; i < 10; i++) {
                store.record("other-" + i, 1, 1); // evicts a at some point
            }
            assertFalse(names(store).contains("a"));
            a.record(7, 7);
            assertEquals(new RegionRecord("a", 1, 7, 7, 7), store.recordFor("a").orElseThrow());
            for (RegionRecord r : all(store)) {
                if (!r.name().equals("a")) {
                    assertEquals(r.dispatchCount(), r.kernelNsTotal(), "no sample of a landed in " + r.name());
                }
            }
        }
    }

    static Set<String> names(HintStore store) {
        Set<String> names = new TreeSet<>();
        store.snapshot().regions().forEach(r -> names.add(r.name()));
        return names;
    }

    static List<RegionRecord> all(HintStore store) {
        List<RegionRecord> all = new ArrayList<>();
        store.snapshot().regions().forEach(all::add);
        return all;
    }
}
