package com.example.tuner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import dev.hintmap.cli.HintmapCli;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CLBlast optimizer on hint files the OpenCL layer fills (docs/OPENCL.md, "Planning from a recorded file"):
 * kernel names with and without their shape and build suffixes, the regions of one parameter set tuned by one
 * run, the kernels of other libraries and CLBlast's own untuned ones in the plan with their reason, the same
 * budget; files written by the library's API and by {@code hintmap record}; the tuners' results for the layer's
 * regions.
 */
class LayerPlanTest {
    private static final Duration CAP = Duration.ofSeconds(100);

    @TempDir Path dir;

    private static TuningPlanner<ClblastTask> planner() {
        return new TuningPlanner<>(new ClblastTunables(), CAP);
    }

    /**
     * A CLBlast program under HINTMAP_NAME=kernel+build+shape: two GEMM shapes and layouts on the direct kernel,
     * an AXPY on two kernels, the GEMV's fast kernel, a helper of CLBlast's with no tuner, and a kernel of the
     * program's own.
     */
    private Path recorded() throws Exception {
        Path file = dir.resolve("layer.hints");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            store.add(new RegionRecord("XgemmDirectNN#3f2a9c1e07b4[64x256/8x8]", 12, 300_000_000, 30_000_000, 12 << 20));
            store.add(new RegionRecord("XgemmDirectNN#3f2a9c1e07b4[32x128/8x8]", 24, 150_000_000, 7_000_000, 6 << 20));
            store.add(new RegionRecord("XgemmDirectTN#3f2a9c1e07b4[64x256/8x8]", 12, 100_000_000, 9_000_000, 12 << 20));
            store.add(new RegionRecord("my_softmax#a1b2c3d4e5f6[4096/64]", 40, 200_000_000, 6_000_000, 1 << 20));
            store.add(new RegionRecord("XgemvFast#77aa00bb11cc[512/64]", 32, 90_000_000, 3_000_000, 4 << 20));
            store.add(new RegionRecord("XaxpyFastest#0123456789ab[8192/64]", 16, 40_000_000, 3_000_000, 1 << 20));
            store.add(new RegionRecord("Xaxpy#0123456789ab[4096/64]", 16, 20_000_000, 2_000_000, 1 << 19));
            store.add(new RegionRecord("FillMatrix#fedcba987654[64x64/8x8]", 8, 100_000_000, 13_000_000, 1 << 14));
        }
        return file; // 1,000 ms in all
    }

    private static List<String> tuned(TuningPlan<?> plan) {
        return plan.tasks().stream().map(p -> p.task().label()).toList();
    }

    @Test
    void theRegionsOfOneParameterSetShareOneRunHottestFirstAndOthersAreSkippedWithTheirReason() throws Exception {
        TuningPlan<ClblastTask> plan = planner().planHot(recorded(), 0.95, 2, Duration.ofSeconds(1000));
        assertEquals(List.of("xgemm_direct f32 m=256 n=256 k=256", "xgemv f32 m=2048 n=2048", "xaxpy f32 n=4194304"),
                tuned(plan));
        TuningPlan.Planned<ClblastTask> direct = plan.tasks().getFirst();
        assertEquals(List.of("XgemmDirectNN#3f2a9c1e07b4[64x256/8x8]", "XgemmDirectNN#3f2a9c1e07b4[32x128/8x8]",
                "XgemmDirectTN#3f2a9c1e07b4[64x256/8x8]"), direct.regions());
        assertEquals(0.55, direct.share(), 1e-12);
        assertEquals(0.06, plan.tasks().getLast().share(), 1e-12, "XaxpyFastest and Xaxpy: one run");
        assertEquals(List.of("my_softmax#a1b2c3d4e5f6[4096/64]: not a CLBlast kernel",
                "FillMatrix#fedcba987654[64x64/8x8]: a CLBlast kernel without tuned parameters (fixed work sizes)"),
                plan.skipped().stream().map(s -> s.region() + ": " + s.reason()).toList(), "in the hot set, never dropped");
        assertEquals(0.70, plan.coveredShare(), 1e-12);
    }

    @Test
    void theBudgetCutsTheLayersRunsAsItCutsTheRuntimes() throws Exception {
        TuningPlan<ClblastTask> plan = planner().planHot(recorded(), 0.95, 2, Duration.ofSeconds(250));
        assertEquals(List.of("xgemm_direct f32 m=256 n=256 k=256", "xgemv f32 m=2048 n=2048"), tuned(plan));
        assertEquals(List.of("XaxpyFastest#0123456789ab[8192/64]", "Xaxpy#0123456789ab[4096/64]"),
                plan.skipped().stream().filter(s -> s.reason().equals("over the budget")).map(TuningPlan.Skipped::region)
                        .toList());
        assertEquals(List.of("xgemm_direct f32 m=256 n=256 k=256"), tuned(planner().planLargest(recorded(),
                Duration.ofSeconds(100))), "without hints: the largest problem, the tuners' sizes");
    }

    @Test
    void aKernelSplitOverManyThinBuildsIsOneHotRunAndAFileOfMoreRunsThanADefaultCapacityPlans() throws Exception {
        Path file = dir.resolve("builds.hints");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(1024))) {
            for (int build = 0; build < 300; build++) { // a tuner's configurations: one enqueue each
                store.add(new RegionRecord(String.format("XaxpyFastest#%012x[65536/64]", build), 1, 1_000_000, 1_000_000, 0));
            }
            for (int k = 0; k < 300; k++) { // a program's own kernels, each a run of its own
                store.add(new RegionRecord("kernel_" + k, 10, 500_000, 50_000, 0));
            }
        }
        TuningPlan<ClblastTask> plan = planner().planHot(file, 0.6, 2, Duration.ofSeconds(1000));
        assertEquals(List.of("xaxpy f32 n=4194304"), tuned(plan), "300 ms in 300 thin builds, against 150 ms of others");
        assertEquals(300, plan.tasks().getFirst().regions().size());
        assertEquals(300.0 / 450, plan.coveredShare(), 1e-12);
    }

    @Test
    void hostileNamesInALayerFileArePlannedOnOneLineEachAndHugeSizesChangeNothing() throws Exception {
        Path file = dir.resolve("hostile.hints");
        String forged = "Xgemm\n  tune  xgemm f32 m=1024 n=1024 k=1024  99.9%  Xgemm";
        String huge = "Xgemm[18446744073709551615x18446744073709551615/1x1]";
        String past = "XgemmDirectNN[18446744073709551616]";
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            store.add(new RegionRecord(forged, 10, 400_000_000, 60_000_000, 0));
            store.add(new RegionRecord(huge, 10, 300_000_000, 40_000_000, 0));
            store.add(new RegionRecord(past, 10, 200_000_000, 30_000_000, 0));
            store.add(new RegionRecord("XaxpyFastest\u001b[2K", 10, 100_000_000, 11_000_000, 0));
        }
        TuningPlan<ClblastTask> plan = planner().planHot(file, 1, 2, Duration.ofSeconds(1000));
        List<String> lines = String.join("\n", plan.describe()).lines().toList();
        assertEquals(plan.describe(), lines, "each item of the plan is exactly one line");
        assertEquals(List.of(line("tune", "xgemm f32 m=1024 n=1024 k=1024", 30.0, huge),
                line("skip", "not a CLBlast region", 40.0, "Xgemm\\x0a  tune  xgemm f32 m=1024 n=1024 k=1024  99.9%  Xgemm"),
                line("skip", "not a CLBlast region", 20.0, past),
                line("skip", "not a CLBlast region", 10.0, "XaxpyFastest\\x1b[2K")), lines.subList(1, lines.size()));
    }

    /** A line of {@link TuningPlan#describe()}. */
    private static String line(String what, String label, double percent, String regions) {
        return String.format(Locale.ROOT, "  %s  %-32s %5.1f%%  %s", what, label, percent, regions);
    }

    private static String optimizer(String... args) throws Exception {
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

    @Test
    void aFileFilledByHintmapRecordIsPlannedByTheOptimizer() throws Exception {
        Path file = dir.resolve("recorded.hints");
        List<String> samples = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            samples.add("{\"name\": \"Xdot[128/64]\", \"kernel_ns\": 900000, \"bytes_touched\": 524288}");
            samples.add("{\"name\": \"XdotEpilogue[64/64]\", \"kernel_ns\": 100000, \"bytes_touched\": 512}");
            samples.add("{\"name\": \"lin_comb[50000]\", \"kernel_ns\": 50000, \"bytes_touched\": 600000}");
        }
        Path in = Files.write(dir.resolve("samples.jsonl"), samples, StandardCharsets.UTF_8);
        StringWriter err = new StringWriter();
        assertEquals(0, HintmapCli.run(new String[] {"record", file.toString(), "--samples", in.toString()},
                new PrintWriter(new StringWriter()), new PrintWriter(err)), err.toString());
        String out = optimizer("--hints", file.toString(), "--plan-only", "--coverage", "1", "--precision", "64");
        assertEquals(List.of("plan: 1 tuner run(s) for 95.2% of the kernel time, budget 600 s",
                line("tune", "xdot f64 n=2097152", 6.0 / 6.3 * 100, "Xdot[128/64] XdotEpilogue[64/64]"),
                line("skip", "not a CLBlast kernel", 0.3 / 6.3 * 100, "lin_comb[50000]")), out.lines().toList());
    }

    @Test
    void theTunersResultsAreWrittenForTheLayersRegionsWithTheFilesTheyCameFrom() throws Exception {
        Path bin = dir.resolve("bin");
        Path axpy = TunerResultsTest.fixture(dir, "clblast_xaxpy_32.json");
        Path dot1 = TunerResultsTest.fixture(dir, "clblast_xdot_1_32.json");
        Path dot2 = TunerResultsTest.fixture(dir, "clblast_xdot_2_32.json");
        TunerRunnerTest.tuner(bin, "xaxpy", "echo \"args $*\" >&2; cp " + axpy + " .");
        TunerRunnerTest.tuner(bin, "xdot", "cp " + dot1 + " " + dot2 + " .");
        Path file = dir.resolve("program.hints");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            store.add(new RegionRecord("Xdot", 20, 300_000_000, 16_000_000, 0));
            store.add(new RegionRecord("XdotEpilogue", 20, 100_000_000, 6_000_000, 0));
            store.add(new RegionRecord("XaxpyFastest", 40, 200_000_000, 6_000_000, 0));
        }
        Path params = dir.resolve("program.params");
        Path work = dir.resolve("work");
        String out = optimizer("--hints", file.toString(), "--params", params.toString(), "--coverage", "1",
                "--tuner-dir", bin.toString(), "--work", work.toString());
        List<String> entries = Files.readAllLines(params).stream().filter(l -> !l.startsWith("#")).toList();
        String dotSet = TunerResults.read(List.of(dot1, dot2), 32).best().get("Xdot").parameterList();
        assertEquals(List.of("Xdot\tXdot\t" + dotSet, "XdotEpilogue\tXdot\t" + dotSet, "XaxpyFastest\tXaxpy\tVW=4 WGS=128 WPT=2"),
                entries, out);
        assertTrue(out.contains("run xdot f32 n=2097152 status=FINISHED"), out);
        assertTrue(out.contains("  json " + work.resolve("xdot_f32_n2097152/clblast_xdot_2_32.json")), out);
        assertTrue(out.contains("  json " + work.resolve("xaxpy_f32_n4194304/clblast_xaxpy_32.json")), out);
        assertTrue(Files.readString(work.resolve("xaxpy_f32_n4194304/tuner.log")).contains("args -precision 32 -n 4194304 -runs 1"));
    }
}
