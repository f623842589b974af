package dev.hintmap;

import java.util.Comparator;

/** What "hottest" means for {@link HintStore#hottest} and {@link HintSnapshot#hottest}: largest first. */
public enum RegionOrder {
    /** Total kernel time: where the GPU spends its time (the default, like {@code perf top}). */
    TOTAL_NS,
    /** Mean kernel time per dispatch: the measure {@link HintStore#isHot} compares with the threshold. */
    MEAN_NS,
    /** Number of dispatches. */
    COUNT,
    /** Longest single dispatch. */
    MAX_NS;

    /**
     * The value this order ranks by, larger is hotter.
     *
     * @param record the record to rank
     * @return its total, mean (rounded down; 0 without dispatches) or maximum kernel time in ns,
     *     or its dispatch count, {@code >= 0}
     */
    public long key(RegionRecord record) {
        return rank(record);
    }

    /** {@link #key(RegionRecord)} of any shape of a record; the mean is {@link RecordFigures#meanKernelNs()}. */
    long rank(RecordFigures figures) {
        return switch (this) {
            case TOTAL_NS -> figures.kernelNsTotal();
            case MEAN_NS -> figures.meanKernelNs();
            case COUNT -> figures.dispatchCount();
            case MAX_NS -> figures.kernelNsMax();
        };
    }

    /**
     * Hottest first; equal keys by name, so that the order is total and reproducible.
     *
     * @return a comparator that sorts records by descending {@link #key(RegionRecord)}, then by
     *     ascending {@link RegionRecord#name()}
     */
    public Comparator<RegionRecord> comparator() {
        Comparator<RegionRecord> byKey = Comparator.comparingLong(this::key);
        return byKey.reversed().thenComparing(RegionRecord::name);
    }
}
