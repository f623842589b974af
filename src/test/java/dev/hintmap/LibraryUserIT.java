package dev.hintmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the README tells a library user, done as one would: an application compiled against the
 * packaged {@code target/hintmap.jar} alone (no CLI library beside it), run on the class path and on
 * the module path with exactly the README's native-access flag, under
 * {@code --illegal-native-access=deny} so that a wrong flag cannot pass on a warning.
 */
class LibraryUserIT {
    private static final String APP = """
            package com.example.app;

            import dev.hintmap.HintStore;
            import dev.hintmap.HintStoreOptions;
            import java.nio.file.Path;

            public final class Main {
                public static void main(String[] args) throws Exception {
                    try (HintStore store = HintStore.open(Path.of(args[0]), HintStoreOptions.defaults())) {
                        store.record("gemm_bf16", 420_000, 1 << 20);
                        store.record("gemm_bf16", 380_000, 1 << 20);
                        System.out.println(store.region("gemm_bf16").dispatchCount() + " " + store.isHot("gemm_bf16"));
                    } catch (dev.hintmap.HintFileException e) {
                        System.out.println(e.problem() + " " + e.getMessage());
                    }
                }
            }
            """;

    @TempDir static Path work;
    private static Path jar;
    private static Path classes;
    private static Path modules;

    private static Path tool(String name) {
        return Path.of(System.getProperty("java.home"), "bin", name);
    }

    private static String run(List<String> command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "did not finish: " + command);
        assertEquals(0, p.exitValue(), command + "\n" + out);
        return out.strip();
    }

    @BeforeAll
    static void compileTheApplicationBothWays() throws Exception {
        jar = Path.of(System.getProperty("hintmap.home", ".")).resolve("target/hintmap.jar").toAbsolutePath();
        assertTrue(Files.isRegularFile(jar), "package builds " + jar);
        Path src = Files.createDirectories(work.resolve("src/com/example/app"));
        Files.writeString(src.resolve("Main.java"), APP);
        classes = work.resolve("classpath-app");
        run(List.of(tool("javac").toString(), "-d", classes.toString(), "-cp", jar.toString(),
                src.resolve("Main.java").toString()));

        Path moduleSrc = Files.createDirectories(work.resolve("module-src"));
        Files.writeString(moduleSrc.resolve("module-info.java"),
                "module com.example.app { requires dev.hintmap; }\n");
        modules = work.resolve("module-app");
        run(List.of(tool("javac").toString(), "-d", modules.toString(), "-p", jar.toString(),
                moduleSrc.resolve("module-info.java").toString(), src.resolve("Main.java").toString()));
    }

    private static String classPath(Path file, String... flags) throws Exception {
        List<String> command = new ArrayList<>(List.of(tool("java").toString(), "--illegal-native-access=deny"));
        command.addAll(List.of(flags));
        command.addAll(List.of("-cp", classes + File.pathSeparator + jar, "com.example.app.Main", file.toString()));
        return run(command);
    }

    private static String modulePath(Path file, String... flags) throws Exception {
        List<String> command = new ArrayList<>(List.of(tool("java").toString(), "--illegal-native-access=deny"));
        command.addAll(List.of(flags));
        command.addAll(List.of("-p", modules + File.pathSeparator + jar, "-m", "com.example.app/com.example.app.Main",
                file.toString()));
        return run(command);
    }

    @Test
    void onTheClassPathTheReadmeFlagIsAllItNeeds() throws Exception {
        assertEquals("2 true", classPath(work.resolve("cp.hints"), "--enable-native-access=ALL-UNNAMED"));
    }

    @Test
    void onTheModulePathTheReadmeFlagIsAllItNeeds() throws Exception {
        assertEquals("2 true", modulePath(work.resolve("mp.hints"), "--enable-native-access=dev.hintmap"));
    }

    @Test
    void withoutTheFlagEachWayTheErrorNamesTheFlagForThatWay() throws Exception {
        String cp = classPath(work.resolve("cp-denied.hints"));
        assertTrue(cp.startsWith("NATIVE_ACCESS ") && cp.contains("--enable-native-access=ALL-UNNAMED"), cp);
        String mp = modulePath(work.resolve("mp-denied.hints"));
        assertTrue(mp.startsWith("NATIVE_ACCESS ") && mp.contains("--enable-native-access=dev.hintmap"), mp);
        assertTrue(Files.notExists(work.resolve("cp-denied.hints")) && Files.notExists(work.resolve("mp-denied.hints")));
    }
}
