package dev.hintmap.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Starts a second JVM on the test class path, as a separate process sharing our files. */
public final class ChildJvm {
    private ChildJvm() {}

    public static ProcessBuilder builder(Class<?> main, String... args) {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElseThrow());
        command.add("--enable-native-access=ALL-UNNAMED");
        command.add("-Xmx256m");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(main.getName());
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true);
    }

    /** Runs {@code main} to completion and returns its output; fails if it exits non-zero. */
    public static String run(Class<?> main, String... args) throws IOException, InterruptedException {
        Process process = builder(main, args).start();
        byte[] out = process.getInputStream().readAllBytes();
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("child " + main.getSimpleName() + " did not finish");
        }
        String text = new String(out, StandardCharsets.UTF_8);
        if (process.exitValue() != 0) {
            throw new AssertionError("child " + main.getSimpleName() + " exited " + process.exitValue() + ":\n" + text);
        }
        return text;
    }
}
