package dev.hintmap.cli;

import dev.hintmap.HintFiles;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionOrder;
import dev.hintmap.VerifyReport;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code hintmap demo}: the whole system at work. Two native {@code hm-bench} "GPU driver" processes
 * (C library) and one Java runtime process record kernel dispatches into one shared file while this
 * process shows {@code top --watch} on it; then it prints {@code stat}, the hottest regions and the
 * result of {@code verify}.
 *
 * <p>The native writers are tools of the source tree ({@code native-bench/build/hm-bench}, which
 * {@code ./hintmap} builds and names through {@code hintmap.home}). An installed distribution has no
 * C tools: there, two more Java writer processes record the same kernel names in their place, and
 * the demo says so in one line, so that the demo works wherever the command does.
 */
@Command(name = "demo", versionProvider = HintmapCli.Version.class,
        footerHeading = CliReference.EXAMPLES_HEADING,
        footer = {
            "  hintmap demo --seconds 10",
        },
        description = {"Run the full demo (native and Java writers, live top).",
            "Native hm-bench writers and a Java writer record into one shared hint file while a live top view"
                    + " watches it; then it prints stat, the hottest regions and verify. Run from the source tree"
                    + " (./hintmap demo) for the native writers (C library); an installed hintmap has no C tools and"
                    + " runs Java writers in their place."})
final class DemoCommand implements Callable<Integer> {
    @Mixin
    HelpOption help;

    /** The native writers: name prefix, regions, Zipf skew, kernel time distribution, rate per thread. */
    private static final String[][] NATIVE_WRITERS = {
        {"cuda_gemm_bf16_", "24", "1.1", "lognormal:150000:0.6", "4000"},
        {"cuda_conv2d_nhwc_", "36", "0.9", "lognormal:40000:0.8", "6000"},
    };

    @Spec
    CommandSpec spec;

    @Mixin
    FileArgs files;

    @Mixin
    TableOptions table;

    @Option(names = "--seconds", paramLabel = "S", defaultValue = "15",
            description = "how long the writers record and top watches (default: ${DEFAULT-VALUE})")
    int seconds;

    @Option(names = "--file", paramLabel = "FILE",
            description = "the shared hint file, recreated (default: target/demo/demo.hints of the source tree, or a"
                    + " new temporary directory)")
    Path file;

    @Option(names = "--capacity", paramLabel = "N", defaultValue = "64",
            description = "capacity of the demo file: below the 68 regions the writers use, so CLOCK evicts"
                    + " (default: ${DEFAULT-VALUE})")
    int capacity;

