package dev.hintmap.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.testkit.Await;
import dev.hintmap.HintStore;
import dev.hintmap.TestStores;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.Region;
import dev.hintmap.RegionRecord;
import dev.hintmap.format.FileGeometry;
import dev.hintmap.format.Layouts;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A buggy or hostile writer that scribbles over the mutable part of the file (coordination words,
 * writer table, index entries, slot words and names) while this JVM's writers and readers work on
 * it: what the static fuzzing cannot reach, values that change between a check and a use. Every
 * word used as an offset, index or length is read once and checked where it is used, so nothing
 * may throw, hang (the lock waits are bounded, and so are re-resolutions, §7.1) or return a
 * record that breaks FORMAT.md §7.2.1. The hints themselves may be wrong: that is what a writer
 * of the file can do (docs/SECURITY.md).
 */
class HostileWriterTest {
    private static final int CAPACITY = 8;
    private static final int MAX_NAME = 40;
    /** Work before the run stops (not a time: on a loaded machine the run just takes longer). */
    private static final long OPERATIONS_PER_WORKER = 60_000;
    private static final long SCRIBBLES = 200_000;
    /** Reads of the evictions counter while it held a damaged (top bit set) value throughout. */
    private static final long DAMAGED_COUNTER_READS = 20;

    @TempDir
    Path dir;

