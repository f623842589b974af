package com.example.tuner;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The CLBlast optimizer of the PGO loop (docs/PGO.md): reads the hint file the CLBlast runtime
 * recorded, plans which tuners to run ({@link PlanOptions}: the hot set by coverage within a budget,
 * everything, or a plan without hints), runs them under one cap, and writes the parameters file the
 * runtime applies. Hints that cannot be used give an empty parameters file (CLBlast's defaults) and
 * exit status 0: tuning is an optimisation, never a condition for a correct run.
 *
 * <pre>
 * java -cp classes:hintmap.jar com.example.tuner.ClblastOptimizer --hints FILE --params OUT
 *      [--plan hot|all|largest|random | --all] [--coverage C --min-dispatches N] [--budget-s S] [--seed N]
 *      [--plan-only] [--gemm-kernel auto|direct|indirect] [--min-indirect-size N] [--precision 16|32|64]
 *      [--fraction F --direct-fraction F --vector-fraction F --runs R --timeout-s T]
 *      [--work DIR] [--tuner-dir DIR] [--reuse DIR]
 * </pre>
 *
 * The hint file may come from the CLBlast runtime ({@code clblast:KERNEL:PRECISION:SHAPE} regions) or from any
 * program run under the OpenCL layer (regions named by the kernels' function names, {@link LayerRegion}): then
 * each CLBlast kernel is tuned by the tuner of its parameter set at the tuner's sizes, at {@code --precision}
 * (32 by default; the layer's names carry none), see {@link ClblastTunables}.
 *
 * <p>Prints the plan, one line per run ({@code run LABEL status=... wall_s=...}) followed by the result files
 * it wrote ({@code   json PATH}: what CLBlast's {@code database.py} or {@code -tuner_files} take), and a last line
 * {@code tuning wall_s=... runs=... entries=...}: the sum of the runs' wall times (a reused run counts
 * with its recorded time). For each tuned GEMM region the file gets the tuned kernel's entry and a
 * {@code GemmRoutine} entry that makes CLBlast run that kernel for the region's shape
 * ({@link ClblastTunables}). Exit status 2 for bad usage.
 */
public final class ClblastOptimizer {
    private ClblastOptimizer() {}

    private static final String USAGE = "usage: ClblastOptimizer --hints FILE --params OUT [--plan hot|all|largest|random"
            + " | --all] [--coverage C --min-dispatches N] [--budget-s S] [--seed N] [--plan-only]"
            + " [--gemm-kernel auto|direct|indirect] [--min-indirect-size N] [--precision 16|32|64]"
            + " [--fraction F --direct-fraction F --vector-fraction F --runs R --timeout-s T] [--work DIR] [--tuner-dir DIR]"
            + " [--reuse DIR]";

    /**
     * Runs the optimizer.
     *
     * @param args the options above
     * @throws Exception on an I/O error writing the parameters file or the work directory
     */
    public static void main(String[] args) throws Exception {
        OptionArgs a;
        PlanOptions plan;
        TunerCap cap;
        ClblastTunables tunables;
        Path params;
        try {
            a = OptionArgs.parse(args, PlanOptions.FLAGS, Stream.concat(PlanOptions.VALUED.stream(),
                    Stream.of("--params", "--fraction", "--direct-fraction", "--vector-fraction", "--runs", "--timeout-s",
                            "--work", "--tuner-dir", "--reuse", "--gemm-kernel", "--min-indirect-size", "--precision"))
                    .collect(Collectors.toUnmodifiableSet()));
            plan = PlanOptions.from(a);
            params = a.path("--params");
            if (params == null && !plan.planOnly()) {
                throw new IllegalArgumentException("--params is required");
            }
            cap = new TunerCap(a.intAtLeast("--fraction", TunerCap.DEFAULT.fraction(), 1),
                    a.intAtLeast("--direct-fraction", TunerCap.DEFAULT.directFraction(), 1),
                    a.intAtLeast("--vector-fraction", TunerCap.DEFAULT.vectorFraction(), 1),
                    a.intAtLeast("--runs", TunerCap.DEFAULT.runs(), 1),
                    Duration.ofSeconds(a.longAtLeast("--timeout-s", TunerCap.DEFAULT.timeout().toSeconds(), 1)));
            tunables = new ClblastTunables(gemmKernel(a.string("--gemm-kernel", "auto")),
                    a.longAtLeast("--min-indirect-size", 896, 1), precision(a.string("--precision", "32")));
        } catch (IllegalArgumentException e) {
            System.err.println("ClblastOptimizer: " + e.getMessage());
            System.err.println(USAGE);
            System.exit(2);
            return;
        }
        TuningPlan<ClblastTask> planned = plan.plan(new TuningPlanner<>(tunables, cap.timeout()));
        planned.describe().forEach(System.out::println);
        if (plan.planOnly()) {
            return;
        }
        Path work = a.has("--work") ? a.path("--work") : params.toAbsolutePath().resolveSibling("tuning");
        Files.createDirectories(work);
        TunerRunner runner = new TunerRunner(cap, work, a.path("--tuner-dir"), a.path("--reuse"));
        ParametersFile out = new ParametersFile()
                .comment("CLBlast parameters by com.example.tuner.ClblastOptimizer, " + Instant.now())
                .comment("hints " + plan.hints() + ", " + plan.describe())
                .comment(String.format(Locale.ROOT, "cap: -fraction %d (xgemm, first phase only), %d (xgemm_direct),"
                        + " %d (xgemv, xaxpy and the others; twice that for xger, copy_fast, xconvgemm), -runs %d,"
                        + " timeout %d s", cap.fraction(), cap.directFraction(),
                        cap.vectorFraction(), cap.runs(), cap.timeout().toSeconds()));
        planned.noHintsReason().ifPresent(r -> out.comment("no usable hints: " + r));
        Duration tuning = Duration.ZERO;
        int runs = 0;
        for (TuningPlan.Planned<ClblastTask> p : planned.tasks()) {
            TunerRunner.Outcome outcome = runner.run(p.task());
            runs++;
            tuning = tuning.plus(outcome.wall());
            TunerResults results = TunerResults.read(outcome.jsons(), p.task().precision());
            System.out.println(String.format(Locale.ROOT, "run %s status=%s wall_s=%.1f results=%d%s", p.task().label(),
                    outcome.status(), outcome.wall().toMillis() / 1e3, results.best().size(),
                    outcome.message().isEmpty() ? "" : " (" + Printable.escape(outcome.message()) + ")"));
            outcome.jsons().forEach(json -> System.out.println("  json " + Printable.escape(json.toString())));
            results.problems().forEach(problem -> System.out.println("  skipped result " + Printable.escape(problem)));
            Map<String, TunedKernel> best = results.best();
            List<String> missing = p.task().kernels().stream().filter(kernel -> !best.containsKey(kernel)).toList();
            if (!missing.isEmpty()) {
                // CLBlast picks among a routine's kernels by shape and parameters (GEMV: Xgemv, XgemvFast,
                // XgemvFastRot), so a run that tuned some of them may leave the one that runs untuned: the
                // runtime's --strict check would then fail. Apply a run only whole.
                if (missing.size() < p.task().kernels().size()) {
                    System.out.println("  not applied: no result for " + String.join(", ", missing)
                            + ", which CLBlast may run for these regions: they keep CLBlast's defaults");
                }
                continue;
            }
            for (String region : p.regions()) {
                // the routine choice only with the kernel it chooses: never a pin to untuned defaults
                p.task().routineChoice().ifPresent(choice -> out.add(region, choice));
                for (String kernel : p.task().kernels()) {
                    out.add(region, best.get(kernel));
                }
            }
        }
        out.write(params);
        System.out.println(String.format(Locale.ROOT, "tuning wall_s=%.1f runs=%d entries=%d params=%s",
                tuning.toMillis() / 1e3, runs, out.entries().size(), params));
    }

    private static int precision(String value) {
        return switch (value) {
            case "16" -> 16;
            case "32" -> 32;
            case "64" -> 64;
            default -> throw new IllegalArgumentException("--precision must be 16, 32 or 64");
        };
    }

    private static ClblastTunables.GemmKernel gemmKernel(String value) {
        try {
            return ClblastTunables.GemmKernel.valueOf(value.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--gemm-kernel must be auto, direct or indirect");
        }
    }
}
