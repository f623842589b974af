package dev.hintmap.bench;

import dev.hintmap.HintStoreOptions;
import dev.hintmap.store.EncodedNames;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;

/**
 * Diagnostic split of hintmap's record-by-name path (not a store comparison): the per-thread
 * scratch lookup ({@code ThreadLocal}) and the UTF-8 encoding + {@code hm64} hash of the name
 * that {@code HintStore.record(String, …)} and every query do before touching the mapping. Same
 * 64 names and Zipf(1.0) key stream as {@link RecordBench}; with {@code isHot} (encode + index
 * lookup + consistent read) and the two record paths of the same run, the report derives where a
 * record by name spends its time. Uses the internal {@code dev.hintmap.store} package (class path).
 *
 * <pre>./mvnw -Pjmh clean test-compile exec:exec@jmh -Djmh.args="NamePathBench -f 1 -wi 2 -w 1s -i 3 -r 1s -prof gc"</pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Thread)
public class NamePathBench {
    static final int REGIONS = RecordBench.REGIONS;
    static final int KEYS = RecordBench.KEYS;
    static final int MASK = KEYS - 1;

    String[] names;
    int[] keys;
    int i;

    @Setup
    public void setUp() {
        names = Workload.names(REGIONS);
        keys = Workload.zipfKeys(KEYS, REGIONS, RecordBench.ZIPF_S, 17);
    }

    /** The names of ChurnBench at capacity 2^20: what every churn record pays before it reaches a store. */
    @State(Scope.Benchmark)
    public static class ColdNames {
        static final int COUNT = ChurnBench.DISTINCT_FACTOR * 1_048_576;
        String[] names;
        int[] keys;

        @Setup
        public void setUp() {
            names = Workload.names(COUNT);
            keys = Workload.uniformKeys(ChurnBench.KEYS, COUNT, 7);
        }
    }

    @Benchmark
    @Threads(1)
    public void encodeColdName(ColdNames cold) {
        EncodedNames.scratch().name.encodeChecked(cold.names[cold.keys[i++ & ChurnBench.MASK]], HintStoreOptions.DEFAULT_MAX_NAME_BYTES, false);
    }

    @Benchmark
    @Threads(1)
    public Object scratchLookup() {
        return EncodedNames.scratch();
    }

    @Benchmark
    @Threads(1)
    public void encodeAndHash() {
        EncodedNames.scratch().name.encodeChecked(names[keys[i++ & MASK]], HintStoreOptions.DEFAULT_MAX_NAME_BYTES, false);
    }
}
