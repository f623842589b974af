package dev.hintmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link HintStore#hotSet} answers every question of the shared vectors ({@code vectors/hot-set.txt},
 * which C's {@code hm_hot_set} answers in test_unit): the set in order, each share, the totals, and
 * the refusals. Each case's regions are written through the public API.
 */
class HotSetVectorsTest {
    @TempDir Path dir;

    @Test
    void answersEveryQuestionOfTheSharedVectorsInMemory() {
        int asked = 0;
        for (HotSetVectors.Case c : HotSetVectors.load()) {
            try (HintStore store = HintStore.inMemory(options(c))) {
                fill(store, c);
                asked += check(store, c);
            }
        }
        assertEquals(55, asked, "questions in hot-set.txt (asks and refusals)");
    }

    @Test
    void answersTheSameFromAFileOpenedReadOnly() throws Exception {
        int file = 0;
        for (HotSetVectors.Case c : HotSetVectors.load()) {
            Path path = dir.resolve("case" + file++ + ".hints");
            try (HintStore writer = HintStore.open(path, options(c))) {
                fill(writer, c);
            }
            try (HintStore reader = HintStore.open(path, HintStoreOptions.defaults().readOnly(true))) {
                check(reader, c);
            }
        }
        assertEquals(14, file);
    }

    private static HintStoreOptions options(HotSetVectors.Case c) {
        return HintStoreOptions.defaults().capacity(c.capacity()).maxNameBytes(c.maxNameBytes());
    }

    private static void fill(HintStore store, HotSetVectors.Case c) {
        for (HotSetVectors.Region r : c.regions()) {
            store.add(r.record());
        }
    }

    /** Checks every question of case {@code c}; returns how many it asked. */
    private static int check(HintStore store, HotSetVectors.Case c) {
        for (HotSetVectors.Ask a : c.asks()) {
            String q = c.name() + ", coverage " + a.coverageText() + ", min " + a.minDispatches();
            HotSet got = store.hotSet(a.coverage(), a.minDispatches());
            assertEquals(HotSetVectors.clamped(a.totalNs()), got.totalNs(), q + ": total");
            assertEquals(HotSetVectors.clamped(a.neededNs()), got.neededNs(), q + ": needed");
            assertEquals(HotSetVectors.clamped(a.coveredNs()), got.coveredNs(), q + ": covered");
            assertEquals(HotSetVectors.share(a.coveredNs(), a.totalNs()), got.coveredShare(), q + ": covered share, exactly");
            assertEquals(HotSetVectors.share(a.thinNs(), a.totalNs()), got.thinShare(), q + ": thin share, exactly");
            assertEquals(a.read(), got.regionsRead(), q + ": regions read");
            assertEquals(a.thin(), got.thinRegions(), q + ": thin regions");
            assertEquals(HotSetVectors.clamped(a.thinNs()), got.thinNs(), q + ": thin ns");
            assertEquals(a.reached(), got.reached(), q + ": reached");
            assertTrue(got.consistent(), q + ": one cut of a file nobody writes");
            assertEquals(a.hot().stream().map(HotSetVectors.Hot::name).toList(),
                    got.regions().stream().map(HotRegion::name).toList(), q + ": the set, in order");
            assertEquals(a.count(), got.regions().size(), q + ": count");
            BigInteger sofar = BigInteger.ZERO;
            for (int i = 0; i < a.hot().size(); i++) {
                HotSetVectors.Hot want = a.hot().get(i);
                HotRegion r = got.regions().get(i);
                assertEquals(want.totalNs(), r.record().kernelNsTotal(), q + ": total of " + want.name());
                assertEquals(want.share(), r.share(), 1e-9, q + ": share of " + want.name());
                assertEquals(want.cumulativeShare(), r.cumulativeShare(), 1e-9, q + ": cumulative share of " + want.name());
                assertEquals(HotSetVectors.share(BigInteger.valueOf(r.record().kernelNsTotal()), a.totalNs()), r.share(),
                        q + ": share rule, exactly");
                sofar = sofar.add(BigInteger.valueOf(r.record().kernelNsTotal()));
                assertEquals(HotSetVectors.share(sofar, a.totalNs()), r.cumulativeShare(), q + ": cumulative share rule");
            }
        }
        for (HotSetVectors.Refusal r : c.refusals()) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> store.hotSet(Double.parseDouble(r.coverageText()), r.minDispatches()),
                    c.name() + ": coverage " + r.coverageText() + ", min " + r.minDispatches());
            assertTrue(e.getMessage().contains(r.minDispatches() < 0 ? "minDispatches" : "coverage"), e.getMessage());
        }
        return c.asks().size() + c.refusals().size();
    }

    @Test
    void vectorsCoverTheCasesTheDefinitionNames() {
        List<HotSetVectors.Case> cases = HotSetVectors.load();
        assertTrue(cases.stream().anyMatch(c -> c.capacity() == 0), "capacity 0");
        assertTrue(cases.stream().anyMatch(c -> c.capacity() > 0 && c.regions().isEmpty()), "an empty file");
        assertTrue(cases.stream().flatMap(c -> c.asks().stream()).anyMatch(a -> !a.reached()), "a coverage missed");
        assertTrue(cases.stream().flatMap(c -> c.asks().stream()).anyMatch(a -> a.thin() > 0), "thin regions");
        assertTrue(cases.stream().flatMap(c -> c.refusals().stream()).anyMatch(r -> r.coverageText().equals("NaN")), "NaN");
        BigInteger longMax = BigInteger.valueOf(Long.MAX_VALUE);
        assertTrue(cases.stream().flatMap(c -> c.asks().stream())
                .anyMatch(a -> a.totalNs().compareTo(longMax) > 0 && a.coverage() == 1 && a.thin() > 0),
                "a whole past 2^63-1 (saturated regions), asked at coverage 1, with thin regions");
        assertTrue(cases.stream().flatMap(c -> c.asks().stream())
                .anyMatch(a -> a.coverage() == 1 && new java.math.BigDecimal(a.totalNs().doubleValue())
                        .compareTo(new java.math.BigDecimal(a.totalNs())) < 0),
                "coverage 1 where the whole rounds down to a smaller double (its ceiling would leave a region out)");
    }
}
