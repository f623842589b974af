package dev.hintmap.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A second process that maps a hint file and stays alive until closed: the live holder that
 * FORMAT.md §6.3 means (a pid and start time alone no longer make a holder alive: it must map
 * the file). Tests plant its token in lock words and writer entries.
 */
public final class LiveUser implements AutoCloseable {
    private final Process process;

    private LiveUser(Process process) {
        this.process = process;
    }

    /** Starts a process that maps {@code file} and returns once it does. */
    public static LiveUser mapping(Path file) throws IOException {
        return start("map", file);
    }

    /** Starts a process that maps {@code file}, any file (a version-1 hint file too), and returns once it does. */
    public static LiveUser mappingAnyFile(Path file) throws IOException {
        return start("mapraw", file);
    }

    private static LiveUser start(String how, Path file) throws IOException {
        Process p = ChildJvm.builder(FileChild.class, how, file.toString()).start();
        String line = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)).readLine();
        if (line == null || !line.startsWith("mapped")) {
            p.destroyForcibly();
            throw new IOException("the child did not map " + file + ": " + line);
        }
        return new LiveUser(p);
    }

    public long pid() {
        return process.pid();
    }

    /** Its writer token as FORMAT.md §3.5 defines it: pid and start time (field 22 of /proc/<pid>/stat). */
    public long token() throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid()), "stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (pid() << 42) | (Long.parseLong(fields[19]) & ((1L << 42) - 1));
    }

    /** Kills it (SIGKILL) and waits until it is gone: its locks are then a dead holder's. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    @Override
    public void close() throws IOException {
        process.getOutputStream().close();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
