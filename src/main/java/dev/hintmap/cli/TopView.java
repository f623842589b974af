package dev.hintmap.cli;

import dev.hintmap.HintSnapshot;
import dev.hintmap.HotRegion;
import dev.hintmap.HotSet;
import dev.hintmap.RegionOrder;
import dev.hintmap.RegionRecord;
import java.nio.file.Path;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;

/**
 * One screen of {@code hintmap top}: the hottest regions of a snapshot and, given the previous
 * snapshot, each region's rates since then (dispatches per second, GPU time per second). A pure
 * function of its inputs, so the live view and the one-shot table print the same thing.
 *
 * <p>"Hot" answers one question here, as in {@code hintmap hot}: where the time goes. HOT SET marks
 * the regions of the hot set by coverage at {@code hot}'s defaults (the fewest regions, hottest by
 * total kernel time first, making up 95 % of it; docs/GUIDE.md), and CUM SHARE is each region's
 * share plus that of every region hotter by total (in any {@code --by} order). SLOW marks the other
 * question, whether one launch is expensive: mean kernel time at or above the file's threshold
 * ({@code isHot}, {@code hm_is_hot}).
 */
final class TopView {
    private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss", Locale.ROOT);

    private TopView() {}

    /**
     * @param current the snapshot to show
     * @param previous the snapshot of the previous refresh, or null for a one-shot table (no rates)
     * @param limit how many regions at most
     * @param order what "hottest" means
     * @param layout the width the lines fit and how names are shortened to fit it
     */
    static List<String> render(HintSnapshot current, HintSnapshot previous, int limit, RegionOrder order,
            TableLayout layout) {
        return render(current, previous, limit, order, layout, name -> true);
    }

    /**
     * The live view of {@code top --watch} and {@code demo}: at most {@code limit} regions, fewer where
     * the terminal is shorter (the heading and the footer stay on screen), of the regions
     * {@code filter} selects for the file's name limit (the limit can change when the file is
     * replaced); its note on names stored shortened (standard error would write over the screen)
     * is the frame's last line. The lines fit the terminal's width, or {@code layout}'s where the
     * terminal gives none (a pipe: 0).
     */
    static WatchScreen.View screen(int limit, RegionFilter filter, Path file, TableLayout layout) {
        return (now, previous, order, width, height) -> {
            TableLayout fit = width > 0 && !layout.unlimited() ? layout.withWidth(width) : layout;
            if (now == null) {
                return List.of(cut("hintmap top  " + file + "  " + LocalTime.now().format(CLOCK), fit.width()), "",
                        cut("waiting for " + file + " (no such file: not created yet, or removed)", fit.width()));
            }
            Predicate<String> selected = filter.selector(now.maxNameBytes());
            List<String> note = filter.note(now.regions().stream().map(RegionRecord::name).toList(), now.maxNameBytes())
                    .map(n -> Table.wrap(Table.printable("note: " + n), fit.width())).orElse(List.of());
            int rows = limit;
            while (true) {
                List<String> lines = new ArrayList<>(render(now, previous, rows, order, fit, selected));
                lines.addAll(note);
                // The last row of the screen is the footer's: fewer regions where rows take two lines or the
                // summary wraps, rather than a table cut off at the bottom.
                int over = height > 0 ? lines.size() - (height - 1) : 0;
                if (over <= 0 || rows <= 1) {
                    return lines;
                }
                rows = Math.max(1, rows - Math.max(1, over / 2));
            }
        };
    }

