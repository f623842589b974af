package dev.hintmap.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintFileException;
import dev.hintmap.HintFileException.Problem;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import dev.hintmap.format.Hm64;
import dev.hintmap.format.Layouts;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The old-version reader validates the header as every open does (one validation, by the version
 * the file declares): each field out of range or inconsistent is named by itself, and a sound slot
 * is read as recovery and verify would keep it. Version-1 and version-2 files are read; a file of
 * the current version is validated and read no further.
 */
class OldVersionReaderTest {
    private static final Path GOLDEN_V1 = Path.of("src", "test", "resources", "vectors", "golden-v1.hints");
    private static final Path V2_LONG_NAMES = Path.of("src", "test", "resources", "vectors", "v2-long-names.hints");
    private static final Path GOLDEN_CURRENT = Path.of("src", "test", "resources", "vectors", "golden.hints");

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
                () -> OldVersionReader.read(file, HintStoreOptions.defaults()));
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
                () -> OldVersionReader.read(file, HintStoreOptions.defaults()));
        assertEquals(Problem.LAYOUT_MISMATCH, e.problem(), e.getMessage());
        assertTrue(e.getMessage().contains("version 1"), e.getMessage());
    }

    @Test
    void aFileShorterThanTheHeaderIsTruncated() throws IOException {
        Path file = dir.resolve("short.hints");
        Files.write(file, Arrays.copyOf(Files.readAllBytes(GOLDEN_V1), 100));
        HintFileException e = assertThrows(HintFileException.class,
                () -> OldVersionReader.read(file, HintStoreOptions.defaults()));
        assertEquals(Problem.TRUNCATED, e.problem(), e.getMessage());
        assertTrue(e.getMessage().contains("100 bytes"), e.getMessage());
    }

    @Test
    void theGoldenFileReadsEveryRegionWithNoneUnsound() throws IOException {
        OldVersionProfile v1 = OldVersionReader.read(GOLDEN_V1, HintStoreOptions.defaults());
        assertEquals(4, v1.regions().size(), v1.regions().toString());
        assertEquals(0, v1.unsoundSlots());
        assertEquals(64, v1.maxNameBytes());
    }

    /** FORMAT.md §12: a version-2 file (the committed fixture, made by format version 2's code) is read, names as stored. */
    @Test
    void aVersionTwoFileIsReadWithItsShortenedNameCounted() throws IOException {
        OldVersionProfile v2 = OldVersionReader.read(V2_LONG_NAMES, HintStoreOptions.defaults());
        assertEquals(2, v2.formatVersion());
        assertEquals(24, v2.maxNameBytes()); // below version 3's minimum: version 2 allowed it
        assertEquals(List.of("gemm_bf16_128x128x64", "void cu~604c7a3337b87786", "softmax_f32", "layernorm_fwd_bf16_x1024"),
                v2.regions().stream().map(RegionRecord::name).toList());
        assertEquals(new RegionRecord("void cu~604c7a3337b87786", 2, 520_000, 270_000, 4_194_304), v2.regions().get(1));
        assertEquals(1, v2.shortenedNames());
        assertEquals(0, v2.unsoundSlots());
    }

    @Test
    void aFileOfTheCurrentVersionIsValidatedAndNotRead() throws IOException {
        OldVersionProfile current = OldVersionReader.read(GOLDEN_CURRENT, HintStoreOptions.defaults());
        assertEquals(Layouts.FORMAT_VERSION_VALUE, current.formatVersion());
        assertTrue(current.regions().isEmpty());
    }

    @Test
    void aVersionNoReaderKnowsIsRefusedNamingIt() throws IOException {
        Path file = dir.resolve("v9.hints");
        Files.copy(V2_LONG_NAMES, file);
        patch(file, Layouts.HDR_FORMAT_VERSION, 4, 9);
        HintFileException e = assertThrows(HintFileException.class, () -> OldVersionReader.read(file, HintStoreOptions.defaults()));
        assertEquals(Problem.UNSUPPORTED_VERSION, e.problem(), e.getMessage());
        assertTrue(e.getMessage().contains("format version 9"), e.getMessage());
    }

    /** What version 2 wrote for a name over its limit L: a prefix of L - 17 bytes (up to 3 fewer at a character), '~', 16 hex digits. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "void cu~604c7a3337b87786 | 24 | true",
        "layernorm_fwd_bf16_x1024 | 24 | false",
        "~604c7a3337b87786 | 24 | false",
        "void c~604c7a3337b87786 | 24 | true",
        "void~604c7a3337b87786 | 24 | true",
        "voi~604c7a3337b87786 | 24 | false",
        "void cu~604C7A3337B87786 | 24 | false",
        "void cutlass::Kernel2<cutlass_80_tensorop_bf16_~604c7a3337b87786 | 64 | true",
        "~604c7a3337b87786 | 17 | true",
        "604c7a3337 | 10 | true",
        "kernel_0 | 8 | false",
    })
    void aNameVersionTwoShortenedIsTold(String name, int limit, boolean shortened) {
        assertEquals(shortened, OldVersionReader.shortenedByVersion2(name, limit));
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
