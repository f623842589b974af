package com.example.tuner;

/**
 * One run of a tuner that a plan can hold: a CLBlast tuner at one kernel and shape ({@link ClblastTask}),
 * FFTW's planner on one problem ({@link FftwTask}). Equal tasks are one run: regions that map to the
 * same task share it.
 */
public interface PlanTask {
    /**
     * A short label for plans and logs, without control characters.
     *
     * @return e.g. {@code xgemm_direct f32 m=256 n=512 k=2048}, {@code fftwf-wisdom cof256x256}
     */
    String label();

    /**
     * The size of the problem, for the plan an engineer makes without a profile: largest problems
     * first (docs/PGO.md, arm D). Bounded by the tuner's own limits, so it never overflows.
     *
     * @return the work of one call in the tuner's natural unit (multiply-adds, points), {@code > 0}
     */
    long size();
}
