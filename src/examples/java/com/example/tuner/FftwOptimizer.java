package com.example.tuner;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The FFTW optimizer of the PGO loop (docs/PGO.md): reads the hint file the FFTW runtime records
 * (read-only, also while it records), plans which transforms FFTW's planner gets ({@link PlanOptions}:
 * the hot set by coverage within a budget, everything, or a plan without hints; the same planner as
 * the CLBlast optimizer's), runs {@code fftwf-wisdom} on each under a cap, and writes one wisdom file,
 * the union of the runs' wisdom. Hints that cannot be used give an empty wisdom (FFTW_ESTIMATE
 * everywhere) and exit status 0.
 *
 * <pre>
 * java -cp classes:hintmap.jar com.example.tuner.FftwOptimizer --hints FILE --wisdom OUT
 *      [--plan hot|all|largest|random | --all] [--coverage C --min-dispatches N] [--budget-s S] [--seed N]
 *      [--plan-only] [--effort patient|measure|exhaustive|estimate] [--timeout-s T] [--work DIR] [--tool-dir DIR]
 *      [--watch --interval-s S --duration-s D [--log FILE]]
 * </pre>
 *
 * Prints the plan, one line per run ({@code run SPEC status=... wall_s=...}) and a last line
 * {@code tuning wall_s=... runs=... specs=... wisdom=OUT}: the sum of the runs' wall times.
 *
 * <p><b>{@code --watch}</b>, the loop live: every {@code --interval-s} it plans the hot set of the file
 * again, runs the planner on the transforms of the plan that have no wisdom yet, hottest first, and
 * rewrites the wisdom file (the union of everything planned so far) after each one that succeeded; a
 * runtime that watches the file picks the new wisdom up between passes. It stops after
 * {@code --duration-s} (a planner run under way then finishes; no new one starts). Each step is a line
 * {@code EPOCH event plan ...} / {@code EPOCH event run ...} / {@code EPOCH event wisdom ...} ({@code EPOCH}:
 * Unix time in seconds), the format of the runtime's log, so one chart can show both
 * ({@code docs/PGO.md}, "The loop live"). A transform whose planning failed is not tried again.
 */
public final class FftwOptimizer {
    private FftwOptimizer() {}

    private static final String USAGE = "usage: FftwOptimizer --hints FILE --wisdom OUT [--plan hot|all|largest|random"
            + " | --all] [--coverage C --min-dispatches N] [--budget-s S] [--seed N] [--plan-only]"
            + " [--effort patient|measure|exhaustive|estimate] [--timeout-s T] [--work DIR] [--tool-dir DIR]"
            + " [--watch --interval-s S --duration-s D [--log FILE]]";

    /**
     * Runs the optimizer.
     *
     * @param args the options above
     * @throws Exception on an I/O error in the work directory or the log
     */
    public static void main(String[] args) throws Exception {
        OptionArgs a;
        PlanOptions plan;
        Path wisdom;
        WisdomRunner.Effort effort;
        Duration timeout;
        Duration interval;
        Duration duration;
        try {
            a = OptionArgs.parse(args, Stream.concat(PlanOptions.FLAGS.stream(), Stream.of("--watch"))
                    .collect(Collectors.toUnmodifiableSet()), Stream.concat(PlanOptions.VALUED.stream(),
                    Stream.of("--wisdom", "--effort", "--timeout-s", "--work", "--tool-dir", "--interval-s", "--duration-s",
                            "--log")).collect(Collectors.toUnmodifiableSet()));
            plan = PlanOptions.from(a);
            wisdom = a.path("--wisdom");
            if (wisdom == null && !plan.planOnly()) {
                throw new IllegalArgumentException("--wisdom is required");
            }
            effort = effort(a.string("--effort", "patient"));
            timeout = Duration.ofSeconds(a.longAtLeast("--timeout-s", 60, 1));
            interval = Duration.ofSeconds(a.longAtLeast("--interval-s", 5, 1));
            duration = Duration.ofSeconds(a.longAtLeast("--duration-s", 0, 0));
            if (a.has("--watch") && (duration.isZero() || plan.planOnly())) {
                throw new IllegalArgumentException("--watch needs --duration-s and cannot be --plan-only");
            }
        } catch (IllegalArgumentException e) {
            System.err.println("FftwOptimizer: " + e.getMessage());
            System.err.println(USAGE);
            System.exit(2);
            return;
        }
        TuningPlanner<FftwTask> planner = new TuningPlanner<>(new FftwTunables(), timeout);
        if (plan.planOnly()) {
            plan.plan(planner).describe().forEach(System.out::println);
            return;
        }
        Path work = a.has("--work") ? a.path("--work") : wisdom.toAbsolutePath().resolveSibling("planning");
        WisdomRunner runner = new WisdomRunner(effort, timeout, Files.createDirectories(work), a.path("--tool-dir"));
        if (a.has("--watch")) {
            try (PrintStream log = a.has("--log") ? new PrintStream(Files.newOutputStream(a.path("--log"),
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND), true, StandardCharsets.UTF_8) : System.out) {
                watch(plan, planner, runner, wisdom, work, interval, duration, log);
            }
            return;
        }
        once(plan, planner, runner, wisdom);
    }

