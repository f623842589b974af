package com.example.tuner;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What an optimizer will tune, in order, and what it leaves to the tuner's defaults and why.
 *
 * @param <T> the kind of tuner run
 * @param tasks the tuner runs, in the order they run, each with the regions it serves
 * @param skipped the regions considered but not tuned, each with the reason
 * @param budget the tuning-time budget the plan was cut to; null for none
 * @param noHints why the file gave no usable hints (missing, damaged, another version, another
 *     owner, ...), or null: then the plan is empty and everything keeps its defaults
 * @param coveredShare the share of the file's kernel time the planned regions hold, in {@code [0, 1]}
 *     (summed exactly: saturated totals cannot push it past 1)
 */
public record TuningPlan<T extends PlanTask>(List<Planned<T>> tasks, List<Skipped> skipped, Duration budget,
        String noHints, double coveredShare) {

    /** Keeps immutable copies. */
    public TuningPlan {
        tasks = List.copyOf(tasks);
        skipped = List.copyOf(skipped);
    }

    /**
     * The plan when the hints cannot be used: nothing tuned, defaults everywhere.
     *
     * @param <T> the kind of tuner run
     * @param reason why, for the log
     * @return an empty plan carrying the reason
     */
    static <T extends PlanTask> TuningPlan<T> defaults(String reason) {
        return new TuningPlan<>(List.of(), List.of(), null, reason, 0);
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
     * The worst-case tuning time: every run counted at the cap's timeout.
     *
     * @param perRun the cap of one run
     * @return the sum of the planned runs' caps
     */
    public Duration plannedCost(Duration perRun) {
        return perRun.multipliedBy(tasks.size());
    }

    /**
     * The plan as lines for a log: a summary, one line per run, then one per skipped region. Every
     * name and reason is printed through {@link Printable#escape}, so each item is exactly one line
     * whatever the hint file holds.
     *
     * @return human-readable lines
     */
    public List<String> describe() {
        List<String> lines = new ArrayList<>();
        if (noHints != null) {
            lines.add("no usable hints (" + Printable.escape(noHints) + "): the defaults everywhere");
            return lines;
        }
        lines.add(String.format(Locale.ROOT, "plan: %d tuner run(s) for %.1f%% of the kernel time%s", tasks.size(),
                100 * coveredShare, budget == null ? "" : ", budget " + budget.toSeconds() + " s"));
        for (Planned<T> p : tasks) {
            lines.add(String.format(Locale.ROOT, "  tune  %-32s %5.1f%%  %s", Printable.escape(p.task().label()),
                    100 * p.share(), String.join(" ", p.regions().stream().map(Printable::escape).toList())));
        }
        for (Skipped s : skipped) {
            lines.add(String.format(Locale.ROOT, "  skip  %-32s %5.1f%%  %s", Printable.escape(s.reason()),
                    100 * s.share(), Printable.escape(s.region())));
        }
        return lines;
    }

    /**
     * A planned tuner run.
     *
     * @param <T> the kind of tuner run
     * @param task the run
     * @param regions the regions it serves, hottest first
     * @param share their share of the file's kernel time
     */
    public record Planned<T extends PlanTask>(T task, List<String> regions, double share) {
        /** Keeps an immutable copy. */
        public Planned {
            regions = List.copyOf(regions);
        }
    }

    /**
     * A region left to the defaults.
     *
     * @param region its name, as recorded
     * @param share its share of the file's kernel time
     * @param reason why: over the budget, no tuner for it, not this tuner's region, over the bound
     */
    public record Skipped(String region, double share, String reason) {}
}
