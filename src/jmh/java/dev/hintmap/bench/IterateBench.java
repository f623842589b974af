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
 * Full iteration of a store holding {@value #REGIONS} regions, reading each region's record (and,
 * where the store keeps it with the data, its name). One thread. {@code iterate} goes through each
 * store's usual scan (hintmap: {@code forEachView} with {@code RegionView.toRecord()}, a record and a
 * String per region, what the deprecated {@code forEach(Consumer<RegionRecord>)} does); {@code visit}
 * through its allocation-free one where it has one (hintmap: {@code forEachView(RecordVisitor)};
 * Agrona: the counter walk reading the label's length in place), else the same as {@code iterate}.
 *
 * <pre>./mvnw -Pjmh clean test-compile exec:exec@jmh -Djmh.args="IterateBench -f 1 -wi 2 -w 1s -i 3 -r 1s -prof gc"</pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@State(Scope.Benchmark)
public class IterateBench {
    static final int REGIONS = 65_536;

    @Param({"HINTMAP", "REFERENCE", "CONCURRENT", "CHRONICLE", "AGRONA"})
    public StoreKind store;

    BenchStore target;

    @Setup
    public void setUp() {
        target = store.create(REGIONS);
        String[] names = Workload.names(REGIONS);
        for (String name : names) {
            target.record(name, 50_000, 400_000);
        }
        if (target.size() != REGIONS) {
            throw new IllegalStateException(store + " holds " + target.size() + " regions, expected " + REGIONS);
        }
    }

    @TearDown
    public void tearDown() {
        target.close();
    }

    @Benchmark
    @Threads(1)
    public long iterate() {
        return target.iterate();
    }

    @Benchmark
    @Threads(1)
    public long visit() {
        return target.visit();
    }
}
