package dev.hintmap.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
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
        assertEquals(75, rows);
    }

    @Test
    void aNameThatFitsIsItsOwnStoredForm() {
        String name = "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)";
        assertSame(name, StoredName.of(name, 100));
        assertEquals("void cutlass::Kernel2<cutlass_80_tensorop_bf16_~604c7a3337b87786", StoredName.of(name, 64));
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
        assertEquals("~604c7a3337b87786", StoredName.tagOf(stored, 64));
        assertFalse(StoredName.isShortened(name, 256), "a name stored whole");
        assertEquals("", StoredName.tagOf(name, 256));
        assertFalse(StoredName.isShortened(stored, 256),
                "a short name that ends in ~ and hex digits, far below the limit, is a name of its own");
        assertFalse(StoredName.isShortened("gemm~604c7a3337b8778", 64), "15 hex digits");
        assertFalse(StoredName.isShortened("void cutlass::Kernel2<cutlass_80_tensorop_bf16_~604C7A3337B87786", 64),
                "upper-case digits are no hash of the rule");
        assertTrue(StoredName.isShortened("3b0e", 4), "below 17 bytes a long name is stored as hash digits alone");
        assertEquals("3b0e", StoredName.tagOf("3b0e", 4));
        assertFalse(StoredName.isShortened("3b0e", 5));
    }

    @Property(tries = 2000)
    void isShortEnoughWellFormedIdempotentAndKeepsAPrefix(@ForAll @StringLength(min = 1, max = 400) String name,
            @ForAll @IntRange(min = 1, max = 300) int limit) {
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
        String hex = String.format("%016x", Hm64.ofBytes(utf8, utf8.length));
        if (limit < StoredName.TAG_BYTES) {
            assertEquals(hex.substring(0, Math.min(limit, 16)), stored);
        } else {
            assertTrue(stored.endsWith("~" + hex), stored);
            assertEquals("~" + hex, StoredName.tagOf(stored, limit));
            String prefix = stored.substring(0, stored.length() - StoredName.TAG_BYTES);
            assertTrue(name.startsWith(prefix), stored);
            int room = limit - StoredName.TAG_BYTES;
            int next = prefix.getBytes(StandardCharsets.UTF_8).length
                    + String.valueOf(Character.toChars(name.codePointAt(prefix.length()))).getBytes(StandardCharsets.UTF_8).length;
            assertTrue(next > room, "the prefix is the longest that fits: " + stored);
        }
    }

    private static String resource(String path) throws IOException {
        try (InputStream in = StoredNameTest.class.getResourceAsStream(path)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
