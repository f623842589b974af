package com.example.tuner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The planner's decisions from recorded hint files (docs/PGO.md), on CLBlast's regions: hot regions
 * are tuned hottest first within the budget; cold, thin, absent and foreign regions keep the defaults;
 * a file that cannot be used (missing, damaged, another version, another owner) gives an empty plan,
 * not an error; the plans without hints (largest first, random) keep the same budget; shares are exact,
 * shapes past the bound are refused, and no region name can print a line of its own.
 */
class TuningPlannerTest {
    private static final String FFN_DOWN = "clblast:Xgemm:f32:m=256,n=512,k=2048:NN";
    private static final String FFN_UP = "clblast:Xgemm:f32:m=256,n=2048,k=512:NN";
    private static final String QKV = "clblast:Xgemm:f32:m=256,n=1536,k=512:NN";
    private static final String DECODE = "clblast:Xgemv:f32:m=1536,n=512:N";
    private static final String RESIDUAL = "clblast:Xaxpy:f32:n=131072";
    private static final String ADAPTER = "clblast:Xgemm:f32:m=128,n=128,k=128:NN";
    private static final String ONE_OFF = "clblast:Xgemm:f32:m=1024,n=1024,k=1024:NN";

    private static final Duration CAP = Duration.ofSeconds(100);

    @TempDir Path dir;

    private static TuningPlanner<ClblastTask> planner() {
        return new TuningPlanner<>(new ClblastTunables(), CAP);
    }

