package dev.hintmap.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.hintmap.testkit.ChildJvm;
import dev.hintmap.testkit.FileChild;
import dev.hintmap.HintFileException;
import dev.hintmap.HintFileException.Problem;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.TestStores;
import dev.hintmap.format.FileGeometry;
import dev.hintmap.os.ProcessIdentity;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reliability round 2, finding 3: what operators do to a live file. A byte copy carries the
 * locks and writer entries of the original's writers, who never touch the copy (§6.3: they do
 * not map it, so they are dead to it); a hole punched into the header, or a truncate-and-regrow,
 * is seen by the writer's own {@code checkFile()}.
 */
class OperatorActionsTest {
    private static final FileGeometry GEOMETRY = new FileGeometry(4, 64);

    @TempDir
    Path dir;

    @Test
    void aCopyOfALiveFileDoesNotInheritItsWritersLocks() throws Exception {
        Path original = dir.resolve("live.hints");
        Path copy = dir.resolve("copy.hints");
        try (HintStore writer = HintStore.open(original, HintStoreOptions.defaults().capacity(4))) {
            writer.record("a", 1_000, 1);
            writer.record("b", 1_000, 1);
            // cp at the instant this writer holds a's slot lock: the copy carries this JVM's owner word
            withRawMapping(original, m -> {
                long owner = ownerOfEntry(m, 0);
                Slots slots = new Slots(GEOMETRY);
                Memory.plainLong(m.segment, Slots.lock(slots.slot(0)), owner);
                copyBytes(original, copy);
                Memory.plainLong(m.segment, Slots.lock(slots.slot(0)), 0L);
            });
            // another process opens the copy while this writer lives: it must not wait for it (5 s)
            assertEquals("recorded", ChildJvm.run(FileChild.class, "record", copy.toString(), "1", "a").strip());
            try (HintStore onCopy = HintStore.open(copy, HintStoreOptions.defaults().readOnly(true))) {
                assertEquals(2, onCopy.dispatchCount("a"), "the sample on the copy was counted, not dropped");
                assertEquals(1, onCopy.info().stolenLocks(), "the copied lock was taken over at once");
                // The copied writer entry stays until this JVM exits (§6.1 reclaims by pid and start
                // time only); it holds nothing, and its locks are judged by the full rule of §6.3.
            }
            writer.record("a", 1_000, 1); // the original is untouched by all this
            assertEquals(2, writer.dispatchCount("a"));
        }
    }

    /**
     * A pid reused within one clock tick has the token of the dead writer (same pid, same start
     * time): a running process that is not this file's writer. Simulated with a real running
     * process whose token is planted as the writer of a held slot lock: it does not map the file,
     * so its lock is a dead writer's and is taken over at once, not after the 5 s limit.
     */
    @Test
    void aLockNamingARunningProcessThatDoesNotMapTheFileIsTakenOverAtOnce() throws Exception {
        Path file = dir.resolve("reused.hints");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(4))) {
            store.record("a", 1_000, 1);
        }
        Process stranger = new ProcessBuilder("sleep", "60").start();
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(stranger.pid()), "stat"));
            long token = ProcessIdentity.token(stranger.pid(),
                    Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[19]));
            assertTrue(ProcessIdentity.isAlive(token, null), "alive by pid and start time alone");
            withRawMapping(file, m -> {
                WriterTable table = new WriterTable(m, GEOMETRY, null);
                Memory.plainLong(m.segment, table.entryOffset(7) + dev.hintmap.format.Layouts.WRITER_TOKEN, token);
                Memory.plainLong(m.segment, table.entryOffset(7) + dev.hintmap.format.Layouts.WRITER_GENERATION, 1);
                Memory.plainLong(m.segment, Slots.lock(new Slots(GEOMETRY).slot(0)), WriterTable.ownerWord(7, 1));
            });
            assertEquals("recorded", ChildJvm.run(FileChild.class, "record", file.toString(), "1", "a").strip());
            try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
                assertEquals(2, store.dispatchCount("a"), "recorded, not dropped after a 5 s wait");
                assertEquals(1, store.info().stolenLocks());
            }
        } finally {
            stranger.destroyForcibly();
        }
    }

    @Test
    void aHolePunchedIntoTheHeaderOfALiveFileIsSeenByItsWritersCheckFile() throws Exception {
        Path file = dir.resolve("punched.hints");
        try (HintStore writer = HintStore.open(file, HintStoreOptions.defaults())) {
            writer.record("a", 1_000, 1);
            writer.checkFile();
            int rc = new ProcessBuilder("fallocate", "--punch-hole", "--offset", "0", "--length", "4096", file.toString())
                    .inheritIO().start().waitFor();
            assumeTrue(rc == 0, "this filesystem can punch holes (fallocate --punch-hole)");
            HintFileException e = assertThrows(HintFileException.class, writer::checkFile);
            assertEquals(Problem.UNFINISHED, e.problem(), e.getMessage());
            assertTrue(e.getMessage().contains("changed under the store"), e.getMessage());
            UncheckedIOException later = assertThrows(UncheckedIOException.class, () -> writer.record("a", 1, 1));
            assertEquals(Problem.UNFINISHED, ((HintFileException) later.getCause()).problem(), "the store is unusable");
        }
        HintFileException other = assertThrows(HintFileException.class, () -> HintStore.open(file, HintStoreOptions.defaults()));
        assertEquals(Problem.UNFINISHED, other.problem(), "what every other opener gets");
    }

    @Test
    void aFileTruncatedAndRegrownUnderAWriterIsSeenByItsCheckFile() throws Exception {
        Path file = dir.resolve("regrown.hints");
        try (HintStore writer = HintStore.open(file, HintStoreOptions.defaults())) {
            writer.record("a", 1_000, 1);
            long size = Files.size(file);
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                channel.truncate(0);
            }
            try (var raf = new java.io.RandomAccessFile(file.toFile(), "rw")) {
                raf.setLength(size); // same inode, same size: only the header tells
            }
            HintFileException e = assertThrows(HintFileException.class, writer::checkFile);
            assertEquals(Problem.UNFINISHED, e.problem(), e.getMessage());
        }
    }

    private static long ownerOfEntry(Memory m, int entry) {
        WriterTable table = new WriterTable(m, GEOMETRY, null);
        return WriterTable.ownerWord(entry, table.generation(entry));
    }

    private static void copyBytes(Path from, Path to) {
        try {
            Files.write(to, Files.readAllBytes(from)); // what cp does: read and write, no knowledge of locks
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void withRawMapping(Path file, Consumer<Memory> action) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
                Arena arena = Arena.ofConfined()) {
            MemorySegment segment = channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size(), arena);
            action.accept(new Memory(segment));
        }
    }
}
