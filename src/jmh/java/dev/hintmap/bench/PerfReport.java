package dev.hintmap.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * The performance report of issue 5, in one command:
 *
 * <pre>./mvnw -Pjmh clean test-compile exec:exec@perf</pre>
 *
 * <p>{@code run} builds and runs {@code hm-floor} and {@code hm-bench} (medians of
 * {@value #NATIVE_REPEATS}), the eviction simulator and the JMH suite (one fork, 2 warm-up and 3
 * measurement iterations of 1 s, {@code -prof gc} everywhere), writing everything raw under
 * {@code bench-results/}; {@code render} reads those files back and writes
 * {@code docs/PERFORMANCE.md} and {@code docs/perf-capacity.png}. Modes ({@code -Dperf.args=...}):
 * {@code full} (run, then render; the default), {@code run}, {@code render}, {@code quick} (a smoke
 * run: short iterations, churn and open at small capacities only, rendered likewise) and
 * {@code simulate} (the simulator only, to stdout).
 */
public final class PerfReport {
    static final int NATIVE_REPEATS = 5;
    static final String COMMAND = "./mvnw -Pjmh clean test-compile exec:exec@perf";
    static final int WARMUP_ITERATIONS = 2;
    static final int MEASUREMENT_ITERATIONS = 3;
    /** Churn reaches its steady state only after 2-3 s at 2^16 and 2^20 regions (JIT of the insert path, cold pages). */
    static final int CHURN_WARMUP_ITERATIONS = 4;
    static final String JMH_SETTINGS = "-f 1 -wi 2 -w 1s -i 3 -r 1s -prof gc (churn: -wi 4)";
    static final int[] CHURN_CAPACITIES = {256, 65_536, 1_048_576};

    private final Path root;
    private final Path results;
    private final boolean quick;

    private PerfReport(Path root, boolean quick) {
        this.root = root;
        this.results = root.resolve("bench-results");
        this.quick = quick;
    }

    public static void main(String[] args) throws Exception {
        Path root = Path.of(".");
        String mode = "full";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--root" -> root = Path.of(args[++i]);
                case "full", "run", "render", "quick", "simulate" -> mode = args[i];
                default -> throw new IllegalArgumentException("usage: PerfReport [--root DIR] [full|run|render|quick|simulate]");
            }
        }
        root = root.toAbsolutePath().normalize();
        if (mode.equals("simulate")) {
            EvictionSimulator.main(new String[0]);
            return;
        }
        PerfReport report = new PerfReport(root, mode.equals("quick"));
        Instant start = Instant.now();
        if (!mode.equals("render")) {
            report.run();
        }
        if (!mode.equals("run")) {
            report.render();
        }
        System.out.printf("perf report: %s in %d s%n", mode, Duration.between(start, Instant.now()).toSeconds());
    }

    // ------------------------------------------------------------------ run

    private void run() throws IOException, InterruptedException, RunnerException {
        Files.createDirectories(results);
        try (Stream<Path> old = Files.list(results)) {
            for (Path p : old.toList()) {
                Files.deleteIfExists(p);
            }
        }
        Instant start = Instant.now();
        write("machine.txt", machine());
        runNative();
        runSimulator();
        runJmh();
        write("run.txt", "mode=" + (quick ? "quick" : "full") + "\nseconds=" + Duration.between(start, Instant.now()).toSeconds()
                + "\nfinished=" + Instant.now() + "\n");
    }

    private String machine() throws IOException, InterruptedException {
        StringBuilder sb = new StringBuilder();
        sb.append("nproc=").append(exec(List.of("nproc")).strip()).append('\n');
        String model = Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
                .filter(l -> l.startsWith("model name")).findFirst()
                .map(l -> l.substring(l.indexOf(':') + 1).strip()).orElse("unknown");
        sb.append("cpu=").append(model).append('\n');
        String mem = Files.readAllLines(Path.of("/proc/meminfo")).stream()
                .filter(l -> l.startsWith("MemTotal")).findFirst()
                .map(l -> l.substring(l.indexOf(':') + 1).strip()).orElse("unknown");
        sb.append("memory=").append(mem).append('\n');
        sb.append("jdk=").append(System.getProperty("java.vm.name")).append(' ').append(Runtime.version())
                .append(" (").append(System.getProperty("java.vendor")).append(")\n");
        sb.append("os=").append(System.getProperty("os.name")).append(' ').append(System.getProperty("os.version"))
                .append(' ').append(System.getProperty("os.arch")).append('\n');
        sb.append("gcc=").append(exec(List.of("gcc", "--version")).lines().findFirst().orElse("?")).append('\n');
        sb.append("date=").append(Instant.now()).append('\n');
        return sb.toString();
    }

    private void runNative() throws IOException, InterruptedException {
        System.out.println("== native: make -C native-bench tools");
        exec(List.of("make", "-s", "-C", root.resolve("native-bench").toString(), "tools"));
        Path bin = root.resolve("native-bench/build");
        List<List<String>> commands = List.of(
                List.of(bin.resolve("hm-floor").toString(), "-t", "2", "-n", "20000000"),
                List.of(bin.resolve("hm-bench").toString(), "-t", "1", "-n", "5000000", "-r", "64", "-s", "1.0", "-q"),
                List.of(bin.resolve("hm-bench").toString(), "-t", "1", "-n", "5000000", "-r", "64", "-s", "1.0", "-H", "-q"),
                List.of(bin.resolve("hm-bench").toString(), "-t", "2", "-n", "5000000", "-r", "64", "-s", "1.0", "-q"),
                List.of(bin.resolve("hm-bench").toString(), "-t", "2", "-n", "5000000", "-r", "64", "-s", "1.0", "-H", "-q"));
        StringBuilder out = new StringBuilder();
        for (List<String> command : commands) {
            for (int r = 0; r < NATIVE_REPEATS; r++) {
                String shown = String.join(" ", command).replace(root + "/", "");
                out.append("$ ").append(shown).append('\n').append(exec(command));
            }
        }
        write("native.txt", out.toString());
    }

    private void runSimulator() throws IOException {
        System.out.println("== eviction simulator");
        StringBuilder sb = new StringBuilder("trace\tcapacity\taccesses\tclock\tlru\n");
        for (EvictionSimulator.Row r : EvictionSimulator.run()) {
            sb.append(r.trace()).append('\t').append(r.capacity()).append('\t').append(r.accesses()).append('\t')
                    .append(r.clockHitRatio()).append('\t').append(r.lruHitRatio()).append('\n');
        }
        write("eviction.tsv", sb.toString());
    }

    private void runJmh() throws RunnerException {
        String small = "256";
        String[] churnCaps = quick ? new String[] {"256", "65536"} : new String[] {"256", "65536", "1048576"};
        jmh("record", RecordBench.class, "-Xmx1g", Map.of());
        jmh("namepath", NamePathBench.class, "-Xmx2g", Map.of());
        jmh("query", QueryBench.class, "-Xmx1g", Map.of());
        jmh("iterate", IterateBench.class, "-Xmx2g", Map.of());
        jmh("churn", ChurnBench.class, "-Xmx6g",
                Map.of("store", new String[] {"HINTMAP", "REFERENCE", "CONCURRENT", "CHRONICLE"}, "capacity", churnCaps),
                CHURN_WARMUP_ITERATIONS);
        // Agrona's int-indexed buffers cannot hold 2^20 regions of 4 counters (AgronaStore.MAX_CAPACITY).
        jmh("churn-agrona", ChurnBench.class, "-Xmx2g",
                Map.of("store", new String[] {"AGRONA"}, "capacity", new String[] {small, "65536"}), CHURN_WARMUP_ITERATIONS);
        jmh("open", OpenBench.class, "-Xmx4g",
                Map.of("capacity", quick ? new String[] {small} : new String[] {small, "1048576"}));
    }

    private void jmh(String group, Class<?> benchmark, String heap, Map<String, String[]> params) throws RunnerException {
        jmh(group, benchmark, heap, params, WARMUP_ITERATIONS);
    }

    private void jmh(String group, Class<?> benchmark, String heap, Map<String, String[]> params, int warmups)
            throws RunnerException {
        System.out.println("== jmh " + group);
        List<String> jvmArgs = new ArrayList<>();
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (a.startsWith("--add-") || a.startsWith("--enable-native-access") || a.startsWith("-Dchronicle")
                    || a.startsWith("-Dhintmap")) {
                jvmArgs.add(a);
            }
        }
        jvmArgs.add(heap);
        ChainedOptionsBuilder options = new OptionsBuilder()
                .include(Pattern.quote(benchmark.getName()) + "\\.")
                .forks(1)
                .warmupIterations(quick ? 1 : warmups)
                .warmupTime(quick ? TimeValue.milliseconds(200) : TimeValue.seconds(1))
                .measurementIterations(quick ? 1 : MEASUREMENT_ITERATIONS)
                .measurementTime(quick ? TimeValue.milliseconds(300) : TimeValue.seconds(1))
                .timeout(TimeValue.minutes(2))
                .addProfiler(GCProfiler.class)
                .jvmArgs(jvmArgs.toArray(String[]::new))
                .resultFormat(ResultFormatType.JSON)
                .result(results.resolve("jmh-" + group + ".json").toString());
        params.forEach(options::param);
        new Runner(options.build()).run();
    }

    private String exec(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).directory(root.toFile()).redirectErrorStream(true).start();
        String out;
        try (InputStream in = p.getInputStream()) {
            out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed:\n" + out);
        }
        return out;
    }

    private void write(String name, String text) {
        try {
            Files.writeString(results.resolve(name), text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ------------------------------------------------------------------ results

    /** One JMH result: benchmark method, store, capacity (or 0), median and mean score, error, allocation. */
    record Score(String method, String store, int capacity, int threads, double median, double mean, double error,
                 String unit, double allocBytesPerOp, double min) {}

    private List<Score> readJmh() throws IOException {
        List<Score> scores = new ArrayList<>();
        List<Path> files;
        try (Stream<Path> s = Files.list(results)) {
            files = s.filter(p -> p.getFileName().toString().startsWith("jmh-") && p.toString().endsWith(".json"))
                    .sorted().toList();
        }
        for (Path f : files) {
            String text = Files.readString(f);
            if (text.isBlank()) {
                continue;
            }
            for (Object o : (List<?>) Json.parse(text)) {
                Map<String, Object> r = Json.object(o);
                String benchmark = (String) r.get("benchmark");
                Map<String, Object> params = Json.object(r.get("params"));
                Map<String, Object> primary = Json.object(r.get("primaryMetric"));
                Map<String, Object> percentiles = Json.object(primary.get("scorePercentiles"));
                Map<String, Object> alloc = Json.object(Json.object(r.get("secondaryMetrics")).get("gc.alloc.rate.norm"));
                String capacity = (String) params.get("capacity");
                scores.add(new Score(benchmark.substring(benchmark.lastIndexOf('.', benchmark.lastIndexOf('.') - 1) + 1),
                        (String) params.get("store"), capacity == null ? 0 : Integer.parseInt(capacity),
                        (int) Json.number(r.get("threads")), Json.number(percentiles.get("50.0")),
                        Json.number(primary.get("score")), Json.number(primary.get("scoreError")),
                        (String) primary.get("scoreUnit"), Json.number(alloc.get("score")),
                        Json.number(percentiles.get("0.0"))));
            }
        }
        return scores;
    }

    private Optional<Score> find(List<Score> scores, String method, String store, int capacity) {
        return scores.stream().filter(s -> s.method().equals(method) && Objects.equals(s.store(), store)
                && s.capacity() == capacity).findFirst();
    }

    /** Native result lines grouped by command, with the median of each numeric key over the repeats. */
    private Map<String, Map<String, Double>> readNative() throws IOException {
        Map<String, Map<String, List<Double>>> raw = new LinkedHashMap<>();
        String command = null;
        Pattern kv = Pattern.compile("(\\w+)=([0-9.eE+-]+)");
        for (String line : Files.readAllLines(results.resolve("native.txt"))) {
            if (line.startsWith("$ ")) {
                command = line.substring(2);
                continue;
            }
            String key;
            if (line.startsWith("floor ")) {
                Matcher m = Pattern.compile("variant=(\\w+) slots=(\\w+) threads=(\\d+)").matcher(line);
                if (!m.find()) {
                    continue;
                }
                key = "hm-floor " + m.group(1) + " " + m.group(2) + " " + m.group(3);
            } else if (line.startsWith("result ")) {
                key = command;
            } else {
                continue;
            }
            Map<String, List<Double>> values = raw.computeIfAbsent(key, k -> new LinkedHashMap<>());
            Matcher m = kv.matcher(line);
            while (m.find()) {
                values.computeIfAbsent(m.group(1), k -> new ArrayList<>()).add(Double.parseDouble(m.group(2)));
            }
        }
        Map<String, Map<String, Double>> medians = new LinkedHashMap<>();
        raw.forEach((k, values) -> {
            Map<String, Double> m = new LinkedHashMap<>();
            values.forEach((name, list) -> m.put(name, median(list)));
            m.put("repeats", (double) values.values().iterator().next().size());
            medians.put(k, m);
        });
        return medians;
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private List<EvictionSimulator.Row> readEviction() throws IOException {
        List<EvictionSimulator.Row> rows = new ArrayList<>();
        List<String> lines = Files.readAllLines(results.resolve("eviction.tsv"));
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split("\t");
            rows.add(new EvictionSimulator.Row(f[0], Integer.parseInt(f[1]), Long.parseLong(f[2]),
                    Double.parseDouble(f[3]), Double.parseDouble(f[4])));
        }
        return rows;
    }

    private Map<String, String> readProperties(String name) throws IOException {
        Map<String, String> map = new LinkedHashMap<>();
        Path p = results.resolve(name);
        if (Files.exists(p)) {
            for (String line : Files.readAllLines(p)) {
                int eq = line.indexOf('=');
                if (eq > 0) {
                    map.put(line.substring(0, eq), line.substring(eq + 1));
                }
            }
        }
        return map;
    }

    // ------------------------------------------------------------------ render

    private static final List<String> RECORD_STORES = List.of("HINTMAP", "HINTMAP_REGION", "REFERENCE", "CONCURRENT", "CHRONICLE", "AGRONA");
    private static final List<String> QUERY_STORES = List.of("HINTMAP", "REFERENCE", "CONCURRENT", "CHRONICLE", "AGRONA");

    private void render() throws IOException {
        List<Score> scores = readJmh();
        Map<String, Map<String, Double>> natives = readNative();
        List<EvictionSimulator.Row> eviction = readEviction();
        Map<String, String> machine = readProperties("machine.txt");
        Map<String, String> run = readProperties("run.txt");
        Path docs = Files.createDirectories(root.resolve("docs"));
        chart(scores, docs.resolve("perf-capacity.png"));

        StringBuilder md = new StringBuilder();
        md.append("# hintmap performance\n\n");
        md.append("Generated by `").append(COMMAND).append("` (`dev.hintmap.bench.PerfReport`, see the README's ")
                .append("*Benchmarks* section) from one run on the machine below; raw JMH JSON and native output are in ")
                .append("`bench-results/` (not committed). Do not edit by hand: the prose of *What bounds it* lives in ")
                .append("`src/jmh/resources/dev/hintmap/bench/what-bounds-it.md`, and *Give-up cost* (a separate run, not ")
                .append("part of this report's) in `give-up-cost.md` beside it.\n\n");
        md.append("## Machine and method\n\n");
        md.append("| | |\n|---|---|\n");
        md.append("| CPU | ").append(machine.getOrDefault("cpu", "?")).append(" |\n");
        md.append("| nproc | ").append(machine.getOrDefault("nproc", "?")).append(" |\n");
        md.append("| memory | ").append(machine.getOrDefault("memory", "?")).append(" |\n");
        md.append("| JDK | ").append(machine.getOrDefault("jdk", "?")).append(" |\n");
        md.append("| OS | ").append(machine.getOrDefault("os", "?")).append(" |\n");
        md.append("| C compiler | ").append(machine.getOrDefault("gcc", "?")).append(" (`-O2`) |\n");
        md.append("| run | ").append(machine.getOrDefault("date", "?")).append(", mode ").append(run.getOrDefault("mode", "?"))
                .append(", ").append(run.getOrDefault("seconds", "?")).append(" s (report step) |\n");
        md.append("| JMH | 1.37, `").append(JMH_SETTINGS).append("`, AverageTime; files on `/dev/shm` |\n\n");
        md.append("Short settings so that the whole report fits in 15 minutes on 2 cores: one fork, 2 × 1 s warm-up, ")
                .append("3 × 1 s measurement. The machine is a noisy shared 2-vCPU guest (±30% between sessions, see ")
                .append("shared/NOTES.md): read the **medians** and the **ratios** of one run, not absolute values. ")
                .append("`±` is JMH's 99.9% confidence half-width of the mean over the 3 iterations (large with n = 3). ")
                .append("\"× hintmap\" is the store's time divided by hintmap's (by name) in the same table: ")
                .append("above 1 means slower than hintmap. At 2 threads the time is per operation per thread ")
                .append("(both threads on one shared store, 2 cores); total throughput is 2 / time.\n\n");

        // targets first: the headline
        md.append("## Targets (issue 5)\n\n");
        targets(md, scores, natives, eviction);

        md.append("\n## Stores\n\n");
        md.append("All behind one interface (`BenchStore`), fed the same precomputed inputs in the same run:\n\n");
        for (StoreKind k : StoreKind.values()) {
            md.append("- **").append(k.name()).append("** — ").append(k.label).append(". ").append(storeNote(k)).append('\n');
        }

        md.append("\n## Record on an existing region\n\n");
        md.append("64 regions, keys Zipf(s = 1.0) per thread, capacity 256 (no eviction), kernel times log-normal ")
                .append("(median 20 µs). `RecordBench.existing_1t` / `existing_2t`.\n\n");
        threadTable(md, scores, "RecordBench.existing", RECORD_STORES);

        md.append("\n## Record with eviction churn\n\n");
        md.append("Store filled to capacity, then keys uniform over 4 × capacity distinct regions (≈ 75% of records insert ")
                .append("and evict). One thread. ns per record, median; `ChurnBench.churn`. ")
                .append("AGRONA cannot be built at 1,048,576 regions (see Stores).\n\n");
        churnTable(md, scores);
        md.append("\n![ns per record versus capacity](perf-capacity.png)\n");

        md.append("\n## isHot\n\n64 regions (half hot), Zipf(s = 1.0) keys. `QueryBench.isHot_1t` / `isHot_2t`.\n\n");
        threadTable(md, scores, "QueryBench.isHot", QUERY_STORES);
        md.append("\n## recordFor\n\nSame regions and keys; the optimizer reads count and mean of the returned record. ")
                .append("`QueryBench.recordFor_1t` / `recordFor_2t`.\n\n");
        threadTable(md, scores, "QueryBench.recordFor", QUERY_STORES);
        md.append("\n## readInto: the allocation-free query by name\n\nSame regions and keys; the record is read into a ")
                .append("per-thread holder (hintmap: `HintStore.readInto(name, MutableRecord)`, 0 B/op by API shape) and count and ")
                .append("mean are consumed. `QueryBench.readInto_1t` / `readInto_2t`.\n\n");
        threadTable(md, scores, "QueryBench.readInto", QUERY_STORES);
        md.append("\n## Query through a handle\n\nThe same, through a handle resolved once: hintmap's `Region.readInto(MutableRecord)` ")
                .append("(follows its region through eviction), Agrona's counter ids, ConcurrentHashMap's value object; REFERENCE and ")
                .append("CHRONICLE have none (by name). `QueryBench.handleReadInto_1t` / `handleReadInto_2t`.\n\n");
        threadTable(md, scores, "QueryBench.handleReadInto", QUERY_STORES);

        md.append("\n## Full iteration of 65,536 regions\n\nOne thread, µs per full pass (and ns per region). ")
                .append("`IterateBench.iterate`. hintmap's `forEach` hands out a `RegionRecord` with its `String` name ")
                .append("per region; AGRONA decodes every counter's label (the way another process reads counters).\n\n");
        iterateTable(md, scores, "IterateBench.iterate");
        md.append("\nThrough each store's allocation-free scan, `IterateBench.visit`: hintmap's `forEachView(RecordVisitor)` ")
                .append("(one reusable `RegionView` per pass, name as bytes), AGRONA's counter walk reading label lengths in place; ")
                .append("the others as above.\n\n");
        iterateTable(md, scores, "IterateBench.visit");

        md.append("\n## Open of an existing file\n\nOpen, read `size()`, close a full file. `OpenBench.open`. ")
                .append("An O(1) open costs the same at both capacities.\n\n");
        openTable(md, scores);

        md.append("\n## Allocation of every hintmap benchmark\n\n`-prof gc`, `gc.alloc.rate.norm` (B/op).\n\n");
        allocTable(md, scores);

        md.append("\n## Hardware floor and the C library (hm-floor, hm-bench)\n\n");
        md.append("Medians of ").append(NATIVE_REPEATS).append(" runs each. `hm-floor` does exactly the atomic operations ")
                .append("of one hintmap record on one slot of the real layout in a MAP_SHARED file (`lock`: CAS, 4 loads, 4 ")
                .append("stores, release stores; `faa`: 3 fetch-adds + CAS-max) with no hashing or lookup. `hm-bench` is the ")
                .append("C library on the same workload as `RecordBench` (64 regions, Zipf 1.0). `ns/record` is wall time over all ")
                .append("records; `per thread` is each thread's time per record (comparable with JMH's 2-thread numbers).\n\n");
        nativeTable(md, natives);

        md.append("\n## Eviction quality: CLOCK as implemented versus exact LRU\n\n");
        md.append("`EvictionSimulator`: the real `ClockHand.choose` over array frames with the store's bit rules (inserted ")
                .append("clear, set by each hit) against `LinkedHashMap` LRU, same traces, ").append(EvictionSimulator.ACCESSES)
                .append(" accesses each, the first 4 × capacity not counted. Zipf over 16 × capacity keys.\n\n");
        md.append("| trace | capacity | CLOCK hit ratio | LRU hit ratio | CLOCK − LRU (pp) |\n|---|---:|---:|---:|---:|\n");
        for (EvictionSimulator.Row r : eviction) {
            md.append(String.format(Locale.ROOT, "| %s | %,d | %.2f%% | %.2f%% | %+.2f |%n", r.trace(), r.capacity(),
                    100 * r.clockHitRatio(), 100 * r.lruHitRatio(), 100 * (r.clockHitRatio() - r.lruHitRatio())));
        }

        md.append("\n## What bounds it\n\n");
        breakdown(md, scores, natives);
        try (InputStream in = PerfReport.class.getResourceAsStream("what-bounds-it.md")) {
            md.append(in == null ? "(no analysis file)\n" : new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
        try (InputStream in = PerfReport.class.getResourceAsStream("give-up-cost.md")) {
            if (in != null) {
                md.append('\n').append(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
        }
        Files.writeString(docs.resolve("PERFORMANCE.md"), md.toString());
        System.out.println("wrote " + docs.resolve("PERFORMANCE.md") + " and " + docs.resolve("perf-capacity.png"));
    }

    private void breakdown(StringBuilder md, List<Score> scores, Map<String, Map<String, Double>> natives) {
        double floor = natives.getOrDefault("hm-floor lock shared 1", Map.of()).getOrDefault("ns_per_record", Double.NaN);
        double cName = natives.entrySet().stream().filter(e -> e.getKey().contains("hm-bench -t 1") && !e.getKey().contains(" -H"))
                .map(e -> e.getValue().get("ns_per_record")).findFirst().orElse(Double.NaN);
        double cHandle = natives.entrySet().stream().filter(e -> e.getKey().contains("hm-bench -t 1") && e.getKey().contains(" -H"))
                .map(e -> e.getValue().get("ns_per_record")).findFirst().orElse(Double.NaN);
        md.append("Where one single-thread record spends its time, measured step by step in the same run (median and ")
                .append("fastest of the 3 iterations; on this noisy guest the fastest is the better estimate of a step's own cost):\n\n");
        md.append("| step | median ns | fastest ns | source |\n|---|---:|---:|---|\n");
        step(md, scores, "`ThreadLocal` scratch lookup", "NamePathBench.scratchLookup", null);
        step(md, scores, "encode name to UTF-8 words + `hm64` hash (64 names, Zipf)", "NamePathBench.encodeAndHash", null);
        step(md, scores, "`isHot` by name = encode + index probe + consistent slot read", "QueryBench.isHot_1t", "HINTMAP");
        step(md, scores, "**record by name** = the same lookup + slot lock + write + publish", "RecordBench.existing_1t", "HINTMAP");
        step(md, scores, "**record through a Region handle** (no name, no lookup)", "RecordBench.existing_1t", "HINTMAP_REGION");
        md.append(String.format(Locale.ROOT, "| C library by name / by handle, same workload | %s / %s | | `hm-bench -t 1` |%n", num(cName), num(cHandle)));
        md.append(String.format(Locale.ROOT, "| hardware floor (the atomic ops of one record alone) | %s | | `hm-floor` lock, 1 thread |%n", num(floor)));
        step(md, scores, "churn harness at 1,048,576: fetch + encode + hash a random one of 4 × 2^20 names, no store",
                "NamePathBench.encodeColdName", null);
        md.append('\n');
    }

    private void step(StringBuilder md, List<Score> scores, String what, String method, String store) {
        Optional<Score> s = find(scores, method, store, 0);
        md.append("| ").append(what).append(" | ").append(s.map(x -> num(x.median())).orElse("n/a")).append(" | ")
                .append(s.map(x -> num(x.min())).orElse("n/a")).append(" | `").append(method)
                .append(store == null ? "" : " " + store).append("` |\n");
    }

    private static String storeNote(StoreKind k) {
        return switch (k) {
            case HINTMAP -> "`HintStore.record(String, …)` on a mapped file: encode + hash the name, probe the index, compare, slot lock.";
            case HINTMAP_REGION -> "`Region.record(…)` through handles resolved once (by-name queries as HINTMAP; the handle "
                    + "queries are `QueryBench.handleReadInto`, under HINTMAP).";
            case REFERENCE -> "The design hintmap replaces, ported faithfully: one mutex around a `HashMap` of records and an "
                    + "`ArrayDeque` recency list whose bump is a linear scan (`removeFirstOccurrence` + `addLast`); evicts the least "
                    + "recently used. Queries do not bump. Not shared, not persisted.";
            case CONCURRENT -> "`ConcurrentHashMap<String, Rec>` with `LongAdder` sums and an `AtomicLong` CAS-max: not shared, "
                    + "not persisted, reads not consistent. No policy of its own: the adapter evicts FIFO (O(1), one insert lock).";
            case CHRONICLE -> "Chronicle Map 2026.1 persisted to a file, value interface updated in place under the segment update "
                    + "lock (`queryContext`). Runs on JDK 25 with the `--add-opens/--add-exports` of the `jmh` profile's `hintmap.bench.jvm.args` "
                    + "(those shared/NOTES.md lists, plus a few added as a precaution, not each proven necessary). No eviction of "
                    + "its own: the adapter removes the oldest key (FIFO, O(1)).";
            case AGRONA -> "Agrona 2.6.0 `CountersManager` on mapped files, 4 counters per region (atomic adds + CAS-max), "
                    + "on-heap name index, FIFO eviction by the adapter (freeing counters). Its buffers are int-indexed: at most "
                    + String.format(Locale.ROOT, "%,d", AgronaStore.MAX_CAPACITY) + " regions, so no row at 1,048,576.";
        };
    }

    private void targets(StringBuilder md, List<Score> scores, Map<String, Map<String, Double>> natives,
                         List<EvictionSimulator.Row> eviction) {
        md.append("| target | measured (medians, one run) | met? |\n|---|---|---|\n");
        double h1 = med(scores, "RecordBench.existing_1t", "HINTMAP", 0);
        double hr1 = med(scores, "RecordBench.existing_1t", "HINTMAP_REGION", 0);
        double h2 = med(scores, "RecordBench.existing_2t", "HINTMAP", 0);
        double hr2 = med(scores, "RecordBench.existing_2t", "HINTMAP_REGION", 0);
        double ref2 = med(scores, "RecordBench.existing_2t", "REFERENCE", 0);
        double ch1 = med(scores, "RecordBench.existing_1t", "CHRONICLE", 0);
        double ch2 = med(scores, "RecordBench.existing_2t", "CHRONICLE", 0);
        row(md, "record, existing region, 2 threads: ≥ 10× the reference design",
                String.format(Locale.ROOT, "reference %.1f ns vs hintmap %.1f ns by name = **%.1f×**; Region handle %.1f ns = %.1f×",
                        ref2, h2, ref2 / h2, hr2, ref2 / hr2), ref2 / h2 >= 10, ref2 / hr2 >= 10);
        row(md, "record, existing region: ≥ 3× Chronicle Map",
                String.format(Locale.ROOT, "1 thread: %.1f / %.1f ns = **%.1f×** by name (%.1f× handle); 2 threads: %.1f / %.1f ns = **%.1f×** (%.1f× handle)",
                        ch1, h1, ch1 / h1, ch1 / hr1, ch2, h2, ch2 / h2, ch2 / hr2),
                ch1 / h1 >= 3 && ch2 / h2 >= 3, ch1 / hr1 >= 3 && ch2 / hr2 >= 3);
        double floor = natives.getOrDefault("hm-floor lock shared 1", Map.of()).getOrDefault("ns_per_record", Double.NaN);
        row(md, "hintmap single-thread record within 3× of hm-floor",
                String.format(Locale.ROOT, "floor (lock, 1 thread) %.2f ns; by name %.1f ns = **%.1f×**; Region handle %.1f ns = **%.1f×**",
                        floor, h1, h1 / floor, hr1, hr1 / floor), h1 / floor <= 3, hr1 / floor <= 3);
        double c256 = med(scores, "ChurnBench.churn", "HINTMAP", 256);
        double cBig = med(scores, "ChurnBench.churn", "HINTMAP", 1_048_576);
        double cMid = med(scores, "ChurnBench.churn", "HINTMAP", 65_536);
        double r256 = med(scores, "ChurnBench.churn", "REFERENCE", 256);
        double rBig = med(scores, "ChurnBench.churn", "REFERENCE", 1_048_576);
        row(md, "churn at capacity 1,048,576 within 1.5× of capacity 256",
                String.format(Locale.ROOT, "hintmap %.0f → %.0f → %.0f ns (256 → 65,536 → 1,048,576) = **%.2f×**; reference %.0f → %.0f ns = %.0f×",
                        c256, cMid, cBig, cBig / c256, r256, rBig, rBig / r256), cBig / c256 <= 1.5, null);
        double maxAlloc = 0;
        String worst = "";
        double recordForAlloc = 0;
        for (Score s : scores) {
            if (s.store() == null || !s.store().startsWith("HINTMAP") || Double.isNaN(s.allocBytesPerOp())) {
                continue;
            }
            if (s.method().startsWith("QueryBench.recordFor")) {
                recordForAlloc = Math.max(recordForAlloc, s.allocBytesPerOp());
            } else if (isRecordOrQuery(s.method()) && s.allocBytesPerOp() >= maxAlloc) {
                maxAlloc = s.allocBytesPerOp();
                worst = s.method() + (s.capacity() > 0 ? " @" + s.capacity() : "");
            }
        }
        row(md, "zero allocation: record (existing, churn, handle), isHot, readInto (by name and handle)",
                String.format(Locale.ROOT, "largest: %.3f B/op (%s)", maxAlloc, worst), maxAlloc < 1, null);
        row(md, "zero allocation: recordFor",
                String.format(Locale.ROOT, recordForAlloc < 1
                        ? "up to %.1f B/op: the returned `Optional<RegionRecord>` was scalar-replaced in this run"
                        : "up to %.1f B/op: the returned `Optional<RegionRecord>` is not always scalar-replaced", recordForAlloc),
                recordForAlloc < 1, null);
        double hRead = med(scores, "QueryBench.readInto_1t", "HINTMAP", 0);
        double hHandle = med(scores, "QueryBench.handleReadInto_1t", "HINTMAP", 0);
        double aRead = med(scores, "QueryBench.readInto_1t", "AGRONA", 0);
        double hHot = med(scores, "QueryBench.isHot_1t", "HINTMAP", 0);
        double aHot = med(scores, "QueryBench.isHot_1t", "AGRONA", 0);
        row(md, "query by name ≤ 1.2× Agrona's (issue 14, target 3), 0 B/op by API shape; a handle query at least as fast",
                String.format(Locale.ROOT, "`readInto` %.1f / %.1f ns = **%.2f×**, `isHot` %.1f / %.1f ns = %.2f×; `Region.readInto` %.1f ns = %.2f× Agrona by name",
                        hRead, aRead, hRead / aRead, hHot, aHot, hHot / aHot, hHandle, hHandle / aRead),
                hRead / aRead <= 1.2 && hHot / aHot <= 1.2, hHandle / aRead <= 1.2 && hHandle <= hRead);
        Optional<Score> hVisit = find(scores, "IterateBench.visit", "HINTMAP", 0);
        double cIterate = med(scores, "IterateBench.visit", "CONCURRENT", 0);
        double visitPerRegion = hVisit.map(x -> x.allocBytesPerOp() / IterateBench.REGIONS).orElse(Double.NaN);
        double visitRatio = hVisit.map(Score::median).orElse(Double.NaN) / cIterate;
        row(md, "iterating 65,536 regions ≤ 1.0× ConcurrentHashMap per region, 0 B/op per region (issue 14, target 6)",
                String.format(Locale.ROOT, "`forEachView` %.1f / %.1f ns per region = **%.2f×**, %.4f B per region",
                        hVisit.map(x -> x.median() * 1000 / IterateBench.REGIONS).orElse(Double.NaN),
                        cIterate * 1000 / IterateBench.REGIONS, visitRatio, visitPerRegion),
                visitRatio <= 1.0 && visitPerRegion < 0.01, null);
        double worstDiff = Double.POSITIVE_INFINITY;
        String worstTrace = "";
        for (EvictionSimulator.Row r : eviction) {
            if (r.trace().startsWith("Zipf")) {
                double diff = 100 * (r.clockHitRatio() - r.lruHitRatio());
                if (diff < worstDiff) {
                    worstDiff = diff;
                    worstTrace = r.trace() + " @" + r.capacity();
                }
            }
        }
        row(md, "CLOCK hit ratio within 2 pp of exact LRU on Zipf traces",
                String.format(Locale.ROOT, "worst CLOCK − LRU on the Zipf traces: **%+.2f pp** (%s; positive = CLOCK better)", worstDiff, worstTrace),
                worstDiff >= -2, null);
    }

    private static boolean isRecordOrQuery(String method) {
        return method.startsWith("RecordBench") || method.startsWith("QueryBench") || method.startsWith("ChurnBench");
    }

    private static void row(StringBuilder md, String target, String measured, boolean met, Boolean metWithHandle) {
        String verdict = met ? "**met**" : (Boolean.TRUE.equals(metWithHandle) ? "missed by name, **met with a Region handle**" : "**missed**");
        md.append("| ").append(target).append(" | ").append(measured).append(" | ").append(verdict).append(" |\n");
    }

    private double med(List<Score> scores, String method, String store, int capacity) {
        return find(scores, method, store, capacity).map(Score::median).orElse(Double.NaN);
    }

    private void threadTable(StringBuilder md, List<Score> scores, String prefix, List<String> stores) {
        md.append("| store | 1 thread ns/op | ± | × hintmap | B/op | 2 threads ns/op | ± | × hintmap | B/op |\n")
                .append("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        double base1 = med(scores, prefix + "_1t", "HINTMAP", 0);
        double base2 = med(scores, prefix + "_2t", "HINTMAP", 0);
        for (String store : stores) {
            md.append("| ").append(store);
            for (int t = 1; t <= 2; t++) {
                Optional<Score> s = find(scores, prefix + "_" + t + "t", store, 0);
                double base = t == 1 ? base1 : base2;
                if (s.isPresent()) {
                    Score x = s.get();
                    md.append(String.format(Locale.ROOT, " | %s | %s | %.2f | %s", num(x.median()), num(x.error()),
                            x.median() / base, alloc(x.allocBytesPerOp())));
                } else {
                    md.append(" | n/a | | | ");
                }
            }
            md.append(" |\n");
        }
    }

    private void churnTable(StringBuilder md, List<Score> scores) {
        md.append("| store |");
        for (int c : CHURN_CAPACITIES) {
            md.append(String.format(Locale.ROOT, " %,d ns | ± | × hintmap | B/op |", c));
        }
        md.append(" 1,048,576 / 256 |\n|---|");
        for (int i = 0; i < CHURN_CAPACITIES.length; i++) {
            md.append("---:|---:|---:|---:|");
        }
        md.append("---:|\n");
        for (String store : QUERY_STORES) {
            md.append("| ").append(store);
            for (int c : CHURN_CAPACITIES) {
                double base = med(scores, "ChurnBench.churn", "HINTMAP", c);
                Optional<Score> s = find(scores, "ChurnBench.churn", store, c);
                if (s.isPresent()) {
                    Score x = s.get();
                    md.append(String.format(Locale.ROOT, " | %s | %s | %.2f | %s", num(x.median()), num(x.error()),
                            x.median() / base, alloc(x.allocBytesPerOp())));
                } else {
                    md.append(" | n/a | | | ");
                }
            }
            double small = med(scores, "ChurnBench.churn", store, 256);
            double big = med(scores, "ChurnBench.churn", store, 1_048_576);
            md.append(Double.isNaN(big) ? " | n/a |\n" : String.format(Locale.ROOT, " | %.2f× |%n", big / small));
        }
    }

    private void iterateTable(StringBuilder md, List<Score> scores, String method) {
        md.append("| store | µs per pass | ± | ns per region | × hintmap | B/op (per pass) |\n|---|---:|---:|---:|---:|---:|\n");
        double base = med(scores, method, "HINTMAP", 0);
        for (String store : QUERY_STORES) {
            Optional<Score> s = find(scores, method, store, 0);
            if (s.isEmpty()) {
                md.append("| ").append(store).append(" | n/a | | | | |\n");
                continue;
            }
            Score x = s.get();
            md.append(String.format(Locale.ROOT, "| %s | %s | %s | %.1f | %.2f | %s |%n", store, num(x.median()), num(x.error()),
                    x.median() * 1000 / IterateBench.REGIONS, x.median() / base, alloc(x.allocBytesPerOp())));
        }
    }

    private void openTable(StringBuilder md, List<Score> scores) {
        md.append("| store | 256 slots µs | ± | 1,048,576 slots µs | ± | 1,048,576 / 256 | B/op (1,048,576) |\n|---|---:|---:|---:|---:|---:|---:|\n");
        for (String store : List.of("HINTMAP", "CHRONICLE")) {
            Optional<Score> a = find(scores, "OpenBench.open", store, 256);
            Optional<Score> b = find(scores, "OpenBench.open", store, 1_048_576);
            md.append("| ").append(store)
                    .append(a.map(x -> " | " + num(x.median()) + " | " + num(x.error())).orElse(" | n/a | "))
                    .append(b.map(x -> " | " + num(x.median()) + " | " + num(x.error())).orElse(" | n/a | "))
                    .append(a.isPresent() && b.isPresent()
                            ? String.format(Locale.ROOT, " | %.2f× | %s |%n", b.get().median() / a.get().median(), alloc(b.get().allocBytesPerOp()))
                            : " | n/a | |\n");
        }
    }

    private void allocTable(StringBuilder md, List<Score> scores) {
        md.append("| benchmark | store | capacity | B/op |\n|---|---|---:|---:|\n");
        for (Score s : scores) {
            if (s.store() != null && s.store().startsWith("HINTMAP")) {
                md.append(String.format(Locale.ROOT, "| %s | %s | %s | %s |%n", s.method(), s.store(),
                        s.capacity() == 0 ? "" : String.format(Locale.ROOT, "%,d", s.capacity()), alloc(s.allocBytesPerOp())));
            }
        }
        md.append("\n`recordFor` returns an `Optional<RegionRecord>` and `forEach` a `RegionRecord` and a `String` per region by ")
                .append("API contract; they are zero only where the JIT scalar-replaces the returned objects. `readInto` (by name and ")
                .append("through a `Region`) and `forEachView` allocate nothing by API shape (a reusable `MutableRecord`, one `RegionView` ")
                .append("per pass), as `AllocationFreeQueryTest` checks in the interpreter.\n");
    }

    private void nativeTable(StringBuilder md, Map<String, Map<String, Double>> natives) {
        md.append("| run | ns/record | per thread ns/record | records/s |\n|---|---:|---:|---:|\n");
        natives.forEach((k, v) -> md.append(String.format(Locale.ROOT, "| `%s` | %.2f | %.2f | %,.0f |%n", k,
                v.getOrDefault("ns_per_record", Double.NaN), v.getOrDefault("thread_ns_per_record", Double.NaN),
                v.getOrDefault("records_per_s", Double.NaN))));
    }

    private static String num(double v) {
        if (Double.isNaN(v)) {
            return "n/a";
        }
        if (v >= 1000) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        if (v >= 100) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        return String.format(Locale.ROOT, "%.1f", v);
    }

    private static String alloc(double v) {
        if (Double.isNaN(v)) {
            return "n/a";
        }
        return v < 0.01 ? "≈ 0" : String.format(Locale.ROOT, v < 10 ? "%.2f" : "%,.0f", v);
    }

    private void chart(List<Score> scores, Path png) throws IOException {
        XYSeriesCollection data = new XYSeriesCollection();
        for (String store : QUERY_STORES) {
            XYSeries series = new XYSeries(store);
            for (int c : CHURN_CAPACITIES) {
                double v = med(scores, "ChurnBench.churn", store, c);
                if (!Double.isNaN(v)) {
                    series.add(c, v);
                }
            }
            if (!series.isEmpty()) {
                data.addSeries(series);
            }
        }
        LogAxis x = new LogAxis("capacity (regions; 4 × as many distinct regions recorded)");
        x.setBase(2);
        x.setSmallestValue(128);
        x.setTickUnit(new NumberTickUnit(2));
        x.setNumberFormatOverride(new DecimalFormat("#,##0"));
        LogAxis y = new LogAxis("ns per record (median, 1 thread)");
        y.setBase(10);
        y.setSmallestValue(1);
        y.setTickUnit(new NumberTickUnit(1));
        y.setNumberFormatOverride(new DecimalFormat("#,##0"));
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
        Color[] colors = {new Color(0xd62728), new Color(0x7f7f7f), new Color(0x1f77b4), new Color(0x2ca02c), new Color(0x9467bd)};
        for (int i = 0; i < data.getSeriesCount(); i++) {
            renderer.setSeriesPaint(i, colors[i % colors.length]);
            renderer.setSeriesStroke(i, new BasicStroke(2f));
        }
        XYPlot plot = new XYPlot(data, x, y, renderer);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        JFreeChart chart = new JFreeChart("Record with eviction churn: cost versus capacity", JFreeChart.DEFAULT_TITLE_FONT, plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        ChartUtils.saveChartAsPNG(png.toFile(), chart, 900, 560);
    }
}
