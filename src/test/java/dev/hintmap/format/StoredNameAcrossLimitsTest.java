package dev.hintmap.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;

/**
 * FORMAT.md §1.1 "Across limits": the stored form of a name at a smaller limit follows from its
 * stored form at a larger one ({@link StoredName#atSmallerLimit}), which is how {@code merge} and
 * {@code diff} match one kernel held by files of different {@code max_name_bytes}; and
 * {@link StoredName#isShortened} tells a shortened form from a name held whole.
 */
class StoredNameAcrossLimitsTest {
    static final String SOFTMAX = "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float,"
            + " at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)";

    @Property(tries = 3000)
    void theFormAtASmallerLimitFollowsFromTheFormAtALargerOne(@ForAll @StringLength(min = 1, max = 400) String name,
            @ForAll @IntRange(min = 33, max = 300) int larger, @ForAll @IntRange(min = 33, max = 300) int smaller) {
        Assume.that(smaller <= larger && new String(name.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8).equals(name));
        String atLarger = StoredName.of(name, larger);
        Assume.that(atLarger != name || !StoredName.isShortened(name, larger)); // a whole name shaped like a form: §1.1
        assertEquals(StoredName.of(name, smaller), StoredName.atSmallerLimit(atLarger, larger, smaller),
                () -> "from " + atLarger);
    }

    @Property(tries = 2000)
    void aStoredFormIsShortenedExactlyWhenTheNameIsLongerThanTheLimit(
            @ForAll @StringLength(min = 1, max = 400) String name, @ForAll @IntRange(min = 33, max = 300) int limit) {
        byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
        Assume.that(new String(utf8, StandardCharsets.UTF_8).equals(name));
        assertEquals(utf8.length > limit, StoredName.isShortened(StoredName.of(name, limit), limit), name);
    }

    @Test
    void aKernelHeldAtThreeLimitsHasOneFormAtTheSmallest() {
        String at1024 = StoredName.of(SOFTMAX, 1024);
        String at128 = StoredName.of(SOFTMAX, 128);
        String at64 = StoredName.of(SOFTMAX, 64);
        assertEquals(SOFTMAX, at1024);
        assertTrue(StoredName.isShortened(at128, 128) && StoredName.isShortened(at64, 64));
        assertFalse(StoredName.isShortened(at64, 128), "a form of 64 bytes is no shortened form at 128");
        assertFalse(StoredName.isShortened(SOFTMAX, 1024));
        assertEquals(at64, StoredName.atSmallerLimit(at128, 128, 64));
        assertEquals(at64, StoredName.atSmallerLimit(at1024, 1024, 64));
        assertEquals(at128, StoredName.atSmallerLimit(at128, 128, 128));
        // the old comparison hashed the form itself: no match
        assertFalse(at64.equals(StoredName.of(at128, 64)));
        assertThrows(IllegalArgumentException.class, () -> StoredName.atSmallerLimit(at64, 64, 128));
    }

    @Test
    void aPrefixCutInsideAMultiByteCharacterIsCutBackAtBothLimits() {
        String name = "kernel_" + "é".repeat(100) + "_bf16"; // 2-byte characters across every cut
        for (int larger = 40; larger <= 120; larger++) {
            for (int smaller = StoredName.TAG_BYTES; smaller <= larger; smaller++) {
                assertEquals(StoredName.of(name, smaller), StoredName.atSmallerLimit(StoredName.of(name, larger), larger,
                        smaller), larger + " -> " + smaller);
            }
        }
    }
}