    /**
     * As above, with only the regions whose name {@code selected} accepts in the table; the summary
     * line and each row's share stay those of the whole file, so a filtered view still says how much
     * of the GPU time its regions take.
     */
    static List<String> render(HintSnapshot current, HintSnapshot previous, int limit, RegionOrder order,
            TableLayout layout, Predicate<String> selected) {
        int width = layout.width();
        List<String> lines = new ArrayList<>();
        long totalCount = 0;
        for (RegionRecord r : current.regions()) {
            totalCount = saturatingAdd(totalCount, r.dispatchCount());
        }
        double seconds = previous == null ? Double.NaN
                : Math.max(1e-3, (current.takenAt().toEpochMilli() - previous.takenAt().toEpochMilli()) / 1e3);
        Map<String, RegionRecord> before = new HashMap<>();
        if (previous != null) {
            for (RegionRecord r : previous.regions()) {
                before.put(r.name(), r);
            }
        }
        String time = LocalTime.ofInstant(current.takenAt(), ZoneId.systemDefault()).format(CLOCK);
        lines.add(cut("hintmap top  " + current.file().map(Object::toString).orElse("(in memory)") + "  " + time
                + "  by " + WatchKeys.orderName(order), width));
        // Where the time goes: the hot set by coverage (hintmap hot's defaults) and each region's cumulative
        // share in the hot set's order (by total); the mean threshold answers another question (is one launch
        // expensive), named SLOW.
        HotSet hotSet = current.hotSet(Double.parseDouble(HotCommand.DEFAULT_COVERAGE),
                Long.parseLong(HotCommand.DEFAULT_MIN_DISPATCHES));
        HotSet everyRegion = current.hotSet(1, 0); // each region with kernel time, its share of the exact whole
        Map<String, HotRegion> byTotal = new HashMap<>();
        for (HotRegion r : everyRegion.regions()) {
            byTotal.put(r.name(), r);
        }
        StringBuilder summary = new StringBuilder()
                .append("regions ").append(Units.count(current.size())).append('/').append(Units.count(current.capacity()))
                .append(", hot set ").append(Units.count(hotSet.regions().size())).append(" (")
                .append(Units.percent(hotSet.coveredShare())).append(" of kernel time, asked ")
                .append(Units.percent(hotSet.coverage())).append(")")
                .append(", ").append(Units.count(current.hotCount())).append(" slow (mean >= ")
                .append(Units.duration(current.hotThresholdNs())).append(")")
                .append(", ").append(Units.count(totalCount)).append(" dispatches, ")
                .append(everyRegion.totalNs() == Long.MAX_VALUE ? ">= " : "") // the exact sum, clamped
                .append(Units.duration(everyRegion.totalNs())).append(" kernel time");
        if (previous != null) {
            long[] delta = totals(current.regions(), before);
            summary.append(", ").append(Units.rate(delta[0] / seconds)).append(", GPU ")
                    .append(Units.percent(delta[1] / 1e9 / seconds)).append(" busy");
        }
        lines.addAll(Table.wrap(summary.toString(), width)); // its figures whole, as the table's
        lines.add("");
        Table table = previous == null
                ? new Table(">#", "*REGION", "HOT SET", "SLOW", ">DISPATCHES", ">TOTAL", ">SHARE", ">CUM SHARE", ">MEAN",
                        ">MAX", ">MEAN BYTES")
                // The live view's rates take the room of the cumulative share (80 columns hold no more numbers).
                : new Table(">#", "*REGION", "HOT SET", "SLOW", ">DISPATCHES", ">RATE", ">GPU", ">TOTAL", ">SHARE", ">MEAN",
                        ">MAX", ">MEAN BYTES");
        int rank = 0;
        List<RegionRecord> shown = current.regions().stream().filter(r -> selected.test(r.name()))
                .sorted(order.comparator()).limit(limit).toList(); // the order of HintSnapshot.hottest
        for (RegionRecord r : shown) {
            rank++;
            RegionName name = RegionName.of(r.name(), current.maxNameBytes());
            String hot = hotSet.contains(r.name()) ? "HOT" : "";
            String slow = r.isHot(current.hotThresholdNs()) ? "SLOW" : "";
            HotRegion ranked = byTotal.get(r.name()); // null: no kernel time
            String share = Units.percent(everyRegion.totalNs() == 0 ? Double.NaN : ranked == null ? 0 : ranked.share());
            String cumulativeShare = Units.percent(ranked == null ? Double.NaN : ranked.cumulativeShare());
            if (previous == null) {
                table.row(rank, name, hot, slow, Units.count(r.dispatchCount()), Units.duration(r.kernelNsTotal()), share,
                        cumulativeShare, Units.duration(r.meanKernelNs()), Units.duration(r.kernelNsMax()),
                        Units.bytes(r.meanBytes()));
            } else {
                RegionRecord old = before.get(r.name());
                boolean comparable = old != null && old.dispatchCount() <= r.dispatchCount(); // else evicted and re-inserted
                double rate = comparable ? (r.dispatchCount() - old.dispatchCount()) / seconds : Double.NaN;
                double busy = comparable ? (r.kernelNsTotal() - old.kernelNsTotal()) / 1e9 / seconds : Double.NaN;
                table.row(rank, name, hot, slow, Units.count(r.dispatchCount()), Units.rate(rate), Units.percent(busy),
                        Units.duration(r.kernelNsTotal()), share, Units.duration(r.meanKernelNs()),
                        Units.duration(r.kernelNsMax()), Units.bytes(r.meanBytes()));
            }
        }
        lines.addAll(table.lines(layout));
        if (table.size() == 0) {
            if (current.size() == 0) {
                lines.add("(no regions recorded yet)");
            } else if (limit > 0) {
                lines.add("(no region matches the filter)");
            }
        }
        return lines;
    }

    /** Dispatches and kernel ns recorded since the previous snapshot, over regions present in both. */
    private static long[] totals(List<RegionRecord> now, Map<String, RegionRecord> before) {
        long count = 0;
        long ns = 0;
        for (RegionRecord r : now) {
            RegionRecord old = before.get(r.name());
            if (old == null || old.dispatchCount() > r.dispatchCount()) {
                count = saturatingAdd(count, r.dispatchCount()); // new (or re-inserted) since: all of it is recent
                ns = saturatingAdd(ns, r.kernelNsTotal());
            } else {
                count = saturatingAdd(count, r.dispatchCount() - old.dispatchCount());
                ns = saturatingAdd(ns, Math.max(0, r.kernelNsTotal() - old.kernelNsTotal()));
            }
        }
        return new long[] {count, ns};
    }

    private static long saturatingAdd(long a, long b) {
        long sum = a + b;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }

    private static String cut(String line, int width) {
        return Table.cut(Table.printable(line), width);
    }
}
