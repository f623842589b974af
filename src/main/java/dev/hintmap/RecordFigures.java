package dev.hintmap;

import dev.hintmap.format.RecordRules;

/**
 * The four figures of one region's record (FORMAT.md §3.7) and the answers that follow from them,
 * shared by every shape a record takes: {@link RegionRecord} (an immutable copy), {@link MutableRecord}
 * (a reusable holder) and {@link RegionView} (a region seen during a scan). Each shape supplies the
 * four figures; the derived answers are written here once, by the record rules of FORMAT.md §7.2.1,
 * so that a mean or a hot verdict is the same whichever shape a caller holds, and the same as C's
 * {@code hm_record_mean} and {@code hm_record_hot}.
 *
 * <p>Part of the API so that code can take any of the three: a ranking or a report written against
 * {@code RecordFigures} serves records from a snapshot, a reused holder and a scan alike. The answers
 * allocate nothing. Implementations outside this library are allowed (a test double, an adapter over
 * another profile format); they inherit the same answers.
 */
public interface RecordFigures {
    /**
     * Samples recorded since the region was (last) inserted.
     *
     * @return the dispatch count, {@code >= 0} (0 only for an empty holder)
     */
    long dispatchCount();

    /**
     * Sum of kernel times.
     *
     * @return the total in ns, {@code >= 0}
     */
    long kernelNsTotal();

    /**
     * Largest kernel time.
     *
     * @return the maximum in ns, {@code >= 0}
     */
    long kernelNsMax();

    /**
     * Sum of bytes touched.
     *
     * @return the total in bytes, {@code >= 0}
     */
    long bytesTotal();

    /**
     * Mean kernel time per dispatch.
     *
     * @return {@code kernelNsTotal() / dispatchCount()} in ns, rounded down; 0 when
     *     {@code dispatchCount()} is 0
     */
    default long meanKernelNs() {
        return RecordRules.mean(kernelNsTotal(), dispatchCount());
    }

    /**
     * Mean bytes touched per dispatch.
     *
     * @return {@code bytesTotal() / dispatchCount()} in bytes, rounded down; 0 when
     *     {@code dispatchCount()} is 0
     */
    default long meanBytes() {
        return RecordRules.mean(bytesTotal(), dispatchCount());
    }

    /**
     * Whether the record is hot for {@code thresholdNs}, as {@link HintStore#isHot(String)} and
     * {@link HintSnapshot#isHot(String)} decide with the store's {@link HintStore#hotThresholdNs()}.
     *
     * @param thresholdNs the hot threshold in ns
     * @return true when the record holds at least one dispatch and its mean kernel time (ns,
     *     rounded down) is at least {@code thresholdNs}; false without dispatches
     */
    default boolean isHot(long thresholdNs) {
        return RecordRules.isHot(dispatchCount(), kernelNsTotal(), thresholdNs);
    }
}
