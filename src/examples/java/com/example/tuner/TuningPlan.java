package com.example.tuner;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What the optimizer will tune, in order, and what it leaves to CLBlast's defaults and why.
 *
 * @param tasks the tuner runs, hottest first, each with the regions it serves
 * @param skipped the regions of the hot set (or of the file, for a plan of everything) not tuned
 * @param budget the tuning-time budget the plan was cut to; null for none
 * @param noHints why the file gave no usable hints (missing, damaged, another version, another
 *     owner, ...), or null: then the plan is empty and every kernel keeps its defaults
 * @param coveredShare the share of the file's kernel time the planned regions hold
 */
public record TuningPlan(List<Planned> tasks, List<Skipped> skipped, Duration budget, String noHints,
        double coveredShare) {

    /** Keeps immutable copies. */
    public TuningPlan {
        tasks = List.copyOf(tasks);
        skipped = List.copyOf(skipped);
    }

    /**
     * The plan when the hints cannot be used: nothing tuned, CLBlast's defaults everywhere.
     *
     * @param reason why, for the log
     * @return an empty plan carrying the reason
     */
    static TuningPlan defaults(String reason) {
        return new TuningPlan(List.of(), List.of(), null, reason, 0);
    }

    /**
     * Why the hints could not be used.
     *
     * @return the reason, or empty when they were used
     */
    public Optional<String> noHintsReason() {
        return Optional.ofNullable(noHints);
    }

    /**
     * The worst-case tuning time: every run's timeout.
     *
     * @param cap the runs' cap
     * @return the sum of the planned runs' timeouts
     */
    public Duration plannedCost(TunerCap cap) {
        return cap.timeout().multipliedBy(tasks.size());
    }

    /**
     * The plan as lines for a log: one per task, then one per skipped region.
     *
     * @return human-readable lines
     */
    public List<String> describe() {
        List<String> lines = new ArrayList<>();
        if (noHints != null) {
            lines.add("no usable hints (" + noHints + "): CLBlast's defaults for every kernel");
            return lines;
        }
        lines.add(String.format(Locale.ROOT, "plan: %d tuner run(s) for %.1f%% of the kernel time%s", tasks.size(),
                100 * coveredShare, budget == null ? "" : ", budget " + budget.toSeconds() + " s"));
        for (Planned p : tasks) {
            lines.add(String.format(Locale.ROOT, "  tune  %-32s %5.1f%%  %s", p.task().label(), 100 * p.share(),
                    String.join(" ", p.regions())));
        }
        for (Skipped s : skipped) {
            lines.add(String.format(Locale.ROOT, "  skip  %-32s %5.1f%%  %s", s.reason(), 100 * s.share(), s.region()));
        }
        return lines;
    }

    /**
     * A planned tuner run.
     *
     * @param task the run
     * @param regions the regions whose kernel and sizes it tunes, hottest first
     * @param share their share of the file's kernel time
     */
    public record Planned(TuningTask task, List<String> regions, double share) {
        /** Keeps an immutable copy. */
        public Planned {
            regions = List.copyOf(regions);
        }
    }

    /**
     * A region left to CLBlast's defaults (or to its kernel's other entry, docs/PGO.md).
     *
     * @param region its name
     * @param share its share of the file's kernel time
     * @param reason why: over the budget, no tuner for it, not a CLBlast region
     */
    public record Skipped(String region, double share, String reason) {}
}
