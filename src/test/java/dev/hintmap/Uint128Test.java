package dev.hintmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The hot set's exact sums ({@link Uint128}) against {@link BigInteger} and {@link BigDecimal}, which
 * round and compare by another route: sums of saturated totals, the rounding of each to binary64
 * (ties to even, sticky bits far below the 53 kept), and the ceiling of a product back to an integer.
 */
class Uint128Test {
    private static final BigInteger TWO_64 = BigInteger.ONE.shiftLeft(64);

    private static BigInteger big(Uint128 v) {
        return BigInteger.valueOf(v.high()).shiftLeft(64).add(new BigInteger(Long.toUnsignedString(v.low())));
    }

    private static Uint128 of(BigInteger v) {
        return new Uint128(v.shiftRight(64).longValueExact(), v.mod(TWO_64).longValue());
    }

    /** Values at every edge the conversion has: word boundaries, the 53-bit rounding point, ties, sticky bits. */
    private static List<BigInteger> edges() {
        List<BigInteger> values = new ArrayList<>();
        for (int bit : new int[] {0, 1, 52, 53, 54, 62, 63, 64, 65, 75, 94, 116, 117, 126}) {
            BigInteger p = BigInteger.ONE.shiftLeft(bit);
            for (int d = -3; d <= 3; d++) {
                BigInteger v = p.add(BigInteger.valueOf(d));
                if (v.signum() >= 0 && v.bitLength() <= 127) {
                    values.add(v);
                }
            }
        }
        // Exact ties between two doubles (spacing 2^shift above 2^(53+shift)): one next to an even
        // significand rounds down to it, one next to an odd significand rounds up, and one sticky bit
        // far below the tie breaks it upwards.
        for (int shift : new int[] {12, 40, 64, 70}) {
            BigInteger base = BigInteger.ONE.shiftLeft(53 + shift);
            BigInteger half = BigInteger.ONE.shiftLeft(shift - 1);
            values.add(base.add(half));
            values.add(base.add(half).add(BigInteger.ONE));
            values.add(base.add(half).add(half).add(half));
        }
        BigInteger longMax = BigInteger.valueOf(Long.MAX_VALUE);
        values.add(longMax.multiply(BigInteger.valueOf(3))); // three saturated regions
        values.add(longMax.multiply(BigInteger.valueOf(0xFFFF_FFFFL))); // the most a file can sum
        return values;
    }

    @Test
    void roundsEveryValueToTheNearestDoubleTiesToEvenAsBigIntegerDoes() {
        List<BigInteger> values = edges();
        SplittableRandom random = new SplittableRandom(20261206);
        for (int i = 0; i < 20_000; i++) {
            int bits = 1 + random.nextInt(126);
            values.add(new BigInteger(bits, new java.util.Random(random.nextLong())));
        }
        for (BigInteger v : values) {
            assertEquals(v.doubleValue(), of(v).toDouble(), () -> v + " rounds as BigInteger.doubleValue rounds it");
        }
    }

    @Test
    void sumsSaturatedTotalsExactlyAndClampsOnlyWhereAskedTo() {
        Uint128 sum = Uint128.ZERO;
        BigInteger want = BigInteger.ZERO;
        for (int i = 0; i < 5; i++) {
            sum = sum.plus(Long.MAX_VALUE);
            want = want.add(BigInteger.valueOf(Long.MAX_VALUE));
            assertEquals(want, big(sum));
        }
        assertEquals(Long.MAX_VALUE, sum.clampedToLong());
        assertEquals(12, Uint128.of(5).plus(7).clampedToLong());
        assertEquals(Long.MAX_VALUE, Uint128.of(Long.MAX_VALUE).clampedToLong());
        assertEquals(Long.MAX_VALUE, Uint128.of(Long.MAX_VALUE).plus(1).clampedToLong(), "2^63 clamps");
        assertEquals("46116860184273879035", sum.toString());
        assertThrows(IllegalArgumentException.class, () -> Uint128.ZERO.plus(-1));
    }

    @Test
    void comparesAsTheIntegersCompareTheLowWordUnsigned() {
        List<BigInteger> values = edges();
        for (BigInteger a : values) {
            for (BigInteger b : values) {
                assertEquals(Integer.signum(a.compareTo(b)), Integer.signum(of(a).compareTo(of(b))), a + " vs " + b);
            }
        }
    }

    @Test
    void theCeilingOfADoubleIsTheSmallestIntegerAtOrAboveIt() {
        List<Double> xs = new ArrayList<>(List.of(0.0, 0.5, 1.0, 1.5, 0x1p52 + 0.5, 0x1p53, 0x1p63 - 1024, 0x1p63,
                0x1p64, 0x1p64 * 1.5, 0x1p94 + 0x1p42, Math.nextDown(0x1p127), 9.131138316486228e18));
        SplittableRandom random = new SplittableRandom(42);
        for (int i = 0; i < 20_000; i++) {
            xs.add(Math.scalb(random.nextDouble(), random.nextInt(128)));
        }
        for (double x : xs) {
            BigInteger want = new BigDecimal(x).setScale(0, RoundingMode.CEILING).toBigIntegerExact();
            assertEquals(want, big(Uint128.ceil(x)), () -> "ceil(" + x + ")");
        }
        assertThrows(IllegalArgumentException.class, () -> Uint128.ceil(Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> Uint128.ceil(-1));
        assertThrows(IllegalArgumentException.class, () -> Uint128.ceil(0x1p127));
    }
}
