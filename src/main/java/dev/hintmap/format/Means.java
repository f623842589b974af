package dev.hintmap.format;

/**
 * Comparisons of a mean {@code floor(total / count)} with a bound, without the division: a
 * 64-bit {@code idiv} costs 40–90 cycles on the x86-64 cores measured here, more than the rest of
 * a record read (docs/PERFORMANCE.md), and every read checks the §7.2.1 invariant
 * {@code mean <= max} while {@code isHot} compares the mean with the threshold. Each is exact
 * for {@code count >= 1} and {@code total, bound} in {@code [0, 2^63-1]}.
 */
public final class Means {
    private Means() {}

    /** {@code floor(total / count) <= bound}, i.e. {@code total < (bound + 1) * count}. */
    public static boolean atMost(long total, long count, long bound) {
        if (bound == Long.MAX_VALUE) {
            return true;
        }
        long limit = (bound + 1) * count;
        return Math.multiplyHigh(bound + 1, count) != 0 || limit < 0 || total < limit; // overflow: above any total
    }

    /** {@code floor(total / count) >= bound}, i.e. {@code total >= bound * count}. */
    public static boolean atLeast(long total, long count, long bound) {
        long limit = bound * count;
        return Math.multiplyHigh(bound, count) == 0 && limit >= 0 && total >= limit; // overflow: above any total
    }
}
