package dev.hintmap.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * The output of a child process, read line by line as it comes, so that a test can wait for the
 * line a child prints when it reaches a state ({@code ready}, {@code polling}) instead of guessing
 * how long its start takes.
 */
public final class ChildOutput {
    private final Process process;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final Thread reader;

    /** Starts reading {@code process}'s standard output (with its errors, if redirected there). */
    public ChildOutput(Process process) {
        this.process = process;
        this.reader = Thread.ofPlatform().daemon().name("child-" + process.pid()).start(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    lines.add(line);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    /** Whether the child has printed {@code line} so far. */
    public boolean printed(String line) {
        return lines.contains(line);
    }

    /** Waits until the child prints {@code line}; fails if it ends without, or hangs. */
    public void await(String line) throws Exception {
        Await.until(() -> "child " + process.pid() + " printed " + line + ": " + lines,
                () -> printed(line) || !reader.isAlive());
        assertTrue(printed(line), () -> "child " + process.pid() + " ended without printing " + line + ": " + lines);
    }

    /** Waits until the child exits, asserts that it exited 0, and returns its last line. */
    public String lastLine() throws Exception {
        reader.join(TimeUnit.SECONDS.toMillis(Await.LIMIT_SECONDS));
        assertFalse(reader.isAlive(), () -> "child " + process.pid() + " finished: " + lines);
        assertTrue(process.waitFor(Await.LIMIT_SECONDS, TimeUnit.SECONDS), "child finished");
        assertEquals(0, process.exitValue(), () -> String.join("\n", lines));
        assertFalse(lines.isEmpty(), "child " + process.pid() + " printed nothing");
        return lines.get(lines.size() - 1);
    }

    /** Everything printed so far, one line each. */
    public List<String> lines() {
        return List.copyOf(lines);
    }
}
