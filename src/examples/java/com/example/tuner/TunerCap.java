package com.example.tuner;

import java.time.Duration;

/**
 * How far each CLBlast tuner run may go, the same in every arm of a measurement (docs/PGO.md, "The
 * cap"). CLBlast's {@code -fraction F} keeps a random {@code 1/F} of a phase's configurations (the
 * same subset in every run: the tuners shuffle with a default-seeded engine):
 * <ul>
 * <li>{@code clblast_tuner_xgemm_direct} ({@code XgemmDirect}, what GEMMs below CLBlast's
 *     {@code XGEMM_MIN_INDIRECT_SIZE³} run): its second phase samples 8,420 configurations (its first
 *     46, so a large fraction leaves none there); {@code directFraction} 700 keeps 12;
 * <li>{@code clblast_tuner_xgemm} ({@code Xgemm}, the indirect GEMM): the run is stopped once its
 *     first phase (578 configurations) is written, since its later phases sample from 120,800;
 *     {@code fraction} 48 keeps 12;
 * <li>the GEMV (12, 30 and at most 96 configurations in three phases) and AXPY (96) tuners:
 *     {@code vectorFraction}, 1 (all of them) by default, since a fraction of so few can leave a
 *     phase none, and a phase with none writes no result. So do the other tuners a plan from the
 *     OpenCL layer's names may run ({@link ClblastKernels}): DOT (6 and 6), {@code transpose_pad} (34),
 *     {@code copy_pad} (81), {@code transpose_fast} (88), {@code invert} (2) — except the three whose one
 *     phase is past 100 configurations ({@code xger} 171, {@code copy_fast} 144, {@code xconvgemm} 193, on
 *     PoCL's CPU device), which get twice the vector fraction, about half of them: whole, {@code xger} ran
 *     200 s on a loaded 2-core machine, past the timeout, and a run killed in its only phase gives nothing.
 * </ul>
 * For all, {@code -runs R} timed runs per configuration and a wall-clock timeout per run.
 *
 * @param fraction the GEMM tuner's {@code -fraction}, {@code >= 1}
 * @param directFraction the direct GEMM tuner's {@code -fraction}, {@code >= 1}
 * @param vectorFraction the {@code -fraction} of the other tuners (GEMV, AXPY, ...), {@code >= 1} (1: not
 *     passed); twice this for the three largest searches
 * @param runs the tuners' {@code -runs}, {@code >= 1}
 * @param timeout the wall-clock limit of one run: a run past it is killed, and what it wrote by
 *     then (the JSON of each finished phase) is used
 */
public record TunerCap(int fraction, int directFraction, int vectorFraction, int runs, Duration timeout) {
    /** The cap of docs/PGO.md's measurement: about 12 configurations per GEMM run. */
    public static final TunerCap DEFAULT = new TunerCap(48, 700, 1, 1, Duration.ofSeconds(120));

    /** Checks the values. */
    public TunerCap {
        if (fraction < 1 || directFraction < 1 || vectorFraction < 1 || runs < 1 || timeout.isNegative()
                || timeout.isZero()) {
            throw new IllegalArgumentException("cap needs fractions >= 1, runs >= 1 and a positive timeout: " + fraction
                    + ", " + directFraction + ", " + vectorFraction + ", " + runs + ", " + timeout);
        }
    }

    /**
     * A cap with the default direct and vector fractions.
     *
     * @param fraction the GEMM tuner's {@code -fraction}
     * @param runs the tuners' {@code -runs}
     * @param timeout the wall-clock limit of one run
     */
    public TunerCap(int fraction, int runs, Duration timeout) {
        this(fraction, DEFAULT.directFraction(), 1, runs, timeout);
    }

    /**
     * The fraction a tuner gets.
     *
     * @param tuner a task's tuner
     * @return its {@code -fraction}; 1 means none is passed
     */
    int fractionOf(String tuner) {
        return switch (tuner) {
            case "xgemm" -> fraction;
            case "xgemm_direct" -> directFraction;
            case "xger", "copy_fast", "xconvgemm" -> (int) Math.min(Integer.MAX_VALUE, 2L * vectorFraction);
            default -> vectorFraction;
        };
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
