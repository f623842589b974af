package dev.hintmap.format;

/**
 * The arithmetic of scaling a record (FORMAT.md §7.6: decay, and a weighted merge), exact and
 * allocation-free: decay runs it for every region while holding that region's slot lock, a lock
 * that writers of other processes spin on, so it must not allocate (a {@code BigInteger} could
 * start a garbage collection inside the critical section).
 *
 * <p>{@code floor(value * numerator / denominator)} needs the 126-bit product of two values below
 * 2^63: {@link Math#multiplyHigh} gives its high word, {@link #divideUnsigned} divides the two words
 * by the denominator (Knuth's algorithm D on 32-bit digits, Hacker's Delight {@code divlu}). The
 * results are those of the exact integer arithmetic, bit for bit ({@code RecordScalingProperties}
 * checks them against {@code BigInteger}).
 */
public final class RecordScaling {
    private static final long DIGIT = 1L << 32;
    private static final long DIGIT_MASK = DIGIT - 1;

    private RecordScaling() {}

    /**
     * The scaled dispatch count of §7.6: {@code max(1, rint(double(count) * factor))}, in IEEE-754
     * binary64 (so it can differ by one from the exact product, as §7.6 says), a result
     * {@code >= 2^63} giving {@code 2^63-1}.
     *
     * @param count a dispatch count, {@code >= 1}
     * @param factor a positive finite number
     */
    public static long count(long count, double factor) {
        double wanted = Math.rint(count * factor);
        return wanted >= 0x1p63 ? Saturating.MAX : Math.max(1, (long) wanted);
    }

    /**
     * {@code min(2^63-1, floor(value * numerator / denominator))}, exactly.
     *
     * @param value in {@code [0, 2^63-1]}
     * @param numerator in {@code [0, 2^63-1]}
     * @param denominator in {@code [1, 2^63-1]}
     */
    public static long scale(long value, long numerator, long denominator) {
        long high = Math.multiplyHigh(value, numerator); // both >= 0: the signed high word is the unsigned one
        long low = value * numerator;
        if (high == 0 && low >= 0) {
            return low / denominator; // the product fits 63 bits: the common case
        }
        if (Long.compareUnsigned(high, denominator) >= 0) {
            return Saturating.MAX; // the quotient needs more than 64 bits
        }
        long quotient = divideUnsigned(high, low, denominator);
        return quotient < 0 ? Saturating.MAX : quotient; // at least 2^63
    }

    /**
     * {@code floor((high * 2^64 + low) / divisor)}, all three unsigned, for {@code high < divisor}
     * (so the quotient fits 64 bits): Hacker's Delight {@code divlu}, two steps of Knuth's
     * algorithm D with 32-bit digits on the divisor shifted until its top bit is set.
     */
    static long divideUnsigned(long high, long low, long divisor) {
        int shift = Long.numberOfLeadingZeros(divisor);
        long v = divisor << shift; // normalised: top bit set, so each estimate below is at most 2 too large
        long v1 = v >>> 32;
        long v0 = v & DIGIT_MASK;
        long u32 = shift == 0 ? high : (high << shift) | (low >>> (64 - shift));
        long u10 = low << shift;
        long u1 = u10 >>> 32;
        long u0 = u10 & DIGIT_MASK;

        long q1 = Long.divideUnsigned(u32, v1);
        long r = u32 - q1 * v1;
        while (Long.compareUnsigned(q1, DIGIT) >= 0 || Long.compareUnsigned(q1 * v0, (r << 32) | u1) > 0) {
            q1--;
            r += v1;
            if (Long.compareUnsigned(r, DIGIT) >= 0) {
                break;
            }
        }
        long u21 = (u32 << 32) + u1 - q1 * v; // the remainder of the first digit, below v

        long q0 = Long.divideUnsigned(u21, v1);
        r = u21 - q0 * v1;
        while (Long.compareUnsigned(q0, DIGIT) >= 0 || Long.compareUnsigned(q0 * v0, (r << 32) | u0) > 0) {
            q0--;
            r += v1;
            if (Long.compareUnsigned(r, DIGIT) >= 0) {
                break;
            }
        }
        return (q1 << 32) + q0;
    }
}
