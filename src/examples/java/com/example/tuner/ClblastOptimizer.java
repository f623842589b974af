package com.example.tuner;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The optimizer of the PGO loop (docs/PGO.md): reads the hint file the CLBlast runtime recorded,
 * plans which tuners to run (the hot set by coverage, hottest first, within a budget; or, with
 * {@code --all}, every kernel and shape), runs them under one cap, and writes the parameters file
 * the runtime applies. Hints that cannot be used give an empty parameters file (CLBlast's defaults)
 * and exit status 0: tuning is an optimisation, never a condition for a correct run.
 *
 * <pre>
 * java -cp classes:hintmap.jar com.example.tuner.ClblastOptimizer --hints FILE --params OUT
 *      [--all | --coverage C --min-dispatches N --budget-s S] [--plan-only]
 *      [--fraction F --runs R --timeout-s T] [--work DIR] [--tuner-dir DIR]
 * </pre>
 *
 * Prints the plan, one line per run ({@code run LABEL status=... wall_s=...}), and a last line
 * {@code tuning wall_s=... runs=... entries=...}. Exit status 2 for bad usage.
 */
public final class ClblastOptimizer {
    private ClblastOptimizer() {}

    /**
     * Runs the optimizer.
     *
     * @param args the options above
     * @throws Exception on an I/O error writing the parameters file or the work directory
     */
    public static void main(String[] args) throws Exception {
        Options o;
        try {
            o = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("ClblastOptimizer: " + e.getMessage());
            System.err.println("usage: ClblastOptimizer --hints FILE --params OUT [--all | --coverage C --min-dispatches N"
                    + " --budget-s S] [--plan-only] [--fraction F --runs R --timeout-s T] [--work DIR] [--tuner-dir DIR]");
            System.exit(2);
            return;
        }
        TuningPlanner planner = new TuningPlanner(o.cap);
        TuningPlan plan = o.all ? planner.planAll(o.hints)
                : planner.planHot(o.hints, o.coverage, o.minDispatches, o.budget);
        plan.describe().forEach(System.out::println);
        if (o.planOnly) {
            return;
        }
        Files.createDirectories(o.work);
        TunerRunner runner = new TunerRunner(o.cap, o.work, o.tunerDir);
        ParametersFile params = new ParametersFile()
                .comment("CLBlast parameters by com.example.tuner.ClblastOptimizer, " + Instant.now())
                .comment("hints " + o.hints + (o.all ? ", every region" : String.format(Locale.ROOT,
                        ", hot set coverage %s min %d budget %d s", o.coverage, o.minDispatches, o.budget.toSeconds())))
                .comment(String.format(Locale.ROOT, "cap: -fraction %d -runs %d, timeout %d s, xgemm first phase only",
                        o.cap.fraction(), o.cap.runs(), o.cap.timeout().toSeconds()));
        plan.noHintsReason().ifPresent(r -> params.comment("no usable hints: " + r));
        long start = System.nanoTime();
        int runs = 0;
        for (TuningPlan.Planned planned : plan.tasks()) {
            TunerRunner.Outcome outcome = runner.run(planned.task());
            runs++;
            TunerResults results = TunerResults.read(outcome.jsons(), planned.task().precision());
            System.out.println(String.format(Locale.ROOT, "run %s status=%s wall_s=%.1f results=%d%s",
                    planned.task().label(), outcome.status(), outcome.wall().toMillis() / 1e3, results.best().size(),
                    outcome.message().isEmpty() ? "" : " (" + outcome.message() + ")"));
            results.problems().forEach(p -> System.out.println("  skipped result " + p));
            Map<String, TunedKernel> best = results.best();
            for (String region : planned.regions()) {
                for (String kernel : planned.task().kernels()) {
                    if (best.containsKey(kernel)) {
                        params.add(region, best.get(kernel));
                    }
                }
            }
        }
        double wall = (System.nanoTime() - start) / 1e9;
        params.write(o.params);
        System.out.println(String.format(Locale.ROOT, "tuning wall_s=%.1f runs=%d entries=%d params=%s", wall, runs,
                params.entries().size(), o.params));
    }

    /** The command line. */
    private record Options(Path hints, Path params, boolean all, double coverage, long minDispatches, Duration budget,
            boolean planOnly, TunerCap cap, Path work, Path tunerDir) {
        static Options parse(String[] args) {
            Path hints = null;
            Path params = null;
            boolean all = false;
            boolean planOnly = false;
            double coverage = 0.9;
            long min = 2;
            long budgetS = 600;
            int fraction = TunerCap.DEFAULT.fraction();
            int runs = TunerCap.DEFAULT.runs();
            long timeoutS = TunerCap.DEFAULT.timeout().toSeconds();
            Path work = null;
            Path tunerDir = null;
            List<String> a = new ArrayList<>(List.of(args));
            while (!a.isEmpty()) {
                String opt = a.removeFirst();
                if (opt.equals("--all")) {
                    all = true;
                    continue;
                }
                if (opt.equals("--plan-only")) {
                    planOnly = true;
                    continue;
                }
                if (a.isEmpty()) {
                    throw new IllegalArgumentException(opt.startsWith("--") ? opt + " needs a value" : "unknown argument " + opt);
                }
                String v = a.removeFirst();
                try {
                    switch (opt) {
                        case "--hints" -> hints = Path.of(v);
                        case "--params" -> params = Path.of(v);
                        case "--coverage" -> coverage = Double.parseDouble(v);
                        case "--min-dispatches" -> min = Long.parseLong(v);
                        case "--budget-s" -> budgetS = Long.parseLong(v);
                        case "--fraction" -> fraction = Integer.parseInt(v);
                        case "--runs" -> runs = Integer.parseInt(v);
                        case "--timeout-s" -> timeoutS = Long.parseLong(v);
                        case "--work" -> work = Path.of(v);
                        case "--tuner-dir" -> tunerDir = Path.of(v);
                        default -> throw new IllegalArgumentException("unknown option " + opt);
                    }
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException(opt + " " + v + " is not a number");
                }
            }
            if (hints == null || (params == null && !planOnly)) {
                throw new IllegalArgumentException("--hints and --params are required");
            }
            if (!(coverage >= 0 && coverage <= 1) || min < 0 || budgetS < 0) {
                throw new IllegalArgumentException("--coverage must be in [0, 1], --min-dispatches and --budget-s >= 0");
            }
            TunerCap cap = new TunerCap(fraction, runs, Duration.ofSeconds(timeoutS));
            Path dir = work != null ? work : Path.of(params == null ? "." : params.toAbsolutePath().getParent().toString(),
                    "tuning");
            return new Options(hints, params, all, coverage, min, Duration.ofSeconds(budgetS), planOnly, cap, dir, tunerDir);
        }
    }
}
