package com.example.tuner;

import java.time.Duration;

/**
 * How far each tuner run may go, the same in every arm of a measurement (docs/PGO.md, "The cap"):
 * for the GEMM tuner CLBlast's {@code -fraction F} (a random 1/F of the first phase's 578
 * configurations, the same subset for the same sizes in every run) and its first phase only (its
 * later phases sample from 120,800 configurations: the run is stopped when the first phase's JSON
 * is written); the GEMV (12, 30 and at most 96) and AXPY (96) tuners explore all their configurations, since
 * a fraction of so few can leave none; for all, {@code -runs R} timed runs per configuration and a
 * wall-clock timeout per run.
 *
 * @param fraction the GEMM tuner's {@code -fraction}, {@code >= 1}
 * @param runs the tuners' {@code -runs}, {@code >= 1}
 * @param timeout the wall-clock limit of one run: a run past it is killed, and what it wrote by
 *     then (the JSON of each finished phase) is used
 */
public record TunerCap(int fraction, int runs, Duration timeout) {
    /** The cap of docs/PGO.md's measurement. */
    public static final TunerCap DEFAULT = new TunerCap(16, 1, Duration.ofSeconds(120));

    /** Checks the values. */
    public TunerCap {
        if (fraction < 1 || runs < 1 || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("cap needs fraction >= 1, runs >= 1 and a positive timeout: " + fraction
                    + ", " + runs + ", " + timeout);
        }
    }

    /**
     * The JSON file after which a run of {@code tuner} is stopped: the GEMM tuner's first phase.
     *
     * @param tuner a task's tuner
     * @param precision its precision
     * @return the file name, or null to let the run finish (or time out)
     */
    static String stopAfter(String tuner, int precision) {
        return tuner.equals("xgemm") ? "clblast_xgemm_1_" + precision + ".json" : null;
    }
}
