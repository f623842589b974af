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
import dev.hintmap.format.StoredName;
import dev.hintmap.store.OldVersionReader;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code hintmap upgrade} (FORMAT.md §12) on the committed files of earlier versions: the
 * version-1 golden file, the version-2 golden file (today's golden.hints as format version 2
 * wrote it) and {@code v2-long-names.hints}, made by format version 2's code with a name limit of
 * 24 and a 99-byte kernel name stored in version 2's shortened form (vectors/README.md).
 */
class UpgradeCommandTest {
    private static final Path VECTORS = Path.of("src", "test", "resources", "vectors");

    @TempDir
    Path dir;

    private Path v1Copy(String name) throws IOException {
        Path file = dir.resolve(name);
        Files.copy(VECTORS.resolve("golden-v1.hints"), file);
        return file;
    }

    private Path v2Copy(String fixture, String name) throws IOException {
        Path file = dir.resolve(name);
        Files.copy(VECTORS.resolve(fixture), file);
        return file;
    }

    private static String expectedRecords() throws IOException {
        return Files.readString(VECTORS.resolve("golden.txt"), StandardCharsets.UTF_8);
    }

    private static String recordsOf(Path file) throws IOException {
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            TreeSet<String> lines = new TreeSet<>();
            store.snapshot().regions().forEach(r -> lines.add("region " + r.name() + " " + r.dispatchCount() + " " + r.kernelNsTotal() + " "
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

    /** Issue 34: a file of the current version is no error; nothing is written, nothing kept beside it. */
    @Test
    void aFileOfTheCurrentVersionIsAlreadyUpgraded() throws IOException {
        Path file = dir.resolve("v3.hints");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(4))) {
            store.record("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)",
                    1, 1);
        }
        byte[] before = Files.readAllBytes(file);
        Cli.Result r = Cli.run("upgrade", file.toString()).expect(ExitCode.OK);
        assertEquals(file + " is already version " + HintFiles.FORMAT_VERSION + ": nothing to convert\n", r.out());
        assertArrayEquals(before, Files.readAllBytes(file));
        assertFalse(Files.exists(dir.resolve("v3.hints.v3")));
        assertFalse(Files.exists(dir.resolve("v3.hints.v2")));
    }

    /** A version no build converts (a newer one) is a file problem, named. */
    @Test
    void aNewerVersionIsRefusedNamingIt() throws IOException {
        Path file = v2Copy("golden-v2.hints", "v4.hints");
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.seek(Layouts.HDR_FORMAT_VERSION);
            raf.write(new byte[] {4, 0, 0, 0});
        }
        Cli.Result r = Cli.run("upgrade", file.toString()).expect(ExitCode.BAD_FILE);
        assertTrue(r.err().contains("format version 4"), r.err());
    }

    @Test
    void theLibraryRefusesAVersionTwoFileNamingTheUpgradeCommandAndSoDoStatAndVerify() throws IOException {
        Path file = v2Copy("golden-v2.hints", "old.hints");
        HintFileException e = assertThrows(HintFileException.class,
                () -> HintStore.open(file, HintStoreOptions.defaults().readOnly(true)));
        assertEquals(HintFileException.Problem.UNSUPPORTED_VERSION, e.problem());
        assertTrue(e.getMessage().contains("format version 2") && e.getMessage().contains("hintmap upgrade " + file),
                e.getMessage());
        for (String command : List.of("stat", "verify")) {
            Cli.Result r = Cli.run(command, file.toString()).expect(ExitCode.BAD_FILE);
            assertTrue(r.err().contains("hintmap upgrade " + file), command + ": " + r.err());
        }
    }

