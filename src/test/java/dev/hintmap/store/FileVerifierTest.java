package dev.hintmap.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintFiles;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.TestStores;
import dev.hintmap.VerifyReport;
import dev.hintmap.VerifyReport.Finding;
import dev.hintmap.VerifyReport.Severity;
import dev.hintmap.format.FileGeometry;
import dev.hintmap.format.Hm64;
import dev.hintmap.format.Layouts;
import dev.hintmap.os.ProcessIdentity;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code HintFiles.verify}: sound files pass, and each injected corruption is found where it was planted. */
class FileVerifierTest {
    /** The layout these tests' offsets and bounds were written for (the default name limit was 64). */
    private static final HintStoreOptions LAYOUT = HintStoreOptions.defaults().maxNameBytes(64);

    private static final int CAPACITY = 8;
    private static final FileGeometry GEOMETRY = new FileGeometry(CAPACITY, 64);
    private static final Slots SLOTS = new Slots(GEOMETRY);

    @TempDir
    Path dir;

    /** Six regions r0..r5 in slots 0..5 of a capacity-8 file. */
    private Path sixRegions() throws IOException {
        Path file = dir.resolve("six.hints");
        try (HintStore store = HintStore.open(file, LAYOUT.capacity(CAPACITY))) {
            for (int i = 0; i < 6; i++) {
                for (int n = 0; n <= i; n++) {
                    store.record("r" + i, 1000L * (i + 1) + n, 64);
                }
            }
        }
        return file;
    }

