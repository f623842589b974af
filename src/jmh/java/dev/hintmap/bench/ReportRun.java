package dev.hintmap.bench;

import dev.hintmap.HintFileInfo;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * The measuring half of the report: the machine's description, the native tools ({@code hm-floor},
 * {@code hm-bench}, interleaved repeats), the eviction simulator and the JMH plan, each writing its
 * raw output under {@code bench-results/} for {@link ReportResults} to read back.
 */
final class ReportRun {
    static final int NATIVE_REPEATS = 7;
    /** hm-bench names: prefix + %05d, so that they are exactly Workload.name(i) (23 bytes) for i < 100,000. */
    static final String NATIVE_PREFIX = "gemm_bf16_128x64_0";

    private final Path root;
    private final Path results;
    private final ReportPlan plan;

    ReportRun(Path root, ReportPlan plan) {
        this.root = root;
        this.results = root.resolve("bench-results");
        this.plan = plan;
    }

    void run() throws IOException, InterruptedException {
        Files.createDirectories(results);
        try (Stream<Path> old = Files.list(results)) {
            for (Path p : old.toList()) {
                Files.deleteIfExists(p);
            }
        }
        Instant start = Instant.now();
        StringBuilder runInfo = new StringBuilder("mode=" + (plan.quick() ? "quick" : "full") + "\n");
        write("machine.txt", machine());
        Instant t = Instant.now();
        runNative();
        runInfo.append("group.native.seconds=").append(Duration.between(t, Instant.now()).toSeconds()).append('\n');
        t = Instant.now();
        runSimulator();
        runInfo.append("group.simulator.seconds=").append(Duration.between(t, Instant.now()).toSeconds()).append('\n');
        StringBuilder errors = new StringBuilder();
        for (ReportPlan.Job job : plan.jobs()) {
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
        // The commit, and the tracked files that differ from it, by name: `git describe --dirty` said only
        // "-dirty", which told a reader nothing about whether the code measured was that commit's.
        String commit;
        String dirty;
        try {
            commit = exec(List.of("git", "rev-parse", "--short", "HEAD")).strip();
            dirty = String.join(" ", exec(List.of("git", "status", "--porcelain", "--untracked-files=no")).lines()
                    .map(l -> l.substring(3)).toList());
        } catch (IOException e) {
            commit = "unknown";
            dirty = "";
        }
        sb.append("commit=").append(commit).append('\n');
        sb.append("dirty=").append(dirty).append('\n');
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
                    List.of(bench, "-t", "2", "-n", "5000000", "-r", "64", "-s", "1.0", "-P", NATIVE_PREFIX, "-H", "-q"),
                    // the optimizer's side: reads of the same 64 regions, by name and through handles
                    read(bench, "is-hot", false), read(bench, "is-hot", true),
                    read(bench, "dispatch-count", false), read(bench, "dispatch-count", true),
                    read(bench, "record", false), read(bench, "record", true));
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

    /** hm-bench's read mode on the record rows' workload; the key ReportResults.nativeValue matches ("--read QUERY "). */
    private static List<String> read(String bench, String query, boolean handles) {
        List<String> command = new ArrayList<>(List.of(bench, "-t", "1", "-n", "10000000", "-r", "64", "-s", "1.0", "-P",
                NATIVE_PREFIX, "--read", query));
        if (handles) {
            command.add("-H");
        }
        command.add("-q");
        return command;
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

    private void jmh(ReportPlan.Job job) throws Exception {
        ReportPlan.Settings s = plan.settings(job);
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
}