    private static void once(PlanOptions options, TuningPlanner<FftwTask> planner, WisdomRunner runner, Path wisdom)
            throws IOException, InterruptedException {
        TuningPlan<FftwTask> plan = options.plan(planner);
        plan.describe().forEach(System.out::println);
        Duration tuning = Duration.ZERO;
        List<Path> wisdoms = new ArrayList<>();
        for (TuningPlan.Planned<FftwTask> p : plan.tasks()) {
            WisdomRunner.Outcome o = runner.run(p.task());
            tuning = tuning.plus(o.wall());
            System.out.println(runLine(o));
            if (o.wisdom() != null) {
                wisdoms.add(o.wisdom());
            }
        }
        String failed = runner.merge(wisdoms, wisdom);
        if (!failed.isEmpty()) {
            System.out.println("wisdom not written: " + Printable.escape(failed));
        }
        System.out.println(String.format(Locale.ROOT, "tuning wall_s=%.1f runs=%d specs=%d wisdom=%s",
                tuning.toMillis() / 1e3, plan.tasks().size(), failed.isEmpty() ? wisdoms.size() : 0, wisdom));
    }

    private static String runLine(WisdomRunner.Outcome o) {
        return String.format(Locale.ROOT, "run %s status=%s wall_s=%.1f%s", o.task().label(), o.status(),
                o.wall().toMillis() / 1e3, o.message().isEmpty() ? "" : " (" + Printable.escape(o.message()) + ")");
    }

    /** The loop live: plan, plan the new transforms, publish, sleep; until the duration ends. */
    private static void watch(PlanOptions options, TuningPlanner<FftwTask> planner, WisdomRunner runner, Path wisdom,
            Path work, Duration interval, Duration duration, PrintStream log) throws IOException, InterruptedException {
        long end = System.nanoTime() + duration.toNanos();
        Map<String, Path> planned = new LinkedHashMap<>(); // spec → its wisdom, kept in the work directory
        Set<String> failed = new LinkedHashSet<>();
        Path kept = Files.createDirectories(work.resolve("kept"));
        int generation = 0;
        List<String> lastHot = List.of();
        while (System.nanoTime() - end < 0) {
            long roundStart = System.nanoTime();
            TuningPlan<FftwTask> plan = options.plan(planner);
            List<String> hot = plan.tasks().stream().map(p -> p.task().label()).toList();
            List<TuningPlan.Planned<FftwTask>> fresh = plan.tasks().stream()
                    .filter(p -> !planned.containsKey(p.task().label()) && !failed.contains(p.task().label())).toList();
            if (!hot.equals(lastHot) || !fresh.isEmpty()) {
                log.println(String.format(Locale.ROOT, "%s event plan hot=%s covered=%.3f new=%s", epoch(),
                        String.join(",", hot), plan.coveredShare(),
                        String.join(",", fresh.stream().map(p -> p.task().label()).toList())));
                plan.noHintsReason().ifPresent(r -> log.println(epoch() + " event nohints " + Printable.escape(r)));
                lastHot = hot;
            }
            for (TuningPlan.Planned<FftwTask> p : fresh) {
                if (System.nanoTime() - end >= 0) {
                    break; // the run is over: no planning that nobody will use
                }
                WisdomRunner.Outcome o = runner.run(p.task());
                log.println(epoch() + " event " + runLine(o));
                if (o.wisdom() == null) {
                    failed.add(p.task().label());
                    continue;
                }
                Path copy = kept.resolve(o.wisdom().getFileName());
                Files.copy(o.wisdom(), copy, StandardCopyOption.REPLACE_EXISTING);
                planned.put(p.task().label(), copy);
                // published at once, not at the end of the round: the runtime gains from each transform as it is planned
                String why = runner.merge(List.copyOf(planned.values()), wisdom);
                log.println(why.isEmpty() ? String.format(Locale.ROOT, "%s event wisdom gen=%d specs=%s", epoch(),
                        ++generation, String.join(",", planned.keySet()))
                        : epoch() + " event wisdom-failed " + Printable.escape(why));
            }
            long sleep = Math.min(interval.toNanos() - (System.nanoTime() - roundStart), end - System.nanoTime());
            if (sleep > 0) {
                Thread.sleep(Duration.ofNanos(sleep));
            }
        }
        log.println(epoch() + " event done gen=" + generation);
    }

    private static String epoch() {
        long ms = System.currentTimeMillis();
        return String.format(Locale.ROOT, "%d.%03d", ms / 1000, ms % 1000);
    }

    private static WisdomRunner.Effort effort(String value) {
        try {
            return WisdomRunner.Effort.valueOf(value.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--effort must be estimate, measure, patient or exhaustive");
        }
    }
}
