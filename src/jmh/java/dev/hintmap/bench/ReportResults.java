package dev.hintmap.bench;

import static dev.hintmap.bench.ReportFormat.median;
import static dev.hintmap.bench.ReportFormat.num;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * What one run left in {@code bench-results/} ({@link ReportRun}), read once for the report: the JMH
 * scores, the native tools' figures, the simulator's rows, the machine and the run's timings; and
 * each figure a table or a target row reads, as a {@link Measured} or why it is missing.
 */
final class ReportResults {
    private final Path results;
    final List<Score> scores;
    final Map<String, Map<String, List<Double>>> natives;
    final String nativeError;
    final Map<String, String> machine;
    final Map<String, String> run;
    final List<EvictionSimulator.Row> eviction;

    ReportResults(Path results) throws IOException {
        this.results = results;
        scores = readJmh();
        natives = readNative();
        nativeError = readText("native-error.txt");
        machine = readProperties("machine.txt");
        run = readProperties("run.txt");
        eviction = readEviction();
    }

    Measured jmh(String method, String store, int capacity) {
        Optional<Score> s = find(scores, method, store, capacity);
        if (s.isEmpty()) {
            return Measured.missing(whyMissing(method, store, capacity));
        }
        Score x = s.get();
        String unit = x.unit() == null ? "" : " " + x.unit().replace("/op", "");
        if (x.forks() >= 2) {
            List<Double> fm = x.forkMedians();
            return new Measured(x.median(), Collections.min(fm), Collections.max(fm),
                    "forks " + fm.stream().map(ReportFormat::num).collect(Collectors.joining(" / ")) + unit,
                    null, x.allocMax(), true);
        }
        return new Measured(x.median(), x.min(), x.max(),
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

    /**
     * A native figure: {@code what} is "hm-bench" (records), "hm-bench --read QUERY" (reads: hm-bench's
     * read mode, whose ns_per_record is per read), or another command's distinguishing part, e.g.
     * "hm-floor lock shared 1".
     */
    Measured nativeValue(String what, boolean handles, int threads, String field) {
        if (!nativeError.isEmpty() && natives.isEmpty()) {
            return Measured.missing("not measured: the native tools did not run (" + nativeError + ")");
        }
        for (Map.Entry<String, Map<String, List<Double>>> e : natives.entrySet()) {
            String k = e.getKey();
            boolean match = what.startsWith("hm-bench")
                    ? k.contains("hm-bench -t " + threads + " ") && k.contains(" -H") == handles
                        && (what.equals("hm-bench") ? !k.contains("--read") : k.contains(what.substring("hm-bench ".length()) + " "))
                    : k.equals(what);
            if (match) {
                List<Double> v = e.getValue().getOrDefault(field, List.of());
                if (v.isEmpty()) {
                    break;
                }
                double lo = Collections.min(v);
                double hi = Collections.max(v);
                return new Measured(median(v), lo, hi, String.format(Locale.ROOT, "%d runs %s–%s ns", v.size(), num(lo), num(hi)),
                        null, Double.NaN, true);
            }
        }
        return Measured.missing("not measured: no " + what + " result" + (nativeError.isEmpty() ? "" : " (" + nativeError + ")"));
    }

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
            return raw.stream().map(ReportFormat::median).toList();
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

    static Optional<Score> find(List<Score> scores, String method, String store, int capacity) {
        return scores.stream().filter(s -> s.method().equals(method) && Objects.equals(s.store(), store)
                && s.capacity() == capacity).findFirst();
    }

    static double med(List<Score> scores, String method, String store, int capacity) {
        return find(scores, method, store, capacity).map(Score::median).orElse(Double.NaN);
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
}
