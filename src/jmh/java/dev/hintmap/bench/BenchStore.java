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

    /**
     * Dispatches recorded for the region, 0 when absent, read by name as each store's user asks for
     * one field (hintmap: {@code readInto} into {@code scratch}'s holder, then its field). The default
     * goes through {@link #recordFor}.
     */
    default long dispatchCount(String name, Fields scratch) {
        RegionRecord r = recordFor(name);
        return r == null ? 0 : r.dispatchCount();
    }

    /**
     * Mean kernel ns of the region (total / count, rounded down), 0 when absent, read as
     * {@link #dispatchCount(String, Fields)} reads. The default goes through {@link #recordFor}.
     */
    default long meanKernelNs(String name, Fields scratch) {
        RegionRecord r = recordFor(name);
        return r == null ? 0 : r.meanKernelNs();
    }

    /** A consistent (as far as the store gives one) copy of the region's record, or null when absent. */
    RegionRecord recordFor(String name);

    /**
     * Reads the region's record into {@code into} without allocating where the store can (hintmap's
     * {@code readInto}); false when absent. The default goes through {@link #recordFor}.
     */
    default boolean readInto(String name, Fields into) {
        RegionRecord r = recordFor(name);
        return r != null && into.set(r.dispatchCount(), r.kernelNsTotal(), r.kernelNsMax(), r.bytesTotal());
    }

    /**
     * The query path through a handle resolved once, where the store has one (hintmap's
     * {@code Region}, Agrona's counter ids, the map's value object; none of the latter two follows
     * an eviction, which the query benchmarks never cause); else a binding of {@code name} to
     * {@link #readInto}.
     */
    default Reader reader(String name) {
        return into -> readInto(name, into);
    }

    /** Visits every region present, reading its record; returns a checksum of what it read. */
    long iterate();

    /**
     * {@link #iterate()} through the store's allocation-free scan where it has one (hintmap's
     * {@code forEachView}, Agrona's counter walk without label strings); the default is
     * {@link #iterate()}. Reads each record, and the name's length where the store keeps names.
     */
    default long visit() {
        return iterate();
    }

    int size();

    @Override
    void close();

    /** Queries one region, resolved once. */
    @FunctionalInterface
    interface Reader {
        boolean readInto(Fields into);
    }

    /** Records into one region. */
    @FunctionalInterface
    interface Recorder {
        void record(long kernelNs, long bytes);
    }
}
