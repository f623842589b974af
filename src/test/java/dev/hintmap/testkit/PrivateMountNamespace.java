package dev.hintmap.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a shell script as root in a private mount namespace ({@code unshare -m}), where a test
 * may mount a small tmpfs and fill it: the full-filesystem cases. Where that is impossible (not
 * root, no {@code unshare}) the test is skipped with one printed line.
 */
public final class PrivateMountNamespace {
    private PrivateMountNamespace() {}

    /**
     * Runs {@code script} with {@code sh -c} in a private mount namespace and returns its output
     * lines; fails unless it exits 0 within 180 s.
     *
     * @param tests what is skipped where no namespace can be made, for the skip line
     */
    public static List<String> run(String tests, String script) throws Exception {
        boolean root = "0".equals(new String(new ProcessBuilder("id", "-u").start().getInputStream().readAllBytes(),
                StandardCharsets.US_ASCII).strip());
        boolean unshare = root && new ProcessBuilder("unshare", "-m", "true").start().waitFor() == 0;
        if (!unshare) {
            System.out.println("SKIP " + tests + ": need root and unshare -m (tmpfs in a private mount namespace)");
        }
        assumeTrue(unshare, "root and unshare -m");
        Process p = new ProcessBuilder("unshare", "-m", "--propagation", "private", "sh", "-c", script)
                .redirectErrorStream(true).start();
        List<String> lines = new ArrayList<>();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = out.readLine()) != null; ) {
                lines.add(line);
            }
        }
        assertTrue(p.waitFor(180, TimeUnit.SECONDS), "the namespace script finished");
        assertEquals(0, p.exitValue(), "the namespace script succeeded: " + lines);
        return lines;
    }
}
