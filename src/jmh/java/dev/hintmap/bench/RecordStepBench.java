package dev.hintmap.bench;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.Region;
import dev.hintmap.RegionRecord;
import dev.hintmap.store.EncodedNames;
import dev.hintmap.store.StoreEngine;
import java.io.IOException;
import java.lang.reflect.Field;
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
 * Where {@code Region.record} spends its time above the raw stores, one check at a time (issue 26),
 * without a disassembler: a ladder of records on {@code RecordBench.existing_1t}'s workload (64
 * regions, Zipf 1.0, capacity 256, the same key and kernel-time streams, one thread), each rung
 * dropping one more check than the rung above, so that the difference between two neighbouring
 * rows is what that check costs. {@code s0} is the real {@link Region#record}, {@code s1} the
 * real {@code StoreEngine.recordInto} (no Region checks), {@code s2} a copy of recordInto in this
 * source set ({@link RecordReplica}, on the same mapping: the engine's internals are
 * package-private), whose distance to {@code s1} is the copy's own error; {@code s3}–{@code s9}
 * drop from the copy, in order: the leak-sweep check and throwable counter, the lock's bookkeeping,
 * the load before the CAS, the release fence, the reference byte's test, saturation, and the shared
 * arena's liveness check. The last row is the floor: the same loads and stores as C's
 * {@code hmi_slot_record} on a raw segment.
 *
 * <p>Every rung must still record: the teardown compares every region's count and kernel-time sum
 * with what the operations run should have added, so a rung that silently skips the store fails.
 *
 * <pre>./mvnw -Pjmh clean test-compile exec:exec@jmh -Djmh.args="RecordStepBench -f 2 -wi 3 -w 1s -i 5 -r 1s -prof gc"</pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class RecordStepBench {
    static final int REGIONS = RecordBench.REGIONS;
    static final int CAPACITY = RecordBench.CAPACITY;
    static final int KEYS = RecordBench.KEYS;
    static final int MASK = RecordBench.MASK;
    static final long MEDIAN_KERNEL_NS = RecordBench.MEDIAN_KERNEL_NS;

    Path file;
    HintStore store;
    String[] names;
    Region[] regions;
    StoreEngine engine;
    RecordReplica replica;
    int[] slotOf;
    long[] genOf;
    int[] keys;
    long[] kernelNs;
    long[] bytes;
    /** Records made: the teardown derives every region's expected record from it. */
    long ops;

    @Setup
    public void setUp() throws IOException, ReflectiveOperationException {
        file = StoreKind.directory().resolve("steps-" + ProcessHandle.current().pid() + ".hints");
        Files.deleteIfExists(file);
        store = HintStore.open(file, HintStoreOptions.defaults().capacity(CAPACITY));
        names = Workload.names(REGIONS);
        regions = new Region[REGIONS];
        slotOf = new int[REGIONS];
        genOf = new long[REGIONS];
        Field resolutionOf = Region.class.getDeclaredField("resolution");
        resolutionOf.setAccessible(true);
        engine = RecordReplica.engine(store);
        replica = RecordReplica.of(store);
        for (int i = 0; i < REGIONS; i++) {
            regions[i] = store.region(names[i]);
            regions[i].record(MEDIAN_KERNEL_NS, 8 * MEDIAN_KERNEL_NS); // the region exists from here on
            EncodedNames.Resolution r = (EncodedNames.Resolution) resolutionOf.get(regions[i]);
            slotOf[i] = r.slot();
            genOf[i] = r.gen();
            replica.check(slotOf[i], genOf[i]);
        }
        if (store.size() != REGIONS) {
            throw new IllegalStateException("store holds " + store.size() + " regions, expected " + REGIONS);
        }
        keys = Workload.zipfKeys(KEYS, REGIONS, RecordBench.ZIPF_S, 17);
        kernelNs = Workload.kernelNs(KEYS, MEDIAN_KERNEL_NS, 31);
        bytes = new long[KEYS];
        for (int k = 0; k < KEYS; k++) {
            bytes[k] = 8 * kernelNs[k];
        }
    }

    @TearDown
    public void tearDown() throws IOException {
        try {
            long[] count = new long[REGIONS];
            long[] total = new long[REGIONS];
            long[] sumBytes = new long[REGIONS];
            long cycles = ops / KEYS;
            int rest = (int) (ops % KEYS);
            for (int k = 0; k < KEYS; k++) {
                long times = cycles + (k < rest ? 1 : 0);
                count[keys[k]] += times;
                total[keys[k]] += times * kernelNs[k];
                sumBytes[keys[k]] += times * bytes[k];
            }
            for (int i = 0; i < REGIONS; i++) {
                RegionRecord r = store.recordFor(names[i]).orElseThrow();
                if (r.dispatchCount() != 1 + count[i] || r.kernelNsTotal() != MEDIAN_KERNEL_NS + total[i]
                        || r.bytesTotal() != 8 * MEDIAN_KERNEL_NS + sumBytes[i]) {
                    throw new IllegalStateException("region " + i + " holds " + r + " after " + ops
                            + " records; expected count " + (1 + count[i]) + ", kernel ns " + (MEDIAN_KERNEL_NS + total[i]));
                }
            }
        } finally {
            store.close();
            Files.deleteIfExists(file);
        }
    }

    private static void recorded(boolean done) {
        if (!done) {
            throw new IllegalStateException("slot reassigned in a store without eviction");
        }
    }

    @Benchmark
    @Threads(1)
    public void s0_regionRecord() {
        int k = (int) (ops++ & MASK);
        regions[keys[k]].record(kernelNs[k], bytes[k]);
    }

    @Benchmark
    @Threads(1)
    public void s1_engineRecordInto() {
        int k = (int) (ops++ & MASK);
        int r = keys[k];
        recorded(engine.recordInto(slotOf[r], genOf[r], kernelNs[k], bytes[k]));
    }

    @Benchmark
    @Threads(1)
    public void s2_replica() {
        int k = (int) (ops++ & MASK);
        int r = keys[k];
        recorded(replica.full(slotOf[r], genOf[r], kernelNs[k], bytes[k]));
    }

    @Benchmark
    @Threads(1)
    public void s3_noSweep() {
        int k = (int) (ops++ & MASK);
        int r = keys[k];
        recorded(replica.noSweep(slotOf[r], genOf[r], kernelNs[k], bytes[k]));
    }

    @Benchmark
    @Threads(1)
    public void s4_plainLock() {
        int k = (int) (ops++ & MASK);
        int r = keys[k];
        recorded(replica.plainLock(slotOf[r], genOf[r], kernelNs[k], bytes[k]));
    }

    @Benchmark
    @Threads(1)
    public void s5_bareCas() {
        int k = (int) (ops++ & MASK);
        int r = keys[k];
        recorded(replica.bareCas(slotOf[r], genOf[r], kernelNs[k], bytes[k]));
    }

    @Benchmark
    @Threads(1)
    public void s6_noFence() {
        int k = (int) (ops++ & MASK);
        int r = keys[k];
        recorded(replica.noFence(slotOf[r], genOf[r], kernelNs[k], bytes[k]));
    }

    @Benchmark
    @Threads(1)
    public void s7_noRefTest() {
        int k = (int) (ops++ & MASK);
        int r = keys[k];
        recorded(replica.noRefTest(slotOf[r], genOf[r], kernelNs[k], bytes[k]));
    }

    @Benchmark
    @Threads(1)
    public void s8_noSaturating() {
        int k = (int) (ops++ & MASK);
        int r = keys[k];
        recorded(replica.noSaturating(slotOf[r], genOf[r], kernelNs[k], bytes[k]));
    }

    @Benchmark
    @Threads(1)
    public void s9_rawSegment() {
        int k = (int) (ops++ & MASK);
        int r = keys[k];
        recorded(replica.raw(slotOf[r], genOf[r], kernelNs[k], bytes[k]));
    }
}
