package dev.hintmap.bench;

import dev.hintmap.bench.ReportTargets.TargetRow;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The performance report, in one command:
 *
 * <pre>./mvnw -Pjmh clean test-compile exec:exec@perf</pre>
 *
 * <p>{@code run} ({@link ReportRun}) builds and runs {@code hm-floor} and {@code hm-bench} (interleaved repeats, medians of
 * {@value ReportRun#NATIVE_REPEATS}), the eviction simulator and the JMH plan ({@link ReportPlan#jobs()}): every
 * benchmark a row of the targets table uses ("headline") with {@value ReportPlan#HEADLINE_FORKS} forks, the
 * rest with one, {@code -prof gc} everywhere; raw output goes under {@code bench-results/}.
 * {@code render} reads those files back ({@link ReportResults}) and writes the report beside them:
 * {@code bench-results/report.md} (every table), {@code bench-results/targets.md} (the machine and the targets
 * table alone, the table docs/PERFORMANCE.md keeps) and {@code bench-results/perf-capacity.png}. It never writes
 * under {@code docs/}: docs/PERFORMANCE.md is written by hand and quotes a run's targets table.
 * Modes ({@code -Dperf.args=...}): {@code full} (run, then render; the default), {@code run}, {@code render},
 * {@code quick} (a smoke run of the same plan with
 * 300 ms warm-up and 100 ms iterations, churn at 256 and 65,536 and open at 256 only: the report is labelled as not for
 * headline figures), {@code plan} / {@code quick-plan} (print the plan and its estimated duration, run nothing) and
 * {@code simulate} (the simulator only, to stdout).
 *
 * <p>This class is the document's outline; each table is its own class: {@link ReportTargets} (and
 * {@link ReportAllocations} for the 0 B/op rows), {@link ReportTables} (the comparisons),
 * {@link ReportChart}, {@link ReportProse} (what bounds it, the missed targets, the sections of separate runs).
 */
public final class PerfReport {
    static final String COMMAND = "./mvnw -Pjmh clean test-compile exec:exec@perf";

    private final Path root;
    private final ReportPlan plan;

    private PerfReport(Path root, boolean quick) {
        this.root = root;
        this.plan = new ReportPlan(quick);
    }

    public static void main(String[] args) throws Exception {
        Path root = Path.of(".");
        String mode = "full";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--root" -> root = Path.of(args[++i]);
                case "full", "run", "render", "quick", "simulate", "plan", "quick-plan" -> mode = args[i];
                default -> throw new IllegalArgumentException(
                        "usage: PerfReport [--root DIR] [full|run|render|quick|plan|quick-plan|simulate]");
            }
        }
        root = root.toAbsolutePath().normalize();
        if (mode.equals("simulate")) {
            EvictionSimulator.main(new String[0]);
            return;
        }
        PerfReport report = new PerfReport(root, mode.startsWith("quick"));
        if (mode.endsWith("plan")) {
            System.out.print(report.plan.text());
            return;
        }
        Instant start = Instant.now();
        if (!mode.equals("render")) {
            new ReportRun(report.root, report.plan).run();
        }
        if (!mode.equals("run")) {
            report.render();
        }
        System.out.printf("perf report: %s in %d s%n", mode, Duration.between(start, Instant.now()).toSeconds());
    }

    private void render() throws IOException {
        ReportResults d = new ReportResults(root.resolve("bench-results"));
        List<ReportResults.Score> scores = d.scores;
        Path out = Files.createDirectories(root.resolve("bench-results"));
        ReportChart.write(scores, out.resolve("perf-capacity.png"));
        List<TargetRow> rows = ReportTargets.rows(d);
        ReportProse prose = new ReportProse(d); // fails early on a placeholder the generator does not fill

        StringBuilder md = new StringBuilder();
        header(md, d);
        machineAndMethod(md, d);
        md.append("## Targets\n\n");
        md.append("Ratios of medians measured side by side in this run. 64 regions, Zipf(1.0), capacity 256 wherever a ")
                .append("target names no other workload; `hm-bench` runs the same 64 names (`-P ").append(ReportRun.NATIVE_PREFIX)
                .append("`, 23 bytes) and the same log-normal kernel times.\n\n");
        ReportTargets.table(md, rows);
        String targets = md.toString(); // the header, the machine and the targets table

        ReportTables.stores(md);
        ReportTables.record(md, scores);
        ReportTables.churn(md, scores);
        ReportTables.queries(md, scores);
        ReportTables.iterate(md, scores);
        ReportTables.open(md, scores);
        ReportAllocations.section(md, scores);
        ReportTables.natives(md, d);
        ReportTables.eviction(md, d.eviction);
        prose.whatBoundsIt(md, rows);
        ReportProse.separateRuns(md);
        Files.writeString(out.resolve("report.md"), md.toString());
        Files.writeString(out.resolve("targets.md"), targets);
        System.out.println("wrote " + out.resolve("report.md") + ", " + out.resolve("targets.md") + " and "
                + out.resolve("perf-capacity.png"));
        for (TargetRow r : rows) {
            System.out.printf("target %-3s %-13s %s%n", r.id(), r.verdict(), r.ratio().replace("*", ""));
        }
    }

    /** The title, the quick run's warning, and where the report comes from. */
    private static void header(StringBuilder md, ReportResults d) {
        md.append("# hintmap performance\n\n");
        if (d.quick()) {
            md.append("> **QUICK SMOKE RUN — NOT FOR HEADLINE FIGURES.** Generated with `-Dperf.args=quick`: one 300 ms ")
                    .append("warm-up and 100 ms iterations, churn at 256 and 65,536 only, open at 256 only. It proves that the generator works end to ")
                    .append("end; every number below is too short-lived to quote. Regenerate with `").append(COMMAND).append("`.\n\n");
        }
        md.append("Generated by `").append(COMMAND).append("` (`dev.hintmap.bench.PerfReport`; method and targets: ")
                .append("docs/PERFORMANCE.md) from one run on the machine below, with the raw JMH JSON and native output beside it ")
                .append("in `bench-results/` (not committed). The prose of *What bounds it* comes from ")
                .append("`src/jmh/resources/dev/hintmap/bench/what-bounds-it.md` with this run's numbers filled in, ")
                .append("and the sections measured in separate runs, *Give-up cost*, *Start-up*, *Long kernel names* and *Python reads*, from")
                .append(" `give-up-cost.md`, `startup.md`, `long-names.md` and `python-reads.md` beside it.\n\n");
    }

    /**
     * The code measured: the commit, and the tracked files that differed from it when the run
     * started (a run's {@code machine.txt} from before names none: then only that it differed).
     */
    static String code(Map<String, String> machine) {
        String commit = machine.getOrDefault("commit", "?");
        String dirty = machine.getOrDefault("dirty", "");
        if (commit.endsWith("-dirty")) {
            return commit.substring(0, commit.length() - "-dirty".length()) + " with uncommitted changes (not recorded which)";
        }
        return dirty.isBlank() ? commit : commit + " with uncommitted changes to " + dirty;
    }

    /** The machine, the run plan with each group's time, the run's failures, and how to read the numbers. */
    private void machineAndMethod(StringBuilder md, ReportResults d) {
        md.append("## Machine and method\n\n");
        md.append("| | |\n|---|---|\n");
        md.append("| CPU | ").append(d.machine.getOrDefault("cpu", "?")).append(" |\n");
        md.append("| nproc | ").append(d.machine.getOrDefault("nproc", "?")).append(" |\n");
        md.append("| memory | ").append(d.machine.getOrDefault("memory", "?")).append(" |\n");
        md.append("| load average at start | ").append(d.machine.getOrDefault("load", "?")).append(" |\n");
        md.append("| JDK | ").append(d.machine.getOrDefault("jdk", "?")).append(" |\n");
        md.append("| OS | ").append(d.machine.getOrDefault("os", "?")).append(" |\n");
        md.append("| C compiler | ").append(d.machine.getOrDefault("gcc", "?")).append(" (`-O2`) |\n");
        md.append("| code | ").append(code(d.machine)).append(", hint file format ")
                .append(d.machine.getOrDefault("format", "?")).append(", ").append(d.machine.getOrDefault("slot_bytes", "?"))
                .append(" B per slot |\n");
        md.append("| run | ").append(d.machine.getOrDefault("date", "?")).append(", mode **").append(d.run.getOrDefault("mode", "?"))
                .append("**, **").append(d.run.getOrDefault("seconds", "?")).append(" s** in total (report step, without Maven's compile) |\n");
        md.append("| JMH | 1.37, AverageTime, `-prof gc`; files on `/dev/shm` |\n\n");

        md.append("Run plan and time per group (`-Dperf.args=plan` prints the plan without running it):\n\n");
        md.append("| group | benchmark | role | runs | JMH settings | estimated s | took s |\n|---|---|---|---:|---|---:|---:|\n");
        for (ReportPlan.Job j : plan.jobs()) {
            md.append(String.format(Locale.ROOT, "| %s | `%s` %s | %s | %d | `%s` | %.0f | %s |%n", j.group(), j.bench().getSimpleName(),
                    j.methods().stream().map(x -> "`" + x + "`").collect(Collectors.joining(", ")),
                    j.headline() ? "**headline**" : "table / step", j.runs(), plan.settings(j).flags(), plan.estimateSeconds(j),
                    d.run.getOrDefault("group." + j.group() + ".seconds", "n/a")));
        }
        md.append(String.format(Locale.ROOT, "| native | `hm-floor`, `hm-bench` | **headline** | %d repeats, interleaved | | | %s |%n",
                ReportRun.NATIVE_REPEATS, d.run.getOrDefault("group.native.seconds", "n/a")));
        md.append(String.format(Locale.ROOT, "| simulator | `EvictionSimulator` | table | | | | %s |%n%n",
                d.run.getOrDefault("group.simulator.seconds", "n/a")));
        String errors = d.errors();
        if (!errors.isEmpty() || !d.nativeError.isEmpty()) {
            md.append("**Failures in this run:**\n\n");
            errors.lines().forEach(l -> md.append("- ").append(l).append('\n'));
            if (!d.nativeError.isEmpty()) {
                md.append("- native: ").append(d.nativeError).append('\n');
            }
            md.append('\n');
        }
        md.append("Every benchmark a row of the targets table reads (\"headline\") runs in ").append(ReportPlan.HEADLINE_FORKS)
                .append(" JMH forks; the comparison tables' other rows and the step benchmarks run in one. ")
                .append("The machine is a noisy shared 2-vCPU guest (±30% between sessions was seen on it): read the **medians** ")
                .append("and the **ratios** of one run, not absolute values. A median is over all measured iterations of all forks. ")
                .append("*Spread* is the lowest and highest per-fork median (2 forks), else the lowest and highest iteration (1 fork), ")
                .append("or for the native tools the lowest and highest of the ").append(ReportRun.NATIVE_REPEATS).append(" repeats; ")
                .append("a ratio's range divides the extremes crosswise (best case to worst case). `±` in the tables is JMH's ")
                .append("99.9% confidence half-width of the mean. \"× hintmap\" is the store's time divided by hintmap's (by name) ")
                .append("in the same table: above 1 means slower than hintmap. At 2 threads the time is per operation per thread ")
                .append("(both threads on one shared store, 2 cores). B/op is `gc.alloc.rate.norm`; \"≈ 0\" is below 0.01 B/op and a path ")
                .append(String.format(Locale.ROOT, "counts as allocation-free below %.2f B/op (the largest value of any iteration is used).%n%n", ReportAllocations.ZERO_ALLOC));
    }
}
