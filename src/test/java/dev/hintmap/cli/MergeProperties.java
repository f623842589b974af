package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintFiles;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionOrder;
import dev.hintmap.RegionRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Merging profiles: commutative and associative on counts and totals (with saturation), capacity
 * respected by keeping the hottest by total; and the {@code merge} command agrees with that model on
 * real files.
 */
class MergeProperties {
    /** The names here are short: every limit holds them whole, as the files the command writes (default limit). */
    private static final int NAME_LIMIT = HintStoreOptions.DEFAULT_MAX_NAME_BYTES;

    /** Records a sequence of samples could produce: count >= 1, mean <= max <= total; some near saturation. */
    @Provide
    Arbitrary<List<RegionRecord>> profile() {
        Arbitrary<String> names = Arbitraries.of("gemm", "conv", "softmax", "norm", "gather", "scan", "topk", "gelu",
                "カーネル", "a,b");
        Arbitrary<long[]> counts = Arbitraries.oneOf(Arbitraries.longs().between(1, 1_000),
                Arbitraries.longs().between(Long.MAX_VALUE / 4, Long.MAX_VALUE)).map(c -> new long[] {c});
        Arbitrary<Long> max = Arbitraries.oneOf(Arbitraries.longs().between(1, 1_000_000),
                Arbitraries.longs().between(Long.MAX_VALUE / 4, Long.MAX_VALUE));
        Arbitrary<Double> spread = Arbitraries.doubles().between(0, 1);
        Arbitrary<Long> bytes = Arbitraries.oneOf(Arbitraries.longs().between(0, 1 << 30),
                Arbitraries.longs().between(0, Long.MAX_VALUE));
        Arbitrary<RegionRecord> record = Combinators.combine(names, counts, max, spread, bytes).as((n, c, m, s, b) -> {
            long most = c[0] > Long.MAX_VALUE / m ? Long.MAX_VALUE : m * c[0]; // mean <= max needs total <= max * count
            long total = Math.min(most, Math.max(m, (long) (m + s * ((double) most - m))));
            return new RegionRecord(n, c[0], total, m, b);
        });
        return record.list().ofMaxSize(12).map(MergeProperties::uniqueByName);
    }

    private static List<RegionRecord> uniqueByName(List<RegionRecord> records) {
        Map<String, RegionRecord> byName = new LinkedHashMap<>();
        records.forEach(r -> byName.putIfAbsent(r.name(), r));
        return new ArrayList<>(byName.values());
    }

    private static Map<String, RegionRecord> merge(List<List<RegionRecord>> profiles) {
        ProfileMerger merger = new ProfileMerger();
        profiles.forEach(p -> merger.add(p, 1, NAME_LIMIT));
        Map<String, RegionRecord> result = new HashMap<>();
        merger.resolve(NAME_LIMIT).hottest(Integer.MAX_VALUE).forEach(r -> result.put(r.name(), r));
        return result;
    }

    private static List<RegionRecord> values(Map<String, RegionRecord> merged) {
        return new ArrayList<>(merged.values());
    }

    @Property
    void mergeIsCommutative(@ForAll("profile") List<RegionRecord> a, @ForAll("profile") List<RegionRecord> b) {
        assertEquals(merge(List.of(a, b)), merge(List.of(b, a)));
    }

    @Property
    void mergeIsAssociative(@ForAll("profile") List<RegionRecord> a, @ForAll("profile") List<RegionRecord> b,
            @ForAll("profile") List<RegionRecord> c) {
        Map<String, RegionRecord> left = merge(List.of(values(merge(List.of(a, b))), c));
        Map<String, RegionRecord> right = merge(List.of(a, values(merge(List.of(b, c)))));
        assertEquals(left, right);
        assertEquals(merge(List.of(a, b, c)), left);
    }

    @Property
    void mergeAddsCountsAndTotalsWithSaturationAndTakesTheMaxOfMax(@ForAll("profile") List<RegionRecord> a,
            @ForAll("profile") List<RegionRecord> b) {
        Map<String, RegionRecord> merged = merge(List.of(a, b));
        for (RegionRecord x : a) {
            RegionRecord y = b.stream().filter(r -> r.name().equals(x.name())).findFirst().orElse(null);
            RegionRecord m = merged.get(x.name());
            if (y == null) {
                assertEquals(x, m);
            } else {
                assertEquals(satAdd(x.dispatchCount(), y.dispatchCount()), m.dispatchCount());
                assertEquals(satAdd(x.kernelNsTotal(), y.kernelNsTotal()), m.kernelNsTotal());
                assertEquals(Math.max(x.kernelNsMax(), y.kernelNsMax()), m.kernelNsMax());
                assertEquals(satAdd(x.bytesTotal(), y.bytesTotal()), m.bytesTotal());
            }
        }
        assertEquals(java.util.stream.Stream.concat(a.stream(), b.stream()).map(RegionRecord::name).distinct().count(),
                merged.size());
    }

    @Property
    void capacityIsRespectedByKeepingTheHottestByTotal(@ForAll("profile") List<RegionRecord> a,
            @ForAll("profile") List<RegionRecord> b, @ForAll @IntRange(min = 0, max = 12) int capacity) {
        ProfileMerger merger = new ProfileMerger();
        merger.add(a, 1, NAME_LIMIT);
        merger.add(b, 1, NAME_LIMIT);
        List<RegionRecord> kept = merger.resolve(NAME_LIMIT).hottest(capacity);
        List<RegionRecord> all = values(merge(List.of(a, b)));
        all.sort(RegionOrder.TOTAL_NS.comparator());
        assertEquals(all.subList(0, Math.min(capacity, all.size())), kept);
        assertTrue(kept.size() <= capacity);
    }

    /** The command on real files: what the model says, in a sound file of the requested capacity. */
    @Property(tries = 15)
    void theMergeCommandAgreesWithTheModelOnRealFiles(@ForAll("profile") List<RegionRecord> a,
            @ForAll("profile") List<RegionRecord> b, @ForAll @IntRange(min = 1, max = 16) int capacity) throws Exception {
        Path dir = Files.createTempDirectory("merge-property");
        try {
            Path fa = write(dir.resolve("a.hints"), a);
            Path fb = write(dir.resolve("b.hints"), b);
            Path out = dir.resolve("out.hints");
            Cli.run("merge", fa.toString(), fb.toString(), "-o", out.toString(), "--capacity",
                    Integer.toString(capacity), "-q").expect(0);
            ProfileMerger merger = new ProfileMerger();
            merger.add(a, 1, NAME_LIMIT);
            merger.add(b, 1, NAME_LIMIT);
            Map<String, RegionRecord> want = new HashMap<>();
            merger.resolve(NAME_LIMIT).hottest(capacity).forEach(r -> want.put(r.name(), r));
            Map<String, RegionRecord> got = new HashMap<>();
            try (HintStore store = HintStore.open(out, HintStoreOptions.defaults().readOnly(true))) {
                assertEquals(capacity, store.capacity());
                store.snapshot().regions().forEach(r -> got.put(r.name(), r));
            }
            assertEquals(want, got);
            assertTrue(HintFiles.verify(out, HintStoreOptions.defaults()).ok());
        } finally {
            try (var files = Files.list(dir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
            Files.delete(dir);
        }
    }

    private static Path write(Path file, List<RegionRecord> records) throws IOException {
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(16))) {
            records.forEach(store::add);
        }
        return file;
    }

    private static long satAdd(long a, long b) {
        long s = a + b;
        return s < 0 ? Long.MAX_VALUE : s;
    }
}
