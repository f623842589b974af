package dev.hintmap.bench;

/**
 * One measured value for the targets table: its median, the spread (lowest and highest per-fork
 * median with 2+ forks, else lowest and highest iteration or repeat) and how it reads; or why it
 * is not there.
 */
record Measured(double median, double lo, double hi, String spread, String missing, double allocMax, boolean headline) {
    static Measured missing(String why) {
        return new Measured(Double.NaN, Double.NaN, Double.NaN, "", why, Double.NaN, false);
    }

    boolean ok() {
        return missing == null && !Double.isNaN(median);
    }

    /** The same measurement scaled (a per-pass time to a per-region one). */
    Measured scaled(double factor) {
        if (!ok()) {
            return this;
        }
        return new Measured(median * factor, lo * factor, hi * factor,
                spread.isEmpty() ? "" : "scaled from " + spread, null, allocMax, headline);
    }
}

