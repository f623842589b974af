package dev.hintmap.cli;

import dev.hintmap.RegionRecord;
import dev.hintmap.format.FileGeometry;
import dev.hintmap.format.Hm64;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The order in which {@code hintmap upgrade} inserts an old file's regions into the new one
 * (FORMAT.md §12 step 3): by their home in the new index, each cluster from its start, so that
 * every region finds an index entry within {@code max_probe} whenever any arrangement of them
 * does. Not API: the command line tool is its only user.
 *
 * <p>Why: an insertion takes the first empty entry at or after the name's home (§7.4 step 10),
 * and which names take the entries of a cluster depends on the order they come in. In the old
 * file's slot order a name can come after names of a later home that took the entries it needed
 * and find none within {@code max_probe}, although the old index held every one (its names came
 * in another order, with evictions between). In the order of their homes no name is placed
 * before one of an earlier home in its cluster, and that arrangement has the smallest largest
 * distance from home of all: two entries placed against the order of their homes can swap, and
 * neither distance then exceeds the larger of the two.
 */
final class ConversionOrder {
    private ConversionOrder() {}

    /**
     * {@code regions} (distinct names, each fitting the new file whole) in the order to insert
     * them into a file of {@code geometry}: ascending {@code (home - p - 1) mod index_entries},
     * where {@code home = hm64(name) & (index_entries - 1)} and {@code p} is the lowest index
     * position left empty when every region is placed by linear probing without a bound (there
     * is one: at most {@code capacity} names in at least {@code 2 * capacity} entries, and which
     * positions are taken does not depend on the order). So no cluster wraps around the order's
     * start. Ties keep the order of {@code regions} (the old slot order).
     */
    static List<RegionRecord> byHome(List<RegionRecord> regions, FileGeometry geometry) {
        int entries = geometry.indexEntries();
        int mask = entries - 1;
        int[] home = new int[regions.size()];
        boolean[] taken = new boolean[entries];
        for (int i = 0; i < regions.size(); i++) {
            byte[] name = regions.get(i).name().getBytes(StandardCharsets.UTF_8);
            home[i] = (int) (Hm64.ofBytes(name, name.length) & mask);
            int j = home[i];
            for (int n = 0; n < entries && taken[j]; n++) {
                j = (j + 1) & mask;
            }
            taken[j] = true; // more names than entries cannot be: a file holds at most capacity
        }
        int empty = 0;
        while (empty < entries && taken[empty]) {
            empty++;
        }
        int start = (empty + 1) & mask;
        List<Integer> order = new ArrayList<>(regions.size());
        for (int i = 0; i < regions.size(); i++) {
            order.add(i);
        }
        order.sort(Comparator.comparingInt(i -> (home[i] - start) & mask)); // stable: ties in slot order
        List<RegionRecord> sorted = new ArrayList<>(regions.size());
        for (int i : order) {
            sorted.add(regions.get(i));
        }
        return sorted;
    }
}
