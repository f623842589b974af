package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintFiles;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import dev.hintmap.format.Layouts;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code merge}, {@code decay} and {@code verify} through the command line, on real files. */
class MergeDecayVerifyTest {
    @TempDir
    Path dir;

    private static Map<String, RegionRecord> read(Path file) throws IOException {
        Map<String, RegionRecord> records = new HashMap<>();
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            store.snapshot().regions().forEach(r -> records.put(r.name(), r));
        }
        return records;
    }

    private Path store(String name, int capacity, RegionRecord... records) throws IOException {
        Path file = dir.resolve(name);
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(capacity))) {
            for (RegionRecord r : records) {
                store.add(r);
            }
        }
        return file;
    }

    @Test
    void mergeOfAJavaAndACFileAddsCountsAndTotalsAndTakesTheMaxOfMax() throws Exception {
        Path java = Cli.writtenByJava(dir.resolve("java.hints"));
        Path c = Cli.writtenByC(dir.resolve("c.hints"));
        Path out = dir.resolve("merged.hints");
        Cli.Result r = Cli.run("merge", java.toString(), c.toString(), "-o", out.toString()).expect(0);
        assertTrue(r.out().contains("merged 2 file(s), 12 regions, into " + out + ": 12 regions, capacity 12"), r.out());
        assertTrue(r.err().contains("merge: read [1/2] " + java + ": 12 regions"), r.err());
        Map<String, RegionRecord> single = read(java);
        Map<String, RegionRecord> merged = read(out);
        assertEquals(single.keySet(), merged.keySet());
        single.forEach((name, s) -> assertEquals(new RegionRecord(name, 2 * s.dispatchCount(), 2 * s.kernelNsTotal(),
                s.kernelNsMax(), 2 * s.bytesTotal()), merged.get(name)));
        assertTrue(HintFiles.verify(out, HintStoreOptions.defaults()).ok());
    }

    @Test
    void mergeKeepsTheHottestByTotalWhenRegionsExceedTheCapacity() throws Exception {
        Path a = store("a.hints", 4, new RegionRecord("cold", 1, 10, 10, 0), new RegionRecord("warm", 2, 500, 300, 0),
                new RegionRecord("hot", 1, 900, 900, 0));
        Path b = store("b.hints", 4, new RegionRecord("cold", 1, 20, 20, 0), new RegionRecord("tepid", 3, 60, 30, 0),
                new RegionRecord("warm", 1, 1, 1, 0));
        Path out = dir.resolve("m.hints");
        Cli.Result r = Cli.run("merge", a.toString(), b.toString(), "-o", out.toString(), "--capacity", "2").expect(0);
        assertTrue(r.err().contains("4 regions exceed the capacity of 2: keeping the 2 hottest"), r.err());
        assertEquals(Map.of("hot", new RegionRecord("hot", 1, 900, 900, 0), "warm", new RegionRecord("warm", 3, 501, 300, 0)),
                read(out));
        try (HintStore merged = HintStore.open(out, HintStoreOptions.defaults().readOnly(true))) {
            assertEquals(2, merged.capacity());
        }
    }

    @Test
    void weightsScaleAnInputBeforeMergingAndKeepItsMeans() throws Exception {
        Path a = store("a.hints", 8, new RegionRecord("k", 10, 1000, 200, 80));
        Path b = store("b.hints", 8, new RegionRecord("k", 1, 50, 50, 5));
        Path out = dir.resolve("w.hints");
        Cli.run("merge", a.toString(), b.toString(), "-o", out.toString(), "--weight", a + "=3", "--weight", b + "=0.5",
                "--quiet").expect(0);
        // a x3: (30, 3000, 200, 240); b x0.5: count max(1, round(0.5)) = 1, unchanged
        assertEquals(new RegionRecord("k", 31, 3050, 200, 245), read(out).get("k"));
    }

    @Test
    void quietSilencesProgressButNotTheResult() throws Exception {
        Path a = store("a.hints", 8, new RegionRecord("k", 1, 5, 5, 0));
        Cli.Result r = Cli.run("merge", a.toString(), "-o", dir.resolve("q.hints").toString(), "--quiet").expect(0);
        assertEquals("", r.err());
        assertTrue(r.out().startsWith("merged 1 file(s)"), r.out());
    }

    @Test
    void mergeNeverReplacesAnExistingOutputWithoutForce() throws Exception {
        Path a = store("a.hints", 8, new RegionRecord("k", 1, 5, 5, 0));
        Path out = Files.writeString(dir.resolve("exists.hints"), "precious");
        Cli.Result r = Cli.run("merge", a.toString(), "-o", out.toString()).expect(ExitCode.PROBLEMS);
        assertTrue(r.err().contains("use --force"), r.err());
        assertEquals("precious", Files.readString(out));
        Cli.run("merge", a.toString(), "-o", out.toString(), "--force", "-q").expect(0);
        assertEquals(Map.of("k", new RegionRecord("k", 1, 5, 5, 0)), read(out));
    }

    @Test
    void aDamagedInputFailsTheMergeAndWritesNothing() throws Exception {
        Path a = store("a.hints", 8, new RegionRecord("k", 1, 5, 5, 0));
        Path bad = Files.write(dir.resolve("bad.hints"), new byte[8192]);
        Path out = dir.resolve("never.hints");
        Cli.Result r = Cli.run("merge", a.toString(), bad.toString(), "-o", out.toString()).expect(ExitCode.BAD_FILE);
        assertTrue(r.err().contains(bad.toString()), r.err());
        try (var files = Files.list(dir)) {
            assertEquals(List.of("a.hints", "bad.hints"), files.map(p -> p.getFileName().toString()).sorted().toList());
        }
    }

    @Test
    void badWeightsAreUsageErrors() throws Exception {
        Path a = store("a.hints", 8, new RegionRecord("k", 1, 5, 5, 0));
        String out = dir.resolve("o.hints").toString();
        Cli.run("merge", a.toString(), "-o", out, "--weight", a + "=0").expect(ExitCode.USAGE);
        Cli.run("merge", a.toString(), "-o", out, "--weight", a + "=heavy").expect(ExitCode.USAGE);
        Cli.run("merge", a.toString(), "-o", out, "--weight", "other.hints=2").expect(ExitCode.USAGE);
        Cli.run("merge", a.toString(), "-o", out, "--capacity", "-3").expect(ExitCode.USAGE);
        Cli.run("merge", a.toString()).expect(ExitCode.USAGE);
        assertFalse(Files.exists(Path.of(out)));
    }

    @Test
    void decayAgesEveryRegionInPlaceAndKeepsMeans() throws Exception {
        Path file = store("d.hints", 8, new RegionRecord("a", 100, 50_000, 900, 1_000), new RegionRecord("b", 1, 7, 7, 1));
        Cli.Result r = Cli.run("decay", file.toString(), "--factor", "0.25").expect(0);
        assertTrue(r.out().contains("decayed 2 region(s)"), r.out());
        assertEquals(Map.of("a", new RegionRecord("a", 25, 12_500, 900, 250), "b", new RegionRecord("b", 1, 7, 7, 1)),
                read(file));
    }

    @Test
    void verifyIsQuietSuccessOnASoundFileAndExitOneWithEachProblemOtherwise() throws Exception {
        Path file = Cli.writtenByC(dir.resolve("v.hints"));
        assertTrue(Cli.run("verify", file.toString()).expect(0).out().startsWith("OK "));
        FileGeometryOffsets g = new FileGeometryOffsets(Cli.SAMPLES_CAPACITY);
        corrupt(file, m -> {
            m.set(Layouts.U64, g.slot(3) + Layouts.SLOT_HASH, 12345L);                  // a name hash
            m.set(Layouts.U64, g.index(0), 0L);                                          // an index entry, if any
            m.set(Layouts.U64, Layouts.HDR_LIVE_COUNT, 99L);                                 // the region count
        });
        Cli.Result r = Cli.run("verify", file.toString()).expect(ExitCode.PROBLEMS);
        assertTrue(r.out().contains("ERROR slot 3 [hash]: is 0x0000000000003039 but hm64 of the name is"), r.out());
        assertTrue(r.out().contains("[live_count]: is 99"), r.out());
        assertTrue(r.out().contains("FAILED " + file), r.out());
    }

    /** FORMAT.md §9.1: a reserved byte and a dead owner word are notes, printed, and the file verifies (exit 0). */
    @Test
    void verifyPrintsNotesAndExitsZeroWhenThereIsNoProblem() throws Exception {
        Path file = Cli.writtenByJava(dir.resolve("n.hints"));
        FileGeometryOffsets g = new FileGeometryOffsets(Cli.SAMPLES_CAPACITY);
        corrupt(file, m -> {
            m.set(ValueLayout.JAVA_BYTE, 1000, (byte) 5);             // header reserved
            m.set(ValueLayout.JAVA_BYTE, g.slot(0) + 40, (byte) 1);   // slot reserved
            m.set(Layouts.U64, Layouts.HDR_STRUCT_LOCK, 7L << 32);    // names entry -1
        });
        Cli.Result r = Cli.run("verify", file.toString()).expect(ExitCode.OK);
        assertTrue(r.out().contains("NOTE header [reserved (line 3 and beyond)]: byte at file offset 1000"), r.out());
        assertTrue(r.out().contains("NOTE slot 0 [reserved]"), r.out());
        assertTrue(r.out().contains("NOTE coordination [struct_lock]"), r.out());
        assertTrue(r.out().contains("OK " + file) && r.out().contains(" 0 problem(s)"), r.out());
    }

    /** Issue 12: a file that does not open is no usable hint file (3), not a hint file with problems (1). */
    @Test
    void verifyOfAFileItCannotOpenIsExitThreeWithTheReason() throws Exception {
        Path file = Cli.writtenByJava(dir.resolve("h.hints"));
        byte[] before = Files.readAllBytes(file);
        corrupt(file, m -> m.set(Layouts.U32, Layouts.HDR_CAPACITY, 13));
        byte[] corrupted = Files.readAllBytes(file);
        Cli.Result r = Cli.run("verify", file.toString()).expect(ExitCode.BAD_FILE);
        assertTrue(r.err().startsWith("hintmap verify: " + file) && r.err().contains("[field header_checksum]"), r.err());
        assertArrayEquals(corrupted, Files.readAllBytes(file), "verify never writes");
        assertFalse(java.util.Arrays.equals(before, corrupted));
    }

    /** Offsets of a capacity-N file with default name length, from the layouts. */
    record FileGeometryOffsets(int capacity) {
        long slot(int k) {
            dev.hintmap.format.FileGeometry g = new dev.hintmap.format.FileGeometry(capacity, 64);
            return g.slotsOffset() + (long) k * g.slotBytes();
        }

        long index(int j) {
            return new dev.hintmap.format.FileGeometry(capacity, 64).indexOffset() + 8L * j;
        }
    }

    private static void corrupt(Path file, Consumer<MemorySegment> change) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
                Arena arena = Arena.ofConfined()) {
            change.accept(ch.map(FileChannel.MapMode.READ_WRITE, 0, ch.size(), arena));
        }
    }
}
