package dev.hintmap.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintStoreOptions;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The parameter ranges of FORMAT.md §2, written once in Java ({@link FileGeometry}) and once in C
 * ({@code hintmap.h}), against the shared {@code vectors/limits.txt} that C's test_rules reads too;
 * the public {@link HintStoreOptions} constants and every range check are these.
 */
class FileGeometryTest {
    @Test
    void theLimitsAreTheSharedVectors() throws IOException {
        Map<String, Long> limits = new TreeMap<>();
        try (InputStream in = FileGeometryTest.class.getResourceAsStream("/vectors/limits.txt")) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (!line.isEmpty() && !line.startsWith("#")) {
                    String[] f = line.split("\t", -1);
                    assertEquals(2, f.length, line);
                    limits.put(f[0], Long.parseLong(f[1]));
                }
            }
        }
        assertEquals(Map.of("max_capacity", (long) FileGeometry.MAX_CAPACITY,
                "max_name_bytes_limit", (long) FileGeometry.MAX_NAME_BYTES_LIMIT,
                "min_max_name_bytes", (long) FileGeometry.MIN_MAX_NAME_BYTES), limits);
        assertEquals(FileGeometry.MAX_CAPACITY, HintStoreOptions.MAX_CAPACITY);
        assertEquals(FileGeometry.MAX_NAME_BYTES_LIMIT, HintStoreOptions.MAX_NAME_BYTES_LIMIT);
        assertEquals(FileGeometry.MIN_MAX_NAME_BYTES, HintStoreOptions.MIN_NAME_BYTES);
        assertEquals(StoredName.TAG_BYTES, FileGeometry.MIN_MAX_NAME_BYTES, "the tag with an empty prefix (§1.1)");
        assertEquals(FileGeometry.MIN_MAX_NAME_BYTES, FormatVersion.CURRENT.minMaxNameBytes());
    }

    @Test
    void theRangesIncludeTheirEndsAndNothingBeyond() {
        assertTrue(FileGeometry.isCapacity(0) && FileGeometry.isCapacity(1 << 26));
        assertFalse(FileGeometry.isCapacity(-1) || FileGeometry.isCapacity((1 << 26) + 1));
        assertTrue(FileGeometry.isNameLimit(33) && FileGeometry.isNameLimit(1024));
        assertFalse(FileGeometry.isNameLimit(32) || FileGeometry.isNameLimit(1025) || FileGeometry.isNameLimit(0));
    }
}
