package com.example.tuner;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * One tuner process under a cap, for every tuner of this package: started in a directory of its own
 * with its output in {@code tuner.log} there, stopped early when what the cap keeps is written, killed
 * at the timeout (SIGTERM, then SIGKILL after 5 s), and never left running when the caller is
 * interrupted.
 */
final class CappedProcess {
    private static final long POLL_MILLIS = 200;

    private CappedProcess() {}

    /** How a run ended. */
    enum Ending {
        /** The process exited by itself. */
        EXITED,
        /** Stopped once the stop condition held. */
        STOPPED,
        /** Killed at the timeout. */
        TIMED_OUT,
        /** The program could not be started (not installed). */
        NOT_STARTED
    }

    /**
     * What a run did.
     *
     * @param ending how it ended
     * @param wall its wall time
     * @param message for NOT_STARTED, why; for a process that exited, its exit status or signal, empty for 0
     */
    record Result(Ending ending, Duration wall, String message) {}

    /**
     * Runs {@code command} in {@code dir} and waits for it, at most {@code timeout} (and a few seconds to stop it).
     *
     * @param command the program and its arguments
     * @param dir its working directory (created)
     * @param env variables added to its environment
     * @param timeout the wall-clock limit
     * @param stopWhen polled every 200 ms: true stops the run (null: never)
     * @return how it ended
     * @throws IOException if the directory cannot be made
     * @throws InterruptedException if interrupted while waiting (the process is stopped first)
     */
    static Result run(List<String> command, Path dir, Map<String, String> env, Duration timeout, BooleanSupplier stopWhen)
            throws IOException, InterruptedException {
        Files.createDirectories(dir);
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("tuner.log").toFile());
        pb.environment().putAll(env);
        long start = System.nanoTime();
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            return new Result(Ending.NOT_STARTED, Duration.ZERO, command.getFirst() + " cannot be started (" + e.getMessage() + ")");
        }
        long deadline = start + timeout.toNanos();
        Ending ending = null;
        try {
            while (ending == null) {
                if (p.waitFor(POLL_MILLIS, TimeUnit.MILLISECONDS)) {
                    ending = Ending.EXITED;
                } else if (stopWhen != null && stopWhen.getAsBoolean()) {
                    ending = Ending.STOPPED;
                } else if (System.nanoTime() - deadline > 0) {
                    ending = Ending.TIMED_OUT;
                }
            }
        } finally {
            stop(p);
        }
        Duration wall = Duration.ofNanos(System.nanoTime() - start);
        int exit = ending == Ending.EXITED ? p.exitValue() : 0;
        String message = exit > 128 ? "killed by signal " + (exit - 128) : exit != 0 ? "exit status " + exit : "";
        return new Result(ending, wall, message);
    }

    private static void stop(Process p) throws InterruptedException {
        if (p.isAlive()) {
            p.destroy(); // SIGTERM
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor();
            }
        }
    }
}
