package dev.hintmap;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * An immutable copy of a store's regions for offline use: what an optimizer takes once per
 * compilation and consults as often as it likes, after the store is closed too.
 *
 * <p>Each record is consistent in itself (one update of that region, never a mix of two); the
 * set of regions is not one atomic cut of the store: regions inserted or evicted while the
 * snapshot was being taken may or may not be in it. Hints are a prioritisation signal, so that is
 * all an optimizer needs; {@link #takenAt()} tells it how old the copy is.
 */
public final class HintSnapshot {
    private final Path file;
    private final Instant takenAt;
    private final int capacity;
    private final long hotThresholdNs;
    private final List<RegionRecord> regions;
    private final Map<String, RegionRecord> byName;

    HintSnapshot(Path file, Instant takenAt, int capacity, long hotThresholdNs, List<RegionRecord> regions) {
        this.file = file;
        this.takenAt = Objects.requireNonNull(takenAt);
        this.capacity = capacity;
        this.hotThresholdNs = hotThresholdNs;
        this.regions = List.copyOf(regions);
        Map<String, RegionRecord> map = new HashMap<>(Math.max(16, regions.size() * 2));
        for (RegionRecord r : this.regions) {
            map.putIfAbsent(r.name(), r);
        }
        this.byName = Collections.unmodifiableMap(map);
    }

    /** The file the snapshot was taken from, or empty for an in-memory store. */
    public Optional<Path> file() {
        return Optional.ofNullable(file);
    }

    /** When the copy was taken (wall clock). */
    public Instant takenAt() {
        return takenAt;
    }

    /** The store's capacity. */
    public int capacity() {
        return capacity;
    }

    /** The store's hot threshold, mean kernel ns. */
    public long hotThresholdNs() {
        return hotThresholdNs;
    }

    /** Every region of the copy, in the store's slot order. */
    public List<RegionRecord> regions() {
        return regions;
    }

    /** Number of regions in the copy. */
    public int size() {
        return regions.size();
    }

    /** The region's record, or empty when the copy does not hold it. */
    public Optional<RegionRecord> recordFor(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    /** As {@link HintStore#isHot}: mean kernel ns at least the threshold; false when absent. */
    public boolean isHot(String name) {
        RegionRecord r = byName.get(name);
        return r != null && r.meanKernelNs() >= hotThresholdNs;
    }

    /** Number of regions whose mean kernel time reaches the threshold. */
    public int hotCount() {
        int hot = 0;
        for (RegionRecord r : regions) {
            if (r.meanKernelNs() >= hotThresholdNs) {
                hot++;
            }
        }
        return hot;
    }

    /**
     * The {@code k} hottest regions by {@code order}, hottest first (equal keys by name).
     *
     * @throws IllegalArgumentException if {@code k} is negative
     */
    public List<RegionRecord> hottest(int k, RegionOrder order) {
        HintStore.requireCount(k);
        Objects.requireNonNull(order, "order");
        List<RegionRecord> sorted = new ArrayList<>(regions);
        sorted.sort(order.comparator());
        return List.copyOf(sorted.subList(0, Math.min(k, sorted.size())));
    }

    @Override
    public String toString() {
        return "HintSnapshot[" + (file == null ? "in memory" : file) + ", " + regions.size() + " regions, taken at "
                + takenAt + "]";
    }
}
