package dev.hintmap.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.testkit.Await;
import dev.hintmap.HintStore;
import dev.hintmap.testkit.LiveUser;
import dev.hintmap.TestStores;
import dev.hintmap.os.ProcessIdentity;
import org.junit.jupiter.api.AfterEach;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.Region;
import dev.hintmap.RegionRecord;
import dev.hintmap.format.FileGeometry;
import dev.hintmap.format.Layouts;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bounded lock waits (FORMAT.md §6.2 "give up"): a crafted file whose structure lock and a slot
 * lock name a live process. Writers give up after the wait limit (shortened here to 300 ms),
 * change nothing and drop their samples; a later waiter on the same word gives up at once; the
 * store works normally once the words are cleared.
 */
class LockGiveUpTest {
    /** The layout these tests' offsets and bounds were written for (the default name limit was 64). */
    private static final HintStoreOptions LAYOUT = HintStoreOptions.defaults().maxNameBytes(64);

    private static final FileGeometry GEOMETRY = new FileGeometry(4, 64);
    private static final long LIMIT_NANOS = 300_000_000L;
    private static final int ENTRY = 1010;

    @TempDir
    Path dir;

    private static void withRawMapping(Path file, Consumer<Memory> action) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
                Arena arena = Arena.ofConfined()) {
            MemorySegment segment = channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size(), arena);
            action.accept(new Memory(segment));
        }
    }

    /** This JVM's token, or that of a second process that maps {@code file} (a live user, FORMAT.md §6.3). */
    private long liveToken(boolean self, Path file) throws IOException {
        if (self) {
            return ProcessIdentity.currentToken();
        }
        holder = LiveUser.mapping(file);
        long token = holder.token();
        assertEquals(holder.pid(), ProcessIdentity.pidOf(token));
        assertTrue(ProcessIdentity.isAlive(token, null));
        return token;
    }

    private LiveUser holder;

    @AfterEach
    void stopTheHolder() throws IOException {
        if (holder != null) {
            holder.close();
        }
    }

    private static byte[] snapshotOfSlotsAndCoordination(Path file) throws IOException {
        byte[] all = Files.readAllBytes(file);
        byte[] copy = all.clone();
        // the writer table changes on every open (claims); everything else must stay as it was
        java.util.Arrays.fill(copy, (int) GEOMETRY.writerTableOffset(), (int) GEOMETRY.indexOffset(), (byte) 0);
        return copy;
    }

    private static long timed(Runnable action) {
        long start = System.nanoTime();
        action.run();
        return System.nanoTime() - start;
    }

    @ParameterizedTest(name = "holder is this JVM: {0}")
    @ValueSource(booleans = {false, true})
    void writersGiveUpOnLocksHeldByALiveProcessAndChangeNothing(boolean self) throws Exception {
        Path file = dir.resolve("stuck.hints");
        try (HintStore store = TestStores.open(file, LAYOUT.capacity(4), LIMIT_NANOS)) {
            store.record("a", 100, 10);
            store.record("b", 100, 10);
        }
        long owner = WriterTable.ownerWord(ENTRY, 1);
        long token = liveToken(self, file);
        Slots slots = new Slots(GEOMETRY);
        withRawMapping(file, m -> {
            long entry = new WriterTable(m, GEOMETRY, null).entryOffset(ENTRY);
            Memory.plainLong(m.segment, entry + Layouts.WRITER_TOKEN, token);
            Memory.plainLong(m.segment, entry + Layouts.WRITER_GENERATION, 1);
            Memory.plainLong(m.segment, Layouts.HDR_STRUCT_LOCK, owner);
            Memory.plainLong(m.segment, Slots.lock(slots.slot(0)), owner); // slot 0 holds "a"
        });
        byte[] before = snapshotOfSlotsAndCoordination(file);
        List<Long> waits = new ArrayList<>();
        try (HintStore store = TestStores.open(file, LAYOUT, LIMIT_NANOS)) {
            Region a = store.region("a");
            waits.add(timed(() -> store.record("a", 500, 50)));    // slot lock: waits the limit, gives up
            waits.add(timed(() -> store.record("a", 500, 50)));    // same word: gives up at once
            waits.add(timed(() -> a.record(500, 50)));              // through a handle too
            waits.add(timed(() -> store.record("new", 500, 50)));  // structure lock: gives up
            waits.add(timed(() -> store.record("new", 500, 50)));
            assertEquals(new RegionRecord("a", 1, 100, 100, 10), store.recordFor("a").orElseThrow(), "nothing recorded");
            assertTrue(store.recordFor("new").isEmpty(), "nothing inserted");
            assertEquals(2, store.size());
            assertEquals(1, store.dispatchCount("b"));
            store.record("b", 100, 10); // an unlocked region records as usual
            assertEquals(2, store.dispatchCount("b"));
        }
        for (long wait : waits) {
            assertTrue(wait < TimeUnit.SECONDS.toNanos(Await.LIMIT_SECONDS), "every record returned (liveness bound): " + waits);
        }
        withRawMapping(file, m -> {
            Slots s = new Slots(GEOMETRY);
            long bSlot = s.slot(1);
            long seq = Memory.plainLong(m.segment, Slots.seq(bSlot));
            assertEquals(2, RecordCopies.plainDispatchCount(m.segment, Slots.copy(bSlot, seq)));
            assertEquals(owner, Memory.plainLong(m.segment, Layouts.HDR_STRUCT_LOCK), "a live holder's lock is never taken");
            assertEquals(owner, Memory.plainLong(m.segment, Slots.lock(s.slot(0))));
        });
        // b's record line holds the one legitimate change; everything else is compared byte for byte
        byte[] after = snapshotOfSlotsAndCoordination(file);
        int bRecordLine = (int) (GEOMETRY.slotsOffset() + GEOMETRY.slotBytes());
        java.util.Arrays.fill(before, bRecordLine, bRecordLine + 128, (byte) 0);
        java.util.Arrays.fill(after, bRecordLine, bRecordLine + 128, (byte) 0);
        int bReference = (int) (GEOMETRY.refTableOffset() + 1); // its record sets b's reference byte too
        before[bReference] = 0;
        after[bReference] = 0;
        assertTrue(java.util.Arrays.equals(before, after), "giving up changed nothing in the index, slots or header");

        try (HintStore store = TestStores.open(file, LAYOUT, LIMIT_NANOS)) {
            store.record("a", 500, 50); // gives up again, and remembers the stuck word
            store.record("new", 500, 50);
            withRawMapping(file, m -> { // the holder lets go: the remembered words change
                Memory.plainLong(m.segment, Layouts.HDR_STRUCT_LOCK, 0);
                Memory.plainLong(m.segment, Slots.lock(slots.slot(0)), 0);
            });
            store.record("a", 500, 50);
            store.region("a").record(500, 50);
            store.record("new", 7, 7);
            assertEquals(new RegionRecord("a", 3, 1100, 500, 110), store.recordFor("a").orElseThrow());
            assertEquals(new RegionRecord("new", 1, 7, 7, 7), store.recordFor("new").orElseThrow());
            assertEquals(3, store.size());
        }
    }

    /**
     * The give-up memo (FORMAT.md §6.2) as behaviour, not time: after the first give-up, a waiter
     * on the same word makes no liveness check while the holder's sighting is younger than the
     * recheck period (an hour here), and exactly one per sample when the period is 0. Without the
     * memo every drop would check (and wait the limit again).
     */
    @ParameterizedTest(name = "recheck period {0} ns")
    @ValueSource(longs = {3_600_000_000_000L, 0L})
    void samplesDroppedOnAWordGivenUpOnMakeNoLivenessCheckWithinTheRecheckPeriod(long recheckNanos) throws Exception {
        Path file = dir.resolve("memo.hints");
        try (HintStore store = HintStore.open(file, LAYOUT.capacity(4))) {
            store.record("a", 100, 10);
        }
        long token = liveToken(false, file);
        long owner = WriterTable.ownerWord(ENTRY, 1);
        withRawMapping(file, m -> {
            long entry = new WriterTable(m, GEOMETRY, null).entryOffset(ENTRY);
            Memory.plainLong(m.segment, entry + Layouts.WRITER_TOKEN, token);
            Memory.plainLong(m.segment, entry + Layouts.WRITER_GENERATION, 1);
            Memory.plainLong(m.segment, Slots.lock(new Slots(GEOMETRY).slot(0)), owner);
        });
        java.util.concurrent.atomic.AtomicLong checks = new java.util.concurrent.atomic.AtomicLong();
        StoreSettings settings = StoreSettings.DEFAULT.lockWaitLimitNanos(LIMIT_NANOS).giveUpRecheckNanos(recheckNanos);
        try (HintStore store = ProbedEngine.openCountingLivenessChecks(file, LAYOUT, settings, checks)) {
            Region a = store.region("a");
            store.record("a", 500, 50); // waits the limit, checking the holder, and gives up
            assertTrue(checks.get() >= 1, "the first waiter checked the holder");
            long afterFirst = checks.get();
            for (int i = 0; i < 100; i++) {
                store.record("a", 500, 50);
                a.record(500, 50);
            }
            assertEquals(recheckNanos == 0 ? 200 : 0, checks.get() - afterFirst, "liveness checks of 200 dropped samples");
            assertEquals(1, store.dispatchCount("a"), "all dropped");
        }
    }

    @org.junit.jupiter.api.Test
    void anEvictionWhoseVictimIsLockedByALiveProcessGivesUpAndLeavesTheClockAsItWas() throws Exception {
        Path file = dir.resolve("victim.hints");
        try (HintStore store = TestStores.open(file, LAYOUT.capacity(4), LIMIT_NANOS)) {
            for (String name : List.of("a", "b", "c", "d")) {
                store.record(name, 100, 10); // full, every reference bit clear: the hand takes slot 0 next
            }
        }
        long owner = WriterTable.ownerWord(ENTRY, 1);
        long token = liveToken(false, file);
        Slots slots = new Slots(GEOMETRY);
        long[] handBefore = new long[2];
        withRawMapping(file, m -> {
            long entry = new WriterTable(m, GEOMETRY, null).entryOffset(ENTRY);
            Memory.plainLong(m.segment, entry + Layouts.WRITER_TOKEN, token);
            Memory.plainLong(m.segment, entry + Layouts.WRITER_GENERATION, 1);
            handBefore[0] = Memory.plainLong(m.segment, Layouts.HDR_CLOCK_HAND);
            handBefore[1] = Memory.plainLong(m.segment, Layouts.HDR_HIGH_WATER);
            Memory.plainLong(m.segment, Slots.lock(slots.slot((int) handBefore[0])), owner);
        });
        try (HintStore store = TestStores.open(file, LAYOUT, LIMIT_NANOS)) {
            store.record("e", 1, 1);
            assertTrue(store.recordFor("e").isEmpty(), "dropped: the victim is locked by a live process");
            assertEquals(4, store.size());
            assertEquals(0, store.info().evictions());
        }
        withRawMapping(file, m -> {
            assertEquals(handBefore[0], Memory.plainLong(m.segment, Layouts.HDR_CLOCK_HAND), "the hand is put back");
            assertEquals(handBefore[1], Memory.plainLong(m.segment, Layouts.HDR_HIGH_WATER));
            assertEquals(0, Memory.plainLong(m.segment, Layouts.HDR_STRUCT_LOCK), "the structure lock is released");
        });
    }
}
