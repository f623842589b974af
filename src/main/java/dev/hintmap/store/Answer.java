package dev.hintmap.store;

import dev.hintmap.format.RecordRules;

/**
 * What a query asks of a region's record ({@link StoreEngine#slotReadAt}, {@link SlotRecord#answer}),
 * each answer read from one consistent, sound record (FORMAT.md §7.2.2). Callers pass a constant,
 * so that each inlined read keeps only its own branch: the comparisons below are of constants, which
 * the JIT folds (a {@code switch} over an enum would index a lookup array it cannot fold).
 */
public enum Answer {
    /** The dispatch count, {@code >= 1}. */
    COUNT,
    /** The mean kernel time ({@link RecordRules#mean}). */
    MEAN,
    /** 1 when hot ({@link RecordRules#isHot}), else 0. */
    HOT,
    /** 1, with the whole record in the caller's holder. */
    RECORD;

    /**
     * The one computation of an answer other than {@link #RECORD} from a sound record's count and
     * total: the count, the mean, or 1/0 for hot against {@code thresholdNs}.
     */
    long of(long count, long total, long thresholdNs) {
        if (this == COUNT) {
            return count;
        }
        if (this == MEAN) {
            return RecordRules.mean(total, count);
        }
        if (this == HOT) {
            return RecordRules.isHot(count, total, thresholdNs) ? 1 : 0;
        }
        throw new IllegalArgumentException("no answer from count and total: " + this);
    }
}
