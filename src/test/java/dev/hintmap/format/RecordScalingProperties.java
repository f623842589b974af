package dev.hintmap.format;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigInteger;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * {@link RecordScaling}, the allocation-free arithmetic of decay (FORMAT.md §7.6), gives exactly
 * what the {@code BigInteger} arithmetic it replaced gave: {@code min(2^63-1, floor(v * n / d))},
 * and the 128-by-64-bit division under it the exact quotient.
 */
class RecordScalingProperties {
    private static final BigInteger MAX = BigInteger.valueOf(Long.MAX_VALUE);
    private static final BigInteger TWO_64 = BigInteger.ONE.shiftLeft(64);

    /** The arithmetic RegionRecord.scaled used before (issue 32 finding 11): exact, allocating. */
    private static long exactScale(long value, long numerator, long denominator) {
        BigInteger q = BigInteger.valueOf(value).multiply(BigInteger.valueOf(numerator)).divide(BigInteger.valueOf(denominator));
        return q.compareTo(MAX) > 0 ? Long.MAX_VALUE : q.longValue();
    }

    /** Values below 2^63 from every magnitude, edges included: small, near 2^32, near 2^63, powers of two. */
    @Provide
    Arbitrary<Long> values() {
        return Arbitraries.oneOf(Arbitraries.longs().between(0, 1_000),
                Arbitraries.longs().between(0, Long.MAX_VALUE),
                Arbitraries.longs().between((1L << 32) - 3, (1L << 32) + 3),
                Arbitraries.longs().between(Long.MAX_VALUE - 1_000, Long.MAX_VALUE),
                Arbitraries.integers().between(0, 62).map(b -> 1L << b),
                Arbitraries.integers().between(1, 63).map(b -> (1L << b) - 1));
    }

    @Provide
    Arbitrary<Long> positives() {
        return values().filter(v -> v > 0);
    }

    @Property(tries = 5_000)
    void scaleIsTheExactFloorOfTheProductOverTheDenominatorSaturated(@ForAll("values") long value,
            @ForAll("values") long numerator, @ForAll("positives") long denominator) {
        assertEquals(exactScale(value, numerator, denominator), RecordScaling.scale(value, numerator, denominator),
                value + " * " + numerator + " / " + denominator);
    }

    /** Decay's own case: count' <= count, so the result never saturates and means are kept. */
    @Property(tries = 5_000)
    void scalingATotalDownByACountRatioIsExact(@ForAll("values") long total, @ForAll("positives") long count,
            @ForAll("positives") long fraction) {
        long scaledCount = Math.max(1, count / (fraction % 1_000 + 1));
        assertEquals(exactScale(total, scaledCount, count), RecordScaling.scale(total, scaledCount, count));
    }

    @Property(tries = 5_000)
    void divisionOfTwoWordsIsTheExactQuotient(@ForAll("values") long divisorBits, @ForAll long high, @ForAll long low) {
        long divisor = divisorBits == 0 ? 1 : divisorBits;
        long h = Long.remainderUnsigned(high, divisor); // below the divisor: the quotient fits 64 bits
        BigInteger dividend = new BigInteger(Long.toUnsignedString(h)).multiply(TWO_64).add(new BigInteger(Long.toUnsignedString(low)));
        BigInteger expected = dividend.divide(new BigInteger(Long.toUnsignedString(divisor)));
        assertEquals(expected.toString(), Long.toUnsignedString(RecordScaling.divideUnsigned(h, low, divisor)));
    }

    /** Divisors with the top bit set (no normalising shift) and the estimate-correction paths. */
    @Example
    void divisionAtTheEdgesIsExact() {
        long[] divisors = {1, 2, 3, 0xFFFF_FFFFL, 1L << 32, (1L << 32) + 1, Long.MAX_VALUE, Long.MIN_VALUE, -1L, -2L,
                0x8000_0000_0000_0001L, 0xFFFF_FFFF_0000_0000L};
        long[] words = {0, 1, 0xFFFF_FFFFL, 1L << 32, Long.MAX_VALUE, Long.MIN_VALUE, -1L, 0x7FFF_FFFF_8000_0000L};
        for (long d : divisors) {
            for (long high : words) {
                for (long low : words) {
                    if (Long.compareUnsigned(high, d) >= 0) {
                        continue;
                    }
                    BigInteger dividend = new BigInteger(Long.toUnsignedString(high)).multiply(TWO_64)
                            .add(new BigInteger(Long.toUnsignedString(low)));
                    assertEquals(dividend.divide(new BigInteger(Long.toUnsignedString(d))).toString(),
                            Long.toUnsignedString(RecordScaling.divideUnsigned(high, low, d)), high + ":" + low + " / " + d);
                }
            }
        }
    }

    /** §7.6's rounding of the count, in binary64: its two documented examples. */
    @Example
    void theCountIsRoundedThroughADoubleAsFormatSays() {
        assertEquals(2, RecordScaling.count(5, 0.3));
        assertEquals(8301034833169298432L, RecordScaling.count(Long.MAX_VALUE, 0.9));
        assertEquals(1, RecordScaling.count(1, 1e-9), "never below one dispatch");
        assertEquals(Long.MAX_VALUE, RecordScaling.count(Long.MAX_VALUE, 2), "saturates");
    }
}
