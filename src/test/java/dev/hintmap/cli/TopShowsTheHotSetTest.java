package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code hintmap top} answers "where does the time go" as {@code hintmap hot} does: HOT SET marks the
 * regions of the hot set by coverage at {@code hot}'s defaults and CUM SHARE gives each region's
 * cumulative share of the kernel time; the mean threshold's flag is SLOW ("is one launch
 * expensive"), never HOT. A GEMM launched often at 30 µs holds most of the time: it is in the hot
 * set and not slow; a 300 µs kernel launched twice is slow and not in the hot set.
 */
class TopShowsTheHotSetTest {
    private static final String GEMM =
            "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>(Params const&)";
    private static final String ADD = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::"
            + "BFloat16>, std::array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3>)";
    private static final String NORM = "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16,"
            + " float>(int, float, c10::BFloat16 const*, ...)";
    private static final String TRANSPOSE =
            "void cudnn::engines_precompiled::nchwToNhwcKernel<__nv_bfloat16, __nv_bfloat16, float, false, true>(...)";

    @TempDir Path dir;

    /** 100 ms of kernel time: GEMM 40.6 ms at a 30 µs mean, ADD 30 ms, NORM 28.8 ms, TRANSPOSE 0.6 ms at 300 µs. */
    private Path profile() throws Exception {
        Path file = dir.resolve("step.hints");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            store.add(new RegionRecord(GEMM, 1_353, 40_590_000, 45_000, 0)); // 30.0 µs mean
            store.add(new RegionRecord(ADD, 6_000, 30_000_000, 9_000, 0));
            store.add(new RegionRecord(NORM, 3_000, 28_810_000, 12_000, 0));
            store.add(new RegionRecord(TRANSPOSE, 2, 600_000, 310_000, 0)); // 300 µs mean: slow, 0.6%
        }
        return file;
    }

    /** The row of the region whose shortened name starts with {@code start}, read as whitespace-separated cells. */
    private static String row(List<String> lines, String start) {
        return lines.stream().filter(l -> l.matches("\\d+\\s+" + Pattern.quote(start) + ".*")).findFirst()
                .orElseThrow(() -> new AssertionError("no row for " + start + ":\n" + String.join("\n", lines)));
    }

    @Test
    void marksTheHotSetByCoverageAndTheMeanThresholdAsSlow() throws Exception {
        Path file = profile();
        List<String> lines = Cli.run("top", "-w", file.toString()).expect(ExitCode.OK).out().lines().toList();
        assertTrue(lines.get(3).matches("#\\s+REGION\\s+HOT SET\\s+SLOW\\s+DISPATCHES\\s+TOTAL\\s+SHARE\\s+CUM SHARE\\s+MEAN"
                + "\\s+MAX\\s+MEAN BYTES"), lines.get(3));
        assertTrue(row(lines, GEMM).matches(".*\\)\\s+HOT\\s+1,353\\s+40\\.59 ms\\s+40\\.6%\\s+40\\.6%\\s+30\\.0 µs.*"),
                "where the time goes: in the hot set, not slow per launch\n" + String.join("\n", lines));
        assertTrue(row(lines, ADD).matches(".*\\)\\s+HOT\\s+6,000\\s+30\\.00 ms\\s+30\\.0%\\s+70\\.6%\\s.*"), row(lines, ADD));
        assertTrue(row(lines, NORM).matches(".*\\)\\s+HOT\\s+3,000\\s+28\\.81 ms\\s+28\\.8%\\s+99\\.4%\\s.*"), row(lines, NORM));
        assertTrue(row(lines, TRANSPOSE).matches(".*\\)\\s+SLOW\\s+2\\s+600\\.0 µs\\s+0\\.6%\\s+100\\.0%\\s+300\\.0 µs.*"),
                "slow per launch, outside the hot set:\n" + String.join("\n", lines));
        assertTrue(lines.get(1).startsWith("regions 4/256, hot set 3 (99.4% of kernel time, asked 95.0%), 1 slow (mean >= "),
                lines.get(1));
    }

    @Test
    void marksTheSameRegionsAsHotListsInAnyOrder() throws Exception {
        Path file = profile();
        List<String> hot = Cli.run("hot", "-w", file.toString()).expect(ExitCode.OK).out().lines().toList();
        for (String by : List.of("total", "mean", "count", "max")) {
            List<String> top = Cli.run("top", "--by", by, "-w", file.toString()).expect(ExitCode.OK).out().lines().toList();
            for (String name : List.of(GEMM, ADD, NORM, TRANSPOSE)) {
                boolean listed = hot.stream().anyMatch(l -> l.matches("\\d+\\s+" + Pattern.quote(name) + "\\s.*"));
                boolean marked = row(top, name).matches("\\d+\\s+" + Pattern.quote(name) + "\\s+HOT\\s.*");
                assertEquals(listed, marked, "--by " + by + ": " + name + "\n" + String.join("\n", top));
            }
            assertTrue(row(top, GEMM).contains(" 40.6%  ") && row(top, TRANSPOSE).contains(" 100.0% "),
                    "the cumulative share is by total whatever the order:\n" + String.join("\n", top));
        }
    }

    @Test
    void sharesOfSaturatedTotalsAreOfTheExactWhole() throws Exception {
        Path file = dir.resolve("fleet.hints");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            for (String name : List.of(GEMM, ADD, NORM)) {
                store.add(new RegionRecord(name, 1, Long.MAX_VALUE, Long.MAX_VALUE, 0));
            }
        }
        List<String> lines = Cli.run("top", "-w", file.toString()).expect(ExitCode.OK).out().lines().toList();
        // Equal totals: by name, "void at::native::(" < "void at::native::v" < "void cutlass".
        assertTrue(row(lines, NORM).matches(".*\\s+33\\.3%\\s+33\\.3%\\s.*"), String.join("\n", lines));
        assertTrue(row(lines, ADD).matches(".*\\s+33\\.3%\\s+66\\.7%\\s.*"), String.join("\n", lines));
        assertTrue(row(lines, GEMM).matches(".*\\s+33\\.3%\\s+100\\.0%\\s.*"), String.join("\n", lines));
        assertTrue(lines.get(1).contains("hot set 3 (100.0% of kernel time") && lines.get(1).contains(">= 2562047.8 h kernel time"),
                lines.get(1));
    }
}
