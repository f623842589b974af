package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's {@code ./hintmap} launcher after {@code package}, as a user runs it: with JAVA_HOME
 * unset and only the system's {@code java} (17 on our machines) on PATH, so it must find a JDK 22+
 * itself; the jar just built counts as fresh (no rebuild).
 */
class LauncherIT {
    @TempDir
    Path dir;

    record Run(int exit, String out, String err) {}

    private static Run launch(String... args) throws IOException, InterruptedException {
        return launchAs(Cli.home().resolve("hintmap"), args);
    }

    private static Run launchAs(Path launcher, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(launcher.toString());
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command);
        Map<String, String> env = pb.environment();
        env.remove("JAVA_HOME");
        env.put("PATH", "/usr/local/bin:/usr/bin:/bin");
        Path err = java.nio.file.Files.createTempFile("launcher", ".err");
        pb.redirectError(err.toFile());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(300, TimeUnit.SECONDS), "launcher finished");
        String errText = java.nio.file.Files.readString(err);
        java.nio.file.Files.delete(err);
        return new Run(p.exitValue(), out, errText);
    }

    @Test
    void helpListsTheCommandsWithoutRebuildingAFreshJar() throws Exception {
        Run r = launch("--help");
        assertEquals(0, r.exit(), r.err());
        for (String command : new String[] {"stat", "top", "dump", "merge", "copy", "decay", "verify", "export", "demo"}) {
            assertTrue(r.out().contains("  " + command + " "), r.out());
        }
        assertFalse(r.err().contains("building"), "the jar of this build is fresh:\n" + r.err());
    }

    @Test
    void theReadmeDemoRunsAsWrittenAndTheFileCanBeInspectedAfterwards() throws Exception {
        Path file = dir.resolve("demo.hints");
        Run demo = launch("demo", "--seconds", "3", "--file", file.toString());
        assertEquals(0, demo.exit(), demo.out() + demo.err());
        assertTrue(demo.out().contains("$ hintmap verify " + file + "\nOK "), demo.out());
        Run stat = launch("stat", file.toString());
        assertEquals(0, stat.exit(), stat.err());
        assertTrue(stat.out().contains("capacity         64 regions"), stat.out());
        Run missing = launch("stat", dir.resolve("missing.hints").toString());
        assertEquals(ExitCode.BAD_FILE, missing.exit());
        assertTrue(missing.err().contains("no such hint file"), missing.err());
    }

    @Test
    void theLauncherWorksThroughASymlinkFromAnotherDirectory() throws Exception {
        Path link = java.nio.file.Files.createSymbolicLink(dir.resolve("hintmap"), Cli.home().resolve("hintmap"));
        Run r = launchAs(link, "--version");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().startsWith("hintmap "), r.out());
    }

    @Test
    void aMissingCToolchainIsOneLineNamingWhatToInstall() throws Exception {
        // a PATH with sh and the utilities, but neither make nor gcc
        Path bin = java.nio.file.Files.createDirectory(dir.resolve("bin"));
        java.nio.file.Files.createSymbolicLink(bin.resolve("sh"), Path.of("/bin/sh"));
        ProcessBuilder pb = new ProcessBuilder(Cli.home().resolve("native-bench/make.sh").toString(), "-s", "tools");
        pb.environment().put("PATH", bin.toString());
        pb.redirectErrorStream(true);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(127, p.exitValue(), out);
        assertEquals(1, out.strip().lines().count(), out);
        assertTrue(out.contains("'make' not found") && out.contains("-DskipTests"), out);
    }
}
