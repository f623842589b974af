package dev.hintmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintFileException.Problem;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files that change under the mapping (issue 7 item 3, FORMAT.md §5.1): {@link HintStore#checkFile()}
 * for a truncated, grown, replaced and removed file. A file truncated while another JVM records into
 * it: {@code torture.TruncationUnderWriterTest}.
 */
class FileChangeTest {
    @TempDir
    Path dir;

    private Path file() throws IOException {
        Path file = dir.resolve("changing.hints");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(16))) {
            store.record("gemm", 100, 10);
        }
        return file;
    }

    private static void truncate(Path file, long size) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(size);
        }
    }

    private static HintFileException checkFails(HintStore store) {
        return assertThrows(HintFileException.class, store::checkFile);
    }

    @Test
    void checkFilePassesForAnUnchangedFileAndAnInMemoryStore() throws IOException {
        try (HintStore store = HintStore.open(file(), HintStoreOptions.defaults());
                HintStore memory = HintStore.inMemory(HintStoreOptions.defaults())) {
            store.checkFile();
            memory.checkFile();
        }
    }

    @Test
    void checkFileReportsAGrownFileAndForEachRefusesIt() throws IOException {
        Path file = file();
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            long size = Files.size(file);
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                channel.write(ByteBuffer.allocate(1), size + 4095);
            }
            HintFileException e = checkFails(store);
            assertEquals(Problem.RESIZED, e.problem(), e.getMessage());
            assertTrue(e.getMessage().contains("grew to " + (size + 4096)), e.getMessage());
            UncheckedIOException bulk = assertThrows(UncheckedIOException.class, () -> store.forEach(r -> { }));
            assertEquals(Problem.RESIZED, ((HintFileException) bulk.getCause()).problem());
            store.record("gemm", 100, 10); // the mapping itself still works: only bulk operations check
            assertEquals(2, store.dispatchCount("gemm"));
        }
    }

    @Test
    void checkFileReportsATruncatedFileAndTheStoreRefusesEveryCallAfterwards() throws IOException {
        Path file = file();
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            truncate(file, 8192);
            HintFileException e = checkFails(store);
            assertEquals(Problem.TRUNCATED, e.problem(), e.getMessage());
            assertTrue(e.getMessage().contains("truncated to 8192 bytes"), e.getMessage());
            UncheckedIOException after = assertThrows(UncheckedIOException.class, () -> store.dispatchCount("gemm"));
            assertEquals(e, after.getCause());
            assertThrows(UncheckedIOException.class, () -> store.record("gemm", 1, 1));
            assertEquals(e, checkFails(store));
        }
    }

    @Test
    void checkFileReportsAFileReplacedOrRemovedAtThePath() throws IOException {
        Path file = file();
        Path other = dir.resolve("other.hints");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            try (HintStore second = HintStore.open(other, HintStoreOptions.defaults().capacity(16))) {
                second.record("other", 1, 1);
            }
            Files.move(other, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            HintFileException replaced = checkFails(store);
            assertEquals(Problem.REPLACED, replaced.problem(), replaced.getMessage());
            assertTrue(replaced.getMessage().contains("another file is at the path"), replaced.getMessage());
            Files.delete(file);
            HintFileException removed = checkFails(store);
            assertEquals(Problem.REPLACED, removed.problem(), removed.getMessage());
            assertTrue(removed.getMessage().contains("no file at the path"), removed.getMessage());
            store.record("gemm", 1, 1); // still works on the original inode
            assertEquals(2, store.dispatchCount("gemm"));
        }
    }

    @Test
    void closedStoreRefusesCheckFile() throws IOException {
        HintStore store = HintStore.open(file(), HintStoreOptions.defaults());
        store.close();
        assertThrows(IllegalStateException.class, store::checkFile);
    }

    /** Queries only (loads): a fault of a load is an InternalError in the interpreter and in compiled code alike. */
    @Test
    void queriesOnAFileTruncatedUnderTheMappingThrowTheTruncation() throws IOException {
        Path file = file();
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            assertEquals(1, store.dispatchCount("gemm"));
            truncate(file, 4096);
            List<Consumer<HintStore>> queries = List.of(s -> s.dispatchCount("gemm"), s -> s.isHot("x"),
                    s -> s.recordFor("gemm"), HintStore::size, s -> s.forEach(r -> { }));
            for (Consumer<HintStore> query : queries) {
                Throwable t = assertThrows(RuntimeException.class, () -> query.accept(store));
                assertInstanceOf(UncheckedIOException.class, t);
                HintFileException cause = assertInstanceOf(HintFileException.class, t.getCause());
                assertEquals(Problem.TRUNCATED, cause.problem(), cause.getMessage());
                assertTrue(cause.getMessage().contains("truncated to 4096 bytes"), cause.getMessage());
            }
        }
    }
}
