package dev.hintmap;

import java.math.BigInteger;

/**
 * A non-negative integer below 2^127 in two 64-bit words, {@code low} read unsigned: the hot set's
 * exact sums of kernel time (docs/GUIDE.md, "The hot set by coverage", steps 2, 5 and 6). One
 * region's total is at most 2^63-1 and a file holds fewer than 2^32 regions, so every such sum is
 * below 2^95 and never wraps here, where a saturating {@code long} would stop at 2^63-1 and make
 * three saturated regions look like one.
 *
 * <p>The C twin is {@code wide_ns} in native-bench/src/hot_set.c, with the same two words and the
 * same steps, so both libraries round a sum to binary64 alike by construction. Two words rather
 * than {@code BigInteger} (no allocation per digit, no general arithmetic needed: only adding a
 * {@code long}, comparing, and converting to and from binary64); the C side uses two words rather
 * than {@code unsigned __int128}, an extension of GCC and Clang that MSVC and 32-bit targets lack.
 */
record Uint128(long high, long low) implements Comparable<Uint128> {
    static final Uint128 ZERO = new Uint128(0, 0);

    Uint128 {
        if (high < 0) {
            throw new IllegalArgumentException("high word " + high + " has its top bit set: not below 2^127");
        }
    }

    /** The value of a non-negative {@code long}. */
    static Uint128 of(long n) {
        if (n < 0) {
            throw new IllegalArgumentException(n + " is negative");
        }
        return new Uint128(0, n);
    }

    /** This plus {@code n >= 0}, exactly (the carry out of the low word goes into the high one). */
    Uint128 plus(long n) {
        if (n < 0) {
            throw new IllegalArgumentException(n + " is negative");
        }
        long sum = low + n;
        return new Uint128(Long.compareUnsigned(sum, low) < 0 ? high + 1 : high, sum);
    }

    @Override
    public int compareTo(Uint128 other) {
        int c = Long.compare(high, other.high);
        return c != 0 ? c : Long.compareUnsigned(low, other.low);
    }

    /** This value, or 2^63-1 where it is larger: how the hot set reports a sum in a {@code long}. */
    long clampedToLong() {
        return high != 0 || low < 0 ? Long.MAX_VALUE : low;
    }

    /**
     * The nearest binary64 to this value, ties to even (what C's conversion of an integer type
     * gives in the default rounding mode): the top 64 bits with every lower bit folded into the
     * last one as a sticky bit (53 significant bits are kept, so the rounding only needs to know
     * whether anything below the 64 was set), converted, then scaled by the power of two shifted out.
     */
    double toDouble() {
        if (high == 0) {
            return unsignedToDouble(low);
        }
        int shift = 64 - Long.numberOfLeadingZeros(high); // 1..63: bits of the high word
        long top = (high << (64 - shift)) | (low >>> shift);
        if ((low << (64 - shift)) != 0) {
            top |= 1; // sticky
        }
        return Math.scalb(unsignedToDouble(top), shift); // exact: a power of two, far from overflow
    }

    /** The nearest binary64 to {@code n} read as unsigned. */
    private static double unsignedToDouble(long n) {
        if (n >= 0) {
            return n;
        }
        // Halve with the lost bit kept as a sticky bit (bit 0 lies far below the 53 kept): one rounding.
        return (double) ((n >>> 1) | (n & 1)) * 2.0;
    }

    /**
     * The smallest integer {@code >= x}, for a finite {@code x} in {@code [0, 2^127)}. A double at or
     * above 2^52 is already an integer: its 53-bit significand shifted into place.
     */
    static Uint128 ceil(double x) {
        if (!(x >= 0 && x < 0x1p127)) {
            throw new IllegalArgumentException(x + " is not in [0, 2^127)");
        }
        if (x < 0x1p63) {
            long n = (long) x; // truncation of a non-negative double below 2^63: exact
            return new Uint128(0, (double) n < x ? n + 1 : n);
        }
        int shift = Math.getExponent(x) - 52; // 11..74: x = significand * 2^shift
        long significand = (Double.doubleToRawLongBits(x) & ((1L << 52) - 1)) | (1L << 52);
        return shift < 64
                ? new Uint128(significand >>> (64 - shift), significand << shift)
                : new Uint128(significand << (shift - 64), 0);
    }

    @Override
    public String toString() {
        return high == 0 ? Long.toUnsignedString(low) // decimal, for messages only
                : BigInteger.valueOf(high).shiftLeft(64).add(new BigInteger(Long.toUnsignedString(low))).toString();
    }
}