    private static void corrupt(Path file, Consumer<Memory> change) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
                Arena arena = Arena.ofConfined()) {
            MemorySegment segment = channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size(), arena);
            change.accept(new Memory(segment));
        }
    }

    private static VerifyReport verify(Path file) throws IOException {
        return HintFiles.verify(file, LAYOUT);
    }

    private static Finding expectError(VerifyReport report, String area, long slot, String field) {
        assertFalse(report.ok(), "expected an error: " + report);
        return report.errors().stream()
                .filter(f -> f.area().equals(area) && f.slot() == slot && f.field().equals(field))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no ERROR " + area + " slot " + slot + " [" + field + "] in "
                        + report.findings()));
    }

    /** The NOTE at {@code area}, {@code slot}, {@code field}; the report is ok (a note is not a problem, §9.1). */
    private static Finding expectNote(VerifyReport report, String area, long slot, String field) {
        assertTrue(report.ok(), "expected no error: " + report.findings());
        return report.findings().stream()
                .filter(f -> f.severity() == Severity.NOTE && f.area().equals(area) && f.slot() == slot
                        && f.field().equals(field))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no NOTE " + area + " slot " + slot + " [" + field + "] in "
                        + report.findings()));
    }

    /** Stores the §3.1 checksum of the header as it now is, so that a planted change is not a corrupt header. */
    private static void rechecksum(Memory m) {
        byte[] covered = m.segment.asSlice(Layouts.HDR_FORMAT_VERSION, Layouts.HDR_HEADER_CHECKSUM - Layouts.HDR_FORMAT_VERSION)
                .toArray(ValueLayout.JAVA_BYTE);
        Memory.plainLong(m.segment, Layouts.HDR_HEADER_CHECKSUM, Hm64.ofBytes(covered, covered.length));
    }

    /** The index entry that names {@code slot}. */
    private static int entryOf(Memory m, int slot) {
        for (int j = 0; j < GEOMETRY.indexEntries(); j++) {
            long e = Memory.plainLong(m.segment, GEOMETRY.indexOffset() + 8L * j);
            if (e != 0 && HashIndex.slotOf(e) == slot) {
                return j;
            }
        }
        throw new AssertionError("slot " + slot + " has no index entry");
    }

    private static long entryOffset(int j) {
        return GEOMETRY.indexOffset() + 8L * j;
    }

    private static long currentCopy(Memory m, int slot) {
        long s = SLOTS.slot(slot);
        return Slots.copy(s, Memory.plainLong(m.segment, Slots.seq(s)));
    }

    // ------------------------------------------------------------------ sound files

    @Test
    void aFreshlyWrittenFileIsSound() throws Exception {
        VerifyReport report = verify(sixRegions());
        assertTrue(report.ok(), report.toString());
        assertEquals(java.util.List.of(), report.findings());
        assertEquals(6, report.regions());
        assertEquals(6, report.indexEntries());
        assertTrue(report.stable());
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 3, 64, 300})
    void filesAfterHeavyEvictionAreSound(int capacity) throws Exception {
        Path file = dir.resolve("churn-" + capacity + ".hints");
        try (HintStore store = HintStore.open(file, LAYOUT.capacity(capacity))) {
            java.util.SplittableRandom random = new java.util.SplittableRandom(capacity);
            for (int i = 0; i < 20_000; i++) {
                store.record("region-" + random.nextInt(4 * capacity + 5), random.nextLong(1, 10_000), 1);
            }
        }
        VerifyReport report = verify(file);
        assertTrue(report.ok(), report.findings().toString());
        assertEquals(Math.min(capacity, 4 * capacity + 5), report.regions());
    }

    @Test
    void theGoldenFileWrittenByJavaAndCIsSound() throws Exception {
        Path copy = dir.resolve("golden.hints");
        Files.copy(Path.of("src/test/resources/vectors/golden.hints"), copy, StandardCopyOption.REPLACE_EXISTING);
        VerifyReport report = verify(copy);
        assertTrue(report.ok(), report.findings().toString());
        assertTrue(report.regions() > 0);
    }

    @Test
    void aLockLeftByADeadWriterIsANoteNotAnError() throws Exception {
        Path file = sixRegions();
        Process sleeper = new ProcessBuilder("sleep", "60").start();
        long pid = sleeper.pid();
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        long token = ProcessIdentity.token(pid, Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[19]));
        sleeper.destroyForcibly();
        sleeper.waitFor();
        corrupt(file, m -> {
            WriterTable table = new WriterTable(m, GEOMETRY, null);
            Memory.plainLong(m.segment, table.entryOffset(3) + Layouts.WRITER_TOKEN, token);
            Memory.plainLong(m.segment, table.entryOffset(3) + Layouts.WRITER_GENERATION, 2);
            Memory.plainLong(m.segment, Slots.lock(SLOTS.slot(1)), WriterTable.ownerWord(3, 2));
        });
        VerifyReport report = verify(file);
        assertTrue(report.ok(), report.findings().toString());
        assertTrue(report.findings().stream().anyMatch(f -> f.severity() == Severity.NOTE && f.field().equals("lock")),
                report.findings().toString());
        assertTrue(report.findings().stream().anyMatch(f -> f.severity() == Severity.NOTE && f.area().equals("writer-table")),
                report.findings().toString());
    }

    @Test
    void verifyingALiveFileWhileAWriterRecordsAndInsertsIsSoundAndWritesNothing() throws Exception {
        Path file = dir.resolve("live.hints");
        try (HintStore store = HintStore.open(file, LAYOUT.capacity(64))) {
            AtomicBoolean stop = new AtomicBoolean();
            Thread writer = Thread.ofPlatform().start(() -> {
                long n = 0;
                while (!stop.get()) {
                    store.record("steady-" + (n % 16), n % 1000 + 1, 8);
                    if (n % 5_000 == 0) {
                        store.record("new-" + n, 5, 5); // an insertion, now and then an eviction
                    }
                    n++;
                }
            });
            try {
                for (int i = 0; i < 20; i++) {
                    VerifyReport report = verify(file);
                    assertTrue(report.ok(), report.findings().toString());
                }
            } finally {
                stop.set(true);
                writer.join();
            }
        }
    }

    /**
     * Counters at 2^63-1 saturate instead of wrapping into the top bit (FORMAT.md §1): found by the
     * fuzz harness's "a sound file stays sound under writers" with evictions planted at the maximum.
     */
    @Test
    void countersAtTheirMaximumStayThereAndTheFileStaysSound() throws Exception {
        Path file = sixRegions();
        corrupt(file, m -> {
            Memory.plainLong(m.segment, Layouts.HDR_EVICTIONS, Long.MAX_VALUE);
            Memory.plainLong(m.segment, Layouts.HDR_RECOVERIES, Long.MAX_VALUE);
            Memory.plainLong(m.segment, Layouts.HDR_STOLEN_LOCKS, Long.MAX_VALUE);
            Memory.plainLong(m.segment, Layouts.HDR_CLOCK_HAND, CAPACITY); // out of range: the next insertion recovers
            Memory.plainLong(m.segment, Slots.lock(SLOTS.slot(0)), WriterTable.ownerWord(900, 1)); // an entry nobody holds: dead
        });
        assertFalse(verify(file).ok(), "the planted hand is an error until repaired");
        try (HintStore store = HintStore.open(file, LAYOUT)) {
            store.record("r0", 1, 1);            // steals the dead owner's slot lock
            for (int i = 0; i < 6; i++) {
                store.record("new" + i, 1, 1);   // recovery, then insertions that evict
            }
        }
        corrupt(file, m -> {
            assertEquals(Long.MAX_VALUE, Memory.plainLong(m.segment, Layouts.HDR_EVICTIONS));
            assertEquals(Long.MAX_VALUE, Memory.plainLong(m.segment, Layouts.HDR_RECOVERIES));
            assertEquals(Long.MAX_VALUE, Memory.plainLong(m.segment, Layouts.HDR_STOLEN_LOCKS));
        });
        VerifyReport report = verify(file);
        assertTrue(report.ok(), report.findings().toString());
    }

    // ------------------------------------------------------------------ header and coordination

    @Test
    void aCorruptHeaderIsTheOneFinding() throws Exception {
        Path file = sixRegions();
        corrupt(file, m -> Memory.plainInt(m.segment, Layouts.HDR_MAX_NAME_BYTES, 65));
        VerifyReport report = verify(file);
        Finding f = expectError(report, "header", -1, "header_checksum");
        assertTrue(f.message().contains("CORRUPT_HEADER"), f.toString());
        assertEquals(1, report.findings().size());
    }

    @Test
    void aNonZeroReservedHeaderByteIsANote() throws Exception {
        Path file = sixRegions();
        corrupt(file, m -> m.segment.set(ValueLayout.JAVA_BYTE, 300, (byte) 1));
        assertTrue(expectNote(verify(file), "header", -1, "reserved (line 3 and beyond)").message().contains("300"));
    }

    @Test
    void nonZeroReservedBytesOfLinesOneAndThreeAreNotes() throws Exception {
        Path file = sixRegions();
        corrupt(file, m -> {
            m.segment.set(ValueLayout.JAVA_BYTE, 104, (byte) 1);   // reserved, under the checksum
            m.segment.set(ValueLayout.JAVA_BYTE, 119, (byte) 2);
            m.segment.set(ValueLayout.JAVA_BYTE, 208, (byte) 3);   // line 3 after stolen_locks
            m.segment.set(ValueLayout.JAVA_BYTE, 4095, (byte) 4);  // the header's last byte
            rechecksum(m);
        });
        VerifyReport report = verify(file);
        assertTrue(expectNote(report, "header", -1, "reserved (line 1)").message().contains("104"));
        assertTrue(expectNote(report, "header", -1, "reserved (line 3 and beyond)").message().contains("208"));
        assertEquals(6, report.regions());
    }

    @Test
    void coordinationWordsOutOfRangeAreFound() throws Exception {
        Path file = sixRegions();
        corrupt(file, m -> {
            Memory.plainLong(m.segment, Layouts.HDR_CLOCK_HAND, CAPACITY);
            Memory.plainLong(m.segment, Layouts.HDR_HIGH_WATER, CAPACITY + 1);
            Memory.plainLong(m.segment, Layouts.HDR_LIVE_COUNT, 5);
            Memory.plainLong(m.segment, Layouts.HDR_EVICTIONS, -1);
        });
        VerifyReport report = verify(file);
        expectError(report, "coordination", -1, "clock_hand");
        expectError(report, "coordination", -1, "high_water");
        assertTrue(expectError(report, "coordination", -1, "live_count").message().contains("6 slots are LIVE"));
        expectError(report, "coordination", -1, "evictions");
    }

    @Test
    void anInterruptedStructuralChangeIsFound() throws Exception {
        Path file = sixRegions();
        corrupt(file, m -> {
            Memory.plainLong(m.segment, Layouts.HDR_JOURNAL_SLOT, 4);
            Memory.plainLong(m.segment, Layouts.HDR_INDEX_SEQ, Memory.plainLong(m.segment, Layouts.HDR_INDEX_SEQ) | 1);
        });
        assertTrue(expectError(verify(file), "coordination", -1, "journal_slot").message().contains("interrupted"));
    }

    @Test
    void aStructureLockNamingNoWriterEntryIsANoteItsOwnerIsDead() throws Exception {
        Path file = sixRegions();
        corrupt(file, m -> Memory.plainLong(m.segment, Layouts.HDR_STRUCT_LOCK, WriterTable.ownerWord(5000, 1)));
        assertTrue(expectNote(verify(file), "coordination", -1, "struct_lock").message().contains("5000"));
    }

    @Test
    void aWriterTokenNamingProcessZeroIsANoteItNamesNoLiveProcess() throws Exception {
        Path file = sixRegions();
        corrupt(file, m -> Memory.plainLong(m.segment, new WriterTable(m, GEOMETRY, null).entryOffset(9) + Layouts.WRITER_TOKEN, 5));
        assertTrue(expectNote(verify(file), "writer-table", -1, "token").message().contains("entry 9"));
    }

    /** §6.1: a claim stores its token, then its generation; a claimer seen (or dead) in between leaves 0. */
    @Test
    void aClaimedWriterEntryWithGenerationZeroIsANote() throws Exception {
        Path file = sixRegions();
        long self = ProcessHandle.current().pid();
        String stat = Files.readString(Path.of("/proc/self/stat"));
        long token = ProcessIdentity.token(self, Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[19]));
        corrupt(file, m -> {
            long entry = new WriterTable(m, GEOMETRY, null).entryOffset(11);
            Memory.plainLong(m.segment, entry + Layouts.WRITER_TOKEN, token);
            Memory.plainLong(m.segment, entry + Layouts.WRITER_GENERATION, 0);
        });
        assertTrue(expectNote(verify(file), "writer-table", -1, "generation").message().contains("entry 11"));
    }

    // ------------------------------------------------------------------ slots

    @Test
    void aNameHashThatDoesNotMatchTheNameIsFound() throws Exception {
        Path file = sixRegions();
        corrupt(file, m -> Memory.plainLong(m.segment, Slots.hash(SLOTS.slot(2)), Memory.plainLong(m.segment, Slots.hash(SLOTS.slot(2))) ^ 1));
        VerifyReport report = verify(file);
        expectError(report, "slot", 2, "hash");
        expectError(report, "index", 2, "index"); // its entry now names an unsound slot
    }

    @Test
    void aNameLengthAboveTheMaximumIsFound() throws Exception {
        Path file = sixRegions();
        corrupt(file, m -> Memory.plainInt(m.segment, Slots.nameLen(SLOTS.slot(1)), 65));
        assertTrue(expectError(verify(file), "slot", 1, "name_len").message().contains("65"));
    }

    @Test
    void nonZeroNamePaddingIsFound() throws Exception {
        Path file = sixRegions();
        corrupt(file, m -> m.segment.set(ValueLayout.JAVA_BYTE, Slots.nameWord(SLOTS.slot(3), 0) + 10, (byte) 'x'));
        expectError(verify(file), "slot", 3, "name");
    }

    @Test
    void aNameThatIsNotUtf8IsFoundEvenWithAMatchingHash() throws Exception {
        Path file = sixRegions();
        corrupt(file, m -> {
            long slot = SLOTS.slot(0);
            byte[] bad = {'r', (byte) 0xC3}; // "r" and half of a two-byte sequence
            m.segment.set(ValueLayout.JAVA_BYTE, Slots.nameWord(slot, 0) + 1, bad[1]);
            Memory.plainLong(m.segment, Slots.hash(slot), Hm64.ofBytes(bad, 2));
        });
        assertTrue(expectError(verify(file), "slot", 0, "name").message().contains("UTF-8"));
    }

    @Test
    void recordsThatNoWriterCanProduceAreFoundByInvariant() throws Exception {
        Path file = sixRegions();
        corrupt(file, m -> {
            long c1 = currentCopy(m, 1);
            RecordCopies.plainKernelNsMax(m.segment, c1, RecordCopies.plainKernelNsTotal(m.segment, c1) + 1);
            long c2 = currentCopy(m, 2);
            RecordCopies.plainDispatchCount(m.segment, c2, 0);
            long c3 = currentCopy(m, 3);
            RecordCopies.plainKernelNsTotal(m.segment, c3, RecordCopies.plainDispatchCount(m.segment, c3) * (RecordCopies.plainKernelNsMax(m.segment, c3) + 1));
            long c4 = currentCopy(m, 4);
            RecordCopies.plainBytesTotal(m.segment, c4, -5);
        });
        VerifyReport report = verify(file);
        expectError(report, "slot", 1, "kernel_ns_max");
        expectError(report, "slot", 2, "dispatch_count");
        expectError(report, "slot", 3, "kernel_ns_total");
        expectError(report, "slot", 4, "copies");
    }

    @Test
    void aReferenceBitOtherThanZeroOrOneAndReservedBytesAreFound() throws Exception {
        Path file = sixRegions();
        corrupt(file, m -> {
            m.segment.set(ValueLayout.JAVA_BYTE, SLOTS.ref(1), (byte) 7);
            m.segment.set(ValueLayout.JAVA_BYTE, SLOTS.slot(2) + 50, (byte) 9);
        });
        VerifyReport report = verify(file);
        expectError(report, "slot", 1, "ref");
        Finding reserved = report.findings().stream()
                .filter(f -> f.area().equals("slot") && f.slot() == 2 && f.field().equals("reserved")).findFirst()
                .orElseThrow(() -> new AssertionError("no finding for slot 2's reserved bytes: " + report.findings()));
        assertEquals(Severity.NOTE, reserved.severity(), "reserved bytes are a note (§9.1)");
    }

    @Test
    void nonZeroReservedSlotBytesAloneAreANote() throws Exception {
        Path file = sixRegions();
        corrupt(file, m -> {
            m.segment.set(ValueLayout.JAVA_BYTE, SLOTS.slot(3) + 36, (byte) 1);  // first reserved byte (v1's referenced)
            m.segment.set(ValueLayout.JAVA_BYTE, SLOTS.slot(3) + 63, (byte) 1);  // last one
        });
        VerifyReport report = verify(file);
        assertTrue(expectNote(report, "slot", 3, "reserved").message().contains(Long.toString(SLOTS.slot(3) + 36)));
        assertEquals(6, report.regions(), "the slot stays a LIVE region");
    }

    /**
     * §7.4 step 10: an insertion that finds no index entry sets {@code name_len = 0} and leaves
     * the name, hash and record it wrote: a FREE slot with leftovers, which recovery skips unread.
     */
    @Test
    void aFreeSlotWithTheLeftoversOfStepTenIsSound() throws Exception {
        Path file = sixRegions();
        corrupt(file, m -> {
            long slot = SLOTS.slot(6);
            byte[] name = "left-over".getBytes(StandardCharsets.UTF_8);
            MemorySegment.copy(name, 0, m.segment, ValueLayout.JAVA_BYTE, Slots.nameWord(slot, 0), name.length);
            Memory.plainLong(m.segment, Slots.hash(slot), Hm64.ofBytes(name, name.length));
            Memory.plainLong(m.segment, Slots.gen(slot), 2);
            Memory.plainLong(m.segment, Slots.seq(slot), 1);
            long copy = Slots.copy(slot, 1);
            RecordCopies.plainDispatchCount(m.segment, copy, 1);
            RecordCopies.plainKernelNsTotal(m.segment, copy, 500);
            RecordCopies.plainKernelNsMax(m.segment, copy, 500);
            Memory.plainInt(m.segment, Slots.nameLen(slot), 0);
            Memory.plainLong(m.segment, Layouts.HDR_HIGH_WATER, 7);
            Memory.plainLong(m.segment, Layouts.HDR_CLOCK_HAND, 6);
        });
        VerifyReport report = verify(file);
        assertTrue(report.ok(), report.findings().toString());
        assertTrue(report.findings().stream().noneMatch(f -> f.slot() == 6), report.findings().toString());
        assertEquals(6, report.regions());
    }

    @Test
    void aBusySlotWithNoChangeUnderWayAndABadLockWordAreFound() throws Exception {
        Path file = sixRegions();
        corrupt(file, m -> {
            Memory.plainLong(m.segment, Slots.gen(SLOTS.slot(5)), Memory.plainLong(m.segment, Slots.gen(SLOTS.slot(5))) | 1);
            Memory.plainLong(m.segment, Slots.lock(SLOTS.slot(4)), WriterTable.ownerWord(4096, 1));
        });
        VerifyReport report = verify(file);
        expectError(report, "slot", 5, "gen");
        Finding lock = report.findings().stream().filter(f -> f.slot() == 4 && f.field().equals("lock")).findFirst()
                .orElseThrow(() -> new AssertionError("no finding for slot 4's lock: " + report.findings()));
        assertEquals(Severity.NOTE, lock.severity(), "a lock word naming no entry is a dead owner (§6.3): a note");
        expectError(report, "index", 5, "index"); // BUSY is not LIVE: its entry names no region
    }

    /** Owner word low bits 0 name entry -1, and 1025 names one past the table: both dead by §6.3. */
    @Test
    void lockWordsNamingEntryZeroOrBeyondTheTableAreNotes() throws Exception {
        Path file = sixRegions();
        corrupt(file, m -> {
            Memory.plainLong(m.segment, Slots.lock(SLOTS.slot(1)), 7L << 32);                               // low bits 0
            Memory.plainLong(m.segment, Slots.lock(SLOTS.slot(2)), WriterTable.ownerWord(GEOMETRY.writerEntries(), 1)); // entry 1024
        });
        VerifyReport report = verify(file);
        assertTrue(expectNote(report, "slot", 1, "lock").message().contains("entry -1"));
        assertTrue(expectNote(report, "slot", 2, "lock").message().contains("entry 1024"));
        assertEquals(6, report.regions());
    }

    @Test
    void aControlLineUsedBeyondHighWaterIsANote() throws Exception {
        Path file = sixRegions();
        corrupt(file, m -> Memory.plainLong(m.segment, Slots.gen(SLOTS.slot(7)), 2));
        assertTrue(expectNote(verify(file), "slot", 7, "gen").message().contains("high_water"));
    }

    @Test
    void theSameNameInTwoSlotsIsFound() throws Exception {
        Path file = sixRegions();
        corrupt(file, m -> {
            long from = SLOTS.slot(1);
            long to = SLOTS.slot(3);
            Memory.plainLong(m.segment, Slots.hash(to), Memory.plainLong(m.segment, Slots.hash(from)));
            Memory.plainInt(m.segment, Slots.nameLen(to), Memory.plainInt(m.segment, Slots.nameLen(from)));
            Memory.plainLong(m.segment, Slots.nameWord(to, 0), Memory.plainLong(m.segment, Slots.nameWord(from, 0)));
        });
        assertTrue(expectError(verify(file), "slot", 3, "name").message().contains("slot 1"));
    }

    /** Gives slot {@code to} slot {@code from}'s name: its length, hash and whole name area. */
    private static void copyName(Memory m, int from, int to) {
        long f = SLOTS.slot(from);
        long t = SLOTS.slot(to);
        Memory.plainLong(m.segment, Slots.hash(t), Memory.plainLong(m.segment, Slots.hash(f)));
        Memory.plainInt(m.segment, Slots.nameLen(t), Memory.plainInt(m.segment, Slots.nameLen(f)));
        for (int w = 0; w < SLOTS.nameAreaWords; w++) {
            Memory.plainLong(m.segment, Slots.nameWord(t, w), Memory.plainLong(m.segment, Slots.nameWord(f, w)));
        }
    }

    /**
     * FORMAT §9.1: a slot holding the name of a lower sound slot is not LIVE — the rule by which
     * recovery keeps a slot (§8 step 2c, {@code SlotSoundness.keptFirst}) — so verify counts the
     * regions recovery keeps, and the file recovery then repairs verifies clean with them. Verify
     * used to count the later duplicate LIVE too (5 regions where recovery keeps 4).
     */
    @Test
    void aSlotHoldingALowerSlotsNameIsNotLiveAndVerifyCountsWhatRecoveryKeeps() throws Exception {
        String[] kernels = {
            "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)",
            "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t>>",
            "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl>(int, ...)",
            "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>",
            "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float>(float*)"};
        Path file = dir.resolve("kernels.hints");
        try (HintStore store = HintStore.open(file, LAYOUT.capacity(CAPACITY))) {
            for (String kernel : kernels) {
                store.record(kernel, 250_000, 1 << 20); // never-used slots are handed out in order: kernel i in slot i
            }
        }
        corrupt(file, m -> copyName(m, 1, 3)); // slot 3 keeps the layer norm's record under flash's (stored) name
        VerifyReport damaged = verify(file);
        assertTrue(expectError(damaged, "slot", 3, "name").message().contains("same name as slot 1"));
        assertEquals(4, damaged.regions(), "LIVE: the slots recovery keeps, not the later duplicate");
        corrupt(file, m -> Memory.plainLong(m.segment, Layouts.HDR_INDEX_SEQ,
                Memory.plainLong(m.segment, Layouts.HDR_INDEX_SEQ) | 1)); // a crashed change: the next insertion recovers
        String gemm256 = "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_bf16_256x128_32x3_tn_align8>(Params)";
        try (HintStore store = HintStore.open(file, LAYOUT)) {
            store.record(gemm256, 180_000, 1 << 19);
            assertEquals(5, store.size(), "the 4 regions verify counted, and the new one");
            assertEquals(1, store.dispatchCount(kernels[1]), "flash keeps its own slot's record, not slot 3's");
        }
        VerifyReport repaired = verify(file);
        assertTrue(repaired.ok(), repaired.findings().toString());
        assertEquals(5, repaired.regions());
    }

    // ------------------------------------------------------------------ index

    @Test
    void anIndexEntryNamingASlotOutOfRangeIsFound() throws Exception {
        Path file = sixRegions();
        int[] at = new int[1];
        corrupt(file, m -> {
            at[0] = entryOf(m, 2);
            long e = Memory.plainLong(m.segment, entryOffset(at[0]));
            Memory.plainLong(m.segment, entryOffset(at[0]), (e & ~0xFFFF_FFFFL) | (CAPACITY + 5));
        });
        VerifyReport report = verify(file);
        assertEquals(at[0], report.errors().stream().filter(f -> f.area().equals("index") && f.slot() == -1)
                .findFirst().orElseThrow(() -> new AssertionError(report.findings().toString())).indexEntry());
        expectError(report, "index", 2, "index"); // slot 2 lost its entry
    }

    @Test
    void anIndexEntryWhoseTagDiffersFromItsSlotIsFound() throws Exception {
        Path file = sixRegions();
        corrupt(file, m -> {
            int j = entryOf(m, 4);
            Memory.plainLong(m.segment, entryOffset(j), Memory.plainLong(m.segment, entryOffset(j)) ^ (1L << 40));
        });
        assertTrue(expectError(verify(file), "index", 4, "index").message().contains("tag"));
    }

    @Test
    void aLiveSlotWithoutIndexEntryAndADuplicateEntryAreFound() throws Exception {
        Path file = sixRegions();
        corrupt(file, m -> {
            int j = entryOf(m, 0);
            long e = Memory.plainLong(m.segment, entryOffset(j));
            Memory.plainLong(m.segment, entryOffset(j), 0);
            int k = entryOf(m, 1);
            int free = k;
            do {
                free = (free + 1) & (GEOMETRY.indexEntries() - 1);
            } while (Memory.plainLong(m.segment, entryOffset(free)) != 0);
            Memory.plainLong(m.segment, entryOffset(free), Memory.plainLong(m.segment, entryOffset(k)));
            assertTrue(e != 0);
        });
        VerifyReport report = verify(file);
        assertTrue(expectError(report, "index", 0, "index").message().contains("no index entry"));
        assertTrue(report.errors().stream().anyMatch(f -> f.slot() == 1 && f.message().contains("also named")),
                report.findings().toString());
    }

    @Test
    void anEntryAfterAnEmptyEntryOfItsRunIsUnreachableAndFound() throws Exception {
        Path file = sixRegions();
        int mask = GEOMETRY.indexEntries() - 1;
        corrupt(file, m -> {
            for (int slot = 0; slot < 6; slot++) {
                int j = entryOf(m, slot);
                int home = (int) (Memory.plainLong(m.segment, Slots.hash(SLOTS.slot(slot))) & mask);
                int later = (home + 1) & mask;
                if (j == home && Memory.plainLong(m.segment, entryOffset(later)) == 0) {
                    Memory.plainLong(m.segment, entryOffset(later), Memory.plainLong(m.segment, entryOffset(j)));
                    Memory.plainLong(m.segment, entryOffset(j), 0);
                    return;
                }
            }
            throw new AssertionError("no entry at its home with a free successor");
        });
        assertTrue(verify(file).errors().stream().anyMatch(f -> f.area().equals("index")
                && f.message().contains("lookups stop there")), verify(file).findings().toString());
    }

    @Test
    void anEntryBeyondTheProbeBoundIsFound() throws Exception {
        FileGeometry big = new FileGeometry(100, 64); // 256 index entries, max_probe 128
        Slots slots = new Slots(big);
        Path file = dir.resolve("probe.hints");
        try (HintStore store = HintStore.open(file, LAYOUT.capacity(100))) {
            store.record("far", 1, 1);
        }
        int mask = big.indexEntries() - 1;
        corrupt(file, m -> {
            int home = (int) (Memory.plainLong(m.segment, Slots.hash(slots.slot(0))) & mask);
            long e = Memory.plainLong(m.segment, big.indexOffset() + 8L * home);
            assertTrue(e != 0);
            Memory.plainLong(m.segment, big.indexOffset() + 8L * home, 0);
            for (int d = 0; d <= 130; d++) { // a full run from home to 130 entries on, the entry at its end
                Memory.plainLong(m.segment, big.indexOffset() + 8L * ((home + d) & mask), d == 130 ? e : HashIndex.entry(0, 0, 99));
            }
        });
        VerifyReport report = verify(file);
        assertTrue(report.errors().stream().anyMatch(f -> f.field().equals("max_probe") && f.slot() == 0),
                report.findings().toString());
    }
}
