package dev.hintmap.bench;

import dev.hintmap.RegionRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ExternalMapQueryContext;
import net.openhft.chronicle.map.MapEntry;
import net.openhft.chronicle.values.Values;

/**
 * Chronicle Map persisted to a file: {@code CharSequence} keys, a {@link ChronicleHintValue}
 * value interface updated in place under the entry's segment update lock (Chronicle's idiom for
 * off-heap read-modify-write). Shared between processes through the file. It has no eviction
 * policy: at capacity the adapter removes the oldest inserted key (FIFO, O(1)) under one lock
 * taken only for inserts.
 */
final class ChronicleStore implements BenchStore {
    private final ChronicleMap<CharSequence, ChronicleHintValue> map;
    private final Path file;
    private final int capacity;
    private final ArrayDeque<String> insertion;
    private final ChronicleHintValue initial;

    ChronicleStore(Path file, int capacity) {
        this.file = file;
        this.capacity = capacity;
        this.insertion = new ArrayDeque<>(Math.max(16, capacity));
        try {
            Files.deleteIfExists(file);
            map = open(file, capacity);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        initial = Values.newHeapInstance(ChronicleHintValue.class);
    }

    static ChronicleMap<CharSequence, ChronicleHintValue> open(Path file, int capacity) throws IOException {
        return ChronicleMap.of(CharSequence.class, ChronicleHintValue.class)
                .name("hints")
                .entries(Math.max(64, capacity))
                .averageKeySize(24)
                .createPersistedTo(file.toFile());
    }

    @Override
    public void record(String name, long kernelNs, long bytes) {
        if (!update(name, kernelNs, bytes)) {
            insert(name, kernelNs, bytes);
        }
    }

    private boolean update(String name, long kernelNs, long bytes) {
        try (ExternalMapQueryContext<CharSequence, ChronicleHintValue, ?> c = map.queryContext(name)) {
            c.updateLock().lock();
            MapEntry<CharSequence, ChronicleHintValue> e = c.entry();
            if (e == null) {
                return false;
            }
            ChronicleHintValue v = e.value().get();
            v.setCount(sat(v.getCount() + 1));
            v.setTotal(sat(v.getTotal() + kernelNs));
            if (kernelNs > v.getMax()) {
                v.setMax(kernelNs);
            }
            v.setBytes(sat(v.getBytes() + bytes));
            return true;
        }
    }

    private void insert(String name, long kernelNs, long bytes) {
        if (capacity == 0) {
            return;
        }
        synchronized (insertion) {
            if (update(name, kernelNs, bytes)) {
                return;
            }
            if (insertion.size() >= capacity) {
                map.remove(insertion.pollFirst());
            }
            initial.setCount(1);
            initial.setTotal(kernelNs);
            initial.setMax(kernelNs);
            initial.setBytes(bytes);
            map.put(name, initial);
            insertion.addLast(name);
        }
    }

    private static long sat(long v) {
        return v < 0 ? Long.MAX_VALUE : v;
    }

    @Override
    public Recorder recorder(String name) {
        return (ns, b) -> record(name, ns, b);
    }

    @Override
    public boolean isHot(String name) {
        try (ExternalMapQueryContext<CharSequence, ChronicleHintValue, ?> c = map.queryContext(name)) {
            c.readLock().lock();
            MapEntry<CharSequence, ChronicleHintValue> e = c.entry();
            if (e == null) {
                return false;
            }
            ChronicleHintValue v = e.value().get();
            long count = v.getCount();
            return count > 0 && v.getTotal() / count >= HOT_THRESHOLD_NS;
        }
    }

    @Override
    public RegionRecord recordFor(String name) {
        try (ExternalMapQueryContext<CharSequence, ChronicleHintValue, ?> c = map.queryContext(name)) {
            c.readLock().lock();
            MapEntry<CharSequence, ChronicleHintValue> e = c.entry();
            if (e == null) {
                return null;
            }
            ChronicleHintValue v = e.value().get();
            return new RegionRecord(name, v.getCount(), v.getTotal(), v.getMax(), v.getBytes());
        }
    }

    @Override
    public long iterate() {
        long[] sum = new long[1];
        map.forEachEntry(e -> {
            ChronicleHintValue v = e.value().get();
            sum[0] += v.getCount() + v.getMax();
        });
        return sum[0];
    }

    @Override
    public int size() {
        return map.size();
    }

    @Override
    public void close() {
        map.close();
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
