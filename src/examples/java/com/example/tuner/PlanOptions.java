package com.example.tuner;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Set;

/**
 * The options that choose a plan, the same for every optimizer of this package (docs/PGO.md, "The
 * arms"): {@code --hints FILE} and one of
 * <ul>
 * <li>{@code --plan hot} (the default): the hot set, {@code --coverage C} (0.9) of the kernel time from
 *     regions with at least {@code --min-dispatches N} (2) dispatches, hottest first, within
 *     {@code --budget-s S} (600);
 * <li>{@code --plan all} (or {@code --all}): every region;
 * <li>{@code --plan largest}: the largest problems first within the budget, no hints;
 * <li>{@code --plan random --seed N}: a random choice within the budget, no hints;
 * </ul>
 * and {@code --plan-only} to print the plan and run nothing.
 *
 * @param hints the hint file
 * @param mode which plan
 * @param coverage the hot set's coverage
 * @param minDispatches the hot set's minimum dispatches
 * @param budget the tuning budget (not for {@code all})
 * @param seed the random draw
 * @param planOnly print the plan only
 */
record PlanOptions(Path hints, Mode mode, double coverage, long minDispatches, Duration budget, long seed,
        boolean planOnly) {
    /** The flags these options add to an optimizer's. */
    static final Set<String> FLAGS = Set.of("--all", "--plan-only");
    /** The valued options these options add to an optimizer's. */
    static final Set<String> VALUED = Set.of("--hints", "--plan", "--coverage", "--min-dispatches", "--budget-s", "--seed");

    /** Which plan. */
    enum Mode {
        /** The hot set by coverage. */
        HOT,
        /** Every region. */
        ALL,
        /** The largest problems first. */
        LARGEST,
        /** A random choice. */
        RANDOM
    }

    static PlanOptions from(OptionArgs a) {
        Mode mode;
        try {
            mode = Mode.valueOf(a.string("--plan", "hot").toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--plan must be hot, all, largest or random");
        }
        if (a.has("--all")) {
            if (a.has("--plan") && mode != Mode.ALL) {
                throw new IllegalArgumentException("--all and --plan " + mode.name().toLowerCase(Locale.ROOT) + " disagree");
            }
            mode = Mode.ALL;
        }
        return new PlanOptions(a.required("--hints"), mode, a.share("--coverage", 0.9), a.longAtLeast("--min-dispatches", 2, 0),
                Duration.ofSeconds(a.longAtLeast("--budget-s", 600, 0)), a.longAtLeast("--seed", 1, Long.MIN_VALUE),
                a.has("--plan-only"));
    }

    /**
     * The plan these options ask for.
     *
     * @param <T> the kind of tuner run
     * @param planner the tuner's planner
     * @return the plan
     */
    <T extends PlanTask> TuningPlan<T> plan(TuningPlanner<T> planner) {
        return switch (mode) {
            case HOT -> planner.planHot(hints, coverage, minDispatches, budget);
            case ALL -> planner.planAll(hints);
            case LARGEST -> planner.planLargest(hints, budget);
            case RANDOM -> planner.planRandom(hints, budget, seed);
        };
    }

    /**
     * One line for the output's header comment.
     *
     * @return e.g. {@code hot set coverage 0.95 min 2 budget 240 s}
     */
    String describe() {
        return switch (mode) {
            case HOT -> String.format(Locale.ROOT, "hot set coverage %s min %d budget %d s", coverage, minDispatches,
                    budget.toSeconds());
            case ALL -> "every region";
            case LARGEST -> "largest first (no hints) budget " + budget.toSeconds() + " s";
            case RANDOM -> "random draw seed " + seed + " (no hints) budget " + budget.toSeconds() + " s";
        };
    }
}
