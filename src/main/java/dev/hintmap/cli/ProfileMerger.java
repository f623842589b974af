package dev.hintmap.cli;

import dev.hintmap.RegionOrder;
import dev.hintmap.RegionRecord;
import dev.hintmap.format.StoredName;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The arithmetic of {@code hintmap merge}, apart from files: profiles of several runs or machines
 * combine region by region ({@link RegionRecord#merge}: counts and totals add with saturation, max
 * of max), each input first weighted ({@link RegionRecord#scaled}); when the result has more
 * regions than the output can hold, the hottest by total kernel time are kept (equal totals by
 * name, so the result does not depend on the order of the inputs).
 *
 * <p>Names follow FORMAT.md §1.1 across limits. An input of limit L holds a kernel longer than L
 * under its stored form at L, so one kernel comes under different names from inputs of different
 * {@code max_name_bytes}. Every name is first brought to the output's limit: a name held whole, or
 * shortened at a limit at least the output's, has one form there
 * ({@link StoredName#atSmallerLimit}). A name shortened at a <em>smaller</em> limit than the
 * output's cannot be lengthened; it is matched by prefix and hash instead: to the one region whose
 * name has exactly that form at the smaller limit (its whole name, or a longer shortened form),
 * and kept under its own name, counted as {@link Merged#unmatched}, when there is none (no input
 * holds the kernel at a larger limit) or more than one.
 */
final class ProfileMerger {
    /** A merged region and the smallest limit of an input that held its name shortened (0: none did). */
    private record Entry(RegionRecord record, int shortenedAt) {
        Entry plus(Entry other) {
            int at = shortenedAt == 0 ? other.shortenedAt
                    : other.shortenedAt == 0 ? shortenedAt : Math.min(shortenedAt, other.shortenedAt);
            return new Entry(record.merge(other.record), at);
        }
    }

    private final Map<String, Entry> byName = new LinkedHashMap<>();

    /**
     * Adds one input's regions, weighted by {@code weight} (1 = as recorded).
     *
     * @param maxNameBytes the input's {@code max_name_bytes}: the limit at which its names are stored forms
     */
    void add(Iterable<RegionRecord> regions, double weight, int maxNameBytes) {
        for (RegionRecord r : regions) {
            RegionRecord weighted = weight == 1 ? r : r.scaled(weight);
            int shortenedAt = StoredName.isShortened(r.name(), maxNameBytes) ? maxNameBytes : 0;
            byName.merge(r.name(), new Entry(weighted, shortenedAt), Entry::plus);
        }
    }

    /** Distinct names so far, before the names of different limits are matched. */
    int size() {
        return byName.size();
    }

    /** The regions merged, every name brought to the output's limit {@code outLimit} (see the class comment). */
    Merged resolve(int outLimit) {
        Map<String, Entry> keys = new LinkedHashMap<>(); // names in the output, each with the limit its form is of
        List<Map.Entry<String, Entry>> lower = new ArrayList<>();
        for (Map.Entry<String, Entry> e : byName.entrySet()) {
            int at = e.getValue().shortenedAt();
            if (at != 0 && at < outLimit) {
                lower.add(e);
                continue;
            }
            String name = at == 0 ? StoredName.of(e.getKey(), outLimit) : StoredName.atSmallerLimit(e.getKey(), at, outLimit);
            int formAt = at == 0 && name.equals(e.getKey()) ? 0 : outLimit;
            Entry entry = new Entry(renamed(e.getValue().record(), name), formAt);
            keys.merge(name, entry, Entry::plus);
        }
        // Largest limits first: a form shortened at 128 that matched no whole name is then the region a
        // form of the same kernel shortened at 64 joins.
        lower.sort(Comparator.comparingInt((Map.Entry<String, Entry> e) -> e.getValue().shortenedAt()).reversed());
        int matched = 0;
        int unmatched = 0;
        int i = 0;
        while (i < lower.size()) {
            int limit = lower.get(i).getValue().shortenedAt();
            Map<String, List<String>> atLimit = new HashMap<>(); // form at `limit` -> the output names with that form
            for (Map.Entry<String, Entry> k : keys.entrySet()) {
                int formAt = k.getValue().shortenedAt();
                String form = formAt == 0 ? StoredName.of(k.getKey(), limit)
                        : StoredName.atSmallerLimit(k.getKey(), formAt, limit);
                atLimit.computeIfAbsent(form, f -> new ArrayList<>(1)).add(k.getKey());
            }
            for (; i < lower.size() && lower.get(i).getValue().shortenedAt() == limit; i++) {
                String name = lower.get(i).getKey();
                Entry entry = lower.get(i).getValue();
                List<String> candidates = atLimit.getOrDefault(name, List.of());
                if (candidates.size() == 1) {
                    String into = candidates.get(0);
                    keys.merge(into, new Entry(renamed(entry.record(), into), keys.get(into).shortenedAt()), Entry::plus);
                    matched++;
                } else {
                    keys.merge(name, new Entry(entry.record(), limit), Entry::plus);
                    unmatched++;
                }
            }
        }
        List<RegionRecord> regions = new ArrayList<>(keys.size());
        keys.values().forEach(e -> regions.add(e.record()));
        return new Merged(regions, matched, unmatched);
    }

    private static RegionRecord renamed(RegionRecord r, String name) {
        return r.name().equals(name) ? r
                : new RegionRecord(name, r.dispatchCount(), r.kernelNsTotal(), r.kernelNsMax(), r.bytesTotal());
    }

    /**
     * The merged regions.
     *
     * @param regions each once, named as the output's limit stores it
     * @param matched regions known by a name shortened at a smaller limit that joined the region of their kernel
     * @param unmatched regions known only by a name shortened at a smaller limit than the output's, kept under
     *     that name: a lookup of the kernel's whole name in the output does not find them
     */
    record Merged(List<RegionRecord> regions, int matched, int unmatched) {
        /** Regions merged. */
        int size() {
            return regions.size();
        }

        /** At most {@code capacity} regions, the hottest by total kernel time, hottest first. */
        List<RegionRecord> hottest(int capacity) {
            List<RegionRecord> all = new ArrayList<>(regions);
            all.sort(RegionOrder.TOTAL_NS.comparator());
            return all.size() <= capacity ? all : new ArrayList<>(all.subList(0, capacity));
        }
    }
}
