package dev.hintmap.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.testkit.Await;
import dev.hintmap.HintFileException;
import dev.hintmap.HintStore;
import dev.hintmap.testkit.LiveUser;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import dev.hintmap.format.FileGeometry;
import dev.hintmap.format.Layouts;
import dev.hintmap.os.ProcessIdentity;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * States a writer leaves when it dies at the worst moment, planted directly in the file, and
 * what the next writer does with them (docs/FORMAT.md §6, §8).
 */
class CrashRecoveryTest {
    /** The layout these tests' offsets and bounds were written for (the default name limit was 64). */
    private static final HintStoreOptions LAYOUT = HintStoreOptions.defaults().maxNameBytes(64);

    private static final FileGeometry GEOMETRY = new FileGeometry(4, 64);
    /** Liveness checks of a live lock holder that show a writer waiting, not merely not yet run. */
    private static final long LIVENESS_CHECKS = 10;

    @TempDir
    Path dir;

    /** A process that has exited and been reaped: its token names no live process. */
    private static long deadToken() throws Exception {
        Process sleeper = new ProcessBuilder("sleep", "60").start();
        long token = tokenOf(sleeper);
        sleeper.destroyForcibly();
        sleeper.waitFor();
        assertFalse(ProcessIdentity.isAlive(token, null));
        return token;
    }