    @Test
    void aWriterScribblingOverTheMappingCannotBreakOrHangTheOthers() throws Exception {
        Path file = dir.resolve("hostile.hints");
        FileGeometry g = new FileGeometry(CAPACITY, MAX_NAME);
        List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
        AtomicLongArray operations = new AtomicLongArray(2);
        // odd while the hostile thread writes a word: a reader that sees it even and unchanged
        // around its reads knows that no scribble overlapped them (a sequence lock)
        AtomicLong scribbling = new AtomicLong();
        AtomicLong damagedReads = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        try (HintStore writer = TestStores.open(file, HintStoreOptions.defaults().capacity(CAPACITY).maxNameBytes(MAX_NAME),
                        20_000_000L);
                HintStore reader = HintStore.open(file, HintStoreOptions.defaults().readOnly(true));
                FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
                Arena arena = Arena.ofShared()) {
            MemorySegment raw = channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size(), arena);
            Memory words = new Memory(raw);
            List<Thread> threads = new ArrayList<>();
            threads.add(Thread.ofPlatform().name("hostile").start(() -> {
                SplittableRandom random = new SplittableRandom(42);
                while (!stop.get()) {
                    scribbling.incrementAndGet();
                    scribble(raw, g, random);
                    if ((scribbling.incrementAndGet() & 127) == 0) {
                        Thread.yield();
                    }
                }
            }));
            for (int t = 0; t < 2; t++) {
                int seed = t;
                threads.add(Thread.ofPlatform().name("worker-" + t).start(() -> {
                    SplittableRandom random = new SplittableRandom(seed);
                    Region handle = writer.region("h" + seed);
                    try {
                        while (!stop.get()) {
                            String name = "r" + random.nextInt(12);
                            switch (random.nextInt(6)) {
                                case 0 -> writer.record(name, 1 + random.nextInt(1000), random.nextInt(100));
                                case 1 -> handle.record(500, 5);
                                case 2 -> reader.recordFor(name).ifPresent(HostileWriterTest::checkRecord);
                                case 3 -> writer.recordFor(name).ifPresent(HostileWriterTest::checkRecord);
                                case 4 -> {
                                    int size = reader.size();
                                    assertTrue(size >= 0 && size <= CAPACITY, "size " + size);
                                    checkEvictionsCounter(writer, words, scribbling, damagedReads);
                                }
                                default -> reader.snapshot().regions().forEach(HostileWriterTest::checkRecord);
                            }
                            operations.incrementAndGet(seed);
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                }));
            }
            try {
                // a worker that hangs makes no progress: this wait fails then, naming what was done
                Await.until(() -> "hostile run: operations " + operations + ", scribbles " + scribbling.get() / 2
                        + ", damaged counter reads " + damagedReads, () -> !failures.isEmpty()
                        || operations.get(0) >= OPERATIONS_PER_WORKER && operations.get(1) >= OPERATIONS_PER_WORKER
                        && scribbling.get() / 2 >= SCRIBBLES && damagedReads.get() >= DAMAGED_COUNTER_READS);
            } finally {
                stop.set(true);
            }
            for (Thread thread : threads) {
                thread.join(TimeUnit.SECONDS.toMillis(Await.LIMIT_SECONDS));
                assertFalse(thread.isAlive(), thread.getName() + " finished: nothing hangs");
            }
        }
        assertEquals(List.of(), failures, "no exception under a hostile writer");
        System.out.printf("HostileWriterTest: %s operations, %,d scribbles, %,d reads of a damaged counter%n", operations,
                scribbling.get() / 2, damagedReads.get());
    }

    /**
     * {@code info().evictions()} never returns a negative count, and reads a value with the top bit set
     * (a damaged word, FORMAT.md §1) as 0: checked whenever no scribble overlapped the call and the
     * word held one such value before and after it (writers only ever store non-negative counts).
     */
    private static void checkEvictionsCounter(HintStore store, Memory words, AtomicLong scribbling, AtomicLong damagedReads) {
        long sequence = scribbling.get();
        long before = Memory.acquireLong(words.segment, Layouts.HDR_EVICTIONS);
        long read = store.info().evictions();
        long after = Memory.acquireLong(words.segment, Layouts.HDR_EVICTIONS);
        assertTrue(read >= 0, "info().evictions() " + read);
        if ((sequence & 1) == 0 && scribbling.get() == sequence && before == after && before < 0) {
            assertEquals(0, read, "info().evictions() of the damaged word " + Long.toHexString(before));
            damagedReads.incrementAndGet();
        }
    }

    static void checkRecord(RegionRecord r) {
        assertTrue(r.dispatchCount() > 0 && r.kernelNsMax() <= r.kernelNsTotal()
                && r.kernelNsTotal() / r.dispatchCount() <= r.kernelNsMax(), r::toString);
    }

    /** One write of a boundary or random value into a mutable word of the file. */
    private static void scribble(MemorySegment raw, FileGeometry g, SplittableRandom random) {
        long value = switch (random.nextInt(10)) {
            case 0 -> 0;
            case 1 -> 1;
            case 2 -> -1;
            case 3 -> CAPACITY;
            case 4 -> CAPACITY + 1;
            case 5 -> MAX_NAME + 1;
            case 6 -> Long.MAX_VALUE;
            case 7 -> WriterTable.ownerWord(random.nextInt(3), random.nextInt(3));
            case 8 -> random.nextLong() & 0xFFFF_FFFF_0000_0000L | random.nextInt(CAPACITY + 3);
            default -> random.nextLong();
        };
        if (random.nextInt(2) == 0) { // half of the writes go to name_len, the one 32-bit length in a slot
            long slot = g.slotsOffset() + (long) random.nextInt(CAPACITY) * g.slotBytes();
            int length = switch (random.nextInt(4)) {
                case 0 -> MAX_NAME + 1;
                case 1 -> -1;
                case 2 -> 1 + random.nextInt(MAX_NAME);
                default -> random.nextInt();
            };
            raw.set(Layouts.U32, Slots.nameLen(slot), length);
            return;
        }
        long offset;
        switch (random.nextInt(4)) {
            case 0 -> offset = Layouts.HDR_STRUCT_LOCK + 8L * random.nextInt(8); // coordination line
            case 1 -> offset = g.writerTableOffset() + 8L * random.nextInt(8);
            case 2 -> offset = g.indexOffset() + 8L * random.nextInt(g.indexEntries());
            default -> {
                long slot = g.slotsOffset() + (long) random.nextInt(CAPACITY) * g.slotBytes();
                offset = slot + 8L * random.nextInt(g.slotBytes() / 8); // lock .. name, any word
            }
        }
        if (random.nextInt(4) == 0) {
            raw.set(Layouts.U32, offset, (int) value); // e.g. name_len alone
        } else {
            raw.set(Layouts.U64, offset, value);
        }
    }
}
