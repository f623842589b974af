package dev.hintmap.bench;

import static dev.hintmap.bench.ReportFormat.alloc;
import static dev.hintmap.bench.ReportFormat.median;
import static dev.hintmap.bench.ReportFormat.num;
import static dev.hintmap.bench.ReportResults.find;
import static dev.hintmap.bench.ReportResults.med;

import dev.hintmap.bench.ReportResults.Score;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The report's comparison sections, one method each (heading, what it measures, the table): the
 * stores, record, churn, queries, iteration, open, the native tools and the eviction simulator. A
 * store is a row of a table: add it to {@link #RECORD_STORES} / {@link #QUERY_STORES}.
 */
final class ReportTables {
    private ReportTables() {}

    static final List<String> RECORD_STORES = List.of("HINTMAP", "HINTMAP_REGION", "REFERENCE", "CONCURRENT", "CHRONICLE", "AGRONA");
    static final List<String> QUERY_STORES = List.of("HINTMAP", "REFERENCE", "CONCURRENT", "CHRONICLE", "AGRONA");

    /** The stores compared, each with what its adapter does. */
    static void stores(StringBuilder md) {
        md.append("\n## Stores\n\n");
        md.append("All behind one interface (`BenchStore`), fed the same precomputed inputs in the same run:\n\n");
        for (StoreKind k : StoreKind.values()) {
            md.append("- **").append(k.name()).append("** — ").append(k.label).append(". ").append(storeNote(k)).append('\n');
        }
    }

    /** Record on an existing region, 1 and 2 threads. */
    static void record(StringBuilder md, List<Score> scores) {
        md.append("\n## Record on an existing region\n\n");
        md.append("64 regions, keys Zipf(s = 1.0) per thread (each thread its own stream over the same 64 regions), capacity 256 ")
                .append("(no eviction), kernel times log-normal (median 20 µs). `RecordBench.existing_1t` / `existing_2t`.\n\n");
        threadTable(md, scores, "RecordBench.existing", RECORD_STORES);
    }

    /** Record with eviction churn at each capacity, and the capacity chart ({@link ReportChart}). */
    static void churn(StringBuilder md, List<Score> scores) {
        md.append("\n## Record with eviction churn\n\n");
        md.append("Store filled to capacity, then keys uniform over 4 × capacity distinct regions (≈ 75% of records insert ")
                .append("and evict). One thread. ns per record, median; `ChurnBench.churn`. ")
                .append("AGRONA cannot be built at 1,048,576 regions (see Stores).\n\n");
        churnTable(md, scores);
        md.append("\n![ns per record versus capacity](perf-capacity.png)\n");
    }

    /** Queries by name and through a handle, and readInto at 2 threads. */
    static void queries(StringBuilder md, List<Score> scores) {
        md.append("\n## Queries by name and through a handle (1 thread)\n\n64 regions (half hot), Zipf(s = 1.0) keys, ns/op median ")
                .append("(spread). `QueryBench.<op>_1t`. `readInto` fills a per-thread holder (hintmap: `HintStore.readInto(name, ")
                .append("MutableRecord)`) and consumes count and mean; `recordFor` consumes the same two of the returned record; the handle ")
                .append("column is hintmap's `Region.readInto(MutableRecord)` (`handleReadInto_1t`). Empty cells were not run (not a target row).\n\n");
        queryTable(md, scores);
        md.append("\n## readInto at 2 threads\n\nThe same, both threads on one store, per thread. `QueryBench.readInto_2t`.\n\n");
        simpleTable(md, scores, "QueryBench.readInto_2t", List.of("HINTMAP", "AGRONA"));
    }

    /** A full pass over 65,536 regions: every store's {@code iterate}, then its allocation-free {@code visit}. */
    static void iterate(StringBuilder md, List<Score> scores) {
        md.append("\n## Full iteration of 65,536 regions\n\nOne thread, µs per full pass (and ns per region). ")
                .append("`IterateBench.iterate`: hintmap's `forEachView` with `RegionView.toRecord()` hands out a `RegionRecord` with its `String` name ")
                .append("per region; AGRONA decodes every counter's label (the way another process reads counters). CONCURRENT has one ")
                .append("scan only: see `visit` below.\n\n");
        iterateTable(md, scores, "IterateBench.iterate");
        md.append("\nThrough each store's allocation-free scan, `IterateBench.visit` (target 6): hintmap's `forEachView(RecordVisitor)` ")
                .append("(one reusable `RegionView` per pass, name as bytes), AGRONA's counter walk reading label lengths in place; ")
                .append("CONCURRENT's is its `iterate`. REFERENCE and CHRONICLE have none (see `iterate`).\n\n");
        iterateTable(md, scores, "IterateBench.visit");
    }

    /** Open of an existing file, and the mapping step alone. */
    static void open(StringBuilder md, List<Score> scores) {
        md.append("\n## Open of an existing file\n\nOpen, read `size()`, close a full file. `OpenBench.open`. An O(1) open costs the ")
                .append("same at both capacities. `mapOnly` (HINTMAP's file) is the step: open the channel, map the file into a shared ")
                .append("arena, read a word, close.\n\n");
        openTable(md, scores);
    }

    /** The hardware floor and the C library ({@code hm-floor}, {@code hm-bench}). */
    static void natives(StringBuilder md, ReportResults d) {
        md.append("\n## Hardware floor and the C library (hm-floor, hm-bench)\n\n");
        md.append("Medians of ").append(ReportRun.NATIVE_REPEATS).append(" interleaved runs each (spread: lowest–highest). `hm-floor` does exactly ")
                .append("the atomic operations of one hintmap record on one slot of the real layout in a MAP_SHARED file (`lock`: CAS, ")
                .append("4 loads, 4 stores, release stores; `faa`: 3 fetch-adds + CAS-max, what Agrona's counters do) with no hashing ")
                .append("or lookup. `hm-bench` is the C library on the same workload as `RecordBench` (64 regions, Zipf 1.0, the same ")
                .append("names). `ns/record` is wall time over all records; `per thread` is each thread's time per record (comparable ")
                .append("with JMH's 2-thread numbers). `FloorBench.lock_1t` is the Java twin of `hm-floor lock shared 1`.\n\n");
        nativeTable(md, d);
    }

    /** CLOCK as implemented against exact LRU ({@link EvictionSimulator}). */
    static void eviction(StringBuilder md, List<EvictionSimulator.Row> eviction) {
        md.append("\n## Eviction quality: CLOCK as implemented versus exact LRU\n\n");
        md.append("`EvictionSimulator`: the real `ClockHand.choose` over array frames with the store's bit rules (inserted ")
                .append("clear, set by each hit) against `LinkedHashMap` LRU, same traces, ").append(EvictionSimulator.ACCESSES)
                .append(" accesses each, the first 4 × capacity not counted. Zipf over 16 × capacity keys.\n\n");
        md.append("| trace | capacity | CLOCK hit ratio | LRU hit ratio | CLOCK − LRU (pp) |\n|---|---:|---:|---:|---:|\n");
        for (EvictionSimulator.Row r : eviction) {
            md.append(String.format(Locale.ROOT, "| %s | %,d | %.2f%% | %.2f%% | %+.2f |%n", r.trace(), r.capacity(),
                    100 * r.clockHitRatio(), 100 * r.lruHitRatio(), 100 * (r.clockHitRatio() - r.lruHitRatio())));
        }
        if (eviction.isEmpty()) {
            md.append("| not measured: no simulator output | | | | |\n");
        }
    }

    private static String storeNote(StoreKind k) {
        return switch (k) {
            case HINTMAP -> "`HintStore.record(String, …)` on a mapped file: encode + hash the name (or hit the per-thread name cache), "
                    + "probe the index, compare, slot lock.";
            case HINTMAP_REGION -> "`Region.record(…)` through handles resolved once (by-name queries as HINTMAP; the handle "
                    + "query is `QueryBench.handleReadInto`, under HINTMAP).";
            case REFERENCE -> "The design hintmap replaces, ported faithfully: one mutex around a `HashMap` of records and an "
                    + "`ArrayDeque` recency list whose bump is a linear scan (`removeFirstOccurrence` + `addLast`); evicts the least "
                    + "recently used. Queries do not bump. Not shared, not persisted.";
            case CONCURRENT -> "`ConcurrentHashMap<String, Rec>` with `LongAdder` sums and an `AtomicLong` CAS-max: not shared, "
                    + "not persisted, reads not consistent. No policy of its own: the adapter evicts FIFO (O(1), one insert lock).";
            case CHRONICLE -> "Chronicle Map 2026.1 persisted to a file, value interface updated in place under the segment update "
                    + "lock (`queryContext`). Runs on JDK 25 with the `--add-opens/--add-exports` of the `jmh` profile's `hintmap.bench.jvm.args` "
                    + "(the four it was found to need there: `--add-opens` `java.base/java.lang` and `java.base/java.lang.reflect`, "
                    + "`--add-exports` `java.base/sun.nio.ch` and `jdk.compiler/com.sun.tools.javac.file`; plus a few added as a "
                    + "precaution, not each proven necessary). No eviction of "
                    + "its own: the adapter removes the oldest key (FIFO, O(1)).";
            case AGRONA -> "Agrona 2.6.0 `CountersManager` on mapped files, 4 counters per region (atomic adds + CAS-max), "
                    + "on-heap name index (`ConcurrentHashMap`), FIFO eviction by the adapter (freeing counters); reads are not a "
                    + "consistent snapshot of the four counters. Its buffers are int-indexed: at most "
                    + String.format(Locale.ROOT, "%,d", AgronaStore.MAX_CAPACITY) + " regions, so no row at 1,048,576.";
        };
    }

    private static String spreadOf(Score x) {
        if (x.forks() >= 2) {
            return x.forkMedians().stream().map(ReportFormat::num).collect(Collectors.joining(" / "));
        }
        return num(x.min()) + "–" + num(x.max());
    }

    private static void threadTable(StringBuilder md, List<Score> scores, String prefix, List<String> stores) {
        md.append("| store | 1 thread ns/op | ± | spread | × hintmap | B/op | 2 threads ns/op | ± | spread | × hintmap | B/op |\n")
                .append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        double base1 = med(scores, prefix + "_1t", "HINTMAP", 0);
        double base2 = med(scores, prefix + "_2t", "HINTMAP", 0);
        for (String store : stores) {
            md.append("| ").append(store);
            for (int t = 1; t <= 2; t++) {
                Optional<Score> s = find(scores, prefix + "_" + t + "t", store, 0);
                double base = t == 1 ? base1 : base2;
                if (s.isPresent()) {
                    Score x = s.get();
                    md.append(String.format(Locale.ROOT, " | %s | %s | %s | %.2f | %s", num(x.median()), num(x.error()),
                            spreadOf(x), x.median() / base, alloc(x.allocBytesPerOp())));
                } else {
                    md.append(" | n/a | | | | ");
                }
            }
            md.append(" |\n");
        }
        md.append("\nSpread: per-fork medians (2 forks) or lowest–highest iteration (1 fork).\n");
    }

    private static void simpleTable(StringBuilder md, List<Score> scores, String method, List<String> stores) {
        md.append("| store | ns/op | ± | spread | × hintmap | B/op |\n|---|---:|---:|---:|---:|---:|\n");
        double base = med(scores, method, "HINTMAP", 0);
        for (String store : stores) {
            Optional<Score> s = find(scores, method, store, 0);
            md.append("| ").append(store).append(s.map(x -> String.format(Locale.ROOT, " | %s | %s | %s | %.2f | %s |%n",
                    num(x.median()), num(x.error()), spreadOf(x), x.median() / base, alloc(x.allocBytesPerOp())))
                    .orElse(" | n/a | | | | |\n"));
        }
    }

    private static void queryTable(StringBuilder md, List<Score> scores) {
        String[] ops = {"isHot_1t", "dispatchCount_1t", "meanKernelNs_1t", "recordFor_1t", "readInto_1t", "handleReadInto_1t"};
        md.append("| store |");
        for (String op : ops) {
            md.append(" `").append(op.replace("_1t", "")).append("` |");
        }
        md.append("\n|---|");
        md.append("---:|".repeat(ops.length));
        md.append('\n');
        for (String store : QUERY_STORES) {
            md.append("| ").append(store);
            for (String op : ops) {
                Optional<Score> s = find(scores, "QueryBench." + op, store, 0);
                md.append(" | ").append(s.map(x -> num(x.median()) + " (" + spreadOf(x) + ")" + (x.allocBytesPerOp() >= 0.01
                        ? ", " + alloc(x.allocBytesPerOp()) + " B/op" : "")).orElse(""));
            }
            md.append(" |\n");
        }
    }

    private static void churnTable(StringBuilder md, List<Score> scores) {
        md.append("| store |");
        for (int c : ReportPlan.CHURN_CAPACITIES) {
            md.append(String.format(Locale.ROOT, " %,d ns | spread | × hintmap | B/op |", c));
        }
        md.append(" 2^20 / 2^16 | 2^20 / 256 |\n|---|");
        for (int i = 0; i < ReportPlan.CHURN_CAPACITIES.length; i++) {
            md.append("---:|---:|---:|---:|");
        }
        md.append("---:|---:|\n");
        for (String store : QUERY_STORES) {
            md.append("| ").append(store);
            for (int c : ReportPlan.CHURN_CAPACITIES) {
                double base = med(scores, "ChurnBench.churn", "HINTMAP", c);
                Optional<Score> s = find(scores, "ChurnBench.churn", store, c);
                if (s.isPresent()) {
                    Score x = s.get();
                    md.append(String.format(Locale.ROOT, " | %s | %s | %.2f | %s", num(x.median()), spreadOf(x),
                            x.median() / base, alloc(x.allocBytesPerOp())));
                } else {
                    md.append(" | n/a | | | ");
                }
            }
            double small = med(scores, "ChurnBench.churn", store, 256);
            double mid = med(scores, "ChurnBench.churn", store, 65_536);
            double big = med(scores, "ChurnBench.churn", store, 1_048_576);
            md.append(Double.isNaN(big) ? " | n/a | n/a |\n" : String.format(Locale.ROOT, " | %.2f× | %.2f× |%n", big / mid, big / small));
        }
    }

    private static void iterateTable(StringBuilder md, List<Score> scores, String method) {
        md.append("| store | µs per pass | ± | spread | ns per region | × hintmap | B/op (per pass) |\n|---|---:|---:|---:|---:|---:|---:|\n");
        double base = med(scores, method, "HINTMAP", 0);
        for (String store : QUERY_STORES) {
            Optional<Score> s = find(scores, method, store, 0);
            if (s.isEmpty()) {
                continue;
            }
            Score x = s.get();
            md.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %.1f | %.2f | %s |%n", store, num(x.median()), num(x.error()),
                    spreadOf(x), x.median() * 1000 / IterateBench.REGIONS, x.median() / base, alloc(x.allocBytesPerOp())));
        }
    }

    private static void openTable(StringBuilder md, List<Score> scores) {
        md.append("| store | 256 slots µs | spread | 1,048,576 slots µs | spread | 1,048,576 / 256 | B/op (256) | B/op (1,048,576) |\n")
                .append("|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (String[] row : List.of(new String[] {"HINTMAP", "OpenBench.open"}, new String[] {"CHRONICLE", "OpenBench.open"},
                new String[] {"HINTMAP", "OpenBench.mapOnly"})) {
            Optional<Score> a = find(scores, row[1], row[0], 256);
            Optional<Score> b = find(scores, row[1], row[0], 1_048_576);
            md.append("| ").append(row[1].endsWith("mapOnly") ? "`mapOnly` (step)" : row[0])
                    .append(a.map(x -> " | " + num(x.median()) + " | " + spreadOf(x)).orElse(" | n/a | "))
                    .append(b.map(x -> " | " + num(x.median()) + " | " + spreadOf(x)).orElse(" | n/a | "))
                    .append(a.isPresent() && b.isPresent()
                            ? String.format(Locale.ROOT, " | %.2f×", b.get().median() / a.get().median()) : " | n/a")
                    .append(" | ").append(a.map(x -> alloc(x.allocBytesPerOp())).orElse("n/a"))
                    .append(" | ").append(b.map(x -> alloc(x.allocBytesPerOp())).orElse("n/a")).append(" |\n");
        }
    }

    private static void nativeTable(StringBuilder md, ReportResults d) {
        if (!d.nativeError.isEmpty()) {
            md.append("**Native run failed:** ").append(d.nativeError).append("\n\n");
        }
        md.append("| run | ns/record | spread | per thread ns/record | records/s |\n|---|---:|---:|---:|---:|\n");
        d.natives.forEach((k, v) -> {
            List<Double> ns = v.getOrDefault("ns_per_record", List.of());
            md.append(String.format(Locale.ROOT, "| `%s` | %.2f | %s | %.2f | %,.0f |%n", k, median(ns),
                    ns.isEmpty() ? "" : num(Collections.min(ns)) + "–" + num(Collections.max(ns)),
                    median(v.getOrDefault("thread_ns_per_record", List.of())),
                    median(v.getOrDefault("records_per_s", List.of()))));
        });
        Optional<Score> jf = find(d.scores, "FloorBench.lock_1t", null, 0);
        jf.ifPresent(x -> md.append(String.format(Locale.ROOT, "| `FloorBench.lock_1t` (Java, JMH) | %.2f | %s | %.2f | %,.0f |%n",
                x.median(), spreadOf(x), x.median(), 1e9 / x.median())));
    }
}
