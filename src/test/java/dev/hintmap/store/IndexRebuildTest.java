package dev.hintmap.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintFiles;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import dev.hintmap.format.FileGeometry;
import dev.hintmap.format.Layouts;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rebuild of the index after a crashed structural change (FORMAT §8 step 2), against what runs
 * beside it: writers that keep publishing a record it reads (issue 32 finding 12), and a second
 * thread of ours waiting for the structure lock it holds (finding 10). Each test "crashes" a change
 * by making {@code index_seq} odd through a second mapping, as a writer killed inside §7.4 leaves
 * it, so that the next insertion rebuilds.
 */
class IndexRebuildTest {
    @TempDir
    Path dir;

    private static String kernel(int i) {
        return "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params) #" + i;
    }

    private static void withRawMapping(Path file, Consumer<MemorySegment> action) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
                Arena arena = Arena.ofConfined()) {
            action.accept(channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size(), arena));
        }
    }

    /** As a writer killed between §7.4 steps 6 and 11 leaves the file: {@code index_seq} odd. */
    private static void crashAStructuralChange(Path file) throws IOException {
        withRawMapping(file, seg -> Memory.releaseLong(seg, Layouts.HDR_INDEX_SEQ,
                Memory.plainLong(seg, Layouts.HDR_INDEX_SEQ) | 1));
    }

    /**
     * Finding 12: the rebuild read each slot's record with §7.2.1's bounded seqlock read and freed
     * the slot when the read gave up, which it does when a writer republishes the record faster than
     * the read's 65,536 attempts complete: a live region hammered by a writer was destroyed for a
     * hint that was only momentarily unreadable. The probe publishes into the region's slot between
     * the loads and the re-check of every attempt (as the writer would, bumping {@code seq}
     * by two so the record stays the same), so every read of it gives up.
     */
    @Test
    void aRegionWhoseRecordWritersKeepRepublishingSurvivesRecoveryWithItsRecord() throws Exception {
        Path file = dir.resolve("hammered.hints");
        HintStoreOptions options = HintStoreOptions.defaults().capacity(4).maxNameBytes(256);
        try (HintStore store = HintStore.open(file, options)) {
            for (int i = 0; i < 5; i++) {
                store.record(kernel(0), 1_000 + i, 64); // slot 0: never-used slots are handed out in order
            }
            store.record(kernel(1), 7, 7);
        }
        RegionRecord hammered = new RegionRecord(kernel(0), 5, 5_010, 1_004, 320);
        crashAStructuralChange(file);
        long seq0 = Slots.seq(new Slots(new FileGeometry(4, 256)).slot(0));
        AtomicLong republished = new AtomicLong();
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
                Arena arena = Arena.ofShared()) {
            MemorySegment writer = channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size(), arena);
            HeldLockProbe probe = section -> {
                if (section == HeldLockProbe.Section.REBUILD_READ) {
                    Memory.releaseLong(writer, seq0, Memory.plainLong(writer, seq0) + 2); // same copy current: same record
                    republished.incrementAndGet();
                }
            };
            try (HintStore store = ProbedEngine.open(file, options, StoreSettings.DEFAULT, probe)) {
                store.record(kernel(2), 9, 9); // absent: the insertion recovers first (§8), rebuilding the index
                assertTrue(republished.get() >= StoreEngine.MAX_READ_ATTEMPTS, "the rebuild's read of slot 0 gave up: "
                        + republished.get() + " attempts");
                assertEquals(hammered, store.recordFor(kernel(0)).orElse(null), "the hammered region kept its record");
                assertEquals(3, store.size());
                assertEquals(1, store.info().recoveries());
            }
        }
        assertVerifiesClean(file);
    }

    /**
     * Finding 10: a rebuild holds the structure lock for O(high_water) work with no acquisition,
     * and a thread of ours waiting for that lock took it, after the leak period without progress,
     * for one that a throwable left behind, freed it, and ran a second structural change (and
     * rebuild) at the same time. The rebuild now reports progress every 64 slots. Here the leak
     * period is 100 ms (the structure lock's 200 ms) and the rebuild of 32,000 regions takes at
     * least 10 µs a slot, 320 ms in all (more while it runs interpreted, up to ~275 µs a slot: 18 ms
     * per 64 slots): one holder at a time, always.
     */
    @Test
    void aLongRebuildIsProgressNotALeakedStructureLock() throws Exception {
        Path file = dir.resolve("large.hints");
        int regions = 32_000;
        HintStoreOptions options = HintStoreOptions.defaults().capacity(32_768).maxNameBytes(128);
        try (HintStore store = HintStore.open(file, options)) {
            for (int i = 0; i < regions; i++) {
                store.record(kernel(i), 1_000, 64);
            }
        }
        crashAStructuralChange(file);

        AtomicReference<Thread> rebuilder = new AtomicReference<>();
        AtomicReference<Thread> holder = new AtomicReference<>(); // the thread of ours inside the structure lock
        ThreadLocal<int[]> locksHeld = ThreadLocal.withInitial(() -> new int[1]);
        AtomicInteger overlaps = new AtomicInteger();
        CountDownLatch rebuilding = new CountDownLatch(1);
        HeldLockProbe probe = section -> {
            switch (section) {
                case ACQUIRED -> locksHeld.get()[0]++;
                case RELEASE -> { // before the store: the lock is still ours, so no one can have entered yet
                    if (--locksHeld.get()[0] == 0) {
                        holder.compareAndSet(Thread.currentThread(), null);
                    }
                }
                case INSERT_STRUCTURE -> {
                    if (!holder.compareAndSet(null, Thread.currentThread())) {
                        overlaps.incrementAndGet(); // a second thread of ours holds the structure lock
                    }
                }
                case REBUILD_READ -> {
                    if (rebuilder.compareAndSet(null, Thread.currentThread())) {
                        rebuilding.countDown();
                    }
                    if (rebuilder.get() == Thread.currentThread()) {
                        long until = System.nanoTime() + 10_000; // a cold or large file: 10 µs a slot at least
                        while (System.nanoTime() < until) {
                            Thread.onSpinWait();
                        }
                    }
                }
                default -> { }
            }
        };
        StoreSettings settings = StoreSettings.DEFAULT.leakedLockNanos(100_000_000L);
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        try (HintStore store = ProbedEngine.open(file, options, settings, probe)) {
            Thread first = Thread.ofPlatform().start(() -> record(store, kernel(regions), failures));
            assertTrue(rebuilding.await(60, TimeUnit.SECONDS), "the first insertion rebuilds the index");
            Thread second = Thread.ofPlatform().start(() -> record(store, kernel(regions + 1), failures));
            first.join();
            second.join();
            assertTrue(failures.isEmpty(), failures::toString);
            assertEquals(0, overlaps.get(), "no second holder of the structure lock during the rebuild");
            assertEquals(regions + 2, store.size());
            assertEquals(1, store.dispatchCount(kernel(regions)));
            assertEquals(1, store.dispatchCount(kernel(regions + 1)));
        }
        assertVerifiesClean(file);
    }

    private static void assertVerifiesClean(Path file) throws IOException {
        var report = HintFiles.verify(file, HintStoreOptions.defaults());
        assertTrue(report.ok(), report.findings()::toString);
    }

    private static void record(HintStore store, String name, ConcurrentLinkedQueue<Throwable> failures) {
        try {
            store.record(name, 2_000, 64);
        } catch (Throwable e) {
            failures.add(e);
        }
    }
}
