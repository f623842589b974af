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
import java.util.ArrayList;
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
    void checkFileReportsAGrownFileAndAScanRefusesIt() throws IOException {
        Path file = file();
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            long size = Files.size(file);
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                channel.write(ByteBuffer.allocate(1), size + 4095);
            }
            HintFileException e = checkFails(store);
            assertEquals(Problem.RESIZED, e.problem(), e.getMessage());
            assertTrue(e.getMessage().contains("grew to " + (size + 4096)), e.getMessage());
            UncheckedIOException bulk = assertThrows(UncheckedIOException.class, () -> store.forEachView(v -> { }));
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

    /** What every read method says, as "name count" lines: the same for the store's own file whatever is at its path. */
    private static List<String> everyRead(HintStore store) {
        List<String> seen = new ArrayList<>();
        seen.add("isHot " + store.isHot("gemm") + " count " + store.dispatchCount("gemm") + " mean " + store.meanKernelNs("gemm"));
        seen.add("recordFor " + store.recordFor("gemm").map(RegionRecord::dispatchCount).orElse(-1L));
        MutableRecord m = new MutableRecord();
        seen.add("readInto " + store.readInto("gemm", m) + " " + m.dispatchCount());
        seen.add("snapshot " + store.snapshot().regions().stream().map(RegionRecord::name).toList());
        seen.add("hottest " + store.hottest(5, RegionOrder.TOTAL_NS).stream().map(RegionRecord::name).toList());
        List<String> names = new ArrayList<>();
        store.snapshot().regions().forEach(r -> names.add(r.name()));
        store.forEachView(v -> names.add(v.name()));
        seen.add("forEach " + names);
        seen.add("size " + store.size() + " info " + store.info().regions() + " capacity " + store.capacity());
        return seen;
    }

    @Test
    void everyReadAnswersFromTheOpenedFileAfterItIsReplacedOrRemovedAndReopenIfReplacedFollowsThePath()
            throws IOException {
        Path file = file();
        Path other = dir.resolve("other.hints");
        try (HintStore reader = HintStore.open(file, HintStoreOptions.defaults().readOnly(true));
                HintStore memory = HintStore.inMemory(HintStoreOptions.defaults())) {
            assertTrue(reader.reopenIfReplaced().isEmpty(), "still its own file");
            assertTrue(memory.reopenIfReplaced().isEmpty(), "an in-memory store has no path");
            List<String> before = everyRead(reader);
            assertTrue(before.contains("snapshot [gemm]"), before.toString());

            try (HintStore second = HintStore.open(other, HintStoreOptions.defaults().capacity(8).maxNameBytes(128))) {
                second.record("void at::native::vectorized_elementwise_kernel<4, AddFunctor<float>>(int)", 7, 1);
            }
            Files.move(other, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            assertEquals(before, everyRead(reader), "every read answers from the file the store opened");
            assertEquals(Problem.REPLACED, checkFails(reader).problem());
            try (HintStore now = reader.reopenIfReplaced().orElseThrow()) {
                assertEquals(8, now.capacity(), "the new file's layout");
                assertEquals(0, now.dispatchCount("gemm"));
                assertEquals(List.of("void at::native::vectorized_elementwise_kernel<4, AddFunctor<float>>(int)"),
                        now.snapshot().regions().stream().map(RegionRecord::name).toList());
                assertTrue(now.reopenIfReplaced().isEmpty());
                assertTrue(now.isReadOnly(), "the same options");
            }

            Files.delete(file);
            assertEquals(before, everyRead(reader), "and after the file is removed from its path");
            HintFileException missing = assertThrows(HintFileException.class, reader::reopenIfReplaced);
            assertEquals(Problem.MISSING, missing.problem(), missing.getMessage());
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
                    s -> s.recordFor("gemm"), HintStore::size, s -> s.forEachView(v -> { }));
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
