package dev.hintmap.format;

/**
 * The one saturating add of the format (FORMAT.md §1), the twin of C's {@code hm_sat_add}: every
 * count, sum and statistics counter of the file grows with it and never wraps.
 */
public final class Saturating {
    /** The largest value a count or sum of the file holds: 2^63-1. */
    public static final long MAX = Long.MAX_VALUE;

    private Saturating() {}

    /**
     * {@code a + b} as unsigned 64-bit numbers, clamped to {@link #MAX}. {@code b} is the
     * caller's value, in {@code [0, MAX]}; {@code a} may come from the file and be damaged: an
     * {@code a} with the top bit set (negative here) gives {@link #MAX}, as in C, where it is a
     * u64 at least 2^63.
     */
    public static long add(long a, long b) {
        long sum = a + b;
        // b >= 0: with a >= 0, an overflow shows as a negative sum; one sign test for both (a | sum),
        // one branch instead of two (docs/archive/RECORD-STEPS.md measured saturation at about 2 ns a record)
        return (a | sum) < 0 ? MAX : sum;
    }

    /**
     * The running maximum of §1: {@code min(max(a, b), MAX)} as unsigned 64-bit numbers, for the
     * caller's {@code b} in {@code [0, MAX]} and {@code a} from the file: a damaged {@code a} with
     * the top bit set gives {@link #MAX}, as C's unsigned compare does (a signed max would store
     * {@code b} and shrink the maximum).
     */
    public static long max(long a, long b) {
        return a < 0 ? MAX : Math.max(a, b);
    }
}