    /** A transformer step as the runtime records it: three GEMMs hold most of the time. */
    private Path recorded() throws Exception {
        Path file = dir.resolve("run1.hints");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            store.add(new RegionRecord(FFN_DOWN, 20, 400_000_000, 21_000_000, 0));
            store.add(new RegionRecord(FFN_UP, 20, 300_000_000, 16_000_000, 0));
            store.add(new RegionRecord(QKV, 20, 200_000_000, 11_000_000, 0));
            store.add(new RegionRecord(DECODE, 160, 40_000_000, 300_000, 0));
            store.add(new RegionRecord(RESIDUAL, 80, 10_000_000, 200_000, 0));
            store.add(new RegionRecord(ADAPTER, 60, 5_000_000, 90_000, 0));
            store.add(new RegionRecord(ONE_OFF, 1, 45_000_000, 45_000_000, 0)); // hot by time, one sample
        }
        return file;
    }

    private static List<String> tuned(TuningPlan<?> plan) {
        return plan.tasks().stream().flatMap(p -> p.regions().stream()).toList();
    }

    @Test
    void tunesTheHotSetHottestFirstAndLeavesColdAndThinRegionsToTheDefaults() throws Exception {
        TuningPlan<ClblastTask> plan = planner().planHot(recorded(), 0.9, 2, Duration.ofSeconds(1000));
        assertEquals(List.of(FFN_DOWN, FFN_UP, QKV), tuned(plan),
                "0.9 of 1,000 ms (the one-off's 45 ms counted in the whole, never in the set) is 3 GEMMs");
        assertTrue(plan.noHintsReason().isEmpty());
        assertEquals(0.9, plan.coveredShare(), 1e-12);
        assertTrue(plan.skipped().isEmpty(), "nothing of the hot set left out");
        assertEquals("xgemm_direct", plan.tasks().getFirst().task().tuner(), "the kernel these shapes run on PoCL");
    }

    @Test
    void theBudgetCutsThePlanAtTheRunsThatFitHottestFirst() throws Exception {
        TuningPlan<ClblastTask> plan = planner().planHot(recorded(), 0.99, 2, Duration.ofSeconds(250));
        assertEquals(List.of(FFN_DOWN, FFN_UP), tuned(plan), "two runs of 100 s fit in 250 s");
        assertEquals(List.of(QKV, DECODE, RESIDUAL, ADAPTER),
                plan.skipped().stream().map(TuningPlan.Skipped::region).toList());
        assertTrue(plan.skipped().stream().allMatch(s -> s.reason().equals("over the budget")));
        assertEquals(Duration.ofSeconds(200), plan.plannedCost(CAP));
        assertEquals(List.of(), tuned(planner().planHot(recorded(), 0.99, 2, Duration.ofSeconds(99))),
                "a budget below one run's cap tunes nothing");
    }

    @Test
    void regionsOfOneKernelAndShapeShareOneRun() throws Exception {
        Path file = dir.resolve("layouts.hints");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            store.add(new RegionRecord(FFN_UP, 20, 300_000_000, 16_000_000, 0));
            store.add(new RegionRecord(FFN_UP.replace(":NN", ":TN"), 20, 200_000_000, 11_000_000, 0));
        }
        TuningPlan<ClblastTask> plan = planner().planHot(file, 1, 2, Duration.ofSeconds(100));
        assertEquals(1, plan.tasks().size());
        assertEquals(List.of(FFN_UP, FFN_UP.replace(":NN", ":TN")), plan.tasks().getFirst().regions());
        assertEquals(1.0, plan.tasks().getFirst().share(), 1e-12);
    }

    @Test
    void theHotSetIsOfRunsSoRegionsThinAloneCountTogetherForTheRunTheyShare() throws Exception {
        Path file = dir.resolve("thin-layouts.hints");
        String tn = FFN_UP.replace(":NN", ":TN");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            store.add(new RegionRecord(FFN_UP, 1, 300_000_000, 300_000_000, 0));
            store.add(new RegionRecord(tn, 1, 200_000_000, 200_000_000, 0));
            store.add(new RegionRecord(RESIDUAL, 80, 10_000_000, 200_000, 0));
        }
        TuningPlan<ClblastTask> plan = planner().planHot(file, 0.9, 2, Duration.ofSeconds(1000));
        assertEquals(List.of(FFN_UP, tn), tuned(plan), "one sample each, two together: the run is not thin");
        assertEquals(500.0 / 510, plan.coveredShare(), 1e-12);
    }

    @Test
    void runsAreRankedByTheTimeOfAllTheirRegionsBeforeTheBudgetCuts() throws Exception {
        Path file = dir.resolve("ranked.hints");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            store.add(new RegionRecord(QKV, 20, 250_000_000, 13_000_000, 0));
            for (String layout : List.of(":NN", ":NT", ":TN")) {
                store.add(new RegionRecord(FFN_UP.replace(":NN", layout), 20, 200_000_000, 11_000_000, 0));
            }
        }
        TuningPlan<ClblastTask> plan = planner().planHot(file, 0.5, 2, Duration.ofSeconds(100));
        assertEquals(1, plan.tasks().size());
        assertEquals("xgemm_direct f32 m=256 n=2048 k=512", plan.tasks().getFirst().task().label(),
                "600 ms in three layouts of one run before 250 ms in one region");
        assertEquals(List.of(), plan.skipped(), "coverage 0.5 of 850 ms: that one run is the hot set");
    }

    @Test
    void regionsThatAreNotClblastsOrHaveNoTunerAreSkippedWithTheReason() throws Exception {
        Path file = dir.resolve("mixed.hints");
        String cutlass = "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)";
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            store.add(new RegionRecord(cutlass, 10, 500_000_000, 60_000_000, 0));
            store.add(new RegionRecord("clblast:Xgemm:f32:m=1000,n=1000,k=1000:NN", 10, 300_000_000, 40_000_000, 0));
            store.add(new RegionRecord(QKV, 10, 200_000_000, 30_000_000, 0));
        }
        TuningPlan<ClblastTask> plan = planner().planHot(file, 1, 2, Duration.ofSeconds(1000));
        assertEquals(List.of(QKV), tuned(plan));
        assertEquals(List.of("not a CLBlast region", "clblast_tuner_xgemm needs m and n multiples of 128"),
                plan.skipped().stream().map(TuningPlan.Skipped::reason).toList());
    }

    /**
     * Regions of equal time are considered in the library's order of names (FORMAT.md §1: UTF-8 bytes),
     * the order the hot set ties in, not Java's String order, which puts U+1F600 before U+E000..U+FFFF.
     */
    @Test
    void equalRegionsAreTakenInTheLibrarysOrderOfNames() throws Exception {
        Path file = dir.resolve("ties.hints");
        String kernel = " void gemm_bf16_128x128<float>(Params const&)";
        List<String> inByteOrder = List.of("\uE000" + kernel, "\uFF21" + kernel, "\uFFFD" + kernel,
                "\uD83D\uDE00" + kernel);
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            for (String name : inByteOrder.reversed()) {
                store.add(new RegionRecord(name, 10, 100_000_000, 11_000_000, 0));
            }
        }
        for (TuningPlan<ClblastTask> plan : List.of(planner().planAll(file), planner().planHot(file, 1, 2,
                Duration.ofSeconds(1000)), planner().planLargest(file, Duration.ofSeconds(1000)))) {
            assertEquals(inByteOrder, plan.skipped().stream().map(TuningPlan.Skipped::region).toList(),
                    plan.describe().toString());
        }
    }

    @Test
    void planningEverythingTunesEveryRegionWhateverItsShareOrCount() throws Exception {
        TuningPlan<ClblastTask> all = planner().planAll(recorded());
        assertEquals(List.of(FFN_DOWN, FFN_UP, QKV, ONE_OFF, DECODE, RESIDUAL, ADAPTER), tuned(all));
        assertEquals(1.0, all.coveredShare(), 1e-12);
    }

    @Test
    void withoutHintsTheLargestProblemsComeFirstWithinTheSameBudget() throws Exception {
        TuningPlan<ClblastTask> largest = planner().planLargest(recorded(), Duration.ofSeconds(250));
        assertEquals(List.of(ONE_OFF, FFN_UP), tuned(largest),
                "the one-off 1024³ (4.5 % of the time) first, then of the two GEMMs of 2.7e8 the first by label");
        assertEquals(0.045 + 0.3, largest.coveredShare(), 1e-12);
    }

    @Test
    void aRandomPlanIsTheSameForTheSameSeedAndKeepsTheBudget() throws Exception {
        Path file = recorded();
        TuningPlan<ClblastTask> a = planner().planRandom(file, Duration.ofSeconds(300), 7);
        assertEquals(tuned(a), tuned(planner().planRandom(file, Duration.ofSeconds(300), 7)));
        assertEquals(3, a.tasks().size());
        boolean differs = false;
        for (long seed = 1; seed < 20 && !differs; seed++) {
            differs = !tuned(planner().planRandom(file, Duration.ofSeconds(300), seed)).equals(tuned(a));
        }
        assertTrue(differs, "another seed draws another plan");
        assertEquals(4, a.skipped().size(), "the other four regions are over the budget");
    }

    @Test
    void anAbsentRegionIsNotTunedAndAnEmptyFileGivesAnEmptyPlan() throws Exception {
        Path file = dir.resolve("empty.hints");
        HintStore.open(file, HintStoreOptions.defaults()).close();
        TuningPlan<ClblastTask> plan = planner().planHot(file, 0.9, 2, Duration.ofSeconds(1000));
        assertEquals(List.of(), plan.tasks());
        assertTrue(plan.noHintsReason().isEmpty(), "an empty profile is a profile: nothing is hot");
        assertEquals("plan: 0 tuner run(s) for 0.0% of the kernel time, budget 1000 s", plan.describe().getFirst());
    }

    @Test
    void aFileThatCannotBeUsedGivesTheDefaultsNeverAnError() throws Exception {
        TuningPlanner<ClblastTask> planner = planner();
        Path damaged = Files.write(dir.resolve("damaged.hints"), new byte[10_000]);
        Path text = Files.writeString(dir.resolve("notes.hints"), "not hints at all, but long enough".repeat(200));
        Path v1 = Files.copy(Path.of(System.getProperty("hintmap.home", "."), "src/test/resources/vectors/golden-v1.hints"),
                dir.resolve("v1.hints"));
        for (Path file : List.of(dir.resolve("missing.hints"), damaged, text, v1)) {
            TuningPlan<ClblastTask> hot = planner.planHot(file, 0.9, 2, Duration.ofSeconds(1000));
            assertEquals(List.of(), hot.tasks(), file.toString());
            assertTrue(hot.noHintsReason().isPresent(), file.toString());
            assertEquals(List.of(), planner.planAll(file).tasks(), file.toString());
            assertEquals(List.of(), planner.planLargest(file, Duration.ofSeconds(1000)).tasks(), file.toString());
            assertEquals(List.of(), planner.planRandom(file, Duration.ofSeconds(1000), 1).tasks(), file.toString());
            assertTrue(hot.describe().getFirst().endsWith("the defaults everywhere"), hot.describe().getFirst());
        }
        assertTrue(planner.planHot(v1, 0.9, 2, Duration.ofSeconds(1)).noHintsReason().orElseThrow().contains("upgrade"),
                "another version names what to do");
    }

    @Test
    void aFileOfAnotherOwnerGivesTheDefaults() throws Exception {
        assertEquals(0, (int) Files.getAttribute(Path.of("/proc/self"), "unix:uid"),
                "this test chowns a file to another user and must run as root (as the project's machines and CI do)");
        Path file = recorded();
        Files.setAttribute(file, "unix:uid", 65534); // nobody
        TuningPlan<ClblastTask> plan = planner().planHot(file, 0.9, 2, Duration.ofSeconds(1000));
        assertEquals(List.of(), plan.tasks());
        assertTrue(plan.noHintsReason().orElseThrow().contains("owned by"), plan.noHintsReason().orElseThrow());
    }

    /** Four regions at the format's largest total: a plain long sum wraps to -4 and printed -300 %. */
    private Path saturated() throws Exception {
        Path file = dir.resolve("saturated.hints");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            for (String name : List.of(FFN_DOWN, FFN_UP, QKV, ADAPTER)) {
                store.add(new RegionRecord(name, 10, Long.MAX_VALUE, Long.MAX_VALUE, 0));
            }
        }
        return file;
    }

    @Test
    void sharesOfSaturatedTotalsAreSummedExactlyAndNeverExceedTheWhole() throws Exception {
        Path file = saturated();
        TuningPlan<ClblastTask> all = planner().planAll(file);
        assertEquals("plan: 4 tuner run(s) for 100.0% of the kernel time", all.describe().getFirst());
        for (TuningPlan.Planned<ClblastTask> p : all.tasks()) {
            assertEquals(0.25, p.share(), 1e-12, p.task().label());
        }
        TuningPlan<ClblastTask> hot = planner().planHot(file, 1, 2, Duration.ofSeconds(1000));
        assertTrue(hot.coveredShare() <= 1.0, hot.describe().getFirst());
        for (TuningPlan.Planned<ClblastTask> p : hot.tasks()) {
            assertEquals(0.25, p.share(), 1e-12, "a quarter of the exact whole, not saturated 1.0: " + p.task().label());
        }
    }

    @Test
    void shapesPastTheBoundAreSkippedWithTheReasonAndNeverPlanned() throws Exception {
        Path file = dir.resolve("huge.hints");
        String huge = "clblast:Xgemm:f32:m=999999872,n=999999872,k=999999999:NN";
        String wide = "clblast:Xgemv:f32:m=1000000000,n=1000000000:N";
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            store.add(new RegionRecord(huge, 10, 900_000_000, 100_000_000, 0));
            store.add(new RegionRecord(wide, 10, 800_000_000, 100_000_000, 0));
            store.add(new RegionRecord(QKV, 10, 100_000_000, 11_000_000, 0));
        }
        for (TuningPlan<ClblastTask> plan : List.of(planner().planAll(file), planner().planHot(file, 1, 2,
                Duration.ofSeconds(1000)), planner().planLargest(file, Duration.ofSeconds(1000)))) {
            assertEquals(List.of(QKV), tuned(plan));
            assertEquals(List.of(huge, wide), plan.skipped().stream().map(TuningPlan.Skipped::region).toList());
            assertTrue(plan.skipped().stream().allMatch(s -> s.reason().startsWith("over the bound: ")), plan.describe()
                    .toString());
        }
    }

    @Test
    void aRegionNameWithALineBreakCannotPrintALineOfThePlan() throws Exception {
        Path file = dir.resolve("forged.hints");
        String forged = "evil\n  tune  xgemm f32 m=128 n=128 k=128           99.9%  " + ADAPTER + "\nplan: 9 tuner run(s)";
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            store.add(new RegionRecord(forged, 10, 500_000_000, 60_000_000, 0));
            store.add(new RegionRecord(QKV + "\u001b[2K", 10, 400_000_000, 40_000_000, 0));
            store.add(new RegionRecord(QKV, 10, 100_000_000, 11_000_000, 0));
        }
        for (TuningPlan<ClblastTask> plan : List.of(planner().planAll(file), planner().planHot(file, 1, 2,
                Duration.ofSeconds(1000)))) {
            List<String> lines = String.join("\n", plan.describe()).lines().toList();
            assertEquals(plan.describe(), lines, "each item of the plan is exactly one line");
            assertEquals(4, lines.size(), lines.toString());
            assertEquals(1, lines.stream().filter(l -> l.startsWith("plan: ")).count(), lines.toString());
            assertEquals(1, lines.stream().filter(l -> l.startsWith("  tune  ")).count(), lines.toString());
            assertTrue(lines.stream().anyMatch(l -> l.endsWith("evil\\x0a  tune  xgemm f32 m=128 n=128 k=128           99.9%  "
                    + ADAPTER + "\\x0aplan: 9 tuner run(s)")), lines.toString());
            assertTrue(lines.stream().anyMatch(l -> l.endsWith(QKV + "\\x1b[2K")), "no escape sequence reaches the terminal");
            assertTrue(lines.stream().noneMatch(l -> l.chars().anyMatch(c -> c < 0x20)), lines.toString());
        }
        assertNotEquals(Printable.escape("a\\x0a"), Printable.escape("a\n"), "an escaped form reads back to one name");
    }
}
