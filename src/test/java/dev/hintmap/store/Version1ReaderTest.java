package dev.hintmap.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintFileException;
import dev.hintmap.HintFileException.Problem;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.format.Hm64;
import dev.hintmap.format.Layouts;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The version-1 reader validates the header as every open does (one validation, by version): each
 * field out of range or inconsistent is named by itself, and a sound slot is read as recovery and
 * verify would keep it.
 */
class Version1ReaderTest {
    private static final Path GOLDEN_V1 = Path.of("src", "test", "resources", "vectors", "golden-v1.hints");

    @TempDir
    Path dir;

    private Path copy() throws IOException {
        Path file = dir.resolve("v1.hints");
        Files.copy(GOLDEN_V1, file);
        return file;
    }

    @ParameterizedTest
    @CsvSource({
        "capacity, 4, 67108865",
        "max_name_bytes, 4, 0",
        "max_name_bytes, 4, 1025",
        "slot_bytes, 4, 200",
        "index_entries, 4, 32",
        "max_probe, 4, 7",
        "writer_entries, 4, 1023",
        "writer_table_offset, 8, 8192",
        "index_offset, 8, 4096",
        "slots_offset, 8, 4096",
        "file_bytes, 8, 4096",
    })
    void eachInconsistentHeaderFieldIsNamedByItself(String field, int size, long value) throws IOException {
        Path file = copy();
        patch(file, offsetOf(field), size, value);
        rewriteChecksum(file);
        HintFileException e = assertThrows(HintFileException.class,
                () -> Version1Reader.read(file, HintStoreOptions.defaults()));
        assertEquals(Problem.INCONSISTENT, e.problem(), e.getMessage());
        assertEquals(field, e.field(), e.getMessage());
        assertTrue(e.getMessage().contains(field), e.getMessage());
    }

    @Test
    void aVersionTwoLayoutFingerprintIsNotVersionOnes() throws IOException {
        Path file = copy();
        patch(file, Layouts.HDR_LAYOUT_FINGERPRINT, 8, Layouts.fingerprint());
        rewriteChecksum(file);
        HintFileException e = assertThrows(HintFileException.class,
                () -> Version1Reader.read(file, HintStoreOptions.defaults()));
        assertEquals(Problem.LAYOUT_MISMATCH, e.problem(), e.getMessage());
        assertTrue(e.getMessage().contains("version 1"), e.getMessage());
    }

    @Test
    void aFileShorterThanTheHeaderIsTruncated() throws IOException {
        Path file = dir.resolve("short.hints");
        Files.write(file, Arrays.copyOf(Files.readAllBytes(GOLDEN_V1), 100));
        HintFileException e = assertThrows(HintFileException.class,
                () -> Version1Reader.read(file, HintStoreOptions.defaults()));
        assertEquals(Problem.TRUNCATED, e.problem(), e.getMessage());
        assertTrue(e.getMessage().contains("100 bytes"), e.getMessage());
    }

    @Test
    void theGoldenFileReadsEveryRegionWithNoneUnsound() throws IOException {
        Version1Profile v1 = Version1Reader.read(GOLDEN_V1, HintStoreOptions.defaults());
        assertEquals(4, v1.regions().size(), v1.regions().toString());
        assertEquals(0, v1.unsoundSlots());
        assertEquals(64, v1.maxNameBytes());
    }

    private static long offsetOf(String field) {
        return switch (field) {
            case "capacity" -> Layouts.HDR_CAPACITY;
            case "max_name_bytes" -> Layouts.HDR_MAX_NAME_BYTES;
            case "slot_bytes" -> Layouts.HDR_SLOT_BYTES;
            case "index_entries" -> Layouts.HDR_INDEX_ENTRIES;
            case "max_probe" -> Layouts.HDR_MAX_PROBE;
            case "writer_entries" -> Layouts.HDR_WRITER_ENTRIES;
            case "writer_table_offset" -> Layouts.HDR_WRITER_TABLE_OFFSET;
            case "index_offset" -> Layouts.HDR_INDEX_OFFSET;
            case "slots_offset" -> Layouts.HDR_SLOTS_OFFSET;
            case "file_bytes" -> Layouts.HDR_FILE_BYTES;
            default -> throw new IllegalArgumentException(field);
        };
    }

    private static void patch(Path file, long offset, int size, long value) throws IOException {
        byte[] content = Files.readAllBytes(file);
        byte[] bytes = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(value).array();
        System.arraycopy(bytes, 0, content, (int) offset, size);
        Files.write(file, content);
    }

    /** Recomputes header_checksum so that the checks behind it are reached. */
    private static void rewriteChecksum(Path file) throws IOException {
        byte[] content = Files.readAllBytes(file);
        int from = (int) Layouts.HDR_FORMAT_VERSION;
        int length = (int) (Layouts.HDR_HEADER_CHECKSUM - from);
        long sum = Hm64.ofBytes(Arrays.copyOfRange(content, from, from + length), length);
        patch(file, Layouts.HDR_HEADER_CHECKSUM, 8, sum);
    }
}
