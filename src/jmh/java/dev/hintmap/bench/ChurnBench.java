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

/**
 * Record with eviction churn: a store filled to {@code capacity}, then records of keys drawn
 * uniformly from {@value #DISTINCT_FACTOR} x capacity distinct regions, so about three records in
 * four insert a new region and evict one (LRU would hit 25%). One thread: structural changes are
 * serialised in every store. A cost that is O(1) stays flat with capacity (apart from caches
 * and TLB: at 2^20 regions every record touches cold memory).
 *
 * <pre>./mvnw -Pjmh clean test-compile exec:exec@jmh -Djmh.args="ChurnBench -f 1 -wi 2 -w 1s -i 3 -r 1s -prof gc -jvmArgsAppend -Xmx4g"</pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Benchmark)
public class ChurnBench {
    static final int DISTINCT_FACTOR = 4;
    static final int KEYS = 1 << 22;
    static final int MASK = KEYS - 1;
    static final long MEDIAN_KERNEL_NS = 20_000;

    @Param({"256", "65536", "1048576"})
    public int capacity;

    @Param({"HINTMAP", "REFERENCE", "CONCURRENT", "CHRONICLE", "AGRONA"})
    public StoreKind store;

    BenchStore target;
    String[] names;
    int[] keys;
    long[] kernelNs;
    int i;

    @Setup
    public void setUp() {
        names = Workload.names(DISTINCT_FACTOR * capacity);
        keys = Workload.uniformKeys(KEYS, names.length, 7);
        kernelNs = Workload.kernelNs(KEYS, MEDIAN_KERNEL_NS, 11);
        target = store.create(capacity);
        for (int k = 0; k < capacity; k++) {
            target.record(names[k], MEDIAN_KERNEL_NS, 8 * MEDIAN_KERNEL_NS);
        }
        if (target.size() != capacity) {
            throw new IllegalStateException(store + " holds " + target.size() + " regions after the fill, expected " + capacity);
        }
    }

    @TearDown
    public void tearDown() {
        target.close();
    }

    @Benchmark
    @Threads(1)
    public void churn() {
        int k = i++ & MASK;
        long ns = kernelNs[k];
        target.record(names[keys[k]], ns, 8 * ns);
    }
}
