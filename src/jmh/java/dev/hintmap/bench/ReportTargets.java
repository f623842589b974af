package dev.hintmap.bench;

import static dev.hintmap.bench.ReportFormat.allocExact;
import static dev.hintmap.bench.ReportFormat.num;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The targets table: one {@link TargetRow} per target, each a ratio of two medians of
 * this run against its bound (or, for the allocation rows, {@link ReportAllocations#targetRows}),
 * with the verdict. A new row is one {@code rows.add(ratioRow(...))} in the group it belongs to.
 */
final class ReportTargets {
    private ReportTargets() {}

    enum Verdict { MET, MISSED, NOT_MEASURED }

    record TargetRow(String id, String target, String measured, String ratio, Verdict verdict, String note) {}

    /** Target 3's queries by name: row id, {@code QueryBench} method, how the row names it. */
    static final String[][] QUERY_TARGETS = {
            {"3a", "isHot_1t", "`isHot`"}, {"3b", "dispatchCount_1t", "`dispatchCount` (hintmap: `readInto`, one field)"},
            {"3c", "meanKernelNs_1t", "`meanKernelNs` (hintmap: `readInto`, one figure)"}, {"3d", "recordFor_1t", "`recordFor`"},
            {"3e", "readInto_1t", "`readInto` (into a `MutableRecord`)"}};
    /** The stores target 5's churn rows compare hintmap with. */
    static final List<String> CHURN_OTHERS = List.of("REFERENCE", "CONCURRENT", "CHRONICLE", "AGRONA");

    static List<TargetRow> rows(ReportResults d) {
        List<TargetRow> rows = new ArrayList<>();
        record(d, rows);
        queries(d, rows);
        twoThreads(d, rows);
        churn(d, rows);
        iterate(d, rows);
        open(d, rows);
        reads(d, rows);
        rows.addAll(ReportAllocations.targetRows(d)); // plus: 0 B/op on every record and query path
        return rows;
    }

    /** Targets 1 and 2: one thread's record, through a handle and by name, against C and Agrona. */
    private static void record(ReportResults d, List<TargetRow> rows) {
        Measured region1 = d.jmh("RecordBench.existing_1t", "HINTMAP_REGION", 0);
        Measured name1 = d.jmh("RecordBench.existing_1t", "HINTMAP", 0);
        Measured agrona1 = d.jmh("RecordBench.existing_1t", "AGRONA", 0);
        Measured cHandle = d.nativeValue("hm-bench", true, 1, "ns_per_record");
        Measured cName = d.nativeValue("hm-bench", false, 1, "ns_per_record");
        Measured floor = d.nativeValue("hm-floor lock shared 1", false, 1, "ns_per_record");
        rows.add(ratioRow("1a", "Java record through a `Region` handle ≤ 1.25× the C library's handle record (64 regions, Zipf 1.0, 1 thread)",
                "`Region.record`", region1, "`hm-bench -t 1 -H`", cHandle, 1.25, false));
        rows.add(ratioRow("1b", "Java record through a `Region` handle ≤ 3× `hm-floor` (lock variant, 1 thread)",
                "`Region.record`", region1, "`hm-floor` lock", floor, 3, false));
        rows.add(ratioRow("2a", "Java record by name (repeated names) ≤ 1.0× Agrona's record",
                "`HintStore.record(name)`", name1, "Agrona", agrona1, 1.0, false));
        rows.add(ratioRow("2b", "C record by name ≤ 2× the C handle record",
                "`hm-bench -t 1`", cName, "`hm-bench -t 1 -H`", cHandle, 2, false));
    }

    /** Target 3: queries by name against Agrona's, and the handle's read against the read by name. */
    private static void queries(ReportResults d, List<TargetRow> rows) {
        for (String[] op : QUERY_TARGETS) {
            Measured h = d.jmh("QueryBench." + op[1], "HINTMAP", 0);
            Measured a = d.jmh("QueryBench." + op[1], "AGRONA", 0);
            rows.add(ratioRow(op[0], "query by name " + op[2] + " ≤ 1.2× Agrona's", "hintmap", h, "Agrona", a, 1.2, false));
        }
        Measured handleRead = d.jmh("QueryBench.handleReadInto_1t", "HINTMAP", 0);
        Measured nameRead = d.jmh("QueryBench.readInto_1t", "HINTMAP", 0);
        rows.add(ratioRow("3f", "a handle query path at least as fast as by name (`Region.readInto` ≤ 1.0× `HintStore.readInto`)",
                "`Region.readInto`", handleRead, "`HintStore.readInto(name)`", nameRead, 1.0, false));
    }

    /** Target 4: two threads recording into one store, against Agrona's. */
    private static void twoThreads(ReportResults d, List<TargetRow> rows) {
        Measured region2 = d.jmh("RecordBench.existing_2t", "HINTMAP_REGION", 0);
        Measured name2 = d.jmh("RecordBench.existing_2t", "HINTMAP", 0);
        Measured agrona2 = d.jmh("RecordBench.existing_2t", "AGRONA", 0);
        rows.add(ratioRow("4a", "2 threads, same 64 regions and Zipf: per-thread record time by name ≤ 1.0× Agrona's",
                "`HintStore.record(name)`", name2, "Agrona", agrona2, 1.0, false));
        rows.add(ratioRow("4b", "2 threads, same 64 regions and Zipf: per-thread record time through a `Region` ≤ 1.0× Agrona's",
                "`Region.record`", region2, "Agrona", agrona2, 1.0, false));
    }

    /** Target 5: churn's growth with capacity, and hintmap ahead of every other store at each capacity. */
    private static void churn(ReportResults d, List<TargetRow> rows) {
        Measured c256 = d.jmh("ChurnBench.churn", "HINTMAP", 256);
        Measured c64k = d.jmh("ChurnBench.churn", "HINTMAP", 65_536);
        Measured c1m = d.jmh("ChurnBench.churn", "HINTMAP", 1_048_576);
        rows.add(ratioRow("5a", "churn (insert + evict each record): hintmap 2^20 / 2^16 ≤ 1.5×", "2^20", c1m, "2^16", c64k, 1.5, false));
        rows.add(ratioRow("5b", "churn: hintmap 2^20 / 256 ≤ 4×", "2^20", c1m, "256", c256, 4, false));
        String[] letters = {"5c", "5d", "5e"};
        for (int i = 0; i < ReportPlan.CHURN_CAPACITIES.length; i++) {
            int cap = ReportPlan.CHURN_CAPACITIES[i];
            Measured h = d.jmh("ChurnBench.churn", "HINTMAP", cap);
            Fastest best = fastestOther(d, cap);
            String target = String.format(Locale.ROOT, "churn at %,d: hintmap ahead of every other store", cap);
            if (!h.ok() || best.m() == null) {
                rows.add(new TargetRow(letters[i], target, h.ok() ? "no other store measured: " + String.join(", ", best.others())
                        : fmtM("hintmap", h), "—", Verdict.NOT_MEASURED, ""));
                continue;
            }
            TargetRow r = ratioRow(letters[i], target, "hintmap", h, "fastest other, " + best.store(), best.m(), 1.0, true);
            rows.add(new TargetRow(r.id(), r.target(), r.measured() + "; all: " + String.join(", ", best.others()) + " ns",
                    r.ratio(), r.verdict(), r.note()));
        }
    }

    /** The fastest store other than hintmap at a churn capacity (null when none was measured), and each other's median. */
    record Fastest(String store, Measured m, List<String> others) {}

    static Fastest fastestOther(ReportResults d, int cap) {
        Measured best = null;
        String bestStore = null;
        List<String> others = new ArrayList<>();
        for (String store : CHURN_OTHERS) {
            Measured o = d.jmh("ChurnBench.churn", store, cap);
            others.add(store + " " + (o.ok() ? num(o.median()) : "n/a"));
            if (!o.ok() && "AGRONA".equals(store)) {
                others.set(others.size() - 1, "AGRONA n/a (" + o.missing().replace("not measured: ", "") + ")");
            }
            if (o.ok() && (best == null || o.median() < best.median())) {
                best = o;
                bestStore = store;
            }
        }
        return new Fastest(bestStore, best, others);
    }

    /** Target 6: a full pass over 65,536 regions, per region, and what it allocates. */
    private static void iterate(ReportResults d, List<TargetRow> rows) {
        Measured visitH = d.jmh("IterateBench.visit", "HINTMAP", 0).scaled(1000.0 / IterateBench.REGIONS);
        Measured visitC = d.jmh("IterateBench.visit", "CONCURRENT", 0).scaled(1000.0 / IterateBench.REGIONS);
        rows.add(ratioRow("6a", "iterating 65,536 regions ≤ 1.0× ConcurrentHashMap per region (ns per region)",
                "`forEachView`", visitH, "ConcurrentHashMap values", visitC, 1.0, false));
        Measured visitRaw = d.jmh("IterateBench.visit", "HINTMAP", 0);
        if (visitRaw.ok()) {
            double perRegion = visitRaw.allocMax() / IterateBench.REGIONS;
            rows.add(new TargetRow("6b", "iterating 65,536 regions: 0 B/op per region (`HintStore.forEachView` / `RegionView`)",
                    String.format(Locale.ROOT, "largest B per pass of any iteration: **%s** = %.5f B per region (one `RegionView` per pass by API)",
                            allocExact(visitRaw.allocMax()), perRegion), "—",
                    perRegion < ReportAllocations.ZERO_ALLOC ? Verdict.MET : Verdict.MISSED, ""));
        } else {
            rows.add(new TargetRow("6b", "iterating 65,536 regions: 0 B/op per region", visitRaw.missing(), "—", Verdict.NOT_MEASURED, ""));
        }
    }

    /** Target 7: opening an existing full file, against Chronicle Map. */
    private static void open(ReportResults d, List<TargetRow> rows) {
        String[] openIds = {"7a", "7b"};
        for (int i = 0; i < ReportPlan.OPEN_CAPACITIES.length; i++) {
            int cap = ReportPlan.OPEN_CAPACITIES[i];
            rows.add(ratioRow(openIds[i], String.format(Locale.ROOT, "opening an existing full file of %,d slots ≤ 1.0× Chronicle Map's open", cap),
                    "hintmap", d.jmh("OpenBench.open", "HINTMAP", cap), "Chronicle", d.jmh("OpenBench.open", "CHRONICLE", cap), 1.0, false));
        }
    }

    /** Issue 26's read queries: hm-bench's read mode, and each read by hm-bench's {@code --read} name. */
    static final String[][] C_READS = {{"is-hot", "`isHot`"}, {"dispatch-count", "`dispatchCount`"}, {"record", "whole record"}};

    /**
     * Issue 26, the optimizer's side: R1 the C read rows exist; R2 Java handle reads against C's;
     * R3 Java isHot against Agrona's; R4 C by name against C through a handle; R5 (target 1a again)
     * the Java handle record against C's.
     */
    private static void reads(ReportResults d, List<TargetRow> rows) {
        List<String> measured = new ArrayList<>();
        int ok = 0;
        for (String[] q : C_READS) {
            for (boolean handles : new boolean[] {true, false}) {
                Measured m = d.nativeValue("hm-bench --read " + q[0], handles, 1, "ns_per_record");
                measured.add(q[0] + (handles ? " -H" : "") + " " + (m.ok() ? "**" + num(m.median()) + "** (" + m.spread() + ")" : "n/a"));
                ok += m.ok() ? 1 : 0;
            }
        }
        rows.add(new TargetRow("R1", "`hm-bench --read` rows of this report: is-hot, dispatch-count, record, by name and with `-H`",
                String.join("; ", measured) + " ns per read", "—", ok == 6 ? Verdict.MET : Verdict.NOT_MEASURED, ""));
        String[][] javaHandle = {{"R2a", "handleIsHot_1t", "`Region.isHot`", "is-hot"},
                {"R2b", "handleDispatchCount_1t", "`Region.dispatchCount`", "dispatch-count"},
                {"R2c", "handleReadInto_1t", "`Region.readInto`", "record"}};
        for (String[] r : javaHandle) {
            rows.add(ratioRow(r[0], "Java handle read " + r[2] + " ≤ 1.25× the C handle read (`hm-bench --read " + r[3] + " -H`)",
                    r[2], d.jmh("QueryBench." + r[1], "HINTMAP", 0), "C `--read " + r[3] + " -H`",
                    d.nativeValue("hm-bench --read " + r[3], true, 1, "ns_per_record"), 1.25, false));
        }
        Measured agronaHot = d.jmh("QueryBench.isHot_1t", "AGRONA", 0);
        rows.add(ratioRow("R3a", "`Region.isHot` ≤ 2× Agrona's `isHot`", "`Region.isHot`", d.jmh("QueryBench.handleIsHot_1t", "HINTMAP", 0),
                "Agrona", agronaHot, 2, false));
        rows.add(ratioRow("R3b", "`isHot` by name ≤ 2.5× Agrona's `isHot`", "`HintStore.isHot(name)`", d.jmh("QueryBench.isHot_1t", "HINTMAP", 0),
                "Agrona", agronaHot, 2.5, false));
        String[] ids = {"R4a", "R4b", "R4c"};
        for (int i = 0; i < C_READS.length; i++) {
            String q = C_READS[i][0];
            rows.add(ratioRow(ids[i], "C " + C_READS[i][1] + " by name ≤ 1.5× the C handle read",
                    "`--read " + q + "`", d.nativeValue("hm-bench --read " + q, false, 1, "ns_per_record"),
                    "`--read " + q + " -H`", d.nativeValue("hm-bench --read " + q, true, 1, "ns_per_record"), 1.5, false));
        }
        rows.add(ratioRow("R5", "(1a again) Java `Region.record` ≤ 1.25× the C handle record", "`Region.record`",
                d.jmh("RecordBench.existing_1t", "HINTMAP_REGION", 0), "`hm-bench -t 1 -H`",
                d.nativeValue("hm-bench", true, 1, "ns_per_record"), 1.25, false));
    }

    private static String fmtM(String label, Measured m) {
        if (!m.ok()) {
            return label + ": " + m.missing();
        }
        return label + " **" + num(m.median()) + "**" + (m.spread().isEmpty() ? "" : " (" + m.spread() + ")");
    }

    /** A row "a / b ≤ bound" (or, with below, "a / b < bound"). */
    private static TargetRow ratioRow(String id, String target, String aLabel, Measured a, String bLabel, Measured b, double bound, boolean strict) {
        String measured = fmtM(aLabel, a) + "; " + fmtM(bLabel, b);
        if (!a.ok() || !b.ok()) {
            return new TargetRow(id, target, measured, "—", Verdict.NOT_MEASURED, !a.ok() ? a.missing() : b.missing());
        }
        double r = a.median() / b.median();
        double lo = a.lo() / b.hi();
        double hi = a.hi() / b.lo();
        boolean met = strict ? r < bound : r <= bound;
        boolean straddles = lo <= bound && hi > bound;
        String ratio = String.format(Locale.ROOT, "**%.2f×** (%.2f–%.2f)", r, lo, hi);
        return new TargetRow(id, target, measured, ratio, met ? Verdict.MET : Verdict.MISSED,
                straddles ? "the spread straddles the bound" : "");
    }

    /** The table, then the count of each verdict. */
    static void table(StringBuilder md, List<TargetRow> rows) {
        md.append("| # | target | measured (median; spread) | ratio (range) | verdict |\n|---|---|---|---:|---|\n");
        for (TargetRow r : rows) {
            String verdict = switch (r.verdict()) {
                case MET -> "**met**";
                case MISSED -> "**missed** (see [below](#missed-targets-what-bounds-them))";
                case NOT_MEASURED -> "not measured";
            };
            if (!r.note().isEmpty() && r.verdict() != Verdict.NOT_MEASURED) {
                verdict += "; " + r.note();
            }
            md.append("| ").append(r.id()).append(" | ").append(r.target()).append(" | ").append(r.measured())
                    .append(" | ").append(r.ratio()).append(" | ").append(verdict).append(" |\n");
        }
        long met = rows.stream().filter(r -> r.verdict() == Verdict.MET).count();
        long missed = rows.stream().filter(r -> r.verdict() == Verdict.MISSED).count();
        long none = rows.stream().filter(r -> r.verdict() == Verdict.NOT_MEASURED).count();
        md.append(String.format(Locale.ROOT, "%n%d rows: %d met, %d missed, %d not measured.%n", rows.size(), met, missed, none));
    }
}
