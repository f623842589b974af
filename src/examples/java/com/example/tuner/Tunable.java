package com.example.tuner;

/**
 * Whether a region can be tuned, and by which run.
 *
 * @param <T> the kind of tuner run
 * @param task the run, or null when the region cannot be tuned
 * @param reason why not (one line, for the plan), or null when it can
 */
public record Tunable<T extends PlanTask>(T task, String reason) {
    /**
     * A region that can be tuned.
     *
     * @param <T> the kind of tuner run
     * @param task the run that tunes it
     * @return the answer
     */
    public static <T extends PlanTask> Tunable<T> yes(T task) {
        return new Tunable<>(task, null);
    }

    /**
     * A region that cannot be tuned.
     *
     * @param <T> the kind of tuner run
     * @param reason why, e.g. {@code not a CLBlast region} or the bound it exceeds
     * @return the answer
     */
    public static <T extends PlanTask> Tunable<T> no(String reason) {
        return new Tunable<>(null, reason);
    }
}
