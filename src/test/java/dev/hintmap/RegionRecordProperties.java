package dev.hintmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.LongRange;

/** {@link RegionRecord#merge} and {@link RegionRecord#scaled}: the arithmetic of merge and decay (FORMAT.md §7.6). */
class RegionRecordProperties {

    /** Records some sequence of samples produces: count >= 1, mean <= max <= total, near saturation too. */
    @Provide
    Arbitrary<RegionRecord> records() {
        Arbitrary<Long> counts = Arbitraries.oneOf(Arbitraries.longs().between(1, 1_000_000),
                Arbitraries.longs().between(1, Long.MAX_VALUE));
        Arbitrary<Long> maxes = Arbitraries.oneOf(Arbitraries.longs().between(1, 10_000_000),
                Arbitraries.longs().between(1, Long.MAX_VALUE));
        Arbitrary<Double> spread = Arbitraries.doubles().between(0, 1);
        Arbitrary<Long> bytes = Arbitraries.longs().between(0, Long.MAX_VALUE);
        return Combinators.combine(counts, maxes, spread, bytes).as((c, m, s, b) -> {
            long most = c > Long.MAX_VALUE / m ? Long.MAX_VALUE : m * c;
            long total = Math.min(most, Math.max(m, (long) (m + s * ((double) most - m))));
            return new RegionRecord("r", c, total, m, b);
        });
    }

    private static boolean sound(RegionRecord r) {
        return r.dispatchCount() >= 1 && r.kernelNsMax() <= r.kernelNsTotal() && r.meanKernelNs() <= r.kernelNsMax();
    }

    @Property
    void addTakesExactlyTheSoundRecordsAndIsSoundSaysWhich(@ForAll @LongRange(min = 0, max = 4) long count,
            @ForAll @LongRange(min = 0, max = 12) long total, @ForAll @LongRange(min = 0, max = 12) long max) {
        RegionRecord r = new RegionRecord("r", count, total, max, 7);
        assertEquals(sound(r), r.isSound());
        try (HintStore store = HintStore.inMemory(HintStoreOptions.defaults())) {
            if (r.isSound()) {
                store.add(r);
                assertEquals(r, store.recordFor("r").orElseThrow());
            } else {
                assertThrows(IllegalArgumentException.class, () -> store.add(r));
                assertTrue(store.recordFor("r").isEmpty(), "nothing recorded");
            }
        }
    }

    @Property
    void mergeIsCommutativeAndAssociativeAndKeepsRecordsSound(@ForAll("records") RegionRecord a,
            @ForAll("records") RegionRecord b, @ForAll("records") RegionRecord c) {
        assertEquals(a.merge(b), b.merge(a));
        assertEquals(a.merge(b).merge(c), a.merge(b.merge(c)));
        assertTrue(sound(a.merge(b)), a.merge(b).toString());
    }

    @Property
    void scalingDownKeepsMeansExactlyAndRecordsSound(@ForAll("records") RegionRecord r,
            @ForAll @DoubleRange(min = 0.0001, max = 1.0) @net.jqwik.api.constraints.Scale(6) double factor) {
        RegionRecord s = r.scaled(factor);
        long expected = factor == 1 ? r.dispatchCount() : Math.max(1, (long) Math.rint(r.dispatchCount() * factor));
        assertEquals(expected, s.dispatchCount(), "factor 1 is exact: no rounding through a double");
        assertEquals(r.meanKernelNs(), s.meanKernelNs(), "floor(total'/count') = floor(total/count)");
        assertEquals(r.meanBytes(), s.meanBytes());
        assertTrue(s.kernelNsMax() <= r.kernelNsMax());
        assertTrue(sound(s), s.toString());
    }

    @Property
    void scalingUpMultipliesAndSaturatesButStaysSound(@ForAll("records") RegionRecord r,
            @ForAll @DoubleRange(min = 1.0, max = 1e6) double factor) {
        RegionRecord s = r.scaled(factor);
        assertTrue(s.dispatchCount() >= r.dispatchCount());
        assertTrue(s.kernelNsTotal() >= r.kernelNsTotal() || s.kernelNsTotal() == Long.MAX_VALUE);
        assertTrue(sound(s), s.toString());
    }

    @Property
    void scalingByAWholeNumberIsMergingThatManyCopies(@ForAll("records") RegionRecord r) {
        RegionRecord small = new RegionRecord("r", r.dispatchCount() % 1000 + 1, 0, 0, r.bytesTotal() % 1_000_000);
        RegionRecord base = new RegionRecord("r", small.dispatchCount(), small.dispatchCount() * 7, 9, small.bytesTotal());
        assertEquals(base.merge(base).merge(base), base.scaled(3));
    }

    @Property(tries = 10)
    void badFactorsAndOtherRegionsAreRejected(@ForAll("records") RegionRecord r) {
        for (double bad : new double[] {0, -1, Double.NaN, Double.POSITIVE_INFINITY}) {
            assertThrows(IllegalArgumentException.class, () -> r.scaled(bad));
        }
        assertThrows(IllegalArgumentException.class, () -> r.merge(new RegionRecord("other", 1, 1, 1, 1)));
    }

    /**
     * Every answer to "is it hot" (the store by name, a handle, a holder, a view, a snapshot, a
     * record) is the one rule, which is exact arithmetic: at least one dispatch and
     * {@code floor(total / count) >= threshold}, for thresholds near the mean and at the edges.
     */
    @Property(tries = 200)
    void everyIsHotIsTheExactMeanAgainstTheThreshold(@ForAll("records") RegionRecord r,
            @ForAll @LongRange(min = -2, max = 2) long offset, @ForAll("thresholdKinds") int kind) {
        long mean = r.meanKernelNs();
        long threshold = switch (kind) {
            case 0 -> 0;
            case 1 -> Long.MAX_VALUE;
            default -> offset > 0 && mean > Long.MAX_VALUE - offset ? Long.MAX_VALUE : Math.max(0, mean + offset);
        };
        boolean exact = BigInteger.valueOf(r.kernelNsTotal()).divide(BigInteger.valueOf(r.dispatchCount()))
                .compareTo(BigInteger.valueOf(threshold)) >= 0;
        assertEquals(exact, r.isHot(threshold), r + " threshold " + threshold);
        try (HintStore store = HintStore.inMemory(HintStoreOptions.defaults().hotThresholdNs(threshold))) {
            store.add(r);
            MutableRecord holder = new MutableRecord();
            assertTrue(store.readInto(r.name(), holder));
            List<Boolean> views = new ArrayList<>();
            store.forEachView(v -> views.add(v.isHot()));
            HintSnapshot snapshot = store.snapshot();
            assertEquals(List.of(exact, exact, exact, exact, exact, exact), List.of(store.isHot(r.name()),
                    store.region(r.name()).isHot(), holder.isHot(threshold), views.get(0), snapshot.isHot(r.name()),
                    snapshot.hotCount() == 1), r + " threshold " + threshold);
        }
    }

    @Provide
    Arbitrary<Integer> thresholdKinds() {
        return Arbitraries.integers().between(0, 5);
    }

    @Property
    void aRecordWithoutDispatchesIsNeverHot(@ForAll @LongRange(min = 0) long total, @ForAll @LongRange(min = -1) long threshold) {
        assertFalse(new RegionRecord("r", 0, total, 0, 0).isHot(threshold));
        assertFalse(new MutableRecord().isHot(threshold));
    }
}
