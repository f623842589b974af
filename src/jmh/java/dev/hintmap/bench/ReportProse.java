package dev.hintmap.bench;

import static dev.hintmap.bench.ReportFormat.num;

import dev.hintmap.bench.ReportTargets.TargetRow;
import dev.hintmap.bench.ReportTargets.Verdict;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The report's prose: <em>What bounds it</em> (the step-by-step breakdown of one record, then the
 * general text of what-bounds-it.md), <em>Missed targets</em> (the section of what-bounds-it.md for
 * each missed row), both with the run's numbers ({@link ReportValues}) filled in, and the sections
 * measured in separate runs, appended as written.
 */
final class ReportProse {
    /** Resources appended as they are: each measured in a run of its own, not this report's. */
    static final List<String> SEPARATE_RUNS = List.of("give-up-cost.md", "startup.md", "long-names.md", "python-reads.md");

    private final ReportResults d;
    private final Map<String, String> vars;
    private final Map<String, String> sections;

    /** Reads what-bounds-it.md and fails on a placeholder it names that {@link ReportValues} does not fill. */
    ReportProse(ReportResults d) throws IOException {
        this.d = d;
        this.vars = ReportValues.of(d);
        this.sections = sections(resource("what-bounds-it.md"));
        sections.values().forEach(s -> fill(s, vars));
    }

    /** The sections "What bounds it" and "Missed targets: what bounds them". */
    void whatBoundsIt(StringBuilder md, List<TargetRow> rows) {
        md.append("\n## What bounds it\n\n");
        breakdown(md);
        md.append(fill(sections.getOrDefault("general", ""), vars)).append("\n\n");
        md.append("## Missed targets: what bounds them\n\n");
        md.append("For each missed row: what the measurements of this run say bounds it, and what design would get there.\n\n");
        missed(md, rows);
    }

    /** The sections measured apart ({@link #SEPARATE_RUNS}), kept as written. */
    static void separateRuns(StringBuilder md) throws IOException {
        for (String separateRun : SEPARATE_RUNS) {
            String text = resource(separateRun);
            if (!text.isEmpty()) {
                md.append(text);
            }
        }
    }

    /** The sections of a prose resource: "## id id ..." headings, text up to the next heading. */
    private static Map<String, String> sections(String text) {
        Map<String, String> map = new LinkedHashMap<>();
        String key = null;
        StringBuilder body = new StringBuilder();
        for (String line : text.split("\n", -1)) {
            if (line.startsWith("## ")) {
                if (key != null) {
                    map.put(key, body.toString().strip());
                }
                key = line.substring(3).strip();
                body.setLength(0);
            } else if (key != null && !line.startsWith("<!--")) {
                body.append(line).append('\n');
            }
        }
        if (key != null) {
            map.put(key, body.toString().strip());
        }
        return map;
    }

