package dev.hintmap.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.testkit.LiveUser;
import dev.hintmap.format.FileGeometry;
import dev.hintmap.format.Layouts;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The leak sweep (LeakedLockSweep) frees a lock of ours only when no thread of ours makes progress
 * under it. A thread that holds the structure lock and waits for a victim's slot lock held by a
 * live process of another kind makes no acquisition for as long as the wait limit, which is longer
 * than the structure lock's leak period: its liveness checks are its progress. Were they not, a
 * second thread of ours waiting for the structure lock would free it from under the first, and two
 * threads would run structural changes at once.
 */
class LeakSweepUnderWaitTest {
    private static final HintStoreOptions LAYOUT = HintStoreOptions.defaults().maxNameBytes(64).capacity(1);
    private static final int FOREIGN_ENTRY = 1010;

    @TempDir
    Path dir;

    @Test
    void aStructureLockHolderWaitingForAVictimIsNotSweptFromUnderIt() throws Exception {
        Path file = dir.resolve("one-slot.hints");
        try (HintStore store = HintStore.open(file, LAYOUT)) {
            store.record("a", 100, 10); // slot 0, the only one: every insertion's victim
        }
        try (LiveUser foreign = LiveUser.mapping(file)) {
            long token = foreign.token();
            FileGeometry geometry = new FileGeometry(1, 64);
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
                    Arena arena = Arena.ofConfined()) {
                MemorySegment seg = channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size(), arena);
                long entry = new WriterTable(new Memory(seg), geometry, null).entryOffset(FOREIGN_ENTRY);
                Memory.plainLong(seg, entry + Layouts.WRITER_TOKEN, token);
                Memory.plainLong(seg, entry + Layouts.WRITER_GENERATION, 1);
                Memory.plainLong(seg, Slots.lock(new Slots(geometry).slot(0)), WriterTable.ownerWord(FOREIGN_ENTRY, 1));
            }

            AtomicReference<Thread> insideStructure = new AtomicReference<>();
            AtomicInteger overlaps = new AtomicInteger();
            CountDownLatch firstInside = new CountDownLatch(1);
            HeldLockProbe probe = section -> {
                if (section == HeldLockProbe.Section.INSERT_STRUCTURE) {
                    if (!insideStructure.compareAndSet(null, Thread.currentThread())) {
                        overlaps.incrementAndGet(); // a second thread of ours holds the structure lock
                    }
                    firstInside.countDown();
                } else if (section == HeldLockProbe.Section.RELEASE && insideStructure.get() == Thread.currentThread()) {
                    insideStructure.set(null); // the first release after entering is the structure lock's (no victim taken)
                }
            };
            // wait limit 1.5 s; leak period 50 ms, so the structure lock's is 100 ms: 15 times shorter
            StoreSettings settings = StoreSettings.DEFAULT.lockWaitLimitNanos(1_500_000_000L).leakedLockNanos(50_000_000L);
            try (HintStore store = ProbedEngine.open(file, LAYOUT, settings, probe)) {
                Thread first = Thread.ofPlatform().start(() -> store.record("b", 100, 10));
                assertTrue(firstInside.await(10, TimeUnit.SECONDS), "the first insertion took the structure lock");
                Thread second = Thread.ofPlatform().start(() -> store.record("c", 100, 10));
                first.join();
                second.join();
                assertEquals(0, overlaps.get(), "no second holder of the structure lock while the first waited");
                assertTrue(store.recordFor("a").isPresent(), "the victim held by a live process was not evicted");
                assertEquals(1, store.size());
            }
        }
    }
}
