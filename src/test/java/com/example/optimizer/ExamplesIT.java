package com.example.optimizer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The examples of {@code src/examples/java} as a user has them: compiled against the packaged
 * {@code target/hintmap.jar} on the module path (so a use of anything but the exported
 * {@code dev.hintmap} package fails to compile), then run on the class path with the README's flag.
 */
class ExamplesIT {
    @TempDir Path work;

    private static String run(List<String> command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "did not finish: " + command);
        assertEquals(0, p.exitValue(), command + "\n" + out);
        return out;
    }

    private static String tool(String name) {
        return Path.of(System.getProperty("java.home"), "bin", name).toString();
    }

    /**
     * docs/GUIDE.md's lines, read from the document and run by {@code sh -e} in the repository
     * root as a user runs them: JAVA_HOME unset and the system's {@code java} (17 here) first on PATH,
     * so they must find a JDK 22+ themselves; the document's example file is replaced by one of
     * this test. They must compile and run the example and leave nothing in the repository.
     */
    @Test
    void theDocumentedLinesRunTheExampleWithAJdkTheyFindAndWriteNothingIntoTheRepository() throws Exception {
        Path home = Path.of(System.getProperty("hintmap.home", ".")).toAbsolutePath();
        List<String> doc = Files.readAllLines(home.resolve("docs/GUIDE.md"));
        int at = 0;
        while (at < doc.size() && !doc.get(at).contains("To run it on your own hint file")) {
            at++;
        }
        List<String> lines = new java.util.ArrayList<>();
        for (int i = at; i < doc.size(); i++) {
            if (doc.get(i).startsWith("    ")) {
                lines.add(doc.get(i).substring(4));
            } else if (!lines.isEmpty()) {
                break;
            }
        }
        assertTrue(lines.size() >= 2 && String.join("\n", lines).contains("/var/tmp/app.hints"), "the lines: " + lines);

        Path file = work.resolve("app.hints");
        try (HintStore runtime = HintStore.open(file, HintStoreOptions.defaults())) {
            for (int i = 0; i < 20; i++) {
                runtime.record("gemm_bf16_128x128x64", 420_000, 1 << 20);
            }
        }
        Path tmp = Files.createDirectory(work.resolve("tmp"));
        Set<String> before = untracked(home);
        ProcessBuilder pb = new ProcessBuilder("sh", "-ec", String.join("\n", lines).replace("/var/tmp/app.hints",
                file.toString())).directory(home.toFile()).redirectErrorStream(true);
        pb.environment().remove("JAVA_HOME");
        pb.environment().put("PATH", "/usr/local/bin:/usr/bin:/bin");
        pb.environment().put("TMPDIR", tmp.toString());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(180, TimeUnit.SECONDS), "finished: " + lines);
        assertEquals(0, p.exitValue(), lines + "\n" + out);
        assertEquals(List.of("gemm_bf16_128x128x64: " + String.join(", ", PassScheduler.HOT_SCHEDULE)), out.lines().toList());
        assertEquals(before, untracked(home), "nothing new in the repository");
        try (Stream<Path> compiled = Files.walk(tmp)) {
            assertTrue(compiled.anyMatch(f -> f.endsWith("com/example/optimizer/PassScheduler.class")),
                    "the classes went to the temporary directory");
        }
    }

    /** The files git would list as untracked in the repository (ignored ones left out). */
    private static Set<String> untracked(Path home) throws Exception {
        Process git = new ProcessBuilder("git", "status", "--porcelain", "--untracked-files=all").directory(home.toFile())
                .redirectErrorStream(true).start();
        String out = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(git.waitFor(60, TimeUnit.SECONDS));
        return new java.util.TreeSet<>(out.lines().filter(l -> l.startsWith("?? ")).toList());
    }

    @Test
    void theOptimizerExampleCompilesAgainstTheExportedApiAndSchedulesAHintFile() throws Exception {
        Path home = Path.of(System.getProperty("hintmap.home", ".")).toAbsolutePath();
        Path jar = home.resolve("target/hintmap.jar");
        List<String> sources;
        try (Stream<Path> files = Files.walk(home.resolve("src/examples/java"))) {
            sources = files.filter(f -> f.toString().endsWith(".java")).map(Path::toString).toList();
        }
        Path classes = work.resolve("classes");
        run(Stream.concat(Stream.of(tool("javac"), "-Xlint:all", "-Werror", "-d", classes.toString(),
                "-p", jar.toString(), "--add-modules", "dev.hintmap"), sources.stream()).toList());

        Path file = work.resolve("app.hints");
        try (HintStore runtime = HintStore.open(file, HintStoreOptions.defaults())) {
            for (int i = 0; i < 20; i++) {
                runtime.record("gemm_bf16_128x128x64", 420_000, 1 << 20);
                runtime.record("elementwise_gelu", 3_000, 1 << 12);
            }
        }
        String out = run(List.of(tool("java"), "--illegal-native-access=deny", "--enable-native-access=ALL-UNNAMED", "-cp",
                classes + File.pathSeparator + jar, "com.example.optimizer.PassScheduler", file.toString(),
                "gemm_bf16_128x128x64", "elementwise_gelu"));
        assertEquals(List.of("gemm_bf16_128x128x64: " + String.join(", ", PassScheduler.HOT_SCHEDULE),
                "elementwise_gelu: " + String.join(", ", PassScheduler.DEFAULT_SCHEDULE)), out.lines().toList());
    }
}