    @Test
    void upgradeOfAVersionTwoFileInPlaceKeepsEveryRecordAndTheOldFileBesideIt() throws IOException {
        Path file = v2Copy("golden-v2.hints", "profile.hints");
        byte[] v2Bytes = Files.readAllBytes(file);
        Cli.Result r = Cli.run("upgrade", "-q", file.toString()).expect(ExitCode.OK);
        assertTrue(r.out().contains("(format version 2, created ") && r.out().contains("4 regions"), r.out());
        assertFalse(r.out().contains("shortened"), r.out()); // golden.hints has no long name
        Path kept = dir.resolve("profile.hints.v2");
        assertArrayEquals(v2Bytes, Files.readAllBytes(kept), "the version-2 bytes are kept unchanged");
        assertEquals(expectedRecords(), recordsOf(file));
        assertTrue(HintFiles.verify(file, HintStoreOptions.defaults()).ok(),
                HintFiles.verify(file, HintStoreOptions.defaults()).findings().toString());
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            assertEquals(HintFiles.FORMAT_VERSION, store.info().formatVersion());
            assertEquals(64, store.maxNameBytes());
        }
    }

    /**
     * A version-2 file of limit 24 (below version 3's 33) with a kernel name version 2 shortened:
     * the new file has limit 33, every region keeps its name and records, the shortened one
     * included, and upgrade says what that means; the whole kernel name then starts a new region
     * (its version-3 stored form is another name), found by {@code dump --name}.
     */
    @Test
    void upgradeOfAVersionTwoFileKeepsShortenedNamesRaisesASmallLimitAndSaysSo() throws IOException {
        Path file = v2Copy("v2-long-names.hints", "small.hints");
        Path out = dir.resolve("new.hints");
        Cli.Result r = Cli.run("upgrade", "-q", file.toString(), "-o", out.toString()).expect(ExitCode.OK);
        assertTrue(r.out().contains("4 regions"), r.out());
        assertTrue(r.out().contains("max_name_bytes 24 is below version 3's minimum: the new file has 33"), r.out());
        assertTrue(r.out().contains("1 region(s) have a name that version 2 had shortened"), r.out());
        String kernel = "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)";
        try (HintStore store = HintStore.open(out, HintStoreOptions.defaults())) {
            assertEquals(33, store.maxNameBytes());
            assertEquals(Optional.of(new RegionRecord("void cu~604c7a3337b87786", 2, 520_000, 270_000, 4_194_304)),
                    store.recordFor("void cu~604c7a3337b87786"));
            assertEquals(Optional.of(new RegionRecord("layernorm_fwd_bf16_x1024", 1, 30_000, 30_000, 131_072)),
                    store.recordFor("layernorm_fwd_bf16_x1024"));
            assertEquals(Optional.empty(), store.recordFor(kernel), "the whole name's version-3 form is a new region");
            store.record(kernel, 300_000, 1);
            assertEquals(5, store.size());
        }
        Cli.Result dump = Cli.run("dump", out.toString(), "--name", kernel, "--format", "csv").expect(ExitCode.OK);
        assertTrue(dump.out().contains(StoredName.of(kernel, 33)) && dump.out().contains(",1,300000,"), dump.out());
        assertTrue(HintFiles.verify(out, HintStoreOptions.defaults()).ok());
    }

    /**
     * Issue 32 finding 9: upgrade refused a live version-1 writer at the start whatever the
     * options, and its late check advised {@code --replace-live}. In place, {@code --replace-live}
     * and {@code --force} are usage errors that name what they are for; nothing is touched.
     */
    @Test
    void anInPlaceUpgradeRefusesReplaceLiveAndForceAsUsageErrors() throws IOException {
        Path file = v1Copy("live.hints");
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.seek(Layouts.HEADER.byteSize() + Layouts.WRITER_TOKEN); // writer entry 0: this JVM
            raf.write(le64(thisProcessToken()));
        }
        byte[] before = Files.readAllBytes(file);
        for (String option : List.of("--replace-live", "--force")) {
            Cli.Result r = Cli.run("upgrade", option, file.toString()).expect(ExitCode.USAGE);
            assertTrue(r.err().contains(option + " is about -o NEW") && r.err().contains("stop them first"), r.err());
            assertArrayEquals(before, Files.readAllBytes(file));
            assertFalse(Files.exists(dir.resolve("live.hints.v1")));
        }
    }

    /**
     * The other path of finding 9: {@code -o NEW} onto a file with a live writer is refused with
     * the advice {@code --replace-live}, and that option then replaces it (with a warning).
     */
    @Test
    void anUpgradeOntoANewFileWithALiveWriterTakesTheReplaceLiveItAdvises() throws IOException {
        Path file = v1Copy("old.hints");
        Path out = dir.resolve("busy.hints");
        try (HintStore writer = HintStore.open(out, HintStoreOptions.defaults().capacity(4))) { // this JVM writes into NEW
            writer.record("softmax_f32", 1, 1);
            Cli.Result refused = Cli.run("upgrade", "-q", file.toString(), "-o", out.toString(), "--force")
                    .expect(ExitCode.PROBLEMS);
            assertTrue(refused.err().contains("use --replace-live to replace it anyway"), refused.err());
            Cli.Result replaced = Cli.run("upgrade", "-q", file.toString(), "-o", out.toString(), "--replace-live")
                    .expect(ExitCode.OK);
            assertTrue(replaced.err().contains("warning: replacing " + out), replaced.err());
        }
        assertEquals(expectedRecords(), recordsOf(out));
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
        List<RegionRecord> before = OldVersionReader.read(file, HintStoreOptions.defaults()).regions();
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
            store.snapshot().regions().forEach(after::add);
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
