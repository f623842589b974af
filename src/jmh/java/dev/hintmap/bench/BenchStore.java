package dev.hintmap.bench;

import dev.hintmap.RegionRecord;

/**
 * The one small interface every store of the suite sits behind, so that all of them are fed
 * exactly the same workload in the same run (see {@link StoreKind}).
 *
 * <p>Every implementation keeps, per region, the dispatch count, total and maximum kernel ns and
 * total bytes, answers "is it hot" (mean kernel ns at least {@link #HOT_THRESHOLD_NS}) and holds at
 * most its capacity of regions; how it gets there (eviction policy, locking, persistence) is what
 * the benchmarks compare.
 */
interface BenchStore extends AutoCloseable {
    /** The hot threshold every store uses (hintmap's default, 100 µs). */
    long HOT_THRESHOLD_NS = 100_000;

    /** Records one dispatch by name (inserting, and evicting at capacity, when the name is new). */
    void record(String name, long kernelNs, long bytes);

    /**
     * What the record benchmarks call: a pre-resolved handle where the store has one
     * ({@link StoreKind#HINTMAP_REGION}), else a binding of {@code name} to {@link #record}.
     */
    Recorder recorder(String name);

    boolean isHot(String name);

    /** A consistent (as far as the store gives one) copy of the region's record, or null when absent. */
    RegionRecord recordFor(String name);

    /** Visits every region present, reading its record; returns a checksum of what it read. */
    long iterate();

    int size();

    @Override
    void close();

    /** Records into one region. */
    @FunctionalInterface
    interface Recorder {
        void record(long kernelNs, long bytes);
    }
}
