package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintFiles;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import dev.hintmap.format.FileGeometry;
import dev.hintmap.format.Hm64;
import dev.hintmap.format.Layouts;
import dev.hintmap.store.OldVersionReader;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code hintmap upgrade} writes into the new file (FORMAT.md §12 step 3): every sound region
 * of a sound old file finds an index entry within {@code max_probe}, whatever the order of its
 * slots; a region that finds none (only a damaged old file has more regions in one stretch of the
 * index than an index can hold) is counted, reported and exit 1, never dropped silently; and each
 * region is inserted whole, with exactly the counters and slot fields §12 lists.
 *
 * <p>The version-2 files are made by this build's library and then marked version 2
 * ({@link VersionTwoFiles}): the two versions share the layout.
 */
class UpgradeConversionTest {
    /** index_entries 512, max_probe 128: a cluster can be longer than the probe bound. */
    private static final int CAPACITY = 130;
    private static final int MAX_NAME_BYTES = 128;
    private static final FileGeometry GEOMETRY = new FileGeometry(CAPACITY, MAX_NAME_BYTES);
    private static final int HOME = 100;

    @TempDir
    Path dir;

    /**
     * CUTLASS kernel names of one length (a six-digit variant; 100 bytes, whole under the limit),
     * whose index home in a file of capacity {@code CAPACITY} (130) and names up to
     * {@code MAX_NAME_BYTES} (128) is {@code home}; also for merge's exit status
     * ({@link ExitStatusRuleTest}).
     */
    static List<String> namesAtHome(int home, int count) {
        List<String> names = new ArrayList<>();
        for (int i = 0; names.size() < count; i++) {
            String name = String.format("void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4_v%06d>"
                    + "(Params const&)", i);
            if (homeOf(name) == home) {
                names.add(name);
            }
        }
        return names;
    }

    private static int homeOf(String name) {
        byte[] b = name.getBytes(StandardCharsets.UTF_8);
        return (int) (Hm64.ofBytes(b, b.length) & (GEOMETRY.indexEntries() - 1));
    }

    private static RegionRecord record(String name, int i) {
        return new RegionRecord(name, 1 + i % 5, 100_000L * (i + 1), 100_000L * (i + 1), 1L << 20);
    }

