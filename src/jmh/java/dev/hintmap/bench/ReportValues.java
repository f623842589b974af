package dev.hintmap.bench;

import static dev.hintmap.bench.ReportFormat.alloc;
import static dev.hintmap.bench.ReportFormat.allocExact;
import static dev.hintmap.bench.ReportFormat.num;
import static dev.hintmap.bench.ReportFormat.parse;
import static dev.hintmap.bench.ReportFormat.ratio;

import dev.hintmap.bench.ReportResults.Score;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The run's numbers that the prose of what-bounds-it.md names as {@code {{name}}} ({@link ReportProse#fill}):
 * a value the prose needs is one {@code v.put} here.
 */
final class ReportValues {
    private ReportValues() {}

    static Map<String, String> of(ReportResults d) {
        Map<String, String> v = new LinkedHashMap<>();
        Measured region1 = d.jmh("RecordBench.existing_1t", "HINTMAP_REGION", 0);
        Measured name1 = d.jmh("RecordBench.existing_1t", "HINTMAP", 0);
        Measured agrona1 = d.jmh("RecordBench.existing_1t", "AGRONA", 0);
        Measured region2 = d.jmh("RecordBench.existing_2t", "HINTMAP_REGION", 0);
        Measured name2 = d.jmh("RecordBench.existing_2t", "HINTMAP", 0);
        Measured agrona2 = d.jmh("RecordBench.existing_2t", "AGRONA", 0);
        Measured cHandle = d.nativeValue("hm-bench", true, 1, "ns_per_record");
        Measured cName = d.nativeValue("hm-bench", false, 1, "ns_per_record");
        Measured floor = d.nativeValue("hm-floor lock shared 1", false, 1, "ns_per_record");
        for (String[] op : ReportTargets.QUERY_TARGETS) {
            Measured h = d.jmh("QueryBench." + op[1], "HINTMAP", 0);
            Measured a = d.jmh("QueryBench." + op[1], "AGRONA", 0);
            v.put("q." + op[1].replace("_1t", "") + ".hintmap", num(h.median()));
            v.put("q." + op[1].replace("_1t", "") + ".agrona", num(a.median()));
            v.put("q." + op[1].replace("_1t", "") + ".ratio", ratio(h, a));
        }
        Measured handleRead = d.jmh("QueryBench.handleReadInto_1t", "HINTMAP", 0);
        Measured nameRead = d.jmh("QueryBench.readInto_1t", "HINTMAP", 0);
        Measured c256 = d.jmh("ChurnBench.churn", "HINTMAP", 256);
        Measured c64k = d.jmh("ChurnBench.churn", "HINTMAP", 65_536);
        Measured c1m = d.jmh("ChurnBench.churn", "HINTMAP", 1_048_576);
        for (int cap : ReportPlan.CHURN_CAPACITIES) {
            Measured h = d.jmh("ChurnBench.churn", "HINTMAP", cap);
            ReportTargets.Fastest best = ReportTargets.fastestOther(d, cap);
            boolean compared = h.ok() && best.m() != null;
            v.put("churn.best." + cap, compared ? best.store() + " " + num(best.m().median()) + " ns" : "n/a");
            v.put("churn.bestratio." + cap, compared ? ratio(h, best.m()) : "n/a");
        }
        Measured visitH = d.jmh("IterateBench.visit", "HINTMAP", 0).scaled(1000.0 / IterateBench.REGIONS);
        Measured visitC = d.jmh("IterateBench.visit", "CONCURRENT", 0).scaled(1000.0 / IterateBench.REGIONS);
        v.put("rec1.region", num(region1.median()));
        v.put("rec1.name", num(name1.median()));
        v.put("rec1.agrona", num(agrona1.median()));
        v.put("rec2.region", num(region2.median()));
        v.put("rec2.name", num(name2.median()));
        v.put("rec2.agrona", num(agrona2.median()));
        v.put("c.handle", num(cHandle.median()));
        v.put("c.name", num(cName.median()));
        v.put("c.lookup", num(cName.median() - cHandle.median()));
        v.put("floor.lock1", num(floor.median()));
        Measured faa1 = d.nativeValue("hm-floor faa shared 1", false, 1, "ns_per_record");
        Measured lock2 = d.nativeValue("hm-floor lock shared 2", false, 2, "thread_ns_per_record");
        Measured faa2 = d.nativeValue("hm-floor faa shared 2", false, 2, "thread_ns_per_record");
        v.put("floor.faa1", num(faa1.median()));
        v.put("floor.lock2", num(lock2.median()));
        v.put("floor.faa2", num(faa2.median()));
        Measured jfloor = d.jmh("FloorBench.lock_1t", null, 0);
        v.put("jfloor", num(jfloor.median()));
        v.put("jfloor.minus.floor", num(jfloor.median() - floor.median()));
        v.put("region.minus.jfloor", num(region1.median() - jfloor.median()));
        v.put("region.minus.chandle", num(region1.median() - cHandle.median()));
        v.put("name.minus.region", num(name1.median() - region1.median()));
        v.put("name.minus.agrona", num(name1.median() - agrona1.median()));
        v.put("q.handle", num(handleRead.median()));
        Measured handleHot = d.jmh("QueryBench.handleIsHot_1t", "HINTMAP", 0);
        Measured handleCount = d.jmh("QueryBench.handleDispatchCount_1t", "HINTMAP", 0);
        v.put("q.handleIsHot", num(handleHot.median()));
        v.put("q.handleDispatchCount", num(handleCount.median()));
        for (String[] q : ReportTargets.C_READS) { // hm-bench --read
            Measured h = d.nativeValue("hm-bench --read " + q[0], true, 1, "ns_per_record");
            Measured n = d.nativeValue("hm-bench --read " + q[0], false, 1, "ns_per_record");
            String key = q[0].replace('-', '_'); // a placeholder is \w and dots
            v.put("c.read." + key + ".handle", num(h.median()));
            v.put("c.read." + key + ".name", num(n.median()));
            v.put("c.read." + key + ".lookup", num(n.median() - h.median()));
        }
        Measured cHot = d.nativeValue("hm-bench --read is-hot", true, 1, "ns_per_record");
        v.put("q.handleIsHot.minus.c", num(handleHot.median() - cHot.median()));
        v.put("q.handle.minus.c", num(handleRead.median() - d.nativeValue("hm-bench --read record", true, 1, "ns_per_record").median()));
        v.put("q.name.minus.handle", num(nameRead.median() - handleRead.median()));
        v.put("step.scratch", num(d.jmh("NamePathBench.scratchLookup", null, 0).median()));
        v.put("step.encode", num(d.jmh("NamePathBench.encodeAndHash", null, 0).median()));
        v.put("step.cold", num(d.jmh("NamePathBench.encodeColdName", null, 0).median()));
        v.put("churn.256", num(c256.median()));
        v.put("churn.65536", num(c64k.median()));
        v.put("churn.1048576", num(c1m.median()));
        v.put("churn.r16", ratio(c1m, c64k));
        v.put("churn.r256", ratio(c1m, c256));
        v.put("churn.insert.256", num(c256.median() - name1.median()));
        Measured cold = d.jmh("NamePathBench.encodeColdName", null, 0);
        v.put("churn.store.1048576", num(c1m.median() - cold.median()));
        for (String store : ReportTargets.CHURN_OTHERS) {
            for (int cap : ReportPlan.CHURN_CAPACITIES) {
                Optional<Score> s = ReportResults.find(d.scores, "ChurnBench.churn", store, cap);
                v.put("churn." + store + "." + cap, s.map(x -> num(x.median())).orElse("n/a"));
                v.put("churn." + store + "." + cap + ".alloc", s.map(x -> alloc(x.allocBytesPerOp())).orElse("n/a"));
            }
        }
        v.put("iter.hintmap", num(visitH.median()));
        v.put("iter.chm", num(visitC.median()));
        v.put("iter.forEach", num(d.jmh("IterateBench.iterate", "HINTMAP", 0).scaled(1000.0 / IterateBench.REGIONS).median()));
        String slotBytes = d.machine.getOrDefault("slot_bytes", "n/a");
        v.put("slot.bytes", slotBytes);
        v.put("format", d.machine.getOrDefault("format", "n/a"));
        double sb = parse(slotBytes);
        v.put("iter.gbps", Double.isNaN(sb) || !visitH.ok() ? "n/a" : String.format(Locale.ROOT, "%.1f", sb / visitH.median()));
        v.put("iter.mb", Double.isNaN(sb) ? "n/a" : String.format(Locale.ROOT, "%.0f", sb * IterateBench.REGIONS / 1e6));
        for (int cap : ReportPlan.OPEN_CAPACITIES) {
            Measured oh = d.jmh("OpenBench.open", "HINTMAP", cap);
            Measured oc = d.jmh("OpenBench.open", "CHRONICLE", cap);
            Measured om = d.jmh("OpenBench.mapOnly", "HINTMAP", cap);
            v.put("open.hintmap." + cap, num(oh.median()));
            v.put("open.chronicle." + cap, num(oc.median()));
            v.put("open.map." + cap, num(om.median()));
            v.put("open.hintmap." + cap + ".alloc", oh.ok() ? allocExact(oh.allocMax()) : "n/a");
            v.put("open.chronicle." + cap + ".alloc", oc.ok() ? allocExact(oc.allocMax()) : "n/a");
            v.put("open.beyond.map." + cap, num(oh.median() - om.median()));
        }
        return v;
    }
}
