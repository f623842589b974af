package dev.hintmap.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;

/**
 * The stored form of a long name (FORMAT.md §1.1) against the shared vectors
 * ({@code vectors/stored-names.txt}, which the C library and the CUPTI collector check too), and
 * its properties for any name and limit.
 */
class StoredNameTest {
    @Test
    void matchesTheSharedVectors() throws IOException {
        int rows = 0;
        for (String line : resource("/vectors/stored-names.txt").split("\n")) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split("\t", -1);
            assertEquals(3, f.length, line);
            assertEquals(f[1], StoredName.of(f[2], Integer.parseInt(f[0])), line);
            rows++;
        }
        assertEquals(91, rows);
    }

    @Test
    void aNameThatFitsIsItsOwnStoredForm() {
        String name = "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)";
        assertSame(name, StoredName.of(name, 100));
        assertEquals("void cutlass::Kernel2<cutlass_8~766184ddbf0bf3f7c63924fa0f17e1b7", StoredName.of(name, 64));
    }

    /** §1.1 at the boundary: L bytes are whole, L + 1 are cut to exactly L, a character across the cut is left out whole. */
    @Test
    void aNameOfTheLimitIsWholeOneByteMoreIsShortenedAndACharacterIsNeverSplit() {
        String kernel = "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)";
        int n = kernel.length(); // ASCII: 99 bytes
        assertSame(kernel, StoredName.of(kernel, n));
        String cut = StoredName.of(kernel, n - 1);
        assertEquals(n - 1, cut.length());
        assertEquals(kernel.substring(0, n - 1 - StoredName.TAG_BYTES) + "~", cut.substring(0, n - StoredName.TAG_BYTES));
        String euro = "\u20AC".repeat(12) + kernel; // 36 bytes of 3-byte characters first
        assertEquals("\u20AC".repeat(10) + "~", StoredName.of(euro, 64).substring(0, 11)); // 30 bytes, not 31
        assertEquals(StoredName.TAG_BYTES, StoredName.of(euro, 33).length()); // the smallest limit: the tag alone
        assertEquals("~", StoredName.of(euro, 35).substring(0, 1)); // 2 bytes of room: no whole euro sign
    }

    @Test
    void rejectsWhatNoStoreCanHold() {
        assertThrows(IllegalArgumentException.class, () -> StoredName.of(null, 64));
        assertThrows(IllegalArgumentException.class, () -> StoredName.of("", 64));
        assertThrows(IllegalArgumentException.class, () -> StoredName.of("x".repeat(100) + "\uD800", 64));
        assertThrows(IllegalArgumentException.class, () -> StoredName.of("abc", 0));
    }

    @Test
    void aShortenedNameIsToldByItsShapeAndItsTagIsItsHash() {
        String name = "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)";
        String stored = StoredName.of(name, 64);
        assertTrue(StoredName.isShortened(stored, 64));
        assertEquals(stored.substring(stored.length() - 33), StoredName.tagOf(stored, 64));
        assertTrue(StoredName.tagOf(stored, 64).matches("~[0-9a-f]{32}"), stored);
        assertFalse(StoredName.isShortened(name, 256), "a name stored whole");
        assertEquals("", StoredName.tagOf(name, 256));
        assertFalse(StoredName.isShortened(stored, 256),
                "a short name that ends in ~ and hex digits, far below the limit, is a name of its own");
        assertFalse(StoredName.isShortened(stored.substring(0, stored.length() - 1), 63), "31 hex digits");
        assertFalse(StoredName.isShortened(stored.toUpperCase(java.util.Locale.ROOT), 64),
                "upper-case digits are no digest of the rule");
        assertFalse(StoredName.isShortened(stored, 32), "no file has a limit below 33");
    }

    /** Issue 32 finding 2: a limit that cannot hold the '~' and the 32 hex digits is refused, whatever the name. */
    @Test
    void refusesLimitsThatCannotHoldTheWholeDigest() {
        for (int limit : new int[] {1, 16, 17, 32, 1025}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> StoredName.of("kernel_0", limit));
            assertTrue(e.getMessage().contains("outside [33, 1024]"), e.getMessage());
        }
        assertEquals("kernel_0", StoredName.of("kernel_0", 33));
    }

    @Property(tries = 2000)
    void isShortEnoughWellFormedIdempotentAndKeepsAPrefix(@ForAll @StringLength(min = 1, max = 400) String name,
            @ForAll @IntRange(min = 33, max = 300) int limit) throws NoSuchAlgorithmException {
        byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
        if (!new String(utf8, StandardCharsets.UTF_8).equals(name)) {
            assertThrows(IllegalArgumentException.class, () -> StoredName.of(name, limit)); // an unpaired surrogate
            return;
        }
        String stored = StoredName.of(name, limit);
        byte[] storedBytes = stored.getBytes(StandardCharsets.UTF_8);
        if (utf8.length <= limit) {
            assertSame(name, stored);
            return;
        }
        assertTrue(StoredName.isShortened(stored, limit), "a shortened name is seen as one: " + stored);
        assertTrue(stored.endsWith(StoredName.tagOf(stored, limit)) && !StoredName.tagOf(stored, limit).isEmpty(), stored);
        assertTrue(storedBytes.length <= limit, stored);
        assertEquals(stored, StoredName.of(stored, limit), "the stored form of a stored form is itself");
        String hex = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(utf8), 0, 16);
        assertTrue(stored.endsWith("~" + hex), stored);
        String prefix = stored.substring(0, stored.length() - StoredName.TAG_BYTES);
        assertTrue(name.startsWith(prefix), stored);
        int room = limit - StoredName.TAG_BYTES;
        int next = prefix.getBytes(StandardCharsets.UTF_8).length
                + String.valueOf(Character.toChars(name.codePointAt(prefix.length()))).getBytes(StandardCharsets.UTF_8).length;
        assertTrue(next > room, "the prefix is the longest that fits: " + stored);
    }

    /**
     * Issue 32 finding 1: two different long names with one {@code hm64} (hm64's zero state,
     * {@link Hm64Collisions}), which format version 2 stored under one name at every limit up to
     * 1024, have two stored forms.
     */
    @Test
    void twoLongNamesWithOneHm64HaveTwoStoredForms() {
        String[] pair = Hm64Collisions.pair();
        byte[] a = pair[0].getBytes(StandardCharsets.UTF_8);
        byte[] b = pair[1].getBytes(StandardCharsets.UTF_8);
        assertEquals(Hm64.ofBytes(a, a.length), Hm64.ofBytes(b, b.length)); // the pair really collides
        for (int limit : new int[] {64, 256, 1024}) {
            assertEquals(Hm64Collisions.version2StoredForm(pair[0], limit), Hm64Collisions.version2StoredForm(pair[1], limit),
                    "version 2 stored both as one name at limit " + limit);
            String sa = StoredName.of(pair[0], limit);
            String sb = StoredName.of(pair[1], limit);
            assertEquals(sa.substring(0, limit - 32), sb.substring(0, limit - 32)); // the same prefix and '~'
            assertNotEquals(sa, sb, "limit " + limit);
        }
    }

    private static String resource(String path) throws IOException {
        try (InputStream in = StoredNameTest.class.getResourceAsStream(path)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
