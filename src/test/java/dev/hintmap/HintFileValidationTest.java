package dev.hintmap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintFileException.Problem;
import dev.hintmap.format.Layouts;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Opening a damaged or foreign file fails with a precise HintFileException and leaves it untouched. */
class HintFileValidationTest {
    @TempDir
    Path dir;

    private Path validFile() throws IOException {
        Path file = dir.resolve("valid.hints");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(16))) {
            store.record("gemm", 123, 456);
        }
        return file;
    }

    private HintFileException assertOpenFails(Path file, Problem problem, String field) throws IOException {
        byte[] before = Files.readAllBytes(file);
        FileTime modified = Files.getLastModifiedTime(file);
        for (HintStoreOptions options : new HintStoreOptions[] {HintStoreOptions.defaults(), HintStoreOptions.defaults().readOnly(true)}) {
            HintFileException e = assertThrows(HintFileException.class, () -> HintStore.open(file, options).close());
            assertEquals(problem, e.problem(), e.getMessage());
            assertEquals(field, e.field(), e.getMessage());
            assertEquals(file, e.file());
            assertTrue(e.getMessage().startsWith(file.toString()), e.getMessage());
        }
        assertArrayEquals(before, Files.readAllBytes(file), "a file that fails to open is not modified");
        assertEquals(modified, Files.getLastModifiedTime(file));
        return assertThrows(HintFileException.class, () -> HintStore.open(file, HintStoreOptions.defaults()).close());
    }

    private static void patch(Path file, long offset, byte[] bytes) throws IOException {
        byte[] content = Files.readAllBytes(file);
        System.arraycopy(bytes, 0, content, (int) offset, bytes.length);
        Files.write(file, content);
    }

    private static byte[] u32(int v) {
        return ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(v).array();
    }

    private static byte[] u64(long v) {
        return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array();
    }

    @Test
    void shouldRejectEmptyFile() throws IOException {
        Path file = Files.createFile(dir.resolve("empty.hints"));
        HintFileException e = assertOpenFails(file, Problem.TRUNCATED, null);
        assertTrue(e.getMessage().contains("0 bytes"), e.getMessage());
    }

    @Test
    void shouldRejectFileTruncatedInsideTheHeader() throws IOException {
        Path file = validFile();
        Files.write(file, Arrays.copyOf(Files.readAllBytes(file), 100));
        assertOpenFails(file, Problem.TRUNCATED, null);
    }

    @Test
    void shouldRejectFileTruncatedInsideTheSlots() throws IOException {
        Path file = validFile();
        byte[] content = Files.readAllBytes(file);
        Files.write(file, Arrays.copyOf(content, content.length - 4096));
        HintFileException e = assertOpenFails(file, Problem.TRUNCATED, "file_bytes");
        assertTrue(e.getMessage().contains("declares " + content.length), e.getMessage());
    }

    @Test
    void shouldRejectFileGrownPastItsDeclaredSize() throws IOException {
        Path file = validFile();
        byte[] content = Files.readAllBytes(file);
        Files.write(file, Arrays.copyOf(content, content.length + 4096));
        assertOpenFails(file, Problem.INCONSISTENT, "file_bytes");
    }

    @Test
    void shouldRejectForeignFileWithWrongMagic() throws IOException {
        Path file = dir.resolve("foreign.bin");
        byte[] content = new byte[8192];
        Arrays.fill(content, (byte) 0x5A);
        Files.write(file, content);
        HintFileException e = assertOpenFails(file, Problem.NOT_A_HINT_FILE, "magic");
        assertTrue(e.getMessage().contains("0x5a5a5a5a5a5a5a5a"), e.getMessage());
    }

    @Test
    void shouldRejectFileWhoseInitialisationNeverFinished() throws IOException {
        Path file = validFile();
        patch(file, Layouts.HDR_MAGIC, u64(0));
        assertOpenFails(file, Problem.UNFINISHED, "magic");
    }

    @Test
    void shouldRejectFileWithNewerFormatVersion() throws IOException {
        Path file = validFile();
        patch(file, Layouts.HDR_FORMAT_VERSION, u32(Layouts.FORMAT_VERSION_VALUE + 1));
        HintFileException e = assertOpenFails(file, Problem.UNSUPPORTED_VERSION, "format_version");
        assertTrue(e.getMessage().contains("newer hintmap"), e.getMessage());
    }

    /** Version 2 has this layout and another stored form of long names (FORMAT.md §12): converted, never read. */
    @Test
    void aVersionTwoFileIsRefusedWithTheCommandThatConvertsIt() throws IOException {
        Path file = validFile();
        patch(file, Layouts.HDR_FORMAT_VERSION, u32(2));
        HintFileException e = assertOpenFails(file, Problem.UNSUPPORTED_VERSION, "format_version");
        assertTrue(e.getMessage().contains("hint file format version 2; this library reads version 3"), e.getMessage());
        assertTrue(e.getMessage().contains("hintmap upgrade " + file), e.getMessage());
    }

    /**
     * Issue 32 finding 2: a file whose max_name_bytes cannot hold a stored form's '~' and 32 hex
     * digits is damaged (version 2 allowed 1..16, which merged distinct names); the message names
     * the field and the minimum.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 16, 17, 32})
    void aFileWhoseNameLimitIsBelowTheMinimumIsInconsistent(int limit) throws IOException {
        Path file = dir.resolve("small-limit.hints");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(16).maxNameBytes(64))) {
            store.record("kernel_0", 1, 1);
        }
        patch(file, Layouts.HDR_MAX_NAME_BYTES, u32(limit)); // slot_bytes of 64 and of 1..64 agree: only the range tells
        rewriteChecksum(file);
        HintFileException e = assertOpenFails(file, Problem.INCONSISTENT, "max_name_bytes");
        assertTrue(e.getMessage().contains("max_name_bytes is " + limit + ", outside [33, 1024]"), e.getMessage());
    }

    @Test
    void aVersionOneFileIsRefusedWithTheCommandThatConvertsIt() throws IOException {
        Path file = validFile();
        patch(file, Layouts.HDR_FORMAT_VERSION, u32(1));
        HintFileException e = assertOpenFails(file, Problem.UNSUPPORTED_VERSION, "format_version");
        assertTrue(e.getMessage().contains("format version 1"), e.getMessage());
        assertTrue(e.getMessage().contains("hintmap upgrade " + file), e.getMessage());
        // and where a user of the library alone gets that command (DistributionIT runs it)
        assertTrue(e.getMessage().contains("mvn dependency:unpack -Dartifact=dev.hintmap:hintmap:" + HintFiles.version()
                + ":tar.gz:bin"), e.getMessage());
    }

    @Test
    void shouldRejectFileWithOlderFormatVersion() throws IOException {
        Path file = validFile();
        patch(file, Layouts.HDR_FORMAT_VERSION, u32(0));
        assertOpenFails(file, Problem.UNSUPPORTED_VERSION, "format_version");
    }

    @ParameterizedTest(name = "flipped bit in header byte {0}")
    @ValueSource(ints = {16, 24, 27, 28, 33, 36, 40, 44, 48, 55, 56, 64, 72, 80, 88, 96, 119, 120, 127})
    void shouldRejectFileWithAFlippedImmutableHeaderByte(int offset) throws IOException {
        Path file = validFile();
        byte[] content = Files.readAllBytes(file);
        content[offset] ^= 0x10;
        Files.write(file, content);
        assertOpenFails(file, Problem.CORRUPT_HEADER, "header_checksum");
    }

    @Test
    void shouldRejectFileWithAnotherHeaderSizeBeforeCheckingTheChecksum() throws IOException {
        Path file = validFile();
        patch(file, Layouts.HDR_HEADER_BYTES, u32(8192));
        HintFileException e = assertOpenFails(file, Problem.INCONSISTENT, "header_bytes");
        assertTrue(e.getMessage().contains("expected 4096"), e.getMessage());
    }

    @Test
    void shouldRejectFileWrittenWithAnotherLayoutEvenWithAValidChecksum() throws IOException {
        Path file = validFile();
        patch(file, Layouts.HDR_LAYOUT_FINGERPRINT, u64(0x1234));
        rewriteChecksum(file);
        assertOpenFails(file, Problem.LAYOUT_MISMATCH, "layout_fingerprint");
    }

    @Test
    void shouldRejectInconsistentDerivedFieldEvenWithAValidChecksum() throws IOException {
        Path file = validFile();
        patch(file, Layouts.HDR_INDEX_ENTRIES, u32(64));
        rewriteChecksum(file);
        HintFileException e = assertOpenFails(file, Problem.INCONSISTENT, "index_entries");
        assertTrue(e.getMessage().contains("expected 32"), e.getMessage());
    }

    @Test
    void shouldRejectOutOfRangeCapacityEvenWithAValidChecksum() throws IOException {
        Path file = validFile();
        patch(file, Layouts.HDR_CAPACITY, u32(-1));
        rewriteChecksum(file);
        HintFileException e = assertOpenFails(file, Problem.INCONSISTENT, "capacity");
        assertTrue(e.getMessage().contains("outside [0, 67108864]"), e.getMessage());
    }

    @Test
    void shouldRejectOptionsThatContradictTheFileAndAcceptDefaults() throws IOException {
        Path file = validFile();
        assertEquals(Problem.OPTIONS_MISMATCH, assertThrows(HintFileException.class,
                () -> HintStore.open(file, HintStoreOptions.defaults().capacity(32))).problem());
        HintFileException e = assertThrows(HintFileException.class,
                () -> HintStore.open(file, HintStoreOptions.defaults().hotThresholdNs(5)));
        assertEquals("hot_threshold_ns", e.field());
        assertTrue(e.getMessage().contains("read-only"), "says where a threshold of one's own is taken: " + e.getMessage());
        assertEquals(Problem.OPTIONS_MISMATCH, assertThrows(HintFileException.class,
                () -> HintStore.open(file, HintStoreOptions.defaults().maxNameBytes(100))).problem());
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(16))) {
            assertEquals(16, store.capacity()); // agreeing explicit option
        }
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            assertEquals(16, store.capacity()); // unset options: the file wins
            assertEquals(1, store.dispatchCount("gemm"));
        }
    }

    @Test
    void aReadOnlyStoreAnswersHotByItsOwnThresholdAndLeavesTheFilesAlone() throws IOException {
        Path file = validFile();
        long fileThreshold;
        try (HintStore writer = HintStore.open(file, HintStoreOptions.defaults())) {
            fileThreshold = writer.hotThresholdNs();
            writer.record("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)",
                    fileThreshold / 2, 0);
        }
        byte[] before = Files.readAllBytes(file);
        String gemm = "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)";
        try (HintStore byFile = HintStore.open(file, HintStoreOptions.defaults().readOnly(true));
                HintStore byMine = HintStore.open(file, HintStoreOptions.defaults().readOnly(true).hotThresholdNs(fileThreshold / 2))) {
            assertEquals(fileThreshold, byFile.hotThresholdNs());
            assertFalse(byFile.isHot(gemm), "half the file's threshold is cold by it");
            assertEquals(fileThreshold / 2, byMine.hotThresholdNs());
            assertTrue(byMine.isHot(gemm), "and hot by the reader's own");
            assertTrue(byMine.region(gemm).isHot());
            assertTrue(byMine.snapshot().isHot(gemm), "its snapshot answers by it too");
            assertEquals(fileThreshold, byMine.info().hotThresholdNs(), "the file keeps its threshold");
        }
        assertArrayEquals(before, Files.readAllBytes(file), "a reader's threshold changes no byte of the file");
    }

    @Test
    void readOnlyOpenOfMissingFileIsMissingNotAnIoErrorAndCreatesNothing() {
        Path file = dir.resolve("missing.hints");
        HintFileException e = assertThrows(HintFileException.class,
                () -> HintStore.open(file, HintStoreOptions.defaults().readOnly(true)));
        assertEquals(Problem.MISSING, e.problem());
        assertTrue(e.getCause() instanceof java.nio.file.NoSuchFileException, String.valueOf(e.getCause()));
        assertTrue(Files.notExists(file));
    }

    @Test
    void openInAMissingDirectoryIsMissingForReadersAndWriters() {
        Path file = dir.resolve("no-such-dir").resolve("x.hints");
        for (boolean readOnly : new boolean[] {true, false}) {
            HintFileException e = assertThrows(HintFileException.class,
                    () -> HintStore.open(file, HintStoreOptions.defaults().readOnly(readOnly)));
            assertEquals(Problem.MISSING, e.problem(), "readOnly=" + readOnly + ": " + e.getMessage());
        }
    }

    @Test
    void readOnlyStoreRefusesToRecordButAnswersQueries() throws IOException {
        Path file = validFile();
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            assertTrue(store.isReadOnly());
            assertEquals(1, store.dispatchCount("gemm"));
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> store.record("gemm", 1, 1));
            assertTrue(e.getMessage().contains("read-only"), e.getMessage());
            assertThrows(IllegalStateException.class, () -> store.region("gemm").record(1, 1));
        }
    }

    /** Recomputes header_checksum so that a test can reach the checks behind it. */
    private static void rewriteChecksum(Path file) throws IOException {
        byte[] content = Files.readAllBytes(file);
        int from = (int) Layouts.HDR_FORMAT_VERSION;
        int length = (int) (Layouts.HDR_HEADER_CHECKSUM - from);
        long sum = dev.hintmap.format.Hm64.ofBytes(Arrays.copyOfRange(content, from, from + length), length);
        patch(file, Layouts.HDR_HEADER_CHECKSUM, u64(sum));
    }
}
