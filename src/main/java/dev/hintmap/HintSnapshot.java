package dev.hintmap;

import dev.hintmap.format.StoredName;
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
    private final int maxNameBytes;
    private final List<RegionRecord> regions;
    private final Map<String, RegionRecord> byName;

    HintSnapshot(Path file, Instant takenAt, int capacity, long hotThresholdNs, int maxNameBytes,
            List<RegionRecord> regions) {
        this.file = file;
        this.takenAt = Objects.requireNonNull(takenAt);
        this.capacity = capacity;
        this.hotThresholdNs = hotThresholdNs;
        this.maxNameBytes = maxNameBytes;
        this.regions = List.copyOf(regions);
        Map<String, RegionRecord> map = new HashMap<>(Math.max(16, regions.size() * 2));
        for (RegionRecord r : this.regions) {
            map.putIfAbsent(r.name(), r);
        }
        this.byName = Collections.unmodifiableMap(map);
    }

    /**
     * The file the snapshot was taken from.
     *
     * @return the store's path; empty for an in-memory store
     */
    public Optional<Path> file() {
        return Optional.ofNullable(file);
    }

    /**
     * When the copy was taken, by the wall clock ({@link Instant#now()}): just after the last
     * region was read, so every record is at least this old.
     *
     * @return the time the copy was completed, never null
     */
    public Instant takenAt() {
        return takenAt;
    }

    /**
     * The store's capacity when the copy was taken.
     *
     * @return the maximum number of regions, in {@code [0, HintStoreOptions.MAX_CAPACITY]}
     */
    public int capacity() {
        return capacity;
    }

    /**
     * The store's hot threshold, which {@link #isHot} and {@link #hotCount} apply.
     *
     * @return the mean kernel time in ns at or above which a region is hot, {@code >= 0}
     */
    public long hotThresholdNs() {
        return hotThresholdNs;
    }

    /**
     * The store's name limit, by which {@link #recordFor} and {@link #isHot} find a long name
     * ({@link HintStore#storedName(String)}).
     *
     * @return the longest name, in UTF-8 bytes, that the store keeps as it is
     */
    public int maxNameBytes() {
        return maxNameBytes;
    }

    /**
     * Every region of the copy, named with their stored names.
     *
     * @return an immutable list of the records, in the store's slot order
     */
    public List<RegionRecord> regions() {
        return regions;
    }

    /**
     * Number of regions in the copy.
     *
     * @return {@code regions().size()}, at most {@link #capacity()}
     */
    public int size() {
        return regions.size();
    }

    /**
     * The record of one region, found by its name as {@link HintStore#recordFor} finds it: a name
     * longer than {@link #maxNameBytes()} by its stored form.
     *
     * @param name the region's name; any string (one that no store can hold, null, empty or not
     *     encodable as UTF-8, is just absent)
     * @return the region's record, named with its stored name; empty when the copy does not hold it
     */
    public Optional<RegionRecord> recordFor(String name) {
        return Optional.ofNullable(find(name));
    }

    /**
     * Whether the region is hot, as {@link HintStore#isHot} decides it.
     *
     * @param name the region's name, as for {@link #recordFor(String)}
     * @return true when the copy holds the region and its mean kernel time (ns, rounded down) is
     *     at least {@link #hotThresholdNs()}; false otherwise
     */
    public boolean isHot(String name) {
        RegionRecord r = find(name);
        return r != null && r.isHot(hotThresholdNs);
    }

    private RegionRecord find(String name) {
        RegionRecord r = name == null ? null : byName.get(name);
        if (r != null || name == null || name.isEmpty()) {
            return r;
        }
        try {
            String stored = StoredName.of(name, maxNameBytes);
            return stored == name ? null : byName.get(stored);
        } catch (IllegalArgumentException unencodable) {
            return null;
        }
    }

    /**
     * Number of hot regions in the copy.
     *
     * @return how many regions have a mean kernel time of at least {@link #hotThresholdNs()}, in
     *     {@code [0, size()]}
     */
    public int hotCount() {
        int hot = 0;
        for (RegionRecord r : regions) {
            if (r.isHot(hotThresholdNs)) {
                hot++;
            }
        }
        return hot;
    }

    /**
     * The hot set by coverage of this copy: the rule of {@link HintStore#hotSet(double, long)}
     * (docs/GUIDE.md, "The hot set by coverage") over the regions copied, so that an optimizer
     * holding one snapshot per session, or a view that refreshes from snapshots ({@code hintmap top}),
     * asks where the time goes without reading the file again.
     *
     * @param coverage the fraction of kernel time to cover, in {@code [0, 1]}
     * @param minDispatches the fewest dispatches a region needs to count as hot, {@code >= 0}
     * @return the hot set of the copy; its {@link HotSet#consistent()} is false, as a snapshot is not
     *     one cut of the file (see the class description): a region inserted or evicted while it was
     *     taken may be missing, and a name read twice is counted once
     * @throws IllegalArgumentException if {@code coverage} is NaN or outside {@code [0, 1]}, or
     *     {@code minDispatches} is negative
     */
    public HotSet hotSet(double coverage, long minDispatches) {
        return HotSetRule.select(regions, false, coverage, minDispatches);
    }

    /**
     * The {@code k} hottest regions by {@code order}, hottest first (equal keys by name), as
     * {@link HintStore#hottest} ranks them.
     *
     * @param k how many regions at most, {@code >= 0}
     * @param order what "hottest" means: total, mean or maximum kernel time, or dispatch count
     * @return an immutable list of at most {@code k} records (fewer when the copy holds fewer),
     *     hottest first
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
