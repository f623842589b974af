package dev.hintmap.format;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The one saturating add, with the same table as C's {@code saturating_add_clamps_sums_and_damaged_values}. */
class SaturatingTest {
    private static final long MAX = Long.MAX_VALUE;

    @ParameterizedTest(name = "{0} + {1} = {2}")
    @CsvSource({
        "0, 0, 0",
        "5, 3, 8",
        "9223372036854775806, 1, 9223372036854775807",
        "9223372036854775806, 5, 9223372036854775807",
        "9223372036854775807, 0, 9223372036854775807",
        "9223372036854775807, 9223372036854775807, 9223372036854775807",
        // a damaged value from the file (top bit set) stays at the maximum, never wraps to a small sum
        "-1, 5, 9223372036854775807",
        "-9223372036854775808, 0, 9223372036854775807",
    })
    void sumsClampAtTheMaximumAndADamagedValueReadsAsSaturated(long a, long b, long sum) {
        assertEquals(sum, Saturating.add(a, b));
        assertEquals(MAX, Saturating.MAX);
    }

    @org.junit.jupiter.api.Test
    void theRunningMaximumComparesUnsignedSoADamagedMaximumStaysSaturated() {
        assertEquals(7, Saturating.max(3, 7));
        assertEquals(7, Saturating.max(7, 3));
        assertEquals(MAX, Saturating.max(-1, 5)); // top bit set: a u64 above 2^63-1, as C sees it
        assertEquals(MAX, Saturating.max(Long.MIN_VALUE, MAX));
    }
}