    private static long tokenOf(Process process) throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return ProcessIdentity.token(process.pid(), Long.parseLong(fields[19]));
    }

    /** Maps the whole file directly, as another (possibly crashed) process would. */
    private static <T> T withRawMapping(Path file, java.util.function.Function<Memory, T> action) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
                Arena arena = Arena.ofConfined()) {
            MemorySegment segment = channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size(), arena);
            return action.apply(new Memory(segment));
        }
    }

    private static void plantWriter(Memory m, int index, long token, long generation) {
        WriterTable table = new WriterTable(m, GEOMETRY, null);
        Memory.plainLong(m.segment, table.entryOffset(index) + Layouts.WRITER_TOKEN, token);
        Memory.plainLong(m.segment, table.entryOffset(index) + Layouts.WRITER_GENERATION, generation);
    }

    private Path storeWith(String... names) throws IOException {
        Path file = dir.resolve("crash.hints");
        try (HintStore store = HintStore.open(file, LAYOUT.capacity(4))) {
            for (String name : names) {
                store.record(name, 100, 10);
            }
        }
        return file;
    }

    @Test
    void slotLockLeftByADeadWriterIsTakenOverAndItsHalfWrittenCopyIgnored() throws Exception {
        Path file = storeWith("victim");
        long dead = deadToken();
        Slots slots = new Slots(GEOMETRY);
        withRawMapping(file, m -> {
            plantWriter(m, 1000, dead, 7);
            long slot = slots.slot(0);
            Memory.plainLong(m.segment, Slots.lock(slot), WriterTable.ownerWord(1000, 7));
            long seq = Memory.plainLong(m.segment, Slots.seq(slot));
            long inactive = Slots.copy(slot, seq + 1);
            RecordCopies.plainDispatchCount(m.segment, inactive, 999); // the dead writer got this far
            RecordCopies.plainKernelNsTotal(m.segment, inactive, 123_456);
            return null;
        });
        try (HintStore store = HintStore.open(file, LAYOUT)) {
            store.record("victim", 300, 30);
            assertEquals(new RegionRecord("victim", 2, 400, 300, 40), store.recordFor("victim").orElseThrow());
        }
        long stolen = withRawMapping(file, m -> Memory.plainLong(m.segment, Layouts.HDR_STOLEN_LOCKS));
        assertEquals(1, stolen);
        long reclaimed = withRawMapping(file, m -> Memory.plainLong(m.segment, new WriterTable(m, GEOMETRY, null).entryOffset(1000) + Layouts.WRITER_TOKEN));
        assertEquals(0, reclaimed, "the dead writer's entry was reclaimed on open");
    }

    @Test
    void lockHeldByALiveProcessIsNeverTakenButIsAfterItDies() throws Exception {
        Path file = storeWith("busy");
        LiveUser holder = LiveUser.mapping(file); // alive and using the file (FORMAT.md §6.3)
        try {
            long token = holder.token();
            Slots slots = new Slots(GEOMETRY);
            withRawMapping(file, m -> {
                plantWriter(m, 1001, token, 3);
                Memory.plainLong(m.segment, Slots.lock(slots.slot(0)), WriterTable.ownerWord(1001, 3));
                return null;
            });
            // The give-up after the wait limit (§6.2) is LockGiveUpTest's: here the limit outlasts every
            // wait of the test, so that a slow machine cannot turn "waits" into "gave up".
            AtomicLong checks = new AtomicLong();
            StoreSettings settings = StoreSettings.DEFAULT.lockWaitLimitNanos(TimeUnit.MINUTES.toNanos(10));
            try (HintStore store = ProbedEngine.openCountingLivenessChecks(file, LAYOUT, settings, checks)) {
                AtomicReference<Throwable> failure = new AtomicReference<>();
                Thread writer = Thread.ofPlatform().start(() -> {
                    try {
                        store.record("busy", 1, 1);
                    } catch (Throwable t) {
                        failure.set(t);
                    }
                });
                // Not "not yet done after a while": the writer has found the holder alive again and
                // again (one liveness check per millisecond, §6.3) and still waits.
                Await.until("the writer checked the live holder " + LIVENESS_CHECKS + " times",
                        () -> checks.get() >= LIVENESS_CHECKS || !writer.isAlive());
                assertTrue(writer.isAlive(), "the writer waits while the holder lives: " + failure.get());
                assertEquals(1, store.dispatchCount("busy"), "readers are not blocked by the lock");
                holder.kill();
                writer.join(TimeUnit.SECONDS.toMillis(Await.LIMIT_SECONDS));
                assertFalse(writer.isAlive(), "the writer took the lock over once its holder died");
                assertEquals(null, failure.get());
                assertEquals(2, store.dispatchCount("busy"));
            }
        } finally {
            holder.kill();
        }
    }

    @Test
    void lockStampedWithAReusedWriterEntryIsRecognisedAsDead() throws Exception {
        Path file = storeWith("reused");
        Process alive = new ProcessBuilder("sleep", "60").start();
        try {
            long token = tokenOf(alive);
            Slots slots = new Slots(GEOMETRY);
            withRawMapping(file, m -> {
                // The entry now belongs to a live process, but with a newer generation than the lock's.
                plantWriter(m, 1002, token, 9);
                Memory.plainLong(m.segment, Slots.lock(slots.slot(0)), WriterTable.ownerWord(1002, 8));
                return null;
            });
            try (HintStore store = HintStore.open(file, LAYOUT)) {
                store.record("reused", 1, 1);
                assertEquals(2, store.dispatchCount("reused"));
            }
        } finally {
            alive.destroyForcibly();
        }
    }

    @Test
    void structuralChangeInterruptedByDeathIsRolledBackAndTheIndexRebuilt() throws Exception {
        Path file = storeWith("a", "b", "c");
        long dead = deadToken();
        Slots slots = new Slots(GEOMETRY);
        withRawMapping(file, m -> {
            plantWriter(m, 1003, dead, 1);
            long owner = WriterTable.ownerWord(1003, 1);
            Memory.plainLong(m.segment, Layouts.HDR_STRUCT_LOCK, owner);
            // The dead writer was reassigning slot 1 (b) to "ghost": journal set, index and slot BUSY.
            Memory.plainLong(m.segment, Layouts.HDR_JOURNAL_SLOT, 2);
            Memory.plainLong(m.segment, Layouts.HDR_INDEX_SEQ, Memory.plainLong(m.segment, Layouts.HDR_INDEX_SEQ) + 1);
            long slot = slots.slot(1);
            Memory.plainLong(m.segment, Slots.lock(slot), owner);
            Memory.plainLong(m.segment, Slots.gen(slot), Memory.plainLong(m.segment, Slots.gen(slot)) + 1);
            // ... and had got as far as writing the new name, hash and length (step 9)
            byte[] ghost = "ghost".getBytes(StandardCharsets.UTF_8);
            MemorySegment.copy(ghost, 0, m.segment, java.lang.foreign.ValueLayout.JAVA_BYTE, Slots.nameWord(slot, 0), 5);
            Memory.plainInt(m.segment, Slots.nameLen(slot), 5);
            Memory.plainLong(m.segment, Slots.hash(slot), dev.hintmap.format.Hm64.ofBytes(ghost, 5));
            return null;
        });
        try (HintStore store = HintStore.open(file, LAYOUT)) {
            assertEquals(new RegionRecord("a", 1, 100, 100, 10), store.recordFor("a").orElseThrow(),
                    "regions that were not touched stay readable while the structure lock is dead");
            store.record("d", 5, 5); // needs the structure lock: takes it over and recovers
            assertEquals(new RegionRecord("a", 1, 100, 100, 10), store.recordFor("a").orElseThrow());
            assertEquals(new RegionRecord("c", 1, 100, 100, 10), store.recordFor("c").orElseThrow());
            assertEquals(new RegionRecord("d", 1, 5, 5, 5), store.recordFor("d").orElseThrow());
            assertTrue(store.recordFor("b").isEmpty(), "the region being replaced is dropped");
            assertTrue(store.recordFor("ghost").isEmpty());
            assertEquals(3, store.size());
            List<String> names = new ArrayList<>();
            store.snapshot().regions().forEach(r -> names.add(r.name()));
            assertEquals(3, names.size(), names.toString());
            store.record("e", 1, 1); // the freed slot is reused, nothing exceeds capacity
            assertEquals(4, store.size());
        }
        withRawMapping(file, m -> {
            assertEquals(0, Memory.plainLong(m.segment, Layouts.HDR_JOURNAL_SLOT));
            assertEquals(0, Memory.plainLong(m.segment, Layouts.HDR_INDEX_SEQ) & 1);
            assertEquals(1, Memory.plainLong(m.segment, Layouts.HDR_RECOVERIES));
            assertEquals(0, Memory.plainLong(m.segment, Layouts.HDR_STRUCT_LOCK));
            return null;
        });
    }

    @Test
    void aJournaledSlotWhoseGenerationIsEvenIsKeptWithItsRecords() throws Exception {
        // A writer that died before §7.4 step 7 (the victim untouched) or after step 11's gen
        // (the new region complete, maybe recorded into since): §8 step 1 leaves the slot to the
        // rebuild, which keeps it (spin model findings F1, F2, docs/archive/RELIABILITY.md).
        Path file = storeWith("a", "b", "c");
        try (HintStore store = HintStore.open(file, LAYOUT)) {
            store.record("b", 100, 10); // a completed record after the insertion
        }
        withRawMapping(file, m -> {
            Memory.plainLong(m.segment, Layouts.HDR_JOURNAL_SLOT, 2); // slot 1 holds "b", gen even
            Memory.plainLong(m.segment, Layouts.HDR_INDEX_SEQ, Memory.plainLong(m.segment, Layouts.HDR_INDEX_SEQ) + 1);
            return null;
        });
        try (HintStore store = HintStore.open(file, LAYOUT)) {
            store.record("d", 5, 5); // recovers first
            assertEquals(new RegionRecord("b", 2, 200, 100, 20), store.recordFor("b").orElseThrow(),
                    "the journaled region and its completed records are kept");
            assertEquals(4, store.size());
        }
        withRawMapping(file, m -> {
            assertEquals(0, Memory.plainLong(m.segment, Layouts.HDR_JOURNAL_SLOT));
            assertEquals(1, Memory.plainLong(m.segment, Layouts.HDR_RECOVERIES));
            return null;
        });
        assertTrue(dev.hintmap.HintFiles.verify(file, LAYOUT).ok());
    }

    @Test
    void slotLeftBusyByARecoveryThatDiedIsFreedByTheNextRecovery() throws Exception {
        Path file = storeWith("a", "b", "c", "d");
        Slots slots = new Slots(GEOMETRY);
        withRawMapping(file, m -> {
            // A recoverer died inside slotFree(1): gen odd, name cleared, index rebuild half done.
            long slot = slots.slot(1);
            Memory.plainLong(m.segment, Slots.gen(slot), Memory.plainLong(m.segment, Slots.gen(slot)) | 1);
            Memory.plainInt(m.segment, Slots.nameLen(slot), 0);
            Memory.plainLong(m.segment, Layouts.HDR_INDEX_SEQ, Memory.plainLong(m.segment, Layouts.HDR_INDEX_SEQ) | 1);
            return null;
        });
        try (HintStore store = HintStore.open(file, LAYOUT)) {
            store.record("e", 7, 7);
            assertEquals(new RegionRecord("e", 1, 7, 7, 7), store.recordFor("e").orElseThrow());
            store.region("e").record(7, 7);
            assertEquals(2, store.dispatchCount("e"), "a handle records where readers look");
            List<String> names = new ArrayList<>();
            store.snapshot().regions().forEach(r -> names.add(r.name()));
            assertEquals(store.size(), names.size(), names.toString());
            assertTrue(names.containsAll(List.of("a", "c", "d", "e")), names.toString());
        }
        withRawMapping(file, m -> {
            assertEquals(0, Memory.plainLong(m.segment, Slots.gen(slots.slot(1))) & 1, "no slot stays BUSY");
            return null;
        });
    }

    @Test
    void damagedHighWaterIsClampedToCapacityAndNoRegionIsLost() throws Exception {
        Path file = storeWith("a", "b", "c", "d");
        withRawMapping(file, m -> {
            Memory.plainLong(m.segment, Layouts.HDR_HIGH_WATER, Long.MIN_VALUE); // 2^63 unsigned
            return null;
        });
        try (HintStore store = HintStore.open(file, LAYOUT)) {
            store.record("e", 1, 1); // evicts one region by CLOCK, as in an undamaged file
            assertEquals(4, store.size());
            List<String> names = new ArrayList<>();
            store.snapshot().regions().forEach(r -> names.add(r.name()));
            assertEquals(4, names.size(), names.toString());
            assertTrue(names.contains("e"));
            assertEquals(1, store.info().evictions());
        }
    }

    @Test
    void recordsNoWriterCouldHaveWrittenReadAsAbsent() throws Exception {
        Path file = storeWith("neg", "torn", "ok");
        Slots slots = new Slots(GEOMETRY);
        withRawMapping(file, m -> {
            for (int k = 0; k < 2; k++) {
                long slot = slots.slot(k);
                long copy = Slots.copy(slot, Memory.plainLong(m.segment, Slots.seq(slot)));
                if (k == 0) {
                    RecordCopies.plainKernelNsTotal(m.segment, copy, -5); // top bit set
                } else {
                    RecordCopies.plainKernelNsMax(m.segment, copy, 1); // max below the mean
                }
            }
            return null;
        });
        try (HintStore store = HintStore.open(file, LAYOUT.readOnly(true))) {
            assertTrue(store.recordFor("neg").isEmpty());
            assertTrue(store.recordFor("torn").isEmpty());
            assertEquals(0, store.dispatchCount("neg"));
            List<RegionRecord> all = new ArrayList<>();
            store.snapshot().regions().forEach(all::add); // never throws on damaged content
            assertEquals(List.of(new RegionRecord("ok", 1, 100, 100, 10)), all);
        }
    }

    @Test
    void recoveryFreesSlotsWithABrokenRecordOrANonUtf8NameSoTheRepairedFileVerifiesClean() throws Exception {
        Path file = storeWith("broken", "latin", "ok");
        Slots slots = new Slots(GEOMETRY);
        withRawMapping(file, m -> {
            long broken = slots.slot(0);
            RecordCopies.plainKernelNsMax(m.segment, Slots.copy(broken, Memory.plainLong(m.segment, Slots.seq(broken))), 1); // max below the mean
            long latin = slots.slot(1); // "latin" becomes 0xE9 "atin": Latin-1, not UTF-8, its hash kept right
            byte[] name = {(byte) 0xE9, 'a', 't', 'i', 'n'};
            MemorySegment.copy(name, 0, m.segment, java.lang.foreign.ValueLayout.JAVA_BYTE, Slots.nameWord(latin, 0), 5);
            Memory.plainLong(m.segment, Slots.hash(latin), dev.hintmap.format.Hm64.ofBytes(name, 5));
            Memory.plainLong(m.segment, Layouts.HDR_JOURNAL_SLOT, 4); // a change into slot 3, interrupted: recovery runs
            return null;
        });
        try (HintStore store = HintStore.open(file, LAYOUT)) {
            store.record("new", 1, 1); // recovers first (§8), then inserts
            assertEquals(2, store.size(), "ok and new: the broken and the non-UTF-8 slots were freed");
            assertEquals(new RegionRecord("ok", 1, 100, 100, 10), store.recordFor("ok").orElseThrow());
        }
        dev.hintmap.VerifyReport report = dev.hintmap.HintFiles.verify(file, LAYOUT);
        assertTrue(report.ok(), report.findings().toString());
        withRawMapping(file, m -> {
            assertEquals(2, Memory.plainLong(m.segment, Layouts.HDR_LIVE_COUNT));
            assertEquals(1, Memory.plainLong(m.segment, Layouts.HDR_RECOVERIES));
            return null;
        });
    }

    /**
     * An entry naming no slot, with the tag and distance of "zzz": lookups pass it as no match and
     * remember nothing (so an insertion that never meets it repairs nothing), and the writer whose
     * lookup under the structure lock meets it recovers, then inserts (FORMAT §8; C does the same).
     */
    @Test
    void indexEntryNamingNoSlotIsLeftByReadersAndRepairedByTheWriterThatMeetsIt() throws Exception {
        Path file = storeWith("a");
        withRawMapping(file, m -> {
            HashIndex index = new HashIndex(GEOMETRY);
            long bogus = dev.hintmap.format.Hm64.ofBytes("zzz".getBytes(StandardCharsets.UTF_8), 3);
            Memory.plainLong(m.segment, GEOMETRY.indexOffset() + 8L * index.home(bogus), HashIndex.entry(bogus, 0, 3999));
            return null;
        });
        try (HintStore store = HintStore.open(file, LAYOUT)) {
            assertTrue(store.recordFor("zzz").isEmpty()); // the bad entry is passed, never followed
            store.record("b", 1, 1); // its lookups never follow the bad entry
            assertEquals(2, store.size());
            assertEquals(0, store.info().recoveries());
        }
        assertEquals(1, entriesNamingNoSlot(file), "neither the lookup nor the insertion of b repaired it");
        try (HintStore store = HintStore.open(file, LAYOUT)) {
            store.record("zzz", 1, 1); // meets it under the structure lock: recovers, resolves again, inserts
            assertEquals(3, store.size());
            assertEquals(1, store.info().recoveries());
            assertEquals(1, store.dispatchCount("zzz"));
        }
        assertEquals(0, entriesNamingNoSlot(file));
    }

    private static long entriesNamingNoSlot(Path file) throws IOException {
        return withRawMapping(file, m -> {
            long count = 0;
            for (int j = 0; j < GEOMETRY.indexEntries(); j++) {
                long e = Memory.plainLong(m.segment, GEOMETRY.indexOffset() + 8L * j);
                if (e != 0 && HashIndex.slotOf(e) >= GEOMETRY.capacity()) {
                    count++;
                }
            }
            return count;
        });
    }

    @Test
    void aNameStoredInTwoSlotsIsKeptOnceByRecovery() throws Exception {
        Path file = storeWith("a", "b");
        Slots slots = new Slots(GEOMETRY);
        withRawMapping(file, m -> {
            long from = slots.slot(0);
            long to = slots.slot(1);
            Memory.plainLong(m.segment, Slots.hash(to), Memory.plainLong(m.segment, Slots.hash(from)));
            Memory.plainLong(m.segment, Slots.nameWord(to, 0), Memory.plainLong(m.segment, Slots.nameWord(from, 0)));
            Memory.plainLong(m.segment, Layouts.HDR_INDEX_SEQ, Memory.plainLong(m.segment, Layouts.HDR_INDEX_SEQ) | 1); // force a rebuild
            return null;
        });
        try (HintStore store = HintStore.open(file, LAYOUT)) {
            store.record("c", 1, 1);
            List<String> names = new ArrayList<>();
            store.snapshot().regions().forEach(r -> names.add(r.name()));
            assertEquals(List.of("a", "c"), names.stream().sorted().toList());
            assertEquals(2, store.size());
        }
    }

    @Test
    void aNameThatCannotBeIndexedIsDroppedWithoutEvictingAnyone() throws Exception {
        FileGeometry g = new FileGeometry(256, 64); // 512 index entries, max_probe 128
        List<String> colliding = new ArrayList<>();
        for (int i = 0; colliding.size() < 129; i++) {
            String name = "p-" + i;
            if ((dev.hintmap.format.Hm64.ofBytes(name.getBytes(StandardCharsets.UTF_8), name.length()) & 511) == 0) {
                colliding.add(name);
            }
        }
        Path file = dir.resolve("probe.hints");
        try (HintStore store = HintStore.open(file, LAYOUT.capacity(g.capacity()))) {
            for (int i = 0; i < 128; i++) {
                store.record(colliding.get(i), 1, 1);
            }
            store.record(colliding.get(128), 1, 1);
            assertTrue(store.recordFor(colliding.get(128)).isEmpty());
            assertEquals(128, store.size());
            assertEquals(0, store.info().evictions());
            for (int i = 0; i < 128; i++) {
                assertEquals(1, store.dispatchCount(colliding.get(i)));
            }
            store.record("other", 1, 1);
            assertEquals(129, store.size());
        }
        long dropped = withRawMapping(file, m -> Memory.plainLong(m.segment, Layouts.HDR_DROPPED_INSERTS));
        assertEquals(1, dropped);
    }

    @Test
    void openFailsClearlyWhenEveryWriterEntryIsHeldByALiveProcess() throws Exception {
        Path file = storeWith("x");
        long self = ProcessIdentity.currentToken();
        withRawMapping(file, m -> {
            for (int i = 0; i < GEOMETRY.writerEntries(); i++) {
                plantWriter(m, i, self, 1);
            }
            return null;
        });
        HintFileException e = assertThrows(HintFileException.class, () -> HintStore.open(file, LAYOUT));
        assertEquals(HintFileException.Problem.WRITER_TABLE_FULL, e.problem());
        try (HintStore reader = HintStore.open(file, LAYOUT.readOnly(true))) {
            assertEquals(1, reader.dispatchCount("x"), "readers claim nothing and still open");
        }
    }

    @Test
    void closingWhileOtherThreadsRecordStopsThemWithIllegalStateAndLeavesAUsableFile() throws Exception {
        Path file = dir.resolve("close-race.hints");
        HintStore store = HintStore.open(file, LAYOUT.capacity(8));
        List<Thread> threads = new ArrayList<>();
        List<Throwable> endings = java.util.Collections.synchronizedList(new ArrayList<>());
        java.util.concurrent.atomic.AtomicLongArray recorded = new java.util.concurrent.atomic.AtomicLongArray(3);
        for (int t = 0; t < 3; t++) {
            int thread = t;
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    for (long i = 0; ; i++) {
                        store.record("r" + ((i + thread) % 12), 10, 1);
                        recorded.incrementAndGet(thread);
                    }
                } catch (Throwable e) {
                    endings.add(e);
                }
            }));
        }
        // every thread is recording (inserting and evicting) when the store closes, however late it started
        Await.until("each thread recorded 1,000 samples", () -> {
            for (int t = 0; t < 3; t++) {
                if (recorded.get(t) < 1_000 && threads.get(t).isAlive()) {
                    return false;
                }
            }
            return true;
        });
        store.close();
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(30));
            assertFalse(t.isAlive());
        }
        assertEquals(3, endings.size());
        for (Throwable e : endings) {
            assertTrue(e instanceof IllegalStateException, e.toString());
            assertTrue(e.getMessage().contains(file.toString()) && e.getMessage().endsWith(" is closed"),
                    "the store's own refusal naming its file, not the arena's bare message: " + e);
        }
        try (HintStore again = HintStore.open(file, LAYOUT)) {
            for (int i = 0; i < 12; i++) {
                again.record("r" + i, 10, 1); // any lock the closed store left is handed over
            }
            again.snapshot().regions().forEach(r -> {
                assertEquals(r.dispatchCount() * 10, r.kernelNsTotal(), r::toString);
                assertEquals(r.dispatchCount(), r.bytesTotal(), r::toString);
            });
            assertTrue(again.size() <= 8);
        }
    }
}
