package dev.hintmap.bench;

import dev.hintmap.RegionRecord;
import java.util.ArrayDeque;
import java.util.HashMap;

/**
 * A faithful Java port of the in-memory reference design this project replaces: one mutex
 * around a {@code HashMap} of records plus an {@code ArrayDeque} recency list, least recently
 * used first. A record of a known region "bumps" it with a linear scan of the list (remove, then
 * append); a new region at capacity evicts the head. Queries do not bump. Not shared, not persisted.
 */
final class ReferenceStore implements BenchStore {
    private final int capacity;
    private final HashMap<String, Rec> records;
    private final ArrayDeque<String> recency;
    private final Object mutex = new Object();

    ReferenceStore(int capacity) {
        this.capacity = capacity;
        this.records = new HashMap<>(Math.max(16, capacity * 2));
        this.recency = new ArrayDeque<>(Math.max(16, capacity));
    }

    @Override
    public void record(String name, long kernelNs, long bytes) {
        if (capacity == 0) {
            return;
        }
        synchronized (mutex) {
            Rec r = records.get(name);
            if (r == null) {
                if (records.size() >= capacity) {
                    records.remove(recency.pollFirst());
                }
                r = new Rec();
                records.put(name, r);
                recency.addLast(name);
            } else {
                recency.removeFirstOccurrence(name); // the linear-scan bump
                recency.addLast(name);
            }
            r.count = sat(r.count + 1);
            r.total = sat(r.total + kernelNs);
            r.max = Math.max(r.max, kernelNs);
            r.bytes = sat(r.bytes + bytes);
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
        synchronized (mutex) {
            Rec r = records.get(name);
            return r != null && r.count > 0 && r.total / r.count >= HOT_THRESHOLD_NS;
        }
    }

    @Override
    public RegionRecord recordFor(String name) {
        synchronized (mutex) {
            Rec r = records.get(name);
            return r == null ? null : new RegionRecord(name, r.count, r.total, r.max, r.bytes);
        }
    }

    @Override
    public long iterate() {
        long sum = 0;
        synchronized (mutex) {
            for (Rec r : records.values()) {
                sum += r.count + r.max;
            }
        }
        return sum;
    }

    @Override
    public int size() {
        synchronized (mutex) {
            return records.size();
        }
    }

    @Override
    public void close() {}

    private static final class Rec {
        long count;
        long total;
        long max;
        long bytes;
    }
}
