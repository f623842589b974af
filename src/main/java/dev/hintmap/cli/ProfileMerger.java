package dev.hintmap.cli;

import dev.hintmap.RegionOrder;
import dev.hintmap.RegionRecord;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The arithmetic of {@code hintmap merge}, apart from files: profiles of several runs or machines
 * combine region by region ({@link RegionRecord#merge}: counts and totals add with saturation, max
 * of max), each input first weighted ({@link RegionRecord#scaled}); when the result has more
 * regions than the output can hold, the hottest by total kernel time are kept (equal totals by
 * name, so the result does not depend on the order of the inputs).
 */
final class ProfileMerger {
    private final Map<String, RegionRecord> merged = new LinkedHashMap<>();

    /** Adds one input's regions, weighted by {@code weight} (1 = as recorded). */
    void add(Iterable<RegionRecord> regions, double weight) {
        for (RegionRecord r : regions) {
            RegionRecord weighted = weight == 1 ? r : r.scaled(weight);
            merged.merge(r.name(), weighted, RegionRecord::merge);
        }
    }

    /** Regions so far. */
    int size() {
        return merged.size();
    }

    /** At most {@code capacity} regions, the hottest by total kernel time, hottest first. */
    List<RegionRecord> hottest(int capacity) {
        List<RegionRecord> all = new ArrayList<>(merged.values());
        all.sort(RegionOrder.TOTAL_NS.comparator());
        return all.size() <= capacity ? all : new ArrayList<>(all.subList(0, capacity));
    }
}
