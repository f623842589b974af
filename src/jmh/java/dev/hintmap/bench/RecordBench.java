package dev.hintmap.bench;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * Record one dispatch into an existing region: {@value #REGIONS} hot regions, keys drawn
 * Zipf(s = {@value #ZIPF_S}) per thread, capacity {@value #CAPACITY} (no eviction), at 1 and 2
 * threads on one shared store.
 *
 * <pre>./mvnw -Pjmh clean test-compile exec:exec@jmh -Djmh.args="RecordBench -f 1 -wi 2 -w 1s -i 3 -r 1s -prof gc"</pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Benchmark)
public class RecordBench {
    static final int REGIONS = 64;
    static final double ZIPF_S = 1.0;
    static final int CAPACITY = 256;
    static final int KEYS = 1 << 16;
    static final int MASK = KEYS - 1;
    static final long MEDIAN_KERNEL_NS = 20_000;

    @Param({"HINTMAP", "HINTMAP_REGION", "REFERENCE", "CONCURRENT", "CHRONICLE", "AGRONA"})
    public StoreKind store;

    BenchStore target;
    BenchStore.Recorder[] recorders;

    @Setup
    public void setUp() {
        target = store.create(CAPACITY);
        String[] names = Workload.names(REGIONS);
        recorders = new BenchStore.Recorder[REGIONS];
        for (int i = 0; i < REGIONS; i++) {
            recorders[i] = target.recorder(names[i]);
            recorders[i].record(MEDIAN_KERNEL_NS, 8 * MEDIAN_KERNEL_NS); // the region exists from here on
        }
        if (target.size() != REGIONS) {
            throw new IllegalStateException(store + " holds " + target.size() + " regions, expected " + REGIONS);
        }
    }

    @TearDown
    public void tearDown() {
        target.close();
    }

    /** One thread's precomputed inputs and position. */
    @State(Scope.Thread)
    public static class Cursor {
        int[] keys;
        long[] kernelNs;
        long[] bytes;
        int i;

        @Setup
        public void setUp(ThreadParams thread) {
            int t = thread.getThreadIndex();
            keys = Workload.zipfKeys(KEYS, REGIONS, ZIPF_S, 17 + t);
            kernelNs = Workload.kernelNs(KEYS, MEDIAN_KERNEL_NS, 31 + t);
            bytes = new long[KEYS];
            for (int k = 0; k < KEYS; k++) {
                bytes[k] = 8 * kernelNs[k];
            }
        }
    }

    @Benchmark
    @Threads(1)
    public void existing_1t(Cursor c) {
        int k = c.i++ & MASK;
        recorders[c.keys[k]].record(c.kernelNs[k], c.bytes[k]);
    }

    @Benchmark
    @Threads(2)
    public void existing_2t(Cursor c) {
        int k = c.i++ & MASK;
        recorders[c.keys[k]].record(c.kernelNs[k], c.bytes[k]);
    }
}
