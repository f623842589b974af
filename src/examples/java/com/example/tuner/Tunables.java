package com.example.tuner;

/**
 * What one tuner can tune: the mapping from a recorded region name to a tuner run, which is all that
 * differs between the CLBlast and the FFTW optimizer; the hot set, the order, the budget and the plan
 * are the one path of {@link TuningPlanner}.
 *
 * @param <T> the kind of tuner run
 */
public interface Tunables<T extends PlanTask> {
    /**
     * The run that tunes a region, or why there is none: not a region of this tuner's runtime, a
     * shape the tuner cannot take, a problem over the bound this optimizer tunes (docs/PGO.md).
     *
     * @param regionName the region's name as recorded (any text: it comes from the hint file)
     * @return the run, or the reason
     */
    Tunable<T> of(String regionName);
}
