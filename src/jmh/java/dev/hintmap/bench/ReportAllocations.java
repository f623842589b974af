package dev.hintmap.bench;

import static dev.hintmap.bench.ReportFormat.alloc;
import static dev.hintmap.bench.ReportFormat.allocExact;

import dev.hintmap.bench.ReportTargets.TargetRow;
import dev.hintmap.bench.ReportTargets.Verdict;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Allocation: the targets table's rows 8a–8i (0 B/op on every record and query path, by
 * {@code -prof gc}'s {@code gc.alloc.rate.norm}) and the table of every hintmap benchmark's B/op.
 */
final class ReportAllocations {
    private ReportAllocations() {}

    /** Below this a path counts as allocation-free (JMH's own per-iteration bookkeeping shows up as a few thousandths at low op counts). */
    static final double ZERO_ALLOC = 0.05;

    /** Rows 8a–8i: each path's largest B/op of any iteration of its benchmarks, against {@link #ZERO_ALLOC}. */
    static List<TargetRow> targetRows(ReportResults d) {
        List<TargetRow> rows = new ArrayList<>();
        List<Measured> churnAll = Arrays.stream(ReportPlan.CHURN_CAPACITIES).mapToObj(c -> d.jmh("ChurnBench.churn", "HINTMAP", c)).toList();
        Measured name1 = d.jmh("RecordBench.existing_1t", "HINTMAP", 0);
        Measured name2 = d.jmh("RecordBench.existing_2t", "HINTMAP", 0);
        Measured region1 = d.jmh("RecordBench.existing_1t", "HINTMAP_REGION", 0);
        Measured region2 = d.jmh("RecordBench.existing_2t", "HINTMAP_REGION", 0);
        Measured nameRead = d.jmh("QueryBench.readInto_1t", "HINTMAP", 0);
        Measured handleRead = d.jmh("QueryBench.handleReadInto_1t", "HINTMAP", 0);
        rows.add(allocRow("8a", "record by name (1 and 2 threads)", List.of(name1, name2), ""));
        rows.add(allocRow("8b", "record through a `Region` (1 and 2 threads)", List.of(region1, region2), ""));
        rows.add(allocRow("8c", "record with insert + evict (churn, every capacity)", churnAll, ""));
        rows.add(allocRow("8d", "`isHot` by name", List.of(d.jmh("QueryBench.isHot_1t", "HINTMAP", 0)), ""));
        rows.add(allocRow("8e", "`dispatchCount` by name", List.of(d.jmh("QueryBench.dispatchCount_1t", "HINTMAP", 0)), ""));
        rows.add(allocRow("8f", "`meanKernelNs` by name", List.of(d.jmh("QueryBench.meanKernelNs_1t", "HINTMAP", 0)), ""));
        rows.add(allocRow("8g", "`recordFor` by name", List.of(d.jmh("QueryBench.recordFor_1t", "HINTMAP", 0)),
                "returns `Optional<RegionRecord>`: zero only where the JIT scalar-replaces them, not guaranteed by the API"));
        rows.add(allocRow("8h", "`readInto` by name (1 and 2 threads)",
                List.of(nameRead, d.jmh("QueryBench.readInto_2t", "HINTMAP", 0)), "guaranteed by API shape: fills the caller's `MutableRecord`"));
        rows.add(allocRow("8i", "`Region.readInto`", List.of(handleRead), "guaranteed by API shape"));
        rows.add(allocRow("8j", "`Region.isHot` and `Region.dispatchCount`",
                List.of(d.jmh("QueryBench.handleIsHot_1t", "HINTMAP", 0), d.jmh("QueryBench.handleDispatchCount_1t", "HINTMAP", 0)),
                "a pair is allocated only when the region moved (FORMAT §7.2.2)"));
        return rows;
    }

    private static TargetRow allocRow(String id, String path, List<Measured> ms, String guarantee) {
        double max = Double.NaN;
        List<String> missing = new ArrayList<>();
        int measured = 0;
        for (Measured m : ms) {
            if (m.ok() && !Double.isNaN(m.allocMax())) {
                max = Double.isNaN(max) ? m.allocMax() : Math.max(max, m.allocMax());
                measured++;
            } else if (!m.ok()) {
                missing.add(m.missing());
            }
        }
        String target = "0 B/op: " + path;
        if (measured == 0) {
            return new TargetRow(id, target, missing.isEmpty() ? "not measured: no gc profile" : missing.get(0), "—",
                    Verdict.NOT_MEASURED, "");
        }
        String text = String.format(Locale.ROOT, "largest B/op of any iteration of %d benchmark%s: **%s**%s", measured,
                measured == 1 ? "" : "s", allocExact(max), guarantee.isEmpty() ? "" : "; " + guarantee);
        if (!missing.isEmpty()) {
            text += "; " + missing.size() + " not measured";
        }
        return new TargetRow(id, target, text, "—", max < ZERO_ALLOC ? Verdict.MET : Verdict.MISSED, "");
    }

    /** The section "Allocation of every hintmap benchmark". */
    static void section(StringBuilder md, List<ReportResults.Score> scores) {
        md.append("\n## Allocation of every hintmap benchmark\n\n`-prof gc`, `gc.alloc.rate.norm` (B/op): median and the largest of any iteration.\n\n");
        table(md, scores);
    }

    /** Every hintmap benchmark of the run: its median B/op and the largest of any iteration. */
    private static void table(StringBuilder md, List<ReportResults.Score> scores) {
        md.append("| benchmark | store | capacity | forks | B/op (median) | B/op (largest iteration) |\n|---|---|---:|---:|---:|---:|\n");
        for (ReportResults.Score s : scores) {
            if (s.store() != null && s.store().startsWith("HINTMAP")) {
                md.append(String.format(Locale.ROOT, "| %s | %s | %s | %d | %s | %s |%n", s.method(), s.store(),
                        s.capacity() == 0 ? "" : String.format(Locale.ROOT, "%,d", s.capacity()), s.forks(),
                        alloc(s.allocBytesPerOp()), allocExact(s.allocMax())));
            }
        }
        md.append("\n`recordFor` returns an `Optional<RegionRecord>` and `RegionView.toRecord()` a `RegionRecord` and a `String` per region by ")
                .append("API contract; they are zero only where the JIT scalar-replaces the returned objects. `readInto` (by name and ")
                .append("through a `Region`) and `forEachView` allocate nothing by API shape (a reusable `MutableRecord`, one `RegionView` ")
                .append("per pass), as `AllocationFreeQueryTest` checks in the interpreter.\n");
    }
}
