package dev.hintmap.format;

import static org.junit.jupiter.api.Assertions.assertEquals;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

/** {@link Means} agrees with the division it replaces, near the edges too. */
class MeansTest {
    @Property
    void atMostAndAtLeastAgreeWithTheDivision(@ForAll @LongRange(min = 0) long total,
            @ForAll @LongRange(min = 1) long count, @ForAll @LongRange(min = 0) long bound) {
        assertEquals(total / count <= bound, Means.atMost(total, count, bound));
        assertEquals(total / count >= bound, Means.atLeast(total, count, bound));
    }

    @Property
    void smallValuesAgreeWithTheDivision(@ForAll @LongRange(min = 0, max = 1000) long total,
            @ForAll @LongRange(min = 1, max = 50) long count, @ForAll @LongRange(min = 0, max = 100) long bound) {
        assertEquals(total / count <= bound, Means.atMost(total, count, bound));
        assertEquals(total / count >= bound, Means.atLeast(total, count, bound));
    }

    @Test
    void theEdgesOfTheRange() {
        long max = Long.MAX_VALUE;
        long[][] cases = {{max, 1, max}, {max, 1, max - 1}, {max, 2, max / 2}, {max, 2, max / 2 + 1}, {0, 1, 0},
            {0, max, 0}, {max, max, 1}, {max, max, 0}, {max - 1, max, 0}, {max, 3, max / 3}, {5, 2, 2}, {5, 2, 3}};
        for (long[] c : cases) {
            assertEquals(c[0] / c[1] <= c[2], Means.atMost(c[0], c[1], c[2]), java.util.Arrays.toString(c));
            assertEquals(c[0] / c[1] >= c[2], Means.atLeast(c[0], c[1], c[2]), java.util.Arrays.toString(c));
        }
    }
}
