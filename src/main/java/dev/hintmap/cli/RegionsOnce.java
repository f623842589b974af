package dev.hintmap.cli;

import dev.hintmap.RegionRecord;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every region of a hint file once, as the commands that read one report it ({@code dump},
 * {@code export}, {@code copy}, the hint-file inputs of {@code merge} and {@code diff}).
 *
 * <p>A scan of the slots can meet one name in two slots: the file is damaged (an index entry lost
 * or a {@code dist} byte changed, and the next writer inserted the region again: {@code verify}
 * reports it, and a recovery would keep the lower slot, FORMAT.md §8 step 2c), or the region was
 * evicted and inserted again while the scan ran (a snapshot is not one atomic cut). Either way
 * both records hold samples of that region: they are combined as {@code merge} combines records
 * ({@link RegionRecord#merge}: counts and totals add, saturating; the larger maximum), so nothing
 * is dropped, {@code export} never gives Prometheus one series twice, and {@code dump --format json}
 * is always a profile {@code merge} accepts. The command says so on standard error, the names
 * escaped ({@link Table#printable}), and its exit status does not change: its output is complete.
 */
final class RegionsOnce {
    private static final int NAMED = 3;

    private RegionsOnce() {}

    /**
     * {@code scanned} with each name once, in the order of first appearance; a warning on
     * {@code err} when a name appeared more than once.
     */
    static List<RegionRecord> of(List<RegionRecord> scanned, Path file, String command, PrintWriter err) {
        Map<String, RegionRecord> once = new LinkedHashMap<>(Math.max(16, scanned.size() * 2));
        Map<String, Integer> seen = new LinkedHashMap<>();
        for (RegionRecord r : scanned) {
            RegionRecord before = once.putIfAbsent(r.name(), r);
            if (before != null) {
                once.put(r.name(), before.merge(r));
                seen.merge(r.name(), 2, (a, b) -> a + 1);
            }
        }
        if (seen.isEmpty()) {
            return scanned;
        }
        List<String> named = new ArrayList<>();
        seen.entrySet().stream().limit(NAMED).forEach(e -> named.add("\"" + Table.printable(e.getKey()) + "\" ("
                + e.getValue() + " slots)"));
        err.println(command + ": warning: " + Table.printable(file.toString()) + ": " + seen.size() + " region(s) found in"
                + " more than one slot: " + String.join(", ", named) + (seen.size() > NAMED ? " and " + (seen.size() - NAMED)
                        + " more" : "") + "; each is reported once, its records combined as merge combines them. A damaged"
                + " index does this (hintmap verify " + Table.printable(file.toString()) + " reports it; hintmap copy writes a"
                + " sound file), and so does a region evicted and inserted again while the file was read.");
        err.flush();
        return List.copyOf(once.values());
    }
}