    private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{([\\w.]+)}}");

    /** Fills {{name}} from the run; an unknown name is an error in the resource, not a value to guess. */
    static String fill(String text, Map<String, String> vars) {
        Matcher m = PLACEHOLDER.matcher(text);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            String value = vars.get(m.group(1));
            if (value == null) {
                throw new IllegalStateException("what-bounds-it.md: unknown placeholder {{" + m.group(1) + "}}");
            }
            m.appendReplacement(sb, Matcher.quoteReplacement(value));
        }
        m.appendTail(sb);
        return sb.toString();
    }

    private static String resource(String name) throws IOException {
        try (InputStream in = ReportProse.class.getResourceAsStream(name)) {
            return in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private void missed(StringBuilder md, List<TargetRow> rows) {
        Set<String> done = new LinkedHashSet<>();
        boolean any = false;
        for (TargetRow r : rows) {
            if (r.verdict() != Verdict.MISSED) {
                continue;
            }
            any = true;
            String key = sections.keySet().stream().filter(k -> Arrays.asList(k.split("\\s+")).contains(r.id()))
                    .findFirst().orElse(null);
            if (key == null) {
                md.append("### ").append(r.id()).append(" — ").append(r.target()).append("\n\n(no analysis for this row in what-bounds-it.md)\n\n");
                continue;
            }
            if (!done.add(key)) {
                continue;
            }
            List<String> missedIds = rows.stream().filter(x -> x.verdict() == Verdict.MISSED
                    && Arrays.asList(key.split("\\s+")).contains(x.id())).map(TargetRow::id).toList();
            md.append("### ").append(String.join(", ", missedIds)).append(" missed\n\n")
                    .append(fill(sections.get(key), vars)).append("\n\n");
        }
        if (!any) {
            md.append("No target row was missed in this run.\n\n");
        }
    }

    private void breakdown(StringBuilder md) {
        md.append("Where one single-thread record spends its time, measured step by step in the same run (median, and the ")
                .append("spread; on this noisy guest the lowest value is the better estimate of a step's own cost):\n\n");
        md.append("| step | median ns | spread | source |\n|---|---:|---|---|\n");
        step(md, d.jmh("NamePathBench.scratchLookup", null, 0), "`ThreadLocal` scratch lookup", "`NamePathBench.scratchLookup`");
        step(md, d.jmh("NamePathBench.encodeAndHash", null, 0), "encode name to UTF-8 words + `hm64` hash (64 names, Zipf)", "`NamePathBench.encodeAndHash`");
        step(md, d.jmh("QueryBench.isHot_1t", "HINTMAP", 0), "`isHot` by name = name (cache) + index probe + consistent slot read", "`QueryBench.isHot_1t HINTMAP`");
        step(md, d.jmh("QueryBench.handleReadInto_1t", "HINTMAP", 0), "`Region.readInto` = consistent slot read, no name", "`QueryBench.handleReadInto_1t HINTMAP`");
        step(md, d.jmh("QueryBench.handleIsHot_1t", "HINTMAP", 0), "`Region.isHot` = handle read, no name compare (FORMAT §7.2.2)", "`QueryBench.handleIsHot_1t HINTMAP`");
        step(md, d.jmh("QueryBench.handleDispatchCount_1t", "HINTMAP", 0), "`Region.dispatchCount` = the same handle read", "`QueryBench.handleDispatchCount_1t HINTMAP`");
        step(md, d.nativeValue("hm-bench --read is-hot", true, 1, "ns_per_record"), "C handle read + `hm_record_hot`, same workload", "`hm-bench --read is-hot -H`");
        step(md, d.nativeValue("hm-bench --read is-hot", false, 1, "ns_per_record"), "C `hm_is_hot` by name, same workload", "`hm-bench --read is-hot`");
        step(md, d.jmh("RecordBench.existing_1t", "HINTMAP", 0), "**record by name** = the same lookup + slot lock + write + publish", "`RecordBench.existing_1t HINTMAP`");
        step(md, d.jmh("RecordBench.existing_1t", "HINTMAP_REGION", 0), "**record through a Region handle** (no name, no lookup)", "`RecordBench.existing_1t HINTMAP_REGION`");
        step(md, d.jmh("FloorBench.lock_1t", null, 0), "Java floor: the atomic ops of one record through a constant `MemorySegment`, nothing else", "`FloorBench.lock_1t`");
        step(md, d.nativeValue("hm-bench", false, 1, "ns_per_record"), "C library by name, same workload", "`hm-bench -t 1`");
        step(md, d.nativeValue("hm-bench", true, 1, "ns_per_record"), "C library through a handle, same workload", "`hm-bench -t 1 -H`");
        step(md, d.nativeValue("hm-floor lock shared 1", false, 1, "ns_per_record"), "C floor: the atomic ops of one record alone", "`hm-floor` lock, 1 thread");
        step(md, d.nativeValue("hm-floor faa shared 1", false, 1, "ns_per_record"), "C floor of Agrona's protocol (3 fetch-adds + CAS-max)", "`hm-floor` faa, 1 thread");
        step(md, d.jmh("NamePathBench.encodeColdName", null, 0), "churn harness at 1,048,576: fetch + encode + hash a random one of 4 × 2^20 names, no store", "`NamePathBench.encodeColdName`");
        md.append('\n');
    }

    private static void step(StringBuilder md, Measured m, String what, String source) {
        md.append("| ").append(what).append(" | ").append(m.ok() ? num(m.median()) : "n/a").append(" | ")
                .append(m.ok() ? m.spread() : m.missing()).append(" | ").append(source).append(" |\n");
    }
}
