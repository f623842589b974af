package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintFileException;
import dev.hintmap.HintFiles;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import dev.hintmap.format.Layouts;
import dev.hintmap.store.Version1Reader;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code hintmap upgrade} on the committed version-1 golden file (FORMAT.md §12). */
class UpgradeCommandTest {
    private static final Path VECTORS = Path.of("src", "test", "resources", "vectors");

    @TempDir
    Path dir;

    private Path v1Copy(String name) throws IOException {
        Path file = dir.resolve(name);
        Files.copy(VECTORS.resolve("golden-v1.hints"), file);
        return file;
    }

    private static String expectedRecords() throws IOException {
        return Files.readString(VECTORS.resolve("golden.txt"), StandardCharsets.UTF_8);
    }

    private static String recordsOf(Path file) throws IOException {
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            TreeSet<String> lines = new TreeSet<>();
            store.forEach(r -> lines.add("region " + r.name() + " " + r.dispatchCount() + " " + r.kernelNsTotal() + " "
                    + r.kernelNsMax() + " " + r.bytesTotal()));
            assertEquals(4, store.capacity());
            return String.join("\n", lines) + "\n";
        }
    }

    @Test
    void theLibraryRefusesTheVersionOneGoldenFileNamingTheUpgradeCommand() throws IOException {
        Path file = v1Copy("old.hints");
        HintFileException e = assertThrows(HintFileException.class,
                () -> HintStore.open(file, HintStoreOptions.defaults().readOnly(true)));
        assertEquals(HintFileException.Problem.UNSUPPORTED_VERSION, e.problem());
        assertTrue(e.getMessage().contains("hintmap upgrade " + file), e.getMessage());
        Cli.Result stat = Cli.run("stat", file.toString()).expect(ExitCode.BAD_FILE);
        assertTrue(stat.err().contains("hintmap upgrade " + file), stat.err());
    }

    @Test
    void upgradeInPlaceKeepsEveryRecordAndTheVersionOneFileBesideIt() throws IOException {
        Path file = v1Copy("profile.hints");
        byte[] v1Bytes = Files.readAllBytes(file);
        Cli.Result r = Cli.run("upgrade", "-q", file.toString()).expect(ExitCode.OK);
        assertTrue(r.out().contains("4 regions"), r.out());
        Path kept = dir.resolve("profile.hints.v1");
        assertArrayEquals(v1Bytes, Files.readAllBytes(kept), "the version-1 bytes are kept unchanged");
        assertEquals(expectedRecords(), recordsOf(file));
        assertTrue(HintFiles.verify(file, HintStoreOptions.defaults()).ok(),
                HintFiles.verify(file, HintStoreOptions.defaults()).findings().toString());
        assertEquals(Layouts.FORMAT_VERSION_VALUE, HintStore.open(file, HintStoreOptions.defaults().readOnly(true)).info().formatVersion());
    }

    @Test
    void upgradeToANewFileLeavesTheOldOneAloneAndKeepsItsLayout() throws IOException {
        Path file = v1Copy("old.hints");
        byte[] v1Bytes = Files.readAllBytes(file);
        Path out = dir.resolve("new.hints");
        Cli.run("upgrade", "-q", file.toString(), "-o", out.toString()).expect(ExitCode.OK);
        assertArrayEquals(v1Bytes, Files.readAllBytes(file));
        assertFalse(Files.exists(dir.resolve("old.hints.v1")));
        assertEquals(expectedRecords(), recordsOf(out));
        try (HintStore store = HintStore.open(out, HintStoreOptions.defaults().readOnly(true))) {
            // golden-v1.hints was made with version 1's default name limit, 64: the upgrade keeps it
            try (HintStore golden = HintStore.inMemory(HintStoreOptions.defaults().maxNameBytes(64))) {
                assertEquals(golden.hotThresholdNs(), store.hotThresholdNs());
                assertEquals(golden.maxNameBytes(), store.maxNameBytes());
            }
        }
    }

    @Test
    void aVersionTwoFileHasNothingToUpgrade() throws IOException {
        Path file = dir.resolve("v2.hints");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(4))) {
            store.record("a", 1, 1);
        }
        byte[] before = Files.readAllBytes(file);
        Cli.Result r = Cli.run("upgrade", file.toString()).expect(ExitCode.BAD_FILE);
        assertTrue(r.err().contains("nothing to convert"), r.err());
        assertArrayEquals(before, Files.readAllBytes(file));
        assertFalse(Files.exists(dir.resolve("v2.hints.v1")));
    }

    @Test
    void anExistingBackupNameIsNotReplacedAndNothingChanges() throws IOException {
        Path file = v1Copy("p.hints");
        Path kept = dir.resolve("p.hints.v1");
        Files.writeString(kept, "someone else's file");
        byte[] before = Files.readAllBytes(file);
        Cli.Result r = Cli.run("upgrade", file.toString());
        assertTrue(r.exit() != ExitCode.OK, r.toString());
        assertTrue(r.err().contains(kept + " exists"), r.err());
        assertArrayEquals(before, Files.readAllBytes(file));
        assertEquals("someone else's file", Files.readString(kept));
    }

    @Test
    void aVersionOneFileWithALiveWriterIsRefusedUntouched() throws IOException {
        Path file = v1Copy("live.hints");
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.seek(Layouts.HEADER.byteSize() + Layouts.WRITER_TOKEN); // writer entry 0: this JVM
            raf.write(le64(thisProcessToken()));
        }
        byte[] before = Files.readAllBytes(file);
        Cli.Result r = Cli.run("upgrade", file.toString()).expect(ExitCode.PROBLEMS);
        assertTrue(r.err().contains("live writer") && r.err().contains(String.valueOf(ProcessHandle.current().pid())), r.err());
        assertArrayEquals(before, Files.readAllBytes(file));
        assertFalse(Files.exists(dir.resolve("live.hints.v1")));
    }

    @Test
    void aDamagedVersionOneSlotIsReportedAndTheRestCarriedOver() throws IOException {
        Path file = v1Copy("damaged.hints");
        List<RegionRecord> before = Version1Reader.read(file, HintStoreOptions.defaults()).regions();
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.seek(Layouts.HDR_SLOTS_OFFSET);
            long slots = Long.reverseBytes(raf.readLong());
            raf.seek(slots + Layouts.SLOT_SEQ);
            long seq = Long.reverseBytes(raf.readLong());
            raf.seek(slots + Layouts.SLOT_COPIES + (seq & 1) * Layouts.RECORD_COPY_BYTES + Layouts.REC_DISPATCH_COUNT);
            raf.write(le64(0)); // slot 0's current record: a dispatch count of 0 no writer publishes
        }
        Path out = dir.resolve("out.hints");
        Cli.Result r = Cli.run("upgrade", "-q", file.toString(), "-o", out.toString()).expect(ExitCode.OK);
        assertTrue(r.out().contains("1 damaged or interrupted slot"), r.out());
        List<RegionRecord> after = new ArrayList<>();
        try (HintStore store = HintStore.open(out, HintStoreOptions.defaults().readOnly(true))) {
            store.forEach(after::add);
        }
        assertEquals(before.size() - 1, after.size());
        assertTrue(before.containsAll(after), after + " within " + before);
    }

    private static long thisProcessToken() throws IOException {
        String stat = Files.readString(Path.of("/proc/self/stat"));
        String[] rest = stat.substring(stat.lastIndexOf(')') + 1).trim().split(" +");
        long start = Long.parseLong(rest[22 - 3]);
        return ProcessHandle.current().pid() << 42 | (start & ((1L << 42) - 1));
    }

    private static byte[] le64(long v) {
        byte[] b = new byte[8];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (v >>> (8 * i));
        }
        return b;
    }
}
