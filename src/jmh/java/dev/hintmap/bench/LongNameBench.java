package dev.hintmap.bench;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
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
 * The cost of a long kernel name on the by-name paths (FORMAT.md §1.1): 64 regions named with
 * {@code nameBytes}-byte names, Zipf(1.0) keys, recorded into and queried from an in-memory store
 * whose {@code max_name_bytes} stores them whole (256) or shortened (64). {@code record} and
 * {@code isHot} pass the same String instances each call (the runtime's case: the per-thread cache
 * skips the encoding); {@code recordCopy} passes a new String of the same name each call (a runtime
 * that builds its names per dispatch: encoding, and for a shortened name the stored form, every
 * call). Compare rows of one run: 24-byte names at 256 are the baseline.
 *
 * <pre>./mvnw -Pjmh clean test-compile exec:exec@jmh -Djmh.args="LongNameBench -f 2 -wi 3 -w 1s -i 5 -r 1s -prof gc"</pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class LongNameBench {
    static final int REGIONS = RecordBench.REGIONS;
    static final int MASK = RecordBench.MASK;

    @Param({"24", "200"})
    public int nameBytes;

    @Param({"256", "64"})
    public int maxNameBytes;

    HintStore store;
    String[] names;
    int[] keys;
    int i;

    @Setup
    public void setUp() {
        store = HintStore.inMemory(HintStoreOptions.defaults().capacity(RecordBench.CAPACITY).maxNameBytes(maxNameBytes));
        names = new String[REGIONS];
        for (int r = 0; r < REGIONS; r++) {
            names[r] = nameBytes <= 24 ? Workload.name(r) : Workload.longName(r, nameBytes);
            store.record(names[r], RecordBench.MEDIAN_KERNEL_NS, 1);
        }
        keys = Workload.zipfKeys(RecordBench.KEYS, REGIONS, RecordBench.ZIPF_S, 17);
        if (store.size() != REGIONS) {
            throw new IllegalStateException(store.size() + " regions, expected " + REGIONS);
        }
    }

    @TearDown
    public void tearDown() {
        store.close();
    }

    @Benchmark
    @Threads(1)
    public void record() {
        store.record(names[keys[i++ & MASK]], RecordBench.MEDIAN_KERNEL_NS, 4096);
    }

    @Benchmark
    @Threads(1)
    public void recordCopy() {
        store.record(new String(names[keys[i++ & MASK]]), RecordBench.MEDIAN_KERNEL_NS, 4096);
    }

    @Benchmark
    @Threads(1)
    public boolean isHot() {
        return store.isHot(names[keys[i++ & MASK]]);
    }
}
