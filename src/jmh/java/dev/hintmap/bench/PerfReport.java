package dev.hintmap.bench;

import dev.hintmap.HintFileInfo;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
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
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
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
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * The performance report of issues 5 and 14, in one command:
 *
 * <pre>./mvnw -Pjmh clean test-compile exec:exec@perf</pre>
 *
 * <p>{@code run} builds and runs {@code hm-floor} and {@code hm-bench} (interleaved repeats, medians of
 * {@value #NATIVE_REPEATS}), the eviction simulator and the JMH plan ({@link #plan()}): every
 * benchmark a row of the targets table uses ("headline") with {@value #HEADLINE_FORKS} forks, the
 * rest with one, {@code -prof gc} everywhere; raw output goes under {@code bench-results/}.
 * {@code render} reads those files back and writes {@code docs/PERFORMANCE.md} and
 * {@code docs/perf-capacity.png}. Modes ({@code -Dperf.args=...}): {@code full} (run, then render;
 * the default), {@code run}, {@code render}, {@code quick} (a smoke run of the same plan with
 * 300 ms warm-up and 100 ms iterations, churn at 256 and 65,536 and open at 256 only: the report is labelled as not for
 * headline figures), {@code plan} / {@code quick-plan} (print the plan and its estimated duration, run nothing) and
 * {@code simulate} (the simulator only, to stdout).
 */
public final class PerfReport {
    static final int NATIVE_REPEATS = 7;
    static final String COMMAND = "./mvnw -Pjmh clean test-compile exec:exec@perf";
    static final int HEADLINE_FORKS = 2;
    static final int[] CHURN_CAPACITIES = {256, 65_536, 1_048_576};
    static final int[] OPEN_CAPACITIES = {256, 1_048_576};
    /** Below this a path counts as allocation-free (JMH's own per-iteration bookkeeping shows up as a few thousandths at low op counts). */
    static final double ZERO_ALLOC = 0.05;
    /**
     * Seconds a JMH fork costs beyond its iterations and its benchmark's setup (JVM start, JMH's own
     * work); for the estimate only. Calibrated on the 2-vCPU guest: the issue-5 report spent 81 s
     * beyond its iterations on 63 single-fork runs; a quick run under a load average of 6 took about
     * twice the estimate.
     */
    static final double FORK_OVERHEAD_S = 1.0;
    /** hm-bench names: prefix + %05d, so that they are exactly Workload.name(i) (23 bytes) for i < 100,000. */
    static final String NATIVE_PREFIX = "gemm_bf16_128x64_0";

    /** JMH iteration settings of one class of benchmarks. */
    record Settings(int forks, int warmups, TimeValue warmupTime, int iterations, TimeValue measureTime) {
        String flags() {
            return String.format(Locale.ROOT, "-f %d -wi %d -w %s -i %d -r %s", forks, warmups, cli(warmupTime), iterations, cli(measureTime));
        }

        private static String cli(TimeValue t) {
            long ms = t.convertTo(TimeUnit.MILLISECONDS);
            return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
        }

        double secondsPerRun(double setupS) {
            return forks * (warmups * seconds(warmupTime) + iterations * seconds(measureTime) + FORK_OVERHEAD_S + setupS);
        }

        private static double seconds(TimeValue t) {
            return t.convertTo(TimeUnit.MILLISECONDS) / 1000.0;
        }
    }

    static final Settings FULL_HEADLINE = new Settings(HEADLINE_FORKS, 2, TimeValue.seconds(1), 3, TimeValue.seconds(1));
    /**
     * Churn: the issue-5 report warmed up 4 × 1 s; a run with no warm-up at all (HINTMAP and
     * CONCURRENT at 2^16 and 2^20, 6 iterations) showed only the first 1 s iteration above the
     * rest at 2^16 (713 against 473-530 ns) and nothing distinguishable from the noise at 2^20, so 2 × 1 s.
     */
    static final Settings FULL_CHURN = new Settings(HEADLINE_FORKS, 2, TimeValue.seconds(1), 3, TimeValue.seconds(1));
    static final Settings FULL_OTHER = new Settings(1, 2, TimeValue.seconds(1), 2, TimeValue.seconds(1));
    static final Settings QUICK_HEADLINE = new Settings(HEADLINE_FORKS, 1, TimeValue.milliseconds(300), 2, TimeValue.milliseconds(100));
    static final Settings QUICK_OTHER = new Settings(1, 1, TimeValue.milliseconds(300), 1, TimeValue.milliseconds(100));

    /** One JMH invocation of the plan: the methods of one benchmark class over the cross product of params. */
    record Job(String group, Class<?> bench, List<String> methods, Map<String, String[]> params, boolean headline,
               boolean churn, String heap, double setupS) {
        int runs() {
            int n = methods.size();
            for (String[] values : params.values()) {
                n *= values.length;
            }
            return n;
        }
    }

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
                case "full", "run", "render", "quick", "simulate", "plan", "quick-plan" -> mode = args[i];
                default -> throw new IllegalArgumentException(
                        "usage: PerfReport [--root DIR] [full|run|render|quick|plan|quick-plan|simulate]");
            }
        }
        root = root.toAbsolutePath().normalize();
        if (mode.equals("simulate")) {
            EvictionSimulator.main(new String[0]);
            return;
        }
        PerfReport report = new PerfReport(root, mode.startsWith("quick"));
        if (mode.endsWith("plan")) {
            System.out.print(report.planText());
            return;
        }
        Instant start = Instant.now();
        if (!mode.equals("render")) {
            report.run();
        }
        if (!mode.equals("run")) {
            report.render();
        }
        System.out.printf("perf report: %s in %d s%n", mode, Duration.between(start, Instant.now()).toSeconds());
    }

    // ------------------------------------------------------------------ plan

    private Settings settings(Job job) {
        if (quick) {
            return job.headline() ? QUICK_HEADLINE : QUICK_OTHER;
        }
        return job.headline() ? (job.churn() ? FULL_CHURN : FULL_HEADLINE) : FULL_OTHER;
    }

    private static String[] of(String... values) {
        return values;
    }

    private static Map<String, String[]> stores(String... stores) {
        return Map.of("store", stores);
    }

    private static String[] caps(int... capacities) {
        return Arrays.stream(capacities).mapToObj(Integer::toString).toArray(String[]::new);
    }

    /**
     * The JMH plan. Headline jobs are those a row of the targets table reads; the rest fill the
     * comparison tables and the step-by-step analysis, with one fork.
     */
    List<Job> plan() {
        int[] churnCaps = quick ? new int[] {256, 65_536} : CHURN_CAPACITIES;
        int[] openCaps = quick ? new int[] {256} : OPEN_CAPACITIES;
        int[] agronaCaps = Arrays.stream(churnCaps).filter(c -> c <= AgronaStore.MAX_CAPACITY).toArray();
        List<Job> jobs = new ArrayList<>();
        // headline: targets 1, 2, 4
        jobs.add(new Job("record", RecordBench.class, List.of("existing_1t", "existing_2t"),
                stores("HINTMAP", "HINTMAP_REGION", "AGRONA"), true, false, "-Xmx1g", 0.5));
        // headline: target 3
        jobs.add(new Job("query", QueryBench.class,
                List.of("isHot_1t", "dispatchCount_1t", "meanKernelNs_1t", "recordFor_1t", "readInto_1t"),
                stores("HINTMAP", "AGRONA"), true, false, "-Xmx1g", 0.5));
        jobs.add(new Job("query-handle", QueryBench.class, List.of("handleReadInto_1t"), stores("HINTMAP"), true, false, "-Xmx1g", 0.5));
        // headline: target 6
        jobs.add(new Job("iterate", IterateBench.class, List.of("visit"), stores("HINTMAP", "CONCURRENT"), true, false, "-Xmx2g", 2));
        // headline: target 5
        jobs.add(new Job("churn", ChurnBench.class, List.of("churn"),
                Map.of("store", of("HINTMAP", "REFERENCE", "CONCURRENT", "CHRONICLE"), "capacity", caps(churnCaps)),
                true, true, "-Xmx6g", 3));
        // Agrona's int-indexed buffers cannot hold 2^20 regions of 4 counters (AgronaStore.MAX_CAPACITY).
        jobs.add(new Job("churn-agrona", ChurnBench.class, List.of("churn"),
                Map.of("store", of("AGRONA"), "capacity", caps(agronaCaps)), true, true, "-Xmx2g", 2));
        // headline: target 7
        jobs.add(new Job("open", OpenBench.class, List.of("open"),
                Map.of("store", of("HINTMAP", "CHRONICLE"), "capacity", caps(openCaps)), true, false, "-Xmx4g", 4));
        // comparison tables, one fork
        jobs.add(new Job("record-others", RecordBench.class, List.of("existing_1t", "existing_2t"),
                stores("CONCURRENT", "REFERENCE", "CHRONICLE"), false, false, "-Xmx1g", 0.5));
        jobs.add(new Job("query-others", QueryBench.class, List.of("isHot_1t", "readInto_1t"),
                stores("CONCURRENT", "REFERENCE", "CHRONICLE"), false, false, "-Xmx1g", 0.5));
        jobs.add(new Job("query-2t", QueryBench.class, List.of("readInto_2t"),
                stores("HINTMAP", "AGRONA"), false, false, "-Xmx1g", 0.5));
        // CONCURRENT's iterate is its visit, measured above
        jobs.add(new Job("iterate-others", IterateBench.class, List.of("iterate"),
                stores("HINTMAP", "REFERENCE", "CHRONICLE", "AGRONA"), false, false, "-Xmx2g", 2));
        jobs.add(new Job("iterate-agrona", IterateBench.class, List.of("visit"), stores("AGRONA"), false, false, "-Xmx2g", 2));
        // step-by-step analysis (What bounds it), one fork
        jobs.add(new Job("steps", NamePathBench.class, List.of("scratchLookup", "encodeAndHash", "encodeColdName"),
                Map.of(), false, false, "-Xmx2g", 3));
        jobs.add(new Job("floor", FloorBench.class, List.of("lock_1t"), Map.of(), false, false, "-Xmx1g", 0.5));
        jobs.add(new Job("open-map", OpenBench.class, List.of("mapOnly"),
                Map.of("store", of("HINTMAP"), "capacity", caps(openCaps)), false, false, "-Xmx4g", 3));
        return jobs;
    }

    private double estimateSeconds(Job job) {
        return job.runs() * settings(job).secondsPerRun(job.setupS());
    }

    /** Native runs and the simulator (Maven's compile comes on top), for the estimate only. */
    static final double FIXED_SECONDS = 25;

    private String planText() {
        StringBuilder sb = new StringBuilder("mode " + (quick ? "quick" : "full") + "\n");
        double total = FIXED_SECONDS;
        for (Job j : plan()) {
            double s = estimateSeconds(j);
            total += s;
            sb.append(String.format(Locale.ROOT, "%-15s %-13s %-9s %2d runs  %-38s ~%4.0f s  %s%n", j.group(),
                    j.bench().getSimpleName(), j.headline() ? "headline" : "", j.runs(), settings(j).flags(), s,
                    String.join(",", j.methods())));
        }
        sb.append(String.format(Locale.ROOT, "estimated total (report step, quiet machine: %.1f s per fork + the job's setup beyond its iterations, %.0f s native + simulator): ~%.0f s%n",
                FORK_OVERHEAD_S, FIXED_SECONDS, total));
        return sb.toString();
    }

    // ------------------------------------------------------------------ run

    private void run() throws IOException, InterruptedException {
        Files.createDirectories(results);
        try (Stream<Path> old = Files.list(results)) {
            for (Path p : old.toList()) {
                Files.deleteIfExists(p);
            }
        }
        Instant start = Instant.now();
        StringBuilder runInfo = new StringBuilder("mode=" + (quick ? "quick" : "full") + "\n");
        write("machine.txt", machine());
        Instant t = Instant.now();
        runNative();
        runInfo.append("group.native.seconds=").append(Duration.between(t, Instant.now()).toSeconds()).append('\n');
        t = Instant.now();
        runSimulator();
        runInfo.append("group.simulator.seconds=").append(Duration.between(t, Instant.now()).toSeconds()).append('\n');
        StringBuilder errors = new StringBuilder();
        for (Job job : plan()) {
            t = Instant.now();
            try {
                jmh(job);
            } catch (Exception e) {
                errors.append(job.group()).append(": ").append(e.toString().lines().findFirst().orElse("?")).append('\n');
                System.out.println("== jmh " + job.group() + " FAILED: " + e);
            }
            runInfo.append("group.").append(job.group()).append(".seconds=").append(Duration.between(t, Instant.now()).toSeconds())
                    .append('\n');
        }
        write("errors.txt", errors.toString());
        runInfo.append("seconds=").append(Duration.between(start, Instant.now()).toSeconds()).append('\n')
                .append("finished=").append(Instant.now()).append('\n');
        write("run.txt", runInfo.toString());
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
        String gcc;
        try {
            gcc = exec(List.of("gcc", "--version")).lines().findFirst().orElse("?");
        } catch (IOException e) {
            gcc = "not found";
        }
        sb.append("gcc=").append(gcc).append('\n');
        sb.append("load=").append(Files.readString(Path.of("/proc/loadavg")).strip()).append('\n');
        String commit;
        try {
            commit = exec(List.of("git", "describe", "--always", "--dirty")).strip();
        } catch (IOException e) {
            commit = "unknown";
        }
        sb.append("commit=").append(commit).append('\n');
        // the format and slot size of the store under test, from the library itself
        Path probe = StoreKind.directory().resolve("probe-" + ProcessHandle.current().pid() + ".hints");
        Files.deleteIfExists(probe);
        try (HintStore s = HintStore.open(probe, HintStoreOptions.defaults().capacity(65_536))) {
            HintFileInfo info = s.info();
            sb.append("format=").append(info.formatVersion()).append('\n');
            sb.append("slot_bytes=").append(info.slotBytes()).append('\n');
            sb.append("file_bytes_65536=").append(info.fileBytes()).append('\n');
        } finally {
            Files.deleteIfExists(probe);
        }
        sb.append("date=").append(Instant.now()).append('\n');
        return sb.toString();
    }

    private void runNative() throws IOException {
        System.out.println("== native: make -C native-bench tools");
        StringBuilder out = new StringBuilder();
        try {
            exec(List.of("make", "-s", "-C", root.resolve("native-bench").toString(), "tools"));
            Path bin = root.resolve("native-bench/build");
            String floor = bin.resolve("hm-floor").toString();
            String bench = bin.resolve("hm-bench").toString();
            List<List<String>> commands = List.of(
                    List.of(floor, "-t", "2", "-n", "5000000"),
                    List.of(bench, "-t", "1", "-n", "10000000", "-r", "64", "-s", "1.0", "-P", NATIVE_PREFIX, "-q"),
                    List.of(bench, "-t", "1", "-n", "10000000", "-r", "64", "-s", "1.0", "-P", NATIVE_PREFIX, "-H", "-q"),
                    List.of(bench, "-t", "2", "-n", "5000000", "-r", "64", "-s", "1.0", "-P", NATIVE_PREFIX, "-q"),
                    List.of(bench, "-t", "2", "-n", "5000000", "-r", "64", "-s", "1.0", "-P", NATIVE_PREFIX, "-H", "-q"));
            // interleaved: each repeat runs every command once, so slow phases of the machine hit all alike
            for (int r = 0; r < NATIVE_REPEATS; r++) {
                for (List<String> command : commands) {
                    out.append("$ ").append(shown(command)).append('\n').append(exec(command));
                }
            }
            write("native.txt", out.toString());
        } catch (IOException | InterruptedException | RuntimeException e) {
            write("native.txt", out.toString());
            String why = e.getMessage() == null ? e.toString() : e.getMessage().lines().findFirst().orElse(e.toString());
            write("native-error.txt", why + "\n");
            System.out.println("== native FAILED: " + why);
        }
    }

    private String shown(List<String> command) {
        return String.join(" ", command).replace(root + "/", "");
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

    private void jmh(Job job) throws Exception {
        Settings s = settings(job);
        System.out.println("== jmh " + job.group() + " (" + s.flags() + ", " + job.runs() + " runs)");
        List<String> jvmArgs = new ArrayList<>();
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (a.startsWith("--add-") || a.startsWith("--enable-native-access") || a.startsWith("-Dchronicle")
                    || a.startsWith("-Dhintmap")) {
                jvmArgs.add(a);
            }
        }
        jvmArgs.add(job.heap());
        ChainedOptionsBuilder options = new OptionsBuilder()
                .include(Pattern.quote(job.bench().getName()) + "\\.(" + String.join("|", job.methods()) + ")$")
                .forks(s.forks())
                .warmupIterations(s.warmups())
                .warmupTime(s.warmupTime())
                .measurementIterations(s.iterations())
                .measurementTime(s.measureTime())
                .timeout(TimeValue.minutes(2))
                .addProfiler(GCProfiler.class)
                .jvmArgs(jvmArgs.toArray(String[]::new))
                .resultFormat(ResultFormatType.JSON)
                .result(results.resolve("jmh-" + job.group() + ".json").toString());
        job.params().forEach(options::param);
        new Runner(options.build()).run();
    }

    private String exec(List<String> command) throws IOException, InterruptedException {
        Process p;
        try {
            p = new ProcessBuilder(command).directory(root.toFile()).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IOException(String.join(" ", command) + ": " + e.getMessage(), e);
        }
        String out;
        try (InputStream in = p.getInputStream()) {
            out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
            throw new IOException(shown(command) + " failed: " + out.strip());
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

    /**
     * One JMH result: benchmark method ({@code Class.method}), store, capacity (or 0), forks, the
     * median over all measured iterations, JMH's mean and error, the per-fork iteration values, and
     * the largest {@code gc.alloc.rate.norm} of any iteration.
     */
    record Score(String method, String store, int capacity, int threads, double median, double mean, double error,
                 String unit, double allocBytesPerOp, double allocMax, List<List<Double>> raw) {
        int forks() {
            return raw.size();
        }

        List<Double> forkMedians() {
            return raw.stream().map(PerfReport::median).toList();
        }

        double min() {
            return raw.stream().flatMap(List::stream).mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
        }

        double max() {
            return raw.stream().flatMap(List::stream).mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
        }
    }

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
                        raw(alloc.get("rawData")).stream().flatMap(List::stream).mapToDouble(Double::doubleValue).max()
                                .orElse(Double.NaN),
                        raw(primary.get("rawData"))));
            }
        }
        return scores;
    }

    private static List<List<Double>> raw(Object rawData) {
        List<List<Double>> forks = new ArrayList<>();
        if (rawData instanceof List<?> outer) {
            for (Object fork : outer) {
                List<Double> values = new ArrayList<>();
                if (fork instanceof List<?> inner) {
                    for (Object v : inner) {
                        values.add(Json.number(v));
                    }
                }
                forks.add(values);
            }
        }
        return forks;
    }

    private Optional<Score> find(List<Score> scores, String method, String store, int capacity) {
        return scores.stream().filter(s -> s.method().equals(method) && Objects.equals(s.store(), store)
                && s.capacity() == capacity).findFirst();
    }

    /** Native result lines grouped by command (floor: by variant), every repeat's values per key. */
    private Map<String, Map<String, List<Double>>> readNative() throws IOException {
        Map<String, Map<String, List<Double>>> raw = new LinkedHashMap<>();
        Path file = results.resolve("native.txt");
        if (!Files.exists(file)) {
            return raw;
        }
        String command = null;
        Pattern kv = Pattern.compile("(\\w+)=([0-9.eE+-]+)");
        Pattern floor = Pattern.compile("variant=(\\w+) slots=(\\w+) threads=(\\d+)");
        for (String line : Files.readAllLines(file)) {
            if (line.startsWith("$ ")) {
                command = line.substring(2);
                continue;
            }
            String key;
            if (line.startsWith("floor ")) {
                Matcher m = floor.matcher(line);
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
        return raw;
    }

    static double median(List<Double> values) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private List<EvictionSimulator.Row> readEviction() throws IOException {
        List<EvictionSimulator.Row> rows = new ArrayList<>();
        Path file = results.resolve("eviction.tsv");
        if (!Files.exists(file)) {
            return rows;
        }
        List<String> lines = Files.readAllLines(file);
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

    private String readText(String name) throws IOException {
        Path p = results.resolve(name);
        return Files.exists(p) ? Files.readString(p).strip() : "";
    }

    // ------------------------------------------------------------------ measurements

    /**
     * One measured value for the targets table: its median, the spread (lowest and highest per-fork
     * median with 2+ forks, else lowest and highest iteration or repeat) and how it reads; or why it
     * is not there.
     */
    record M(double median, double lo, double hi, String spread, String missing, double allocMax, boolean headline) {
        static M missing(String why) {
            return new M(Double.NaN, Double.NaN, Double.NaN, "", why, Double.NaN, false);
        }

        boolean ok() {
            return missing == null && !Double.isNaN(median);
        }

        /** The same measurement scaled (a per-pass time to a per-region one). */
        M scaled(double factor) {
            if (!ok()) {
                return this;
            }
            return new M(median * factor, lo * factor, hi * factor,
                    spread.isEmpty() ? "" : "scaled from " + spread, null, allocMax, headline);
        }
    }

    /** Everything render needs, read once. */
    private final class Data {
        final List<Score> scores;
        final Map<String, Map<String, List<Double>>> natives;
        final String nativeError;
        final Map<String, String> machine;
        final Map<String, String> run;
        final Map<String, String> vars = new LinkedHashMap<>();

        Data() throws IOException {
            scores = readJmh();
            natives = readNative();
            nativeError = readText("native-error.txt");
            machine = readProperties("machine.txt");
            run = readProperties("run.txt");
        }

        M jmh(String method, String store, int capacity) {
            Optional<Score> s = find(scores, method, store, capacity);
            if (s.isEmpty()) {
                return M.missing(whyMissing(method, store, capacity));
            }
            Score x = s.get();
            String unit = x.unit() == null ? "" : " " + x.unit().replace("/op", "");
            if (x.forks() >= 2) {
                List<Double> fm = x.forkMedians();
                return new M(x.median(), Collections.min(fm), Collections.max(fm),
                        "forks " + fm.stream().map(PerfReport::num).collect(Collectors.joining(" / ")) + unit,
                        null, x.allocMax(), true);
            }
            return new M(x.median(), x.min(), x.max(),
                    "1 fork, iterations " + num(x.min()) + "–" + num(x.max()) + unit, null, x.allocMax(), false);
        }

        String whyMissing(String method, String store, int capacity) {
            if ("AGRONA".equals(store) && capacity > AgronaStore.MAX_CAPACITY) {
                return String.format(Locale.ROOT, "not measured: Agrona's int-indexed counter buffers hold at most %,d regions",
                        AgronaStore.MAX_CAPACITY);
            }
            if (quick() && capacity == 1_048_576) {
                return "not measured: the quick mode skips capacity 1,048,576";
            }
            return "not measured: no JMH result for " + method + (store == null ? "" : " " + store)
                    + (capacity > 0 ? String.format(Locale.ROOT, " @%,d", capacity) : "")
                    + " (the benchmark failed or was not run; see the run log" + (errors().isEmpty() ? "" : " and the errors below") + ")";
        }

        boolean quick() {
            return "quick".equals(run.get("mode"));
        }

        String errors() {
            try {
                return readText("errors.txt");
            } catch (IOException e) {
                return e.toString();
            }
        }

        /** A native figure: key is the command's distinguishing part, e.g. "hm-bench -t 1 ... -H" or "hm-floor lock shared 1". */
        M nativeValue(String what, boolean handles, int threads, String field) {
            if (!nativeError.isEmpty() && natives.isEmpty()) {
                return M.missing("not measured: the native tools did not run (" + nativeError + ")");
            }
            for (Map.Entry<String, Map<String, List<Double>>> e : natives.entrySet()) {
                String k = e.getKey();
                boolean match = what.equals("hm-bench")
                        ? k.contains("hm-bench -t " + threads + " ") && k.contains(" -H") == handles
                        : k.equals(what);
                if (match) {
                    List<Double> v = e.getValue().getOrDefault(field, List.of());
                    if (v.isEmpty()) {
                        break;
                    }
                    double lo = Collections.min(v);
                    double hi = Collections.max(v);
                    return new M(median(v), lo, hi, String.format(Locale.ROOT, "%d runs %s–%s ns", v.size(), num(lo), num(hi)),
                            null, Double.NaN, true);
                }
            }
            return M.missing("not measured: no " + what + " result" + (nativeError.isEmpty() ? "" : " (" + nativeError + ")"));
        }
    }

    // ------------------------------------------------------------------ targets (issue 14)

    enum Verdict { MET, MISSED, NOT_MEASURED }

    record TargetRow(String id, String target, String measured, String ratio, Verdict verdict, String note) {}

    private static String fmtM(String label, M m) {
        if (!m.ok()) {
            return label + ": " + m.missing();
        }
        return label + " **" + num(m.median()) + "**" + (m.spread().isEmpty() ? "" : " (" + m.spread() + ")");
    }

    /** A row "a / b ≤ bound" (or, with below, "a / b < bound"). */
    private TargetRow ratioRow(String id, String target, String aLabel, M a, String bLabel, M b, double bound, boolean strict) {
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

    private TargetRow allocRow(String id, String path, List<M> ms, String guarantee) {
        double max = Double.NaN;
        List<String> missing = new ArrayList<>();
        int measured = 0;
        for (M m : ms) {
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

    private List<TargetRow> targets(Data d) {
        Map<String, String> v = d.vars;
        List<TargetRow> rows = new ArrayList<>();
        M region1 = d.jmh("RecordBench.existing_1t", "HINTMAP_REGION", 0);
        M name1 = d.jmh("RecordBench.existing_1t", "HINTMAP", 0);
        M agrona1 = d.jmh("RecordBench.existing_1t", "AGRONA", 0);
        M region2 = d.jmh("RecordBench.existing_2t", "HINTMAP_REGION", 0);
        M name2 = d.jmh("RecordBench.existing_2t", "HINTMAP", 0);
        M agrona2 = d.jmh("RecordBench.existing_2t", "AGRONA", 0);
        M cHandle = d.nativeValue("hm-bench", true, 1, "ns_per_record");
        M cName = d.nativeValue("hm-bench", false, 1, "ns_per_record");
        M floor = d.nativeValue("hm-floor lock shared 1", false, 1, "ns_per_record");
        rows.add(ratioRow("1a", "Java record through a `Region` handle ≤ 1.25× the C library's handle record (64 regions, Zipf 1.0, 1 thread)",
                "`Region.record`", region1, "`hm-bench -t 1 -H`", cHandle, 1.25, false));
        rows.add(ratioRow("1b", "Java record through a `Region` handle ≤ 3× `hm-floor` (lock variant, 1 thread)",
                "`Region.record`", region1, "`hm-floor` lock", floor, 3, false));
        rows.add(ratioRow("2a", "Java record by name (repeated names) ≤ 1.0× Agrona's record",
                "`HintStore.record(name)`", name1, "Agrona", agrona1, 1.0, false));
        rows.add(ratioRow("2b", "C record by name ≤ 2× the C handle record",
                "`hm-bench -t 1`", cName, "`hm-bench -t 1 -H`", cHandle, 2, false));
        String[][] ops = {
                {"3a", "isHot_1t", "`isHot`"}, {"3b", "dispatchCount_1t", "`dispatchCount`"},
                {"3c", "meanKernelNs_1t", "`meanKernelNs`"}, {"3d", "recordFor_1t", "`recordFor`"},
                {"3e", "readInto_1t", "`readInto` (into a `MutableRecord`)"}};
        for (String[] op : ops) {
            M h = d.jmh("QueryBench." + op[1], "HINTMAP", 0);
            M a = d.jmh("QueryBench." + op[1], "AGRONA", 0);
            rows.add(ratioRow(op[0], "query by name " + op[2] + " ≤ 1.2× Agrona's", "hintmap", h, "Agrona", a, 1.2, false));
            v.put("q." + op[1].replace("_1t", "") + ".hintmap", num(h.median()));
            v.put("q." + op[1].replace("_1t", "") + ".agrona", num(a.median()));
            v.put("q." + op[1].replace("_1t", "") + ".ratio", ratio(h, a));
        }
        M handleRead = d.jmh("QueryBench.handleReadInto_1t", "HINTMAP", 0);
        M nameRead = d.jmh("QueryBench.readInto_1t", "HINTMAP", 0);
        rows.add(ratioRow("3f", "a handle query path at least as fast as by name (`Region.readInto` ≤ 1.0× `HintStore.readInto`)",
                "`Region.readInto`", handleRead, "`HintStore.readInto(name)`", nameRead, 1.0, false));
        rows.add(ratioRow("4a", "2 threads, same 64 regions and Zipf: per-thread record time by name ≤ 1.0× Agrona's",
                "`HintStore.record(name)`", name2, "Agrona", agrona2, 1.0, false));
        rows.add(ratioRow("4b", "2 threads, same 64 regions and Zipf: per-thread record time through a `Region` ≤ 1.0× Agrona's",
                "`Region.record`", region2, "Agrona", agrona2, 1.0, false));
        M c256 = d.jmh("ChurnBench.churn", "HINTMAP", 256);
        M c64k = d.jmh("ChurnBench.churn", "HINTMAP", 65_536);
        M c1m = d.jmh("ChurnBench.churn", "HINTMAP", 1_048_576);
        rows.add(ratioRow("5a", "churn (insert + evict each record): hintmap 2^20 / 2^16 ≤ 1.5×", "2^20", c1m, "2^16", c64k, 1.5, false));
        rows.add(ratioRow("5b", "churn: hintmap 2^20 / 256 ≤ 4×", "2^20", c1m, "256", c256, 4, false));
        String[] letters = {"5c", "5d", "5e"};
        for (int i = 0; i < CHURN_CAPACITIES.length; i++) {
            int cap = CHURN_CAPACITIES[i];
            M h = d.jmh("ChurnBench.churn", "HINTMAP", cap);
            M best = null;
            String bestStore = null;
            List<String> others = new ArrayList<>();
            for (String store : List.of("REFERENCE", "CONCURRENT", "CHRONICLE", "AGRONA")) {
                M o = d.jmh("ChurnBench.churn", store, cap);
                others.add(store + " " + (o.ok() ? num(o.median()) : "n/a"));
                if (!o.ok() && "AGRONA".equals(store)) {
                    others.set(others.size() - 1, "AGRONA n/a (" + o.missing().replace("not measured: ", "") + ")");
                }
                if (o.ok() && (best == null || o.median() < best.median())) {
                    best = o;
                    bestStore = store;
                }
            }
            String target = String.format(Locale.ROOT, "churn at %,d: hintmap ahead of every other store", cap);
            if (!h.ok() || best == null) {
                rows.add(new TargetRow(letters[i], target, h.ok() ? "no other store measured: " + String.join(", ", others)
                        : fmtM("hintmap", h), "—", Verdict.NOT_MEASURED, ""));
                v.put("churn.best." + cap, "n/a");
                v.put("churn.bestratio." + cap, "n/a");
                continue;
            }
            TargetRow r = ratioRow(letters[i], target, "hintmap", h, "fastest other, " + bestStore, best, 1.0, true);
            rows.add(new TargetRow(r.id(), r.target(), r.measured() + "; all: " + String.join(", ", others) + " ns",
                    r.ratio(), r.verdict(), r.note()));
            v.put("churn.best." + cap, bestStore + " " + num(best.median()) + " ns");
            v.put("churn.bestratio." + cap, ratio(h, best));
        }
        M visitH = d.jmh("IterateBench.visit", "HINTMAP", 0).scaled(1000.0 / IterateBench.REGIONS);
        M visitC = d.jmh("IterateBench.visit", "CONCURRENT", 0).scaled(1000.0 / IterateBench.REGIONS);
        rows.add(ratioRow("6a", "iterating 65,536 regions ≤ 1.0× ConcurrentHashMap per region (ns per region)",
                "`forEachView`", visitH, "ConcurrentHashMap values", visitC, 1.0, false));
        M visitRaw = d.jmh("IterateBench.visit", "HINTMAP", 0);
        if (visitRaw.ok()) {
            double perRegion = visitRaw.allocMax() / IterateBench.REGIONS;
            rows.add(new TargetRow("6b", "iterating 65,536 regions: 0 B/op per region (`HintStore.forEachView` / `RegionView`)",
                    String.format(Locale.ROOT, "largest B per pass of any iteration: **%s** = %.5f B per region (one `RegionView` per pass by API)",
                            allocExact(visitRaw.allocMax()), perRegion), "—",
                    perRegion < ZERO_ALLOC ? Verdict.MET : Verdict.MISSED, ""));
        } else {
            rows.add(new TargetRow("6b", "iterating 65,536 regions: 0 B/op per region", visitRaw.missing(), "—", Verdict.NOT_MEASURED, ""));
        }
        String[] openIds = {"7a", "7b"};
        for (int i = 0; i < OPEN_CAPACITIES.length; i++) {
            int cap = OPEN_CAPACITIES[i];
            rows.add(ratioRow(openIds[i], String.format(Locale.ROOT, "opening an existing full file of %,d slots ≤ 1.0× Chronicle Map's open", cap),
                    "hintmap", d.jmh("OpenBench.open", "HINTMAP", cap), "Chronicle", d.jmh("OpenBench.open", "CHRONICLE", cap), 1.0, false));
        }
        // Plus: 0 B/op on every record and query path
        List<M> churnAll = Arrays.stream(CHURN_CAPACITIES).mapToObj(c -> d.jmh("ChurnBench.churn", "HINTMAP", c)).toList();
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

        // values for the prose
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
        M faa1 = d.nativeValue("hm-floor faa shared 1", false, 1, "ns_per_record");
        M lock2 = d.nativeValue("hm-floor lock shared 2", false, 2, "thread_ns_per_record");
        M faa2 = d.nativeValue("hm-floor faa shared 2", false, 2, "thread_ns_per_record");
        v.put("floor.faa1", num(faa1.median()));
        v.put("floor.lock2", num(lock2.median()));
        v.put("floor.faa2", num(faa2.median()));
        M jfloor = d.jmh("FloorBench.lock_1t", null, 0);
        v.put("jfloor", num(jfloor.median()));
        v.put("jfloor.minus.floor", num(jfloor.median() - floor.median()));
        v.put("region.minus.jfloor", num(region1.median() - jfloor.median()));
        v.put("region.minus.chandle", num(region1.median() - cHandle.median()));
        v.put("name.minus.region", num(name1.median() - region1.median()));
        v.put("name.minus.agrona", num(name1.median() - agrona1.median()));
        v.put("q.handle", num(handleRead.median()));
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
        M cold = d.jmh("NamePathBench.encodeColdName", null, 0);
        v.put("churn.store.1048576", num(c1m.median() - cold.median()));
        for (String store : List.of("REFERENCE", "CONCURRENT", "CHRONICLE", "AGRONA")) {
            for (int cap : CHURN_CAPACITIES) {
                Optional<Score> s = find(d.scores, "ChurnBench.churn", store, cap);
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
        for (int cap : OPEN_CAPACITIES) {
            M oh = d.jmh("OpenBench.open", "HINTMAP", cap);
            M oc = d.jmh("OpenBench.open", "CHRONICLE", cap);
            M om = d.jmh("OpenBench.mapOnly", "HINTMAP", cap);
            v.put("open.hintmap." + cap, num(oh.median()));
            v.put("open.chronicle." + cap, num(oc.median()));
            v.put("open.map." + cap, num(om.median()));
            v.put("open.hintmap." + cap + ".alloc", oh.ok() ? allocExact(oh.allocMax()) : "n/a");
            v.put("open.chronicle." + cap + ".alloc", oc.ok() ? allocExact(oc.allocMax()) : "n/a");
            v.put("open.beyond.map." + cap, num(oh.median() - om.median()));
        }
        return rows;
    }

    private static double parse(String s) {
        try {
            return Double.parseDouble(s);
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    private static String ratio(M a, M b) {
        return a.ok() && b.ok() ? String.format(Locale.ROOT, "%.2f×", a.median() / b.median()) : "n/a";
    }

    private void targetsTable(StringBuilder md, List<TargetRow> rows) {
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

    // ------------------------------------------------------------------ prose with the run's numbers

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
        try (InputStream in = PerfReport.class.getResourceAsStream(name)) {
            return in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private void missedProse(StringBuilder md, List<TargetRow> rows, Map<String, String> sections, Map<String, String> vars) {
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

    // ------------------------------------------------------------------ render

    private static final List<String> RECORD_STORES = List.of("HINTMAP", "HINTMAP_REGION", "REFERENCE", "CONCURRENT", "CHRONICLE", "AGRONA");
    private static final List<String> QUERY_STORES = List.of("HINTMAP", "REFERENCE", "CONCURRENT", "CHRONICLE", "AGRONA");

    private void render() throws IOException {
        Data d = new Data();
        List<Score> scores = d.scores;
        List<EvictionSimulator.Row> eviction = readEviction();
        Path docs = Files.createDirectories(root.resolve("docs"));
        chart(scores, docs.resolve("perf-capacity.png"));
        List<TargetRow> rows = targets(d);
        Map<String, String> sections = sections(resource("what-bounds-it.md"));
        // fail early on a placeholder the resource names but the generator does not fill
        sections.values().forEach(s -> fill(s, d.vars));

        StringBuilder md = new StringBuilder();
        md.append("# hintmap performance\n\n");
        if (d.quick()) {
            md.append("> **QUICK SMOKE RUN — NOT FOR HEADLINE FIGURES.** Generated with `-Dperf.args=quick`: one 300 ms ")
                    .append("warm-up and 100 ms iterations, churn at 256 and 65,536 only, open at 256 only. It proves that the generator works end to ")
                    .append("end; every number below is too short-lived to quote. Regenerate with `").append(COMMAND).append("`.\n\n");
        }
        md.append("Generated by `").append(COMMAND).append("` (`dev.hintmap.bench.PerfReport`, see the README's ")
                .append("*Benchmarks* section) from one run on the machine below; raw JMH JSON and native output are in ")
                .append("`bench-results/` (not committed). Do not edit by hand: the prose of *What bounds it* lives in ")
                .append("`src/jmh/resources/dev/hintmap/bench/what-bounds-it.md` with the run's numbers filled in by the generator, ")
                .append("and the sections measured in separate runs, *Give-up cost*, *Start-up* and *Long kernel names*, in")
                .append(" `give-up-cost.md`, `startup.md` and `long-names.md` beside it.\n\n");

        md.append("## Machine and method\n\n");
        md.append("| | |\n|---|---|\n");
        md.append("| CPU | ").append(d.machine.getOrDefault("cpu", "?")).append(" |\n");
        md.append("| nproc | ").append(d.machine.getOrDefault("nproc", "?")).append(" |\n");
        md.append("| memory | ").append(d.machine.getOrDefault("memory", "?")).append(" |\n");
        md.append("| load average at start | ").append(d.machine.getOrDefault("load", "?")).append(" |\n");
        md.append("| JDK | ").append(d.machine.getOrDefault("jdk", "?")).append(" |\n");
        md.append("| OS | ").append(d.machine.getOrDefault("os", "?")).append(" |\n");
        md.append("| C compiler | ").append(d.machine.getOrDefault("gcc", "?")).append(" (`-O2`) |\n");
        md.append("| code | ").append(d.machine.getOrDefault("commit", "?")).append(", hint file format ")
                .append(d.machine.getOrDefault("format", "?")).append(", ").append(d.machine.getOrDefault("slot_bytes", "?"))
                .append(" B per slot |\n");
        md.append("| run | ").append(d.machine.getOrDefault("date", "?")).append(", mode **").append(d.run.getOrDefault("mode", "?"))
                .append("**, **").append(d.run.getOrDefault("seconds", "?")).append(" s** in total (report step, without Maven's compile) |\n");
        md.append("| JMH | 1.37, AverageTime, `-prof gc`; files on `/dev/shm` |\n\n");

        md.append("Run plan and time per group (`-Dperf.args=plan` prints the plan without running it):\n\n");
        md.append("| group | benchmark | role | runs | JMH settings | estimated s | took s |\n|---|---|---|---:|---|---:|---:|\n");
        for (Job j : plan()) {
            md.append(String.format(Locale.ROOT, "| %s | `%s` %s | %s | %d | `%s` | %.0f | %s |%n", j.group(), j.bench().getSimpleName(),
                    j.methods().stream().map(x -> "`" + x + "`").collect(Collectors.joining(", ")),
                    j.headline() ? "**headline**" : "table / step", j.runs(), settings(j).flags(), estimateSeconds(j),
                    d.run.getOrDefault("group." + j.group() + ".seconds", "n/a")));
        }
        md.append(String.format(Locale.ROOT, "| native | `hm-floor`, `hm-bench` | **headline** | %d repeats, interleaved | | | %s |%n",
                NATIVE_REPEATS, d.run.getOrDefault("group.native.seconds", "n/a")));
        md.append(String.format(Locale.ROOT, "| simulator | `EvictionSimulator` | table | | | | %s |%n%n",
                d.run.getOrDefault("group.simulator.seconds", "n/a")));
        String errors = d.errors();
        if (!errors.isEmpty() || !d.nativeError.isEmpty()) {
            md.append("**Failures in this run:**\n\n");
            errors.lines().forEach(l -> md.append("- ").append(l).append('\n'));
            if (!d.nativeError.isEmpty()) {
                md.append("- native: ").append(d.nativeError).append('\n');
            }
            md.append('\n');
        }
        md.append("Every benchmark a row of the targets table reads (\"headline\") runs in ").append(HEADLINE_FORKS)
                .append(" JMH forks; the comparison tables' other rows and the step benchmarks run in one. ")
                .append("The machine is a noisy shared 2-vCPU guest (±30% between sessions, see shared/NOTES.md): read the **medians** ")
                .append("and the **ratios** of one run, not absolute values. A median is over all measured iterations of all forks. ")
                .append("*Spread* is the lowest and highest per-fork median (2 forks), else the lowest and highest iteration (1 fork), ")
                .append("or for the native tools the lowest and highest of the ").append(NATIVE_REPEATS).append(" repeats; ")
                .append("a ratio's range divides the extremes crosswise (best case to worst case). `±` in the tables is JMH's ")
                .append("99.9% confidence half-width of the mean. \"× hintmap\" is the store's time divided by hintmap's (by name) ")
                .append("in the same table: above 1 means slower than hintmap. At 2 threads the time is per operation per thread ")
                .append("(both threads on one shared store, 2 cores). B/op is `gc.alloc.rate.norm`; \"≈ 0\" is below 0.01 B/op and a path ")
                .append(String.format(Locale.ROOT, "counts as allocation-free below %.2f B/op (the largest value of any iteration is used).%n%n", ZERO_ALLOC));

        md.append("## Targets (issue 14)\n\n");
        md.append("Ratios of medians measured side by side in this run. 64 regions, Zipf(1.0), capacity 256 wherever a ")
                .append("target names no other workload; `hm-bench` runs the same 64 names (`-P ").append(NATIVE_PREFIX)
                .append("`, 23 bytes) and the same log-normal kernel times. The issue-5 targets of earlier reports ")
                .append("(10× the reference design, 3× Chronicle Map, ...) are superseded by these; their stores still appear in the tables.\n\n");
        targetsTable(md, rows);

        md.append("\n## Stores\n\n");
        md.append("All behind one interface (`BenchStore`), fed the same precomputed inputs in the same run:\n\n");
        for (StoreKind k : StoreKind.values()) {
            md.append("- **").append(k.name()).append("** — ").append(k.label).append(". ").append(storeNote(k)).append('\n');
        }

        md.append("\n## Record on an existing region\n\n");
        md.append("64 regions, keys Zipf(s = 1.0) per thread (each thread its own stream over the same 64 regions), capacity 256 ")
                .append("(no eviction), kernel times log-normal (median 20 µs). `RecordBench.existing_1t` / `existing_2t`.\n\n");
        threadTable(md, scores, "RecordBench.existing", RECORD_STORES);

        md.append("\n## Record with eviction churn\n\n");
        md.append("Store filled to capacity, then keys uniform over 4 × capacity distinct regions (≈ 75% of records insert ")
                .append("and evict). One thread. ns per record, median; `ChurnBench.churn`. ")
                .append("AGRONA cannot be built at 1,048,576 regions (see Stores).\n\n");
        churnTable(md, scores);
        md.append("\n![ns per record versus capacity](perf-capacity.png)\n");

        md.append("\n## Queries by name and through a handle (1 thread)\n\n64 regions (half hot), Zipf(s = 1.0) keys, ns/op median ")
                .append("(spread). `QueryBench.<op>_1t`. `readInto` fills a per-thread holder (hintmap: `HintStore.readInto(name, ")
                .append("MutableRecord)`) and consumes count and mean; `recordFor` consumes the same two of the returned record; the handle ")
                .append("column is hintmap's `Region.readInto(MutableRecord)` (`handleReadInto_1t`). Empty cells were not run (not a target row).\n\n");
        queryTable(md, scores);
        md.append("\n## readInto at 2 threads\n\nThe same, both threads on one store, per thread. `QueryBench.readInto_2t`.\n\n");
        simpleTable(md, scores, "QueryBench.readInto_2t", List.of("HINTMAP", "AGRONA"));

        md.append("\n## Full iteration of 65,536 regions\n\nOne thread, µs per full pass (and ns per region). ")
                .append("`IterateBench.iterate`: hintmap's `forEach` hands out a `RegionRecord` with its `String` name ")
                .append("per region; AGRONA decodes every counter's label (the way another process reads counters). CONCURRENT has one ")
                .append("scan only: see `visit` below.\n\n");
        iterateTable(md, scores, "IterateBench.iterate");
        md.append("\nThrough each store's allocation-free scan, `IterateBench.visit` (target 6): hintmap's `forEachView(RecordVisitor)` ")
                .append("(one reusable `RegionView` per pass, name as bytes), AGRONA's counter walk reading label lengths in place; ")
                .append("CONCURRENT's is its `iterate`. REFERENCE and CHRONICLE have none (see `iterate`).\n\n");
        iterateTable(md, scores, "IterateBench.visit");

        md.append("\n## Open of an existing file\n\nOpen, read `size()`, close a full file. `OpenBench.open`. An O(1) open costs the ")
                .append("same at both capacities. `mapOnly` (HINTMAP's file) is the step: open the channel, map the file into a shared ")
                .append("arena, read a word, close.\n\n");
        openTable(md, scores);

        md.append("\n## Allocation of every hintmap benchmark\n\n`-prof gc`, `gc.alloc.rate.norm` (B/op): median and the largest of any iteration.\n\n");
        allocTable(md, scores);

        md.append("\n## Hardware floor and the C library (hm-floor, hm-bench)\n\n");
        md.append("Medians of ").append(NATIVE_REPEATS).append(" interleaved runs each (spread: lowest–highest). `hm-floor` does exactly ")
                .append("the atomic operations of one hintmap record on one slot of the real layout in a MAP_SHARED file (`lock`: CAS, ")
                .append("4 loads, 4 stores, release stores; `faa`: 3 fetch-adds + CAS-max, what Agrona's counters do) with no hashing ")
                .append("or lookup. `hm-bench` is the C library on the same workload as `RecordBench` (64 regions, Zipf 1.0, the same ")
                .append("names). `ns/record` is wall time over all records; `per thread` is each thread's time per record (comparable ")
                .append("with JMH's 2-thread numbers). `FloorBench.lock_1t` is the Java twin of `hm-floor lock shared 1`.\n\n");
        nativeTable(md, d);

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

        md.append("\n## What bounds it\n\n");
        breakdown(md, d);
        md.append(fill(sections.getOrDefault("general", ""), d.vars)).append("\n\n");
        md.append("## Missed targets: what bounds them\n\n");
        md.append("For each missed row: what the measurements of this run say bounds it, and what design would get there.\n\n");
        missedProse(md, rows, sections, d.vars);
        for (String separateRun : List.of("give-up-cost.md", "startup.md", "long-names.md")) { // measured apart, kept as written
            String text = resource(separateRun);
            if (!text.isEmpty()) {
                md.append(text);
            }
        }
        Files.writeString(docs.resolve("PERFORMANCE.md"), md.toString());
        System.out.println("wrote " + docs.resolve("PERFORMANCE.md") + " and " + docs.resolve("perf-capacity.png"));
        for (TargetRow r : rows) {
            System.out.printf("target %-3s %-13s %s%n", r.id(), r.verdict(), r.ratio().replace("*", ""));
        }
    }

    private void breakdown(StringBuilder md, Data d) {
        md.append("Where one single-thread record spends its time, measured step by step in the same run (median, and the ")
                .append("spread; on this noisy guest the lowest value is the better estimate of a step's own cost):\n\n");
        md.append("| step | median ns | spread | source |\n|---|---:|---|---|\n");
        step(md, d.jmh("NamePathBench.scratchLookup", null, 0), "`ThreadLocal` scratch lookup", "`NamePathBench.scratchLookup`");
        step(md, d.jmh("NamePathBench.encodeAndHash", null, 0), "encode name to UTF-8 words + `hm64` hash (64 names, Zipf)", "`NamePathBench.encodeAndHash`");
        step(md, d.jmh("QueryBench.isHot_1t", "HINTMAP", 0), "`isHot` by name = name (cache) + index probe + consistent slot read", "`QueryBench.isHot_1t HINTMAP`");
        step(md, d.jmh("QueryBench.handleReadInto_1t", "HINTMAP", 0), "`Region.readInto` = consistent slot read, no name", "`QueryBench.handleReadInto_1t HINTMAP`");
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

    private void step(StringBuilder md, M m, String what, String source) {
        md.append("| ").append(what).append(" | ").append(m.ok() ? num(m.median()) : "n/a").append(" | ")
                .append(m.ok() ? m.spread() : m.missing()).append(" | ").append(source).append(" |\n");
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
                    + "(those shared/NOTES.md lists, plus a few added as a precaution, not each proven necessary). No eviction of "
                    + "its own: the adapter removes the oldest key (FIFO, O(1)).";
            case AGRONA -> "Agrona 2.6.0 `CountersManager` on mapped files, 4 counters per region (atomic adds + CAS-max), "
                    + "on-heap name index (`ConcurrentHashMap`), FIFO eviction by the adapter (freeing counters); reads are not a "
                    + "consistent snapshot of the four counters. Its buffers are int-indexed: at most "
                    + String.format(Locale.ROOT, "%,d", AgronaStore.MAX_CAPACITY) + " regions, so no row at 1,048,576.";
        };
    }

    // ------------------------------------------------------------------ tables

    private static String spreadOf(Score x) {
        if (x.forks() >= 2) {
            return x.forkMedians().stream().map(PerfReport::num).collect(Collectors.joining(" / "));
        }
        return num(x.min()) + "–" + num(x.max());
    }

    private void threadTable(StringBuilder md, List<Score> scores, String prefix, List<String> stores) {
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

    private void simpleTable(StringBuilder md, List<Score> scores, String method, List<String> stores) {
        md.append("| store | ns/op | ± | spread | × hintmap | B/op |\n|---|---:|---:|---:|---:|---:|\n");
        double base = med(scores, method, "HINTMAP", 0);
        for (String store : stores) {
            Optional<Score> s = find(scores, method, store, 0);
            md.append("| ").append(store).append(s.map(x -> String.format(Locale.ROOT, " | %s | %s | %s | %.2f | %s |%n",
                    num(x.median()), num(x.error()), spreadOf(x), x.median() / base, alloc(x.allocBytesPerOp())))
                    .orElse(" | n/a | | | | |\n"));
        }
    }

    private void queryTable(StringBuilder md, List<Score> scores) {
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

    private void churnTable(StringBuilder md, List<Score> scores) {
        md.append("| store |");
        for (int c : CHURN_CAPACITIES) {
            md.append(String.format(Locale.ROOT, " %,d ns | spread | × hintmap | B/op |", c));
        }
        md.append(" 2^20 / 2^16 | 2^20 / 256 |\n|---|");
        for (int i = 0; i < CHURN_CAPACITIES.length; i++) {
            md.append("---:|---:|---:|---:|");
        }
        md.append("---:|---:|\n");
        for (String store : QUERY_STORES) {
            md.append("| ").append(store);
            for (int c : CHURN_CAPACITIES) {
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

    private void iterateTable(StringBuilder md, List<Score> scores, String method) {
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

    private void openTable(StringBuilder md, List<Score> scores) {
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

    private void allocTable(StringBuilder md, List<Score> scores) {
        md.append("| benchmark | store | capacity | forks | B/op (median) | B/op (largest iteration) |\n|---|---|---:|---:|---:|---:|\n");
        for (Score s : scores) {
            if (s.store() != null && s.store().startsWith("HINTMAP")) {
                md.append(String.format(Locale.ROOT, "| %s | %s | %s | %d | %s | %s |%n", s.method(), s.store(),
                        s.capacity() == 0 ? "" : String.format(Locale.ROOT, "%,d", s.capacity()), s.forks(),
                        alloc(s.allocBytesPerOp()), allocExact(s.allocMax())));
            }
        }
        md.append("\n`recordFor` returns an `Optional<RegionRecord>` and `forEach` a `RegionRecord` and a `String` per region by ")
                .append("API contract; they are zero only where the JIT scalar-replaces the returned objects. `readInto` (by name and ")
                .append("through a `Region`) and `forEachView` allocate nothing by API shape (a reusable `MutableRecord`, one `RegionView` ")
                .append("per pass), as `AllocationFreeQueryTest` checks in the interpreter.\n");
    }

    private void nativeTable(StringBuilder md, Data d) {
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

    private double med(List<Score> scores, String method, String store, int capacity) {
        return find(scores, method, store, capacity).map(Score::median).orElse(Double.NaN);
    }

    static String num(double v) {
        if (Double.isNaN(v)) {
            return "n/a";
        }
        if (Math.abs(v) >= 1000) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        if (Math.abs(v) >= 100) {
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

    private static String allocExact(double v) {
        if (Double.isNaN(v)) {
            return "n/a";
        }
        return v < 10 ? String.format(Locale.ROOT, "%.4f", v) : String.format(Locale.ROOT, "%,.0f", v);
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