    @Override
    public Integer call() throws Exception {
        if (seconds < 1 || seconds > 3600) {
            throw new ParameterException(spec.commandLine(), "--seconds must be in [1, 3600], not " + seconds);
        }
        String sourceTree = System.getProperty("hintmap.home"); // set by ./hintmap (HINTMAP_HOME), not by an installation
        Path home = sourceTree == null ? null : Path.of(sourceTree).toAbsolutePath().normalize();
        Path hmBench = home == null ? null : home.resolve("native-bench/build/hm-bench");
        boolean nativeWriters = hmBench != null && Files.isExecutable(hmBench);
        Path demoFile = (file != null ? file
                : home != null ? home.resolve("target/demo/demo.hints")
                : Files.createTempDirectory("hintmap-demo-").resolve("demo.hints")).toAbsolutePath();
        Files.createDirectories(demoFile.getParent());
        Files.deleteIfExists(demoFile);
        PrintWriter out = spec.commandLine().getOut();
        try (HintStore created = HintStore.open(demoFile, HintStoreOptions.defaults().capacity(capacity))) {
            out.println("demo: created " + demoFile + " (capacity " + created.capacity() + ", hot threshold "
                    + Units.duration(created.hotThresholdNs()) + ")");
        }
        // The writers outlast the live view by a little, so that every refresh shows them at work
        // (they start before this JVM's first snapshot, the Java writer a JVM start-up later).
        int writing = seconds + 2;
        List<Process> writers = new ArrayList<>();
        List<Path> logs = new ArrayList<>();
        Thread cleanup = new Thread(() -> writers.forEach(Process::destroyForcibly));
        Runtime.getRuntime().addShutdownHook(cleanup);
        try {
            String java = ProcessHandle.current().info().command().orElse("java");
            List<String> javaWriter = List.of(java, "--enable-native-access=ALL-UNNAMED", "-Xmx128m", "-cp",
                    System.getProperty("java.class.path"), DemoWriter.class.getName(), demoFile.toString(),
                    Integer.toString(writing));
            for (String[] w : NATIVE_WRITERS) {
                if (nativeWriters) {
                    writers.add(start(logs, demoFile, List.of(hmBench.toString(), "-f", demoFile.toString(), "--shared",
                            "-q", "-t", "1", "-d", Integer.toString(writing), "-P", w[0], "-r", w[1], "-s", w[2], "-k",
                            w[3], "-R", w[4], "-S", Integer.toString(writers.size() + 1))));
                } else {
                    // the same kernel names and rate from a Java process: THREADS RATE PREFIX REGIONS MEAN_NS
                    String meanNs = w[3].split(":")[1];
                    writers.add(start(logs, demoFile, concat(javaWriter, "1", w[4], w[0], w[1], meanNs)));
                }
            }
            writers.add(start(logs, demoFile, concat(javaWriter, "2", "3000")));
            out.println((nativeWriters ? "demo: 2 native hm-bench writers (C library) and 1 Java writer (2 threads)"
                    : "demo: 3 Java writers (" + (home == null
                            ? "an installed hintmap has no native hm-bench; ./hintmap demo in the source tree runs it"
                            : "no " + hmBench + ": make -C native-bench tools builds it") + ")")
                    + " record during the " + seconds + " s of the live view below (from before its first refresh to"
                    + " after its last); pids " + writers.stream().map(p -> Long.toString(p.pid())).toList());
            out.flush();
            try (HintStore reader = files.openReadOnly(demoFile)) {
                WatchScreen.run(out, 1000, seconds, RegionOrder.TOTAL_NS, reader::snapshot,
                        TopView.screen(20, new RegionFilter(), demoFile, table.layout()));
            }
            for (int i = 0; i < writers.size(); i++) {
                Process p = writers.get(i);
                if (!p.waitFor(seconds + 60L, TimeUnit.SECONDS)) {
                    throw new IOException("writer " + p.pid() + " did not finish");
                }
                String log = Files.readString(logs.get(i), StandardCharsets.UTF_8);
                if (p.exitValue() != 0) {
                    throw new IOException("writer " + p.pid() + " exited " + p.exitValue() + ":\n" + log);
                }
                out.println(summary(log, p.pid()));
            }
        } finally {
            writers.forEach(Process::destroyForcibly);
            Runtime.getRuntime().removeShutdownHook(cleanup);
            for (Path log : logs) {
                Files.deleteIfExists(log);
            }
        }
        out.println();
        out.println("$ hintmap stat " + demoFile);
        try (HintStore store = files.openReadOnly(demoFile)) {
            StatCommand.print(out, store.info(), store.snapshot().hotCount(), Instant.now());
            out.println();
            out.println("$ hintmap top -n 10 " + demoFile);
            TopView.render(store.snapshot(), null, 10, RegionOrder.TOTAL_NS, table.layout()).forEach(out::println);
        }
        VerifyReport report = HintFiles.verify(demoFile, files.options());
        out.println();
        out.println("$ hintmap verify " + demoFile);
        out.println((report.ok() ? "OK " : "FAILED ") + Units.count(report.regions()) + " regions, "
                + report.errors().size() + " problem(s)");
        out.flush();
        return report.ok() ? ExitCode.OK : ExitCode.PROBLEMS;
    }

    private static List<String> concat(List<String> command, String... more) {
        List<String> all = new ArrayList<>(command);
        all.addAll(List.of(more));
        return all;
    }

    private static Process start(List<Path> logs, Path demoFile, List<String> command) throws IOException {
        Path log = Files.createTempFile(demoFile.getParent(), "writer-", ".log");
        logs.add(log);
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /** hm-bench's result line, or the Java writer's own summary. */
    private static String summary(String log, long pid) {
        for (String line : log.split("\n")) {
            if (line.startsWith("result ")) {
                String records = field(line, "records");
                String rate = field(line, "records_per_s");
                return "native hm-bench pid " + pid + ": " + Units.count(Long.parseLong(records)) + " dispatches, "
                        + Units.count(Long.parseLong(rate)) + "/s";
            }
            if (line.startsWith("java writer")) {
                return line;
            }
        }
        return "writer " + pid + ": " + log.strip();
    }

    private static String field(String line, String key) {
        for (String part : line.split(" ")) {
            if (part.startsWith(key + "=")) {
                return part.substring(key.length() + 1);
            }
        }
        return "0";
    }
}
