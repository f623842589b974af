package dev.hintmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.testkit.FileChild;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Under {@code --illegal-native-access=deny}, the JDK's announced future default, a JVM that did
 * not grant native access gets a {@link HintFileException} naming the flag, never an
 * {@code ExceptionInInitializerError}, and the file is not touched.
 */
class NativeAccessTest {
    @TempDir Path dir;

    private static String child(List<String> flags, Path file) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElseThrow());
        command.addAll(flags);
        command.add("-Xmx128m");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(FileChild.class.getName());
        command.add("create");
        command.add(file.toString());
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "child did not finish");
        assertEquals(0, p.exitValue(), out);
        return out.strip();
    }

    @Test
    void deniedNativeAccessIsAHintFileExceptionNamingTheFlagAndCreatesNothing() throws Exception {
        Path file = dir.resolve("denied.hints");
        String out = child(List.of("--illegal-native-access=deny"), file);
        assertTrue(out.startsWith("NATIVE_ACCESS "), out);
        assertTrue(out.contains("--enable-native-access=ALL-UNNAMED"), out);
        assertTrue(Files.notExists(file));
        try (var listing = Files.list(dir)) {
            assertEquals(List.of(), listing.toList(), "no temporary left either");
        }
    }

    @Test
    void grantedNativeAccessOpensUnderDeny() throws Exception {
        Path file = dir.resolve("granted.hints");
        assertEquals("ok", child(List.of("--illegal-native-access=deny", "--enable-native-access=ALL-UNNAMED"), file));
        assertTrue(Files.exists(file));
    }

    @Test
    void undeclaredNativeAccessStillWorksWithTheJvmsWarningUnderTheDefaultMode() throws Exception {
        Path file = dir.resolve("warned.hints");
        String out = child(List.of(), file);
        assertTrue(out.endsWith("ok"), out);
        assertTrue(out.contains("WARNING"), "the JVM warns about the restricted call: " + out);
    }
}
