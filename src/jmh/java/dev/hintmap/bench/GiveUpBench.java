package dev.hintmap.bench;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.testkit.LiveUser;
import dev.hintmap.Region;
import dev.hintmap.TestStores;
import dev.hintmap.format.FileGeometry;
import dev.hintmap.store.StuckLocks;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * The cost of a dropped sample on a stuck slot lock (FORMAT.md §6.2 "give up"), after the first
 * give-up: the lock of region {@value #STUCK} names a live process that never lets go (a
 * {@link LiveUser}: a second JVM that maps the file), the setup records once into it (that
 * record waits the store's lock wait limit, {@value #LIMIT_MILLIS} ms here instead of 5 s, and
 * gives up), and every measured record on it is then dropped at once. {@code stuck} and
 * {@code stuck_handle} record into that region by name and through a {@link Region} handle;
 * {@code unlocked} and {@code unlocked_handle} are the control: the same store, a region whose
 * lock is free. One thread. The teardown checks that no stuck record was counted.
 *
 * <p>Before 5b9085e each dropped sample read {@code /proc/<pid>/stat} to see whether the holder
 * still lived; since then the memo keeps when the holder was last seen alive, and a drop within
 * 1 ms of that sighting reads nothing (one /proc check per millisecond at most, amortised over
 * the drops of that millisecond, is included in the figure). src/jmh/resources/dev/hintmap/bench/give-up-cost.md
 * has the figures for both versions and how the baseline was run.
 *
 * <pre>./mvnw -q -Pjmh clean test-compile exec:exec@jmh -Djmh.args="GiveUpBench -f 2 -wi 3 -w 1s -i 5 -r 1s"</pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Benchmark)
public class GiveUpBench {
    static final int CAPACITY = 4;
    static final long LIMIT_MILLIS = 20;
    static final long LIMIT_NANOS = TimeUnit.MILLISECONDS.toNanos(LIMIT_MILLIS);
    static final String STUCK = "stuck"; // recorded first: slot 0
    static final String FREE = "free";   // slot 1
    static final long KERNEL_NS = 20_000;
    static final long BYTES = 8 * KERNEL_NS;

    Path file;
    LiveUser holder;
    HintStore store;
    Region stuckRegion;
    Region freeRegion;
    /** How long the first record on the stuck lock took (it waits the limit). */
    long firstGiveUpNanos;

    @Setup
    public void setUp() throws IOException {
        file = StoreKind.directory().resolve("giveup-" + ProcessHandle.current().pid() + ".hints");
        Files.deleteIfExists(file);
        HintStoreOptions options = HintStoreOptions.defaults().capacity(CAPACITY);
        try (HintStore s = TestStores.open(file, options, LIMIT_NANOS)) {
            s.record(STUCK, KERNEL_NS, BYTES);
            s.record(FREE, KERNEL_NS, BYTES);
        }
        holder = LiveUser.mapping(file);
        FileGeometry geometry = new FileGeometry(CAPACITY, options.maxNameBytes());
        long owner = StuckLocks.plantSlotLock(file, geometry, 0, holder.token());

        store = TestStores.open(file, HintStoreOptions.defaults(), LIMIT_NANOS);
        stuckRegion = store.region(STUCK);
        freeRegion = store.region(FREE);
        long start = System.nanoTime();
        store.record(STUCK, KERNEL_NS, BYTES); // waits the limit, gives up, remembers the word
        firstGiveUpNanos = System.nanoTime() - start;
        if (firstGiveUpNanos < LIMIT_NANOS || store.dispatchCount(STUCK) != 1
                || StuckLocks.slotLockWord(file, geometry, 0) != owner) {
            throw new IllegalStateException("no give-up: took " + firstGiveUpNanos + " ns, count "
                    + store.dispatchCount(STUCK));
        }
    }

    @TearDown
    public void tearDown() throws IOException {
        try {
            long count = store.dispatchCount(STUCK);
            if (count != 1) {
                throw new IllegalStateException("a record on the stuck lock was counted: " + count);
            }
            System.out.println("\nfirst give-up took " + firstGiveUpNanos / 1000 + " µs (limit " + LIMIT_MILLIS + " ms)");
        } finally {
            store.close();
            holder.close();
            Files.deleteIfExists(file);
        }
    }

    @Benchmark
    @Threads(1)
    public void stuck() {
        store.record(STUCK, KERNEL_NS, BYTES);
    }

    @Benchmark
    @Threads(1)
    public void stuck_handle() {
        stuckRegion.record(KERNEL_NS, BYTES);
    }

    @Benchmark
    @Threads(1)
    public void unlocked() {
        store.record(FREE, KERNEL_NS, BYTES);
    }

    @Benchmark
    @Threads(1)
    public void unlocked_handle() {
        freeRegion.record(KERNEL_NS, BYTES);
    }
}
