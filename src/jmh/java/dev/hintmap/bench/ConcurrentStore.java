package dev.hintmap.bench;

import dev.hintmap.RegionRecord;
import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * The obvious on-heap concurrent design: {@code ConcurrentHashMap<String, Rec>} with
 * {@code LongAdder} sums and an {@code AtomicLong} max. Not shared between processes, not
 * persisted, and its reads are not a consistent snapshot of the four fields. It has no eviction
 * policy of its own: at capacity the adapter evicts in insertion (FIFO) order, O(1), under one
 * lock taken only for inserts.
 */
final class ConcurrentStore implements BenchStore {
    private final int capacity;
    private final ConcurrentHashMap<String, Rec> records;
    private final ArrayDeque<String> insertion;

    ConcurrentStore(int capacity) {
        this.capacity = capacity;
        this.records = new ConcurrentHashMap<>(Math.max(16, capacity * 2));
        this.insertion = new ArrayDeque<>(Math.max(16, capacity));
    }

    @Override
    public void record(String name, long kernelNs, long bytes) {
        Rec r = records.get(name);
        if (r == null) {
            r = insert(name);
            if (r == null) {
                return;
            }
        }
        r.count.increment();
        r.total.add(kernelNs);
        AtomicLong max = r.max;
        long m;
        while (kernelNs > (m = max.get()) && !max.compareAndSet(m, kernelNs)) {
            // retry
        }
        r.bytes.add(bytes);
    }

    private Rec insert(String name) {
        if (capacity == 0) {
            return null;
        }
        synchronized (insertion) {
            Rec r = records.get(name);
            if (r != null) {
                return r;
            }
            if (insertion.size() >= capacity) {
                records.remove(insertion.pollFirst());
            }
            r = new Rec();
            records.put(name, r);
            insertion.addLast(name);
            return r;
        }
    }

    @Override
    public Recorder recorder(String name) {
        return (ns, b) -> record(name, ns, b);
    }

    @Override
    public boolean isHot(String name) {
        Rec r = records.get(name);
        if (r == null) {
            return false;
        }
        long count = r.count.sum();
        return count > 0 && r.total.sum() / count >= HOT_THRESHOLD_NS;
    }

    @Override
    public long dispatchCount(String name, Fields scratch) {
        Rec r = records.get(name);
        return r == null ? 0 : r.count.sum();
    }

    @Override
    public long meanKernelNs(String name, Fields scratch) {
        Rec r = records.get(name);
        if (r == null) {
            return 0;
        }
        long count = r.count.sum();
        return count == 0 ? 0 : r.total.sum() / count;
    }

    @Override
    public RegionRecord recordFor(String name) {
        Rec r = records.get(name);
        return r == null ? null : new RegionRecord(name, r.count.sum(), r.total.sum(), r.max.get(), r.bytes.sum());
    }

    @Override
    public boolean readInto(String name, Fields into) {
        Rec r = records.get(name);
        return r != null && read(r, into);
    }

    @Override
    public Reader reader(String name) {
        Rec r = records.get(name); // resolved once: the query benchmarks never evict
        return r == null ? into -> false : into -> read(r, into);
    }

    private static boolean read(Rec r, Fields into) {
        return into.set(r.count.sum(), r.total.sum(), r.max.get(), r.bytes.sum());
    }

    @Override
    public long iterate() {
        long sum = 0;
        for (Rec r : records.values()) {
            sum += r.count.sum() + r.max.get();
        }
        return sum;
    }

    @Override
    public int size() {
        return records.size();
    }

    @Override
    public void close() {}

    private static final class Rec {
        final LongAdder count = new LongAdder();
        final LongAdder total = new LongAdder();
        final AtomicLong max = new AtomicLong();
        final LongAdder bytes = new LongAdder();
    }
}
