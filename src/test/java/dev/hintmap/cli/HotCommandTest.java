package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.HotRegion;
import dev.hintmap.HotSet;
import dev.hintmap.RegionRecord;
import dev.hintmap.format.StoredName;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code hintmap hot}: the set, the cut line with the share covered, the thin regions that keep a
 * coverage from being reached, and clear usage errors. The golden output of the samples (written by
 * Java and by C) is in {@link GoldenOutputTest}.
 */
class HotCommandTest {
    private static final String GEMM =
            "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)";
    private static final String GELU =
            "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}, std::array<char*, 2> >(int, ...)";
    private static final String TRANSPOSE =
            "void cudnn::engines_precompiled::nchwToNhwcKernel<__nv_bfloat16, __nv_bfloat16, float, false, true>(...)";

    @TempDir Path dir;

    private Path profile() throws Exception {
        Path file = dir.resolve("step.hints");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            store.add(new RegionRecord(GEMM, 400, 60_000_000, 200_000, 0));
            store.add(new RegionRecord(GELU, 5_000, 25_000_000, 9_000, 0));
            store.add(new RegionRecord(TRANSPOSE, 2, 15_000_000, 8_000_000, 0));
        }
        return file;
    }

    @Test
    void printsTheSetHottestFirstAndTheCutLineWithTheShareCovered() throws Exception {
        Path file = profile();
        List<String> lines = Cli.run("hot", "--coverage", "0.8", "-w", file.toString()).expect(ExitCode.OK).out().lines()
                .toList();
        assertEquals("hot set of " + file, lines.get(0));
        assertEquals("2 of 3 regions cover 85.0% of 100.00 ms kernel time (asked 80.0%)", lines.get(1));
        assertTrue(lines.get(3).matches("1\\s+\\Q" + GEMM + "\\E\\s+400\\s+60\\.00 ms\\s+60\\.0%\\s+60\\.0%\\s+150\\.0 µs"),
                lines.get(3));
        assertTrue(lines.get(4).startsWith("2  " + GELU) && lines.get(4).contains("25.0%"), lines.get(4));
        assertEquals("---- cut: 85.0% covered >= 80.0% asked; below the cut 1 region(s)", lines.get(5));
        assertEquals(6, lines.size());
    }

    @Test
    void saysWhenThinRegionsKeepTheCoverageFromBeingReached() throws Exception {
        Path file = profile();
        List<String> lines = Cli.run("hot", "--coverage", "0.95", "--min-dispatches", "10", "--width", "200",
                file.toString()).expect(ExitCode.OK).out().lines().toList();
        assertTrue(lines.get(1).endsWith("(asked 95.0%, regions with >= 10 dispatches)"), lines.get(1));
        assertEquals("---- cut: only 85.0% covered < 95.0% asked: every region with enough dispatches is in the set;"
                + " 1 thin (< 10 dispatches) hold 15.0%", lines.getLast());
    }

    @Test
    void anEmptyFileHasAnEmptySet() throws Exception {
        Path file = dir.resolve("empty.hints");
        HintStore.open(file, HintStoreOptions.defaults()).close();
        assertEquals(List.of("hot set of " + file, "0 of 0 regions cover 0.0% of 0 ns kernel time (asked 95.0%)",
                "---- cut: 0.0% covered >= 95.0% asked; below the cut 0 region(s)"),
                Cli.run("hot", file.toString()).expect(ExitCode.OK).out().lines().toList());
    }

    /** Three regions of 2^63-1 ns (a merged fleet profile), one of two dispatches: the whole is their exact sum. */
    private Path saturated() throws Exception {
        Path file = dir.resolve("fleet.hints");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            store.add(new RegionRecord(GEMM, 2, Long.MAX_VALUE, Long.MAX_VALUE, 0));
            store.add(new RegionRecord(GELU, 1, Long.MAX_VALUE, Long.MAX_VALUE, 0));
            store.add(new RegionRecord(TRANSPOSE, 1, Long.MAX_VALUE, Long.MAX_VALUE, 0));
        }
        return file;
    }

    @Test
    void coverageOneListsEveryRegionOfSaturatedTotalsWithTheirShareOfTheExactWhole() throws Exception {
        Path file = saturated();
        List<String> all = Cli.run("hot", "--coverage", "1", "-w", file.toString()).expect(ExitCode.OK).out().lines().toList();
        assertEquals("3 of 3 regions cover 100.0% of >= 2562047.8 h kernel time (asked 100.0%)", all.get(1),
                "the whole is more than a long holds: said so, never as the clamped figure alone");
        // Equal totals: by name, "void at::" < "void cudnn::" < "void cutlass::".
        assertTrue(all.get(3).matches("1\\s+\\Q" + GELU + "\\E\\s+1\\s+2562047\\.8 h\\s+33\\.3%\\s+33\\.3%.*"), all.get(3));
        assertTrue(all.get(4).matches("2\\s+\\Q" + TRANSPOSE + "\\E\\s+1\\s+2562047\\.8 h\\s+33\\.3%\\s+66\\.7%.*"),
                all.get(4));
        assertTrue(all.get(5).matches("3\\s+\\Q" + GEMM + "\\E\\s+2\\s+2562047\\.8 h\\s+33\\.3%\\s+100\\.0%.*"), all.get(5));
        assertEquals("---- cut: 100.0% covered >= 100.0% asked; below the cut 0 region(s)", all.get(6));
        assertEquals(7, all.size());

        List<String> half = Cli.run("hot", "--coverage", "0.5", "-w", file.toString()).expect(ExitCode.OK).out().lines()
                .toList();
        assertEquals("2 of 3 regions cover 66.7% of >= 2562047.8 h kernel time (asked 50.0%)", half.get(1));
        assertEquals("---- cut: 66.7% covered >= 50.0% asked; below the cut 1 region(s)", half.getLast());

        List<String> thin = Cli.run("hot", "--coverage", "1", "--min-dispatches", "2", "-w", file.toString())
                .expect(ExitCode.OK).out().lines().toList();
        assertEquals("---- cut: only 33.3% covered < 100.0% asked: every region with enough dispatches is in the set;"
                + " 2 thin (< 2 dispatches) hold 66.7%", thin.getLast(), "thin regions' share of the exact whole");
    }

    @ParameterizedTest(name = "{0} columns, names up to {1} bytes")
    @CsvSource({"80, 256", "100, 256", "80, 1024", "100, 1024"})
    void theTableFitsTheWidthWithEveryNumberOfEveryRegionAndLongNamesShortened(int width, int limit) throws Exception {
        Path file = KernelNames.file(dir.resolve("k.hints"), limit);
        HotSet set;
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            set = store.hotSet(1, 1);
        }
        String out = Cli.run("hot", "--coverage", "1", "--width", Integer.toString(width), file.toString()).expect(0).out();
        List<String> lines = out.lines().toList();
        for (String line : lines) {
            assertTrue(Table.columns(line) <= width, "a line of " + Table.columns(line) + " columns:\n" + out);
        }
        assertEquals(KernelNames.ALL.size(), set.regions().size());
        for (HotRegion r : set.regions()) {
            Pattern row = Pattern.compile("(^|\\s)" + Pattern.quote(Units.count(r.record().dispatchCount())) + "\\s+"
                    + Pattern.quote(Units.duration(r.record().kernelNsTotal())) + "\\s+" + Pattern.quote(Units.percent(r.share()))
                    + "\\s+" + Pattern.quote(Units.percent(r.cumulativeShare())) + "\\s+"
                    + Pattern.quote(Units.duration(r.record().meanKernelNs())) + "$", Pattern.MULTILINE);
            assertTrue(row.matcher(out).find(), "every number of " + r.name() + " whole, on one line:\n" + out);
            String tag = StoredName.tagOf(r.name(), limit);
            assertTrue(out.contains(tag), "the tag " + tag + " of a name stored shortened:\n" + out);
        }
        if (limit >= 585) {
            assertTrue(out.contains("int64_t") && out.contains("int32_t"),
                    "the two names that differ only in their last bytes are told apart:\n" + out);
        }
        assertTrue(lines.getLast().startsWith("---- cut: 100.0% covered >= 100.0% asked"), out);
    }

    @Test
    void wideAndNameStyleWorkAsForTheOtherTablesAndWidthRefusesNonsense() throws Exception {
        Path file = KernelNames.file(dir.resolve("k.hints"), 1024);
        String wide = Cli.run("hot", "--coverage", "1", "-w", file.toString()).expect(0).out();
        for (String name : KernelNames.ALL) {
            assertTrue(wide.contains(name), "whole with -w: " + name + "\n" + wide);
        }
        String stored = Cli.run("hot", "--coverage", "1", "--width", "80", "--name-style", "stored", file.toString())
                .expect(0).out();
        assertTrue(stored.lines().anyMatch(l -> l.matches("\\d+\\s+void at::\\S*….*int64_t\\)\\s.*")),
                "the stored style keeps the name's own start and end:\n" + stored);
        Cli.run("hot", "-w", "--width", "80", file.toString()).expect(ExitCode.USAGE);
        Cli.run("hot", "--width", "0", file.toString()).expect(ExitCode.USAGE);
        Cli.run("hot", "--name-style", "mangled", file.toString()).expect(ExitCode.USAGE);
    }

    @Test
    void refusesACoverageOutsideZeroToOneAndANegativeMinimum() throws Exception {
        Path file = profile();
        for (String bad : List.of("NaN", "-0.1", "1.5", "95")) {
            Cli.Result r = Cli.run("hot", "--coverage", bad, file.toString()).expect(ExitCode.USAGE);
            assertTrue(r.err().contains("--coverage") && r.err().contains("[0, 1]"), r.err());
        }
        Cli.Result r = Cli.run("hot", "--min-dispatches", "-1", file.toString()).expect(ExitCode.USAGE);
        assertTrue(r.err().contains("--min-dispatches must be >= 0"), r.err());
    }

    @Test
    void aMissingFileIsNotAUsableHintFile() {
        Cli.Result r = Cli.run("hot", dir.resolve("absent.hints").toString()).expect(ExitCode.BAD_FILE);
        assertTrue(r.err().startsWith("hintmap hot: "), r.err());
    }
}