    /**
     * A sound version-2 file whose slot order puts a region of home {@code HOME + 1} before the 128
     * regions of home {@code HOME}: the library inserts Z, the 128 regions of home HOME (they take
     * entries HOME..HOME+127), W, references all but Z, then inserts Y of home HOME + 1, which
     * evicts Z, takes its slot 0 and entry HOME + 128 (distance 127). Slot order Y, X1..X128, W.
     */
    private Path soundClusterFile(String name) throws IOException {
        Path file = dir.resolve(name);
        List<String> cluster = namesAtHome(HOME, 128);
        String y = namesAtHome(HOME + 1, 1).get(0);
        String z = namesAtHome(300, 1).get(0);
        String w = namesAtHome(301, 1).get(0);
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(CAPACITY).maxNameBytes(MAX_NAME_BYTES))) {
            store.add(record(z, 0));
            for (int i = 0; i < cluster.size(); i++) {
                store.add(record(cluster.get(i), i + 1));
            }
            store.add(record(w, 129));
            cluster.forEach(x -> store.record(x, 50_000, 4096));
            store.record(w, 50_000, 4096);
            store.add(record(y, 130));
            assertEquals(Optional.empty(), store.recordFor(z), "Z evicted");
            assertEquals(CAPACITY, store.size());
            assertEquals(0, store.info().droppedInserts());
        }
        VersionTwoFiles.fromCurrent(file);
        List<RegionRecord> old = OldVersionReader.read(file, HintStoreOptions.defaults()).regions();
        assertEquals(y, old.get(0).name(), "Y holds slot 0, before the cluster of the home before its own");
        return file;
    }

    private static Map<String, RegionRecord> regionsOf(Path file) throws IOException {
        Map<String, RegionRecord> regions = new HashMap<>();
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            store.snapshot().regions().forEach(r -> regions.put(r.name(), r));
        }
        return regions;
    }

    private static Map<String, RegionRecord> byName(List<RegionRecord> regions) {
        Map<String, RegionRecord> map = new HashMap<>();
        regions.forEach(r -> map.put(r.name(), r));
        return map;
    }

    /**
     * In slot order, Y takes entry HOME + 1 first and the 128th region of home HOME finds no entry
     * within max_probe: dropped (exit 1) although the old index held every region. In the order of
     * their homes every region is carried over.
     */
    @Test
    void everyRegionOfASoundFileIsCarriedOverWhateverTheOrderOfItsSlots() throws IOException {
        Path file = soundClusterFile("cluster.hints");
        Map<String, RegionRecord> old = byName(OldVersionReader.read(file, HintStoreOptions.defaults()).regions());
        Path out = dir.resolve("new.hints");
        Cli.Result r = Cli.run("upgrade", "-q", file.toString(), "-o", out.toString()).expect(ExitCode.OK);
        assertTrue(r.out().contains(CAPACITY + " regions"), r.out());
        assertEquals(old, regionsOf(out));
        assertTrue(HintFiles.verify(out, HintStoreOptions.defaults()).ok(),
                HintFiles.verify(out, HintStoreOptions.defaults()).findings().toString());
        try (HintStore store = HintStore.open(out, HintStoreOptions.defaults().readOnly(true))) {
            assertEquals(0, store.info().droppedInserts());
        }
    }

    /**
     * A damaged old file: 129 sound regions share one home (W's slot rewritten to a 129th name of
     * home HOME, hash and all; the old index, which upgrade does not read, no longer matches), so
     * no index of 512 entries holds them all within 128 of their home. One is not carried over:
     * counted in the new file's {@code dropped_inserts}, reported with the file that still holds it,
     * exit 1; every other region is carried over.
     */
    @Test
    void aRegionNoIndexCanHoldIsCountedAndReportedWithExitOneNeverDroppedSilently() throws IOException {
        Path file = soundClusterFile("damaged.hints");
        String extra = namesAtHome(HOME, 129).get(128);
        String w = namesAtHome(301, 1).get(0);
        rewriteName(file, w, extra);
        List<RegionRecord> old = OldVersionReader.read(file, HintStoreOptions.defaults()).regions();
        assertEquals(CAPACITY, old.size(), "every slot is sound");
        byte[] before = Files.readAllBytes(file);
        Path out = dir.resolve("new.hints");
        Cli.Result r = Cli.run("upgrade", "-q", file.toString(), "-o", out.toString()).expect(ExitCode.PROBLEMS);
        assertTrue(r.err().contains("upgrade: 1 sound region(s) were not carried over: no index entry within max_probe")
                && r.err().contains(file + " still holds them"), r.err());
        assertTrue(r.out().contains((CAPACITY - 1) + " regions"), r.out());
        Map<String, RegionRecord> now = regionsOf(out);
        assertEquals(CAPACITY - 1, now.size());
        assertTrue(byName(old).entrySet().containsAll(now.entrySet()));
        try (HintStore store = HintStore.open(out, HintStoreOptions.defaults().readOnly(true))) {
            assertEquals(1, store.info().droppedInserts());
            assertEquals(CAPACITY - 1, store.info().structuralChanges(), "index_seq / 2: one change per region inserted, none for it");
        }
        assertArrayEquals(before, Files.readAllBytes(file), "-o NEW leaves the old file alone");
    }

    /** Rewrites the name of the slot holding {@code from} to {@code to} (same length), with its hash. */
    private static void rewriteName(Path file, String from, String to) throws IOException {
        byte[] a = from.getBytes(StandardCharsets.UTF_8);
        byte[] b = to.getBytes(StandardCharsets.UTF_8);
        assertEquals(a.length, b.length);
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            for (int k = 0; k < CAPACITY; k++) {
                long slot = GEOMETRY.slotsOffset() + (long) k * GEOMETRY.slotBytes();
                byte[] name = new byte[a.length];
                raf.seek(slot + Layouts.SLOT_NAME);
                raf.readFully(name);
                if (java.util.Arrays.equals(name, a)) {
                    raf.seek(slot + Layouts.SLOT_NAME);
                    raf.write(b);
                    raf.seek(slot + Layouts.SLOT_HASH);
                    raf.write(VersionTwoFiles.le64(Hm64.ofBytes(b, b.length)));
                    return;
                }
            }
        }
        throw new AssertionError(from + " is in no slot");
    }

    /**
     * FORMAT.md §12 step 3, the fields: each region is inserted once, whole (§7.4 with its current
     * record as the first), so the new file's header has {@code live_count = high_water = n},
     * {@code index_seq = 2n}, every other coordination word and counter 0; each used slot
     * {@code gen 2}, {@code seq 1}, copy 1 the record, copy 0 zero, reference byte 0, lock 0,
     * {@code hash = hm64(name)}; every index entry names its slot at its distance from home; the
     * slots above {@code n} untouched; one writer entry claimed once and released (the tool's own).
     */
    @Test
    void theUpgradeInsertsEachRegionWholeAndWritesExactlyTheseFields() throws IOException {
        Path file = dir.resolve("golden.hints");
        Files.copy(Path.of("src", "test", "resources", "vectors", "golden-v2.hints"), file);
        Map<String, RegionRecord> old = byName(OldVersionReader.read(file, HintStoreOptions.defaults()).regions());
        int n = old.size();
        Cli.run("upgrade", "-q", file.toString()).expect(ExitCode.OK);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ); Arena arena = Arena.ofConfined()) {
            MemorySegment m = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size(), arena);
            FileGeometry g = new FileGeometry(m.get(Layouts.U32, Layouts.HDR_CAPACITY), m.get(Layouts.U32, Layouts.HDR_MAX_NAME_BYTES));
            assertEquals(n, m.get(Layouts.U64, Layouts.HDR_LIVE_COUNT));
            assertEquals(n, m.get(Layouts.U64, Layouts.HDR_HIGH_WATER));
            assertEquals(2L * n, m.get(Layouts.U64, Layouts.HDR_INDEX_SEQ), "one structural change per region");
            for (long word : new long[] {Layouts.HDR_STRUCT_LOCK, Layouts.HDR_JOURNAL_SLOT, Layouts.HDR_CLOCK_HAND,
                Layouts.HDR_EVICTIONS, Layouts.HDR_RECOVERIES, Layouts.HDR_DROPPED_INSERTS, Layouts.HDR_STOLEN_LOCKS}) {
                assertEquals(0, m.get(Layouts.U64, word), "header word at " + word);
            }
            Map<String, RegionRecord> slots = new HashMap<>();
            for (int k = 0; k < g.capacity(); k++) {
                long slot = g.slotsOffset() + (long) k * g.slotBytes();
                if (k >= n) {
                    assertEquals(-1, m.asSlice(slot, g.slotBytes()).mismatch(MemorySegment.ofArray(new byte[g.slotBytes()])),
                            "slot " + k + " untouched");
                    continue;
                }
                assertEquals(0, m.get(Layouts.U64, slot + Layouts.SLOT_LOCK));
                assertEquals(2, m.get(Layouts.U64, slot + Layouts.SLOT_GEN));
                assertEquals(1, m.get(Layouts.U64, slot + Layouts.SLOT_SEQ));
                assertEquals(0, m.get(ValueLayout.JAVA_BYTE, g.refTableOffset() + k), "reference byte of slot " + k);
                int length = m.get(Layouts.U32, slot + Layouts.SLOT_NAME_LEN);
                byte[] name = m.asSlice(slot + Layouts.SLOT_NAME, length).toArray(ValueLayout.JAVA_BYTE);
                assertEquals(Hm64.ofBytes(name, length), m.get(Layouts.U64, slot + Layouts.SLOT_HASH));
                long copy0 = slot + Layouts.SLOT_COPIES;
                long copy1 = copy0 + Layouts.RECORD_COPY_BYTES;
                assertEquals(-1, m.asSlice(copy0, Layouts.RECORD_COPY_BYTES)
                        .mismatch(MemorySegment.ofArray(new byte[(int) Layouts.RECORD_COPY_BYTES])), "copy 0 zero");
                slots.put(new String(name, StandardCharsets.UTF_8), new RegionRecord(new String(name, StandardCharsets.UTF_8),
                        m.get(Layouts.U64, copy1 + Layouts.REC_DISPATCH_COUNT), m.get(Layouts.U64, copy1 + Layouts.REC_KERNEL_NS_TOTAL),
                        m.get(Layouts.U64, copy1 + Layouts.REC_KERNEL_NS_MAX), m.get(Layouts.U64, copy1 + Layouts.REC_BYTES_TOTAL)));
                assertIndexed(m, g, Hm64.ofBytes(name, length), k);
            }
            assertEquals(old, slots, "copy 1 of each slot is the old current record");
            int entries = 0;
            for (int j = 0; j < g.indexEntries(); j++) {
                entries += m.get(Layouts.U64, g.indexOffset() + 8L * j) != 0 ? 1 : 0;
            }
            assertEquals(n, entries);
            HashSet<String> writers = new HashSet<>();
            for (int i = 0; i < g.writerEntries(); i++) {
                long entry = g.writerTableOffset() + Layouts.WRITER_ENTRY.byteSize() * i;
                writers.add(m.get(Layouts.U64, entry + Layouts.WRITER_TOKEN) + "/" + m.get(Layouts.U64, entry + Layouts.WRITER_GENERATION));
            }
            assertEquals(new HashSet<>(List.of("0/0", "0/1")), writers, "tokens released; one claim, by the tool");
        }
    }

    private static void assertIndexed(MemorySegment m, FileGeometry g, long hash, int k) {
        int mask = g.indexEntries() - 1;
        int home = (int) (hash & mask);
        for (int dist = 0; dist < g.maxProbe(); dist++) {
            long e = m.get(Layouts.U64, g.indexOffset() + 8L * ((home + dist) & mask));
            if ((e & Layouts.INDEX_SLOT_MASK) == k + 1L) {
                assertEquals(hash >>> Layouts.INDEX_TAG_SHIFT, e >>> Layouts.INDEX_TAG_SHIFT, "tag");
                assertEquals(dist, (e >>> Layouts.INDEX_DIST_SHIFT) & Layouts.INDEX_DIST_MASK, "dist");
                return;
            }
        }
        throw new AssertionError("slot " + k + " has no index entry within max_probe of its home");
    }
}
