package dev.hintmap.format;

/**
 * The rules on one record's four fields (FORMAT.md §7.2.1 and §3.1), each written once: the mean,
 * whether a record is sound, whether it is hot. Every class that answers one of these questions,
 * in the library and in the tool, asks here; the C library's twins are {@code hm_record_sound} and
 * {@code hm_record_hot} ({@code include/hintmap_format.h}), with the same arithmetic.
 *
 * <p>The comparisons of a mean with a bound multiply instead of dividing: a 64-bit {@code idiv}
 * costs 40–90 cycles on the x86-64 cores measured here, more than the rest of a record read
 * (docs/PERFORMANCE.md), and every read checks soundness. For integers,
 * {@code floor(total / count) >= bound} is exactly {@code total >= bound * count}, and
 * {@code floor(total / count) <= bound} is exactly {@code total < (bound + 1) * count}; the
 * products are compared without overflow (a product above {@code 2^63-1} is above every total).
 */
public final class RecordRules {
    private RecordRules() {}

    /**
     * The mean of a sum over {@code count} dispatches, rounded down.
     *
     * @param total the sum, {@code >= 0}
     * @param count the number of dispatches, {@code >= 0}
     * @return {@code floor(total / count)}; 0 when {@code count} is 0
     */
    public static long mean(long total, long count) {
        return count == 0 ? 0 : total / count;
    }

    /**
     * Whether a record is sound: what every record a writer publishes satisfies (FORMAT.md §7.2.1),
     * so a consistent read that breaks it comes from a damaged file. {@code dispatch_count > 0},
     * {@code kernel_ns_max <= kernel_ns_total}, {@code floor(kernel_ns_total / dispatch_count) <=
     * kernel_ns_max}, and no field above {@code 2^63-1} (no negative long).
     *
     * @return true when the record is sound
     */
    public static boolean isSound(long count, long total, long max, long bytes) {
        return count > 0 && bytes >= 0 && max >= 0 && max <= total && meanAtMost(total, count, max);
    }

    /**
     * Whether a record is hot (FORMAT.md §3.1 {@code hot_threshold_ns}): it holds at least one
     * dispatch and its mean kernel time, rounded down, is at least {@code thresholdNs}. A record
     * without dispatches has no mean and is never hot, as an absent region is not.
     *
     * @param count the dispatch count, {@code >= 0}
     * @param total the kernel time total in ns, {@code >= 0}
     * @param thresholdNs the hot threshold in ns; a threshold {@code <= 0} makes every record with a
     *     dispatch hot
     * @return {@code count > 0 && floor(total / count) >= thresholdNs}, exactly
     */
    public static boolean isHot(long count, long total, long thresholdNs) {
        return count > 0 && (thresholdNs <= 0 || meanAtLeast(total, count, thresholdNs));
    }

    /** {@code floor(total / count) <= bound} for {@code count >= 1}, {@code total, bound} in {@code [0, 2^63-1]}. */
    static boolean meanAtMost(long total, long count, long bound) {
        if (bound == Long.MAX_VALUE) {
            return true;
        }
        long limit = (bound + 1) * count;
        return Math.multiplyHigh(bound + 1, count) != 0 || limit < 0 || total < limit; // overflow: above any total
    }

    /** {@code floor(total / count) >= bound} for {@code count >= 1}, {@code total, bound} in {@code [0, 2^63-1]}. */
    static boolean meanAtLeast(long total, long count, long bound) {
        long limit = bound * count;
        return Math.multiplyHigh(bound, count) == 0 && limit >= 0 && total >= limit; // overflow: above any total
    }
}
