package dev.hintmap.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.Arrays;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

/**
 * {@link RecordRules}: each rule equals exact (BigInteger) arithmetic on every input, near the edges
 * too, and its multiplying comparisons agree with the division they replace.
 */
class RecordRulesTest {
    private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

    private static BigInteger big(long v) {
        return BigInteger.valueOf(v);
    }

    /** floor(total / count) for count >= 1, total >= 0. */
    private static BigInteger exactMean(long total, long count) {
        return big(total).divide(big(count));
    }

    private static boolean exactHot(long count, long total, long threshold) {
        return count > 0 && exactMean(total, count).compareTo(big(threshold)) >= 0;
    }

    private static boolean exactSound(long count, long total, long max, long bytes) {
        boolean inRange = count >= 0 && total >= 0 && max >= 0 && bytes >= 0; // a negative long: top bit set
        return inRange && count > 0 && big(max).compareTo(big(total)) <= 0
                && exactMean(total, count).compareTo(big(max)) <= 0;
    }

    /** Longs of every size, the edges and the values beside them more often than chance gives them. */
    @Provide
    Arbitrary<Long> anyLong() {
        return Arbitraries.frequencyOf(
                Tuple.of(3, Arbitraries.longs()),
                Tuple.of(2, Arbitraries.longs().between(0, 1000)),
                Tuple.of(1, Arbitraries.of(0L, 1L, 2L, 3L, Long.MAX_VALUE, Long.MAX_VALUE - 1,
                        Long.MAX_VALUE / 2, Long.MAX_VALUE / 2 + 1, Long.MAX_VALUE / 3, -1L, Long.MIN_VALUE, 1L << 32,
                        (1L << 32) + 1, 3037000499L, 3037000500L)));
    }

    @Property(tries = 3000)
    void isHotIsExactArithmetic(@ForAll("anyLong") long count, @ForAll("anyLong") long total,
            @ForAll("anyLong") long threshold) {
        if (count < 0 || total < 0) {
            return; // not a record: RegionRecord refuses it, a read never returns it
        }
        assertEquals(exactHot(count, total, threshold), RecordRules.isHot(count, total, threshold),
                count + " " + total + " " + threshold);
    }

    @Property(tries = 3000)
    void isSoundIsExactArithmetic(@ForAll("anyLong") long count, @ForAll("anyLong") long total,
            @ForAll("anyLong") long max, @ForAll("anyLong") long bytes) {
        assertEquals(exactSound(count, total, max, bytes), RecordRules.isSound(count, total, max, bytes),
                count + " " + total + " " + max + " " + bytes);
    }

    @Property
    void meanIsTheExactMeanRoundedDown(@ForAll @LongRange(min = 0) long total, @ForAll @LongRange(min = 0) long count) {
        BigInteger expected = count == 0 ? BigInteger.ZERO : exactMean(total, count);
        assertEquals(expected, big(RecordRules.mean(total, count)));
        assertTrue(expected.compareTo(LONG_MAX) <= 0);
    }

    @Property
    void atMostAndAtLeastAgreeWithTheDivision(@ForAll @LongRange(min = 0) long total,
            @ForAll @LongRange(min = 1) long count, @ForAll @LongRange(min = 0) long bound) {
        assertEquals(total / count <= bound, RecordRules.meanAtMost(total, count, bound));
        assertEquals(total / count >= bound, RecordRules.meanAtLeast(total, count, bound));
        assertEquals(total / count >= bound, RecordRules.isHot(count, total, bound));
    }

    @Property
    void smallValuesAgreeWithTheDivision(@ForAll @LongRange(min = 0, max = 1000) long total,
            @ForAll @LongRange(min = 1, max = 50) long count, @ForAll @LongRange(min = 0, max = 100) long bound) {
        assertEquals(total / count <= bound, RecordRules.meanAtMost(total, count, bound));
        assertEquals(total / count >= bound, RecordRules.meanAtLeast(total, count, bound));
        assertEquals(total / count >= bound, RecordRules.isHot(count, total, bound));
    }

    @Test
    void theEdgesOfTheRange() {
        long max = Long.MAX_VALUE;
        long[][] cases = {{max, 1, max}, {max, 1, max - 1}, {max, 2, max / 2}, {max, 2, max / 2 + 1}, {0, 1, 0},
            {0, max, 0}, {max, max, 1}, {max, max, 0}, {max - 1, max, 0}, {max, 3, max / 3}, {5, 2, 2}, {5, 2, 3}};
        for (long[] c : cases) {
            assertEquals(c[0] / c[1] <= c[2], RecordRules.meanAtMost(c[0], c[1], c[2]), Arrays.toString(c));
            assertEquals(c[0] / c[1] >= c[2], RecordRules.meanAtLeast(c[0], c[1], c[2]), Arrays.toString(c));
            assertEquals(exactHot(c[1], c[0], c[2]), RecordRules.isHot(c[1], c[0], c[2]), Arrays.toString(c));
        }
    }

    @Test
    void aRecordWithoutDispatchesIsNeverHotAndNeverSound() {
        assertFalse(RecordRules.isHot(0, 0, 0));
        assertFalse(RecordRules.isHot(0, 5, -1));
        assertFalse(RecordRules.isSound(0, 0, 0, 0));
        assertEquals(0, RecordRules.mean(7, 0));
    }
}
