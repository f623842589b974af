package dev.hintmap.bench;

import dev.hintmap.Region;
import dev.hintmap.RegionRecord;
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
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.Blackhole;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * The optimizer's questions on existing regions: {@code isHot}, {@code dispatchCount},
 * {@code meanKernelNs} (one thread), {@code recordFor} and the
 * allocation-free {@code readInto} (by name, and through a handle resolved once) over
 * {@value #REGIONS} regions (every other one hot), keys drawn Zipf(s = {@value #ZIPF_S}), at 1 and
 * 2 threads. {@code recordFor} results are consumed as the optimizer would (count and mean), so
 * a returned record the JIT can scalar-replace costs no allocation. {@code readInto_*} fills a
 * per-thread holder ({@link Fields}: hintmap's {@code MutableRecord}, four plain fields for the
 * others) and consumes the same two values; {@code handleReadInto_*} does the same through
 * {@link BenchStore#reader} (hintmap: a {@code Region}); {@code handleIsHot_1t} and
 * {@code handleDispatchCount_1t} ask hintmap's {@code Region} directly (HINTMAP only).
 *
 * <pre>./mvnw -Pjmh clean test-compile exec:exec@jmh -Djmh.args="QueryBench -f 1 -wi 2 -w 1s -i 3 -r 1s -prof gc"</pre>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Benchmark)
public class QueryBench {
    static final int REGIONS = 64;
    static final double ZIPF_S = 1.0;
    static final int CAPACITY = 256;
    static final int KEYS = 1 << 16;
    static final int MASK = KEYS - 1;

    @Param({"HINTMAP", "REFERENCE", "CONCURRENT", "CHRONICLE", "AGRONA"})
    public StoreKind store;

    BenchStore target;
    String[] names;
    BenchStore.Reader[] readers;
    /** hintmap only: the {@code Region} handles of {@code handleIsHot_*} and {@code handleDispatchCount_*}. */
    Region[] regions;

    @Setup
    public void setUp(BenchmarkParams params) {
        if (params.getBenchmark().matches(".*\\.handle(IsHot|DispatchCount)_1t") && store != StoreKind.HINTMAP) {
            throw new IllegalStateException(params.getBenchmark() + " measures hintmap's Region only: run it with -p store=HINTMAP");
        }
        target = store.create(CAPACITY);
        names = Workload.names(REGIONS);
        for (int i = 0; i < REGIONS; i++) {
            long ns = i % 2 == 0 ? 2 * BenchStore.HOT_THRESHOLD_NS : BenchStore.HOT_THRESHOLD_NS / 4;
            for (int r = 0; r < 4; r++) {
                target.record(names[i], ns, 8 * ns);
            }
        }
        readers = new BenchStore.Reader[REGIONS];
        for (int i = 0; i < REGIONS; i++) {
            readers[i] = target.reader(names[i]);
        }
        if (target instanceof HintmapStore hintmap) {
            regions = new dev.hintmap.Region[REGIONS];
            for (int i = 0; i < REGIONS; i++) {
                regions[i] = hintmap.region(names[i]);
            }
        }
    }

    @TearDown
    public void tearDown() {
        target.close();
    }

    /** One thread's precomputed keys and position. */
    @State(Scope.Thread)
    public static class Cursor {
        int[] keys;
        int i;
        final Fields fields = new Fields();

        @Setup
        public void setUp(ThreadParams thread) {
            keys = Workload.zipfKeys(KEYS, REGIONS, ZIPF_S, 101 + thread.getThreadIndex());
        }
    }

    @Benchmark
    @Threads(1)
    public boolean isHot_1t(Cursor c) {
        return target.isHot(names[c.keys[c.i++ & MASK]]);
    }

    @Benchmark
    @Threads(2)
    public boolean isHot_2t(Cursor c) {
        return target.isHot(names[c.keys[c.i++ & MASK]]);
    }

    @Benchmark
    @Threads(1)
    public long dispatchCount_1t(Cursor c) {
        return target.dispatchCount(names[c.keys[c.i++ & MASK]], c.fields);
    }

    @Benchmark
    @Threads(1)
    public long meanKernelNs_1t(Cursor c) {
        return target.meanKernelNs(names[c.keys[c.i++ & MASK]], c.fields);
    }

    @Benchmark
    @Threads(1)
    public void recordFor_1t(Cursor c, Blackhole bh) {
        consume(target.recordFor(names[c.keys[c.i++ & MASK]]), bh);
    }

    @Benchmark
    @Threads(2)
    public void recordFor_2t(Cursor c, Blackhole bh) {
        consume(target.recordFor(names[c.keys[c.i++ & MASK]]), bh);
    }

    @Benchmark
    @Threads(1)
    public long readInto_1t(Cursor c) {
        Fields f = c.fields;
        return target.readInto(names[c.keys[c.i++ & MASK]], f) ? f.count + f.meanKernelNs() : -1;
    }

    @Benchmark
    @Threads(2)
    public long readInto_2t(Cursor c) {
        Fields f = c.fields;
        return target.readInto(names[c.keys[c.i++ & MASK]], f) ? f.count + f.meanKernelNs() : -1;
    }

    @Benchmark
    @Threads(1)
    public long handleReadInto_1t(Cursor c) {
        Fields f = c.fields;
        return readers[c.keys[c.i++ & MASK]].readInto(f) ? f.count + f.meanKernelNs() : -1;
    }

    @Benchmark
    @Threads(2)
    public long handleReadInto_2t(Cursor c) {
        Fields f = c.fields;
        return readers[c.keys[c.i++ & MASK]].readInto(f) ? f.count + f.meanKernelNs() : -1;
    }

    /** hintmap's {@code Region.isHot}: the handle read of FORMAT §7.2.2 (HINTMAP only). */
    @Benchmark
    @Threads(1)
    public boolean handleIsHot_1t(Cursor c) {
        return regions[c.keys[c.i++ & MASK]].isHot();
    }

    /** hintmap's {@code Region.dispatchCount} (HINTMAP only). */
    @Benchmark
    @Threads(1)
    public long handleDispatchCount_1t(Cursor c) {
        return regions[c.keys[c.i++ & MASK]].dispatchCount();
    }

    private static void consume(RegionRecord r, Blackhole bh) {
        if (r == null) {
            bh.consume(-1L);
        } else {
            bh.consume(r.dispatchCount());
            bh.consume(r.meanKernelNs());
        }
    }
}
