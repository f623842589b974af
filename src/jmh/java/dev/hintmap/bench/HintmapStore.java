package dev.hintmap.bench;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RecordVisitor;
import dev.hintmap.RegionView;
import dev.hintmap.Region;
import dev.hintmap.RegionRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;

/** hintmap itself, on a mapped file; by name, or through pre-resolved {@link Region} handles. */
final class HintmapStore implements BenchStore {
    private final HintStore store;
    private final Path file;
    private final boolean handles;
    private final Sum sum = new Sum();
    private final ViewSum viewSum = new ViewSum();
    /** The record scan: a {@code RegionRecord} (and its name {@code String}) per region into {@link #sum}. */
    private final RecordVisitor recordSum = v -> sum.accept(v.toRecord());

    HintmapStore(Path file, int capacity, boolean handles) {
        this.file = file;
        this.handles = handles;
        try {
            Files.deleteIfExists(file);
            store = HintStore.open(file, HintStoreOptions.defaults().capacity(capacity).hotThresholdNs(HOT_THRESHOLD_NS));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void record(String name, long kernelNs, long bytes) {
        store.record(name, kernelNs, bytes);
    }

    @Override
    public Recorder recorder(String name) {
        if (handles) {
            Region region = store.region(name);
            return region::record;
        }
        return (ns, b) -> store.record(name, ns, b);
    }

    @Override
    public boolean isHot(String name) {
        return store.isHot(name);
    }

    @Override
    public long dispatchCount(String name, Fields scratch) {
        return store.dispatchCount(name);
    }

    @Override
    public long meanKernelNs(String name, Fields scratch) {
        return store.meanKernelNs(name);
    }

    @Override
    public RegionRecord recordFor(String name) {
        return store.recordFor(name).orElse(null);
    }

    @Override
    public boolean readInto(String name, Fields into) {
        return store.readInto(name, into.holder) && into.from(into.holder);
    }

    /** A handle of {@code name}, for the benchmarks of hintmap's own handle queries. */
    Region region(String name) {
        return store.region(name);
    }

    /** Always through a {@link Region}: this is hintmap's handle query path, by either kind. */
    @Override
    public Reader reader(String name) {
        Region region = store.region(name);
        return into -> region.readInto(into.holder) && into.from(into.holder);
    }

    @Override
    public long visit() {
        viewSum.value = 0;
        store.forEachView(viewSum);
        return viewSum.value;
    }

    @Override
    public long iterate() {
        sum.value = 0;
        store.forEachView(recordSum);
        return sum.value;
    }

    @Override
    public int size() {
        return store.size();
    }

    @Override
    public void close() {
        store.close();
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static final class ViewSum implements RecordVisitor {
        long value;

        @Override
        public void visit(RegionView v) {
            value += v.dispatchCount() + v.kernelNsMax() + v.nameLength();
        }
    }

    private static final class Sum implements Consumer<RegionRecord> {
        long value;

        @Override
        public void accept(RegionRecord r) {
            value += r.dispatchCount() + r.kernelNsMax();
        }
    }
}
