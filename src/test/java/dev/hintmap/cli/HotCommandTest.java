package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
        List<String> lines = Cli.run("hot", "--coverage", "0.8", file.toString()).expect(ExitCode.OK).out().lines().toList();
        assertEquals("hot set of " + file + ": 2 of 3 regions cover 85.0% of 100.00 ms kernel time (asked 80.0%)",
                lines.get(0));
        assertTrue(lines.get(2).matches("\\s+1\\s+400\\s+60\\.00 ms\\s+60\\.0%\\s+60\\.0%\\s+150\\.0 µs\\s+\\Q" + GEMM + "\\E"),
                lines.get(2));
        assertTrue(lines.get(3).contains("25.0%") && lines.get(3).endsWith(GELU), lines.get(3));
        assertEquals("---- cut: 85.0% covered >= 80.0% asked; below the cut 1 region(s)", lines.get(4));
        assertEquals(5, lines.size());
    }

    @Test
    void saysWhenThinRegionsKeepTheCoverageFromBeingReached() throws Exception {
        Path file = profile();
        List<String> lines = Cli.run("hot", "--coverage", "0.95", "--min-dispatches", "10", file.toString())
                .expect(ExitCode.OK).out().lines().toList();
        assertTrue(lines.get(0).endsWith("(asked 95.0%, regions with >= 10 dispatches)"), lines.get(0));
        assertEquals("---- cut: only 85.0% covered < 95.0% asked: every region with enough dispatches is in the set;"
                + " 1 thin (< 10 dispatches) hold 15.0%", lines.getLast());
    }

    @Test
    void anEmptyFileHasAnEmptySet() throws Exception {
        Path file = dir.resolve("empty.hints");
        HintStore.open(file, HintStoreOptions.defaults()).close();
        assertEquals(List.of("hot set of " + file + ": 0 of 0 regions cover 0.0% of 0 ns kernel time (asked 95.0%)",
                "---- cut: 0.0% covered >= 95.0% asked; below the cut 0 region(s)"),
                Cli.run("hot", file.toString()).expect(ExitCode.OK).out().lines().toList());
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
