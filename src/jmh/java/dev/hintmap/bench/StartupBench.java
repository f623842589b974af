package dev.hintmap.bench;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * Start-up as a user meets it (src/jmh/resources/dev/hintmap/bench/startup.md): whole processes, each command run
 * once to warm the file system cache and then {@code --runs} times in turn with the others, the
 * median wall time reported beside {@code java -version} of the same JDK (the floor of any Java
 * command), and each command's ratio to it taken round by round (the two ran seconds apart, so a
 * machine whose speed drifts moves both), the median of those ratios. Needs the distribution
 * ({@code ./mvnw package}); uses nothing but the JDK.
 *
 * <ul>
 *   <li>{@code hintmap stat FILE} and {@code hintmap --version} through the distribution's
 *       {@code bin/hintmap} (its ahead-of-time cache, serial collector, C1 only), and {@code stat}
 *       through the repository's {@code ./hintmap} wrapper (its freshness check, then the same);</li>
 *   <li>the same {@code stat} as the tool ran before it had a distribution: {@code java -cp
 *       target/hintmap.jar:target/hintmap-cli.jar:target/lib/*} with the JVM's defaults;</li>
 *   <li>{@code HintStore.open} of an existing file in a fresh JVM ({@link FirstOpen}: the open
 *       alone, timed inside the process), read-only and for writing, without and with an
 *       ahead-of-time cache trained by one run of the same program (what an application can do
 *       for its own start-up).</li>
 * </ul>
 *
 * <pre>./mvnw -Pjmh test-compile exec:exec@startup                  # 7 runs each
 * ./mvnw -Pjmh test-compile exec:exec@startup -Dstartup.runs=11</pre>
 */
public final class StartupBench {
    private StartupBench() {}

    /** Opens an existing hint file (args: FILE, ro or rw) and prints how long {@code HintStore.open} took, in ms. */
    public static final class FirstOpen {
        private FirstOpen() {}

        public static void main(String[] args) throws IOException {
            HintStoreOptions options = HintStoreOptions.defaults().readOnly(args[1].equals("ro"));
            long start = System.nanoTime();
            try (HintStore store = HintStore.open(Path.of(args[0]), options)) {
                long ns = System.nanoTime() - start;
                System.out.println(String.format(Locale.ROOT, "%.2f", ns / 1e6) + " " + store.size());
            }
        }
    }

    record Command(String name, List<String> argv, boolean inProcess) {}

    public static void main(String[] args) throws Exception {
        Path root = Path.of(args[0]).toAbsolutePath();
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 7;
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String version = Files.readString(root.resolve("target/classes/dev/hintmap/build.properties"))
                .replaceAll("(?s).*version=([^\\s]+).*", "$1");
        Path dist = root.resolve("target/hintmap-" + version);
        if (!Files.isExecutable(dist.resolve("bin/hintmap"))) {
            throw new IllegalStateException(dist + "/bin/hintmap is missing: run ./mvnw package first");
        }
        Path work = Files.createTempDirectory("hintmap-startup");
        try {
            Path file = work.resolve("app.hints");
            try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(4096))) {
                for (int i = 0; i < 1000; i++) {
                    store.record("cutlass_80_tensorop_bf16_gemm_" + i, 100_000L + i, 4096);
                }
            }
            Path firstOpenJar = firstOpenJar(work);
            String cp = firstOpenJar + ":" + root.resolve("target/hintmap.jar");
            Path aot = work.resolve("first-open.aot");
            run(List.of(java, "--enable-native-access=ALL-UNNAMED", "-XX:AOTCacheOutput=" + aot, "-cp", cp,
                    FirstOpen.class.getName(), file.toString(), "rw"), work);
            String hintmap = dist.resolve("bin/hintmap").toString();
            List<Command> commands = List.of(
                    new Command("java -version", List.of(java, "-version"), false),
                    new Command("bin/hintmap stat FILE", List.of(hintmap, "stat", file.toString()), false),
                    new Command("./hintmap stat FILE (the repository's wrapper)",
                            List.of(root.resolve("hintmap").toString(), "stat", file.toString()), false),
                    new Command("bin/hintmap --version", List.of(hintmap, "--version"), false),
                    new Command("java -cp target/hintmap.jar:target/hintmap-cli.jar:target/lib/* ...HintmapCli stat FILE"
                            + " (JVM defaults, no cache)",
                            List.of(java, "--enable-native-access=ALL-UNNAMED", "-cp", root.resolve("target/hintmap.jar") + ":"
                                    + root.resolve("target/hintmap-cli.jar") + ":" + root.resolve("target/lib/*"),
                                    "dev.hintmap.cli.HintmapCli", "stat", file.toString()), false),
                    new Command("HintStore.open, read-only (in-process, JVM defaults)", firstOpen(java, cp, file, "ro", null), true),
                    new Command("HintStore.open, for writing (in-process, JVM defaults)", firstOpen(java, cp, file, "rw", null), true),
                    new Command("HintStore.open, read-only (in-process, the program's own AOT cache)",
                            firstOpen(java, cp, file, "ro", aot), true),
                    new Command("HintStore.open, for writing (in-process, the program's own AOT cache)",
                            firstOpen(java, cp, file, "rw", aot), true));
            double[][] ms = new double[commands.size()][runs];
            for (int c = 0; c < commands.size(); c++) {
                measure(commands.get(c), work); // warm-up, not counted
            }
            for (int r = 0; r < runs; r++) {
                for (int c = 0; c < commands.size(); c++) {
                    ms[c][r] = measure(commands.get(c), work);
                }
            }
            System.out.println("| command | median ms | min | max | × java -version (median of the rounds' ratios) |");
            System.out.println("|---|---:|---:|---:|---:|");
            for (int c = 0; c < commands.size(); c++) {
                double[] sorted = ms[c].clone();
                Arrays.sort(sorted);
                double[] ratios = new double[runs];
                for (int r = 0; r < runs; r++) {
                    ratios[r] = ms[c][r] / ms[0][r]; // commands.get(0) is java -version
                }
                Arrays.sort(ratios);
                String ratio = commands.get(c).inProcess() ? "" : String.format(Locale.ROOT, "%.2f", ratios[runs / 2]);
                System.out.println(String.format(Locale.ROOT, "| %s | %.0f | %.0f | %.0f | %s |", commands.get(c).name(),
                        sorted[runs / 2], sorted[0], sorted[runs - 1], ratio));
            }
            System.out.println();
            System.out.println(runs + " runs each, in turn, after one warm-up each; whole-process wall time, except"
                    + " HintStore.open, timed inside the process. JDK " + Runtime.version() + ", "
                    + Runtime.getRuntime().availableProcessors() + " processors.");
        } finally {
            try (Stream<Path> files = Files.walk(work)) {
                for (Path p : files.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    private static List<String> firstOpen(String java, String cp, Path file, String mode, Path aot) {
        List<String> argv = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED"));
        if (aot != null) {
            argv.add("-XX:AOTCache=" + aot);
        }
        argv.addAll(List.of("-cp", cp, FirstOpen.class.getName(), file.toString(), mode));
        return argv;
    }

    /** One run: its wall ms, or for an in-process figure the ms it printed. */
    private static double measure(Command command, Path work) throws Exception {
        long start = System.nanoTime();
        String out = run(command.argv(), work);
        double wall = (System.nanoTime() - start) / 1e6;
        return command.inProcess() ? Double.parseDouble(out.strip().split(" ")[0]) : wall;
    }

    private static String run(List<String> argv, Path work) throws Exception {
        Process p = new ProcessBuilder(argv).directory(work.toFile()).redirectErrorStream(true).start();
        byte[] out;
        try (InputStream in = p.getInputStream()) {
            out = in.readAllBytes();
        }
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException(argv + " failed:\n" + new String(out, StandardCharsets.UTF_8));
        }
        return new String(out, StandardCharsets.UTF_8);
    }

    /** FirstOpen in a jar of its own: an ahead-of-time cache takes jars only on its class path. */
    private static Path firstOpenJar(Path work) throws IOException {
        Path jar = work.resolve("first-open.jar");
        String entry = FirstOpen.class.getName().replace('.', '/') + ".class";
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file);
                InputStream in = StartupBench.class.getClassLoader().getResourceAsStream(entry)) {
            out.putNextEntry(new JarEntry(entry));
            in.transferTo(out);
            out.closeEntry();
        }
        return jar;
    }
}
