package com.example.tuner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The optimizer end to end with stand-in tuners: hints → plan → runs → the parameters file the
 * runtime reads, hottest region first; no usable hints → a parameters file with no entry, exit 0.
 */
class ClblastOptimizerTest {
    private static final String FFN_DOWN = "clblast:Xgemm:f32:m=256,n=512,k=2048:NN";
    private static final String FFN_UP = "clblast:Xgemm:f32:m=256,n=2048,k=512:NN";
    private static final String DECODE = "clblast:Xgemv:f32:m=1536,n=512:N";
    private static final String RESIDUAL = "clblast:Xaxpy:f32:n=131072";

    @TempDir Path dir;

    private Path bin() throws Exception {
        Path bin = dir.resolve("bin");
        Path gemm = TunerResultsTest.fixture(dir, "clblast_xgemm_1_32.json");
        Path direct = TunerResultsTest.fixture(dir, "clblast_xgemm_direct_2_32.json");
        Path gemv = TunerResultsTest.fixture(dir, "clblast_xgemv_32.json");
        Path gemvFast = TunerResultsTest.fixture(dir, "clblast_xgemv_fast_32.json");
        Path gemvFastRot = TunerResultsTest.fixture(dir, "clblast_xgemv_fast_rot_32.json");
        Path axpy = TunerResultsTest.fixture(dir, "clblast_xaxpy_32.json");
        TunerRunnerTest.tuner(bin, "xgemm", "cp " + gemm + " .; exec sleep 3600");
        TunerRunnerTest.tuner(bin, "xgemm_direct", "cp " + direct + " .");
        TunerRunnerTest.tuner(bin, "xgemv", "cp " + gemv + " " + gemvFast + " " + gemvFastRot + " .");
        TunerRunnerTest.tuner(bin, "xaxpy", "cp " + axpy + " .");
        return bin;
    }

