package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.testkit.Await;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs {@code hintmap} commands in this JVM and makes the hint files they read, from Java and from C. */
final class Cli {
    private Cli() {}

    /** What a command printed and returned. */
    record Result(int exit, String out, String err) {
        Result expect(int code) {
            assertEquals(code, exit, () -> "exit status; stdout:\n" + out + "\nstderr:\n" + err);
            return this;
        }
    }

    static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = HintmapCli.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Result(exit, out.toString(), err.toString());
    }

    /** The repository root (the build sets hintmap.home). */
    static Path home() {
        return Path.of(System.getProperty("hintmap.home", ".")).toAbsolutePath().normalize();
    }

    /** A tool of native-bench/build, built by the compile phase (make tools) before these tests. */
    static Path nativeTool(String name) {
        Path tool = Path.of(System.getProperty("hintmap.native.build", "native-bench/build")).resolve(name);
        assertTrue(Files.isExecutable(tool), tool + " is missing: the compile phase (make -C native-bench tools) makes it");
        return tool.toAbsolutePath();
    }

    /** One line of samples.txt. */
    record Sample(String name, long kernelNs, long bytes) {}

    static final int SAMPLES_CAPACITY = 12;
    /** The golden outputs' layout (file sizes, stat's lines) is that of this limit, not the default's. */
    static final int SAMPLES_MAX_NAME_BYTES = 64;

    static List<Sample> samples() throws IOException {
        List<Sample> samples = new ArrayList<>();
        try (InputStream in = Cli.class.getResourceAsStream("samples.txt")) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] f = line.split(" ");
                samples.add(new Sample(f[0], Long.parseLong(f[1]), Long.parseLong(f[2])));
            }
        }
        return samples;
    }

    /** samples.txt recorded by the Java library. */
    static Path writtenByJava(Path file) throws IOException {
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(SAMPLES_CAPACITY).maxNameBytes(SAMPLES_MAX_NAME_BYTES))) {
            for (Sample s : samples()) {
                store.record(s.name(), s.kernelNs(), s.bytes());
            }
        }
        return file;
    }

    /** samples.txt recorded by the C library (native-bench hm-replay). */
    static Path writtenByC(Path file) throws Exception {
        Path samples = file.resolveSibling("samples.txt");
        try (InputStream in = Cli.class.getResourceAsStream("samples.txt")) {
            Files.write(samples, in.readAllBytes());
        }
        Process p = new ProcessBuilder(nativeTool("hm-replay").toString(), file.toString(), samples.toString(),
                Integer.toString(SAMPLES_CAPACITY), Integer.toString(SAMPLES_MAX_NAME_BYTES)).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "hm-replay finished");
        assertEquals(0, p.exitValue(), out);
        return file;
    }

    /** How the file was written, for parameterised tests. */
    enum Writer {
        JAVA, C;

        Path write(Path file) throws Exception {
            return this == JAVA ? writtenByJava(file) : writtenByC(file);
        }
    }

    /** Starts {@code main} (a class of these tests) in a second JVM on the test class path. */
    static Process javaChild(Class<?> main, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElseThrow(),
                "--enable-native-access=ALL-UNNAMED", "-Xmx128m", "-cp", System.getProperty("java.class.path"),
                main.getName()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    /** Sends {@code signal} (e.g. STOP, CONT) to the process, with kill(1). */
    static void signal(Process process, String signal) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
        assertTrue(kill.waitFor(30, TimeUnit.SECONDS) && kill.exitValue() == 0, "kill -" + signal);
    }

    /** Stops the process (SIGSTOP) and polls /proc until it is stopped (state T); fails on a hang ({@link Await}). */
    static void stop(Process process) throws Exception {
        signal(process, "STOP");
        Path stat = Path.of("/proc", Long.toString(process.pid()), "stat");
        Await.until("process " + process.pid() + " stopped (state T in " + stat + ")", () -> {
            String s = Files.readString(stat);
            return s.charAt(s.lastIndexOf(')') + 2) == 'T';
        });
    }

    /** The processes attached to {@code file} as writers now and alive, read through the library. */
    static List<Long> liveWriters(Path file) throws IOException {
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            return store.info().writers().stream().filter(w -> w.alive()).map(w -> w.pid()).toList();
        }
    }

    /** Polls until {@code file} exists and has at least {@code n} live writers; fails on a hang ({@link Await}). */
    static void awaitLiveWriters(Path file, int n) throws Exception {
        Await.until(n + " live writer(s) attached to " + file, () -> Files.exists(file) && liveWritersOrNone(file) >= n);
    }

    private static int liveWritersOrNone(Path file) {
        try {
            return liveWriters(file).size();
        } catch (IOException e) {
            return 0; // not published yet
        }
    }

    /** Writer entries one {@link #hmBench} holds: its parent (the baseline store) and its one worker process. */
    static final int HM_BENCH_WRITERS = 2;

    /** A running hm-bench process recording into {@code file} for {@code seconds}. */
    static Process hmBench(Path file, int seconds, String prefix, int regions) throws IOException {
        return new ProcessBuilder(nativeTool("hm-bench").toString(), "-f", file.toString(), "--shared", "-q",
                "-d", Integer.toString(seconds), "-P", prefix, "-r", Integer.toString(regions), "-R", "20000",
                "-k", "lognormal:150000:0.5")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    }
}