    private Path hints() throws Exception {
        Path file = dir.resolve("run1.hints");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            store.add(new RegionRecord(FFN_DOWN, 20, 400_000_000, 21_000_000, 0));
            store.add(new RegionRecord(FFN_UP, 20, 300_000_000, 16_000_000, 0));
            store.add(new RegionRecord(DECODE, 160, 40_000_000, 300_000, 0));
            store.add(new RegionRecord(RESIDUAL, 80, 10_000_000, 200_000, 0));
        }
        return file;
    }

    private static String run(String... args) throws Exception {
        PrintStream saved = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            ClblastOptimizer.main(args);
        } finally {
            System.setOut(saved);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    private static List<String> entries(Path params) throws Exception {
        return Files.readAllLines(params).stream().filter(l -> !l.startsWith("#")).toList();
    }

    @Test
    void writesTheTunedParametersOfTheHotSetHottestFirstWithTheRoutineChoiceOfEachGemm() throws Exception {
        Path params = dir.resolve("hot.params");
        String out = run("--hints", hints().toString(), "--params", params.toString(), "--coverage", "0.95",
                "--min-dispatches", "2", "--budget-s", "1000", "--timeout-s", "100", "--tuner-dir", bin().toString(),
                "--work", dir.resolve("work").toString());
        List<String> lines = entries(params); // 0.95 of 750 ms: the two GEMMs (700) and the decode GEMV (40)
        String directSet = "KWID=16 MDIMAD=8 MDIMCD=16 NDIMBD=16 NDIMCD=8 PADA=0 PADB=1 VWMD=2 VWND=1 WGD=64";
        assertEquals(List.of(FFN_DOWN + "\tGemmRoutine\tXGEMM_MIN_INDIRECT_SIZE=4097", FFN_DOWN + "\tXgemmDirect\t" + directSet,
                FFN_UP + "\tGemmRoutine\tXGEMM_MIN_INDIRECT_SIZE=4097", FFN_UP + "\tXgemmDirect\t" + directSet,
                DECODE + "\tXgemv\tWGS1=256 WPT1=1", DECODE + "\tXgemvFast\tVW2=1 WGS2=128 WPT2=1",
                DECODE + "\tXgemvFastRot\tVW3=8 WGS3=64 WPT3=32"), lines, out);
        assertTrue(out.contains("run xgemm_direct f32 m=256 n=512 k=2048 status=FINISHED"), out);
        assertTrue(out.lines().anyMatch(l -> l.startsWith("tuning wall_s=") && l.contains("runs=3 entries=7")), out);
        assertTrue(Files.readString(params).contains("# hints " + dir.resolve("run1.hints") + ", hot set coverage 0.95"));
    }

    @Test
    void aGemvRunThatDiedBeforeItsLastKernelIsNotAppliedSoNoRegionRunsAKernelLeftUntuned() throws Exception {
        Path bin = bin();
        Path gemv = TunerResultsTest.fixture(dir, "clblast_xgemv_32.json");
        TunerRunnerTest.tuner(bin, "xgemv", "cp " + gemv + " .; kill -SEGV $$"); // PoCL 3.1's crash in a later phase
        Path params = dir.resolve("hot.params");
        String out = run("--hints", hints().toString(), "--params", params.toString(), "--coverage", "0.95",
                "--min-dispatches", "2", "--budget-s", "1000", "--timeout-s", "100", "--tuner-dir", bin.toString(),
                "--work", dir.resolve("work").toString());
        assertTrue(entries(params).stream().noneMatch(l -> l.startsWith(DECODE)), out);
        assertTrue(out.contains("  not applied: no result for XgemvFast, XgemvFastRot, which CLBlast may run for these"
                + " regions: they keep CLBlast's defaults"), out);
        assertTrue(out.lines().anyMatch(l -> l.startsWith("tuning wall_s=") && l.contains("runs=3 entries=4")), out);
    }

    @Test
    void theIndirectKernelIsTunedForAShapeClblastRunsIndirectAndItsRunStoppedAfterThePhaseKept() throws Exception {
        Path params = dir.resolve("large.params");
        String out = run("--hints", hints().toString(), "--params", params.toString(), "--coverage", "0.5",
                "--min-indirect-size", "128", "--tuner-dir", bin().toString(), "--work", dir.resolve("work").toString());
        assertTrue(out.contains("run xgemm f32 m=256 n=512 k=2048 status=STOPPED_AFTER_FIRST_PHASE"), out);
        List<String> lines = entries(params);
        assertEquals(FFN_DOWN + "\tGemmRoutine\tXGEMM_MIN_INDIRECT_SIZE=1", lines.get(0));
        assertTrue(lines.get(1).startsWith(FFN_DOWN + "\tXgemm\tGEMMK=0 KREG=1 KWG=32"), lines.get(1));
    }

    @Test
    void aPlanWithoutHintsTakesTheLargestProblemsWithinTheBudget() throws Exception {
        String out = run("--hints", hints().toString(), "--plan", "largest", "--budget-s", "100", "--timeout-s", "100",
                "--plan-only");
        assertTrue(out.lines().anyMatch(l -> l.startsWith("  tune  xgemm_direct f32 m=256 n=2048 k=512")), out);
        assertEquals(1, out.lines().filter(l -> l.startsWith("  tune  ")).count(), out);
    }

    @Test
    void planningEverythingTunesTheColdResidualToo() throws Exception {
        Path params = dir.resolve("all.params");
        run("--hints", hints().toString(), "--params", params.toString(), "--all", "--tuner-dir", bin().toString(),
                "--work", dir.resolve("work").toString());
        assertEquals(RESIDUAL + "\tXaxpy\tVW=4 WGS=128 WPT=2", entries(params).getLast());
    }

    @Test
    void hintsThatCannotBeUsedGiveAParametersFileWithoutEntries() throws Exception {
        Path params = dir.resolve("none.params");
        Path damaged = Files.write(dir.resolve("damaged.hints"), new byte[10_000]);
        String out = run("--hints", damaged.toString(), "--params", params.toString(), "--tuner-dir", bin().toString());
        assertEquals(List.of(), entries(params));
        assertTrue(out.startsWith("no usable hints ("), out);
        assertTrue(Files.readString(params).contains("# no usable hints: "));
    }

    @Test
    void planOnlyPrintsThePlanAndRunsNothing() throws Exception {
        String out = run("--hints", hints().toString(), "--plan-only", "--coverage", "0.5");
        assertEquals(List.of("plan: 1 tuner run(s) for 53.3% of the kernel time, budget 600 s",
                "  tune  xgemm_direct f32 m=256 n=512 k=2048  53.3%  " + FFN_DOWN), out.lines().toList());
    }
}
