package com.example.tuner;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Runs one tuner as a subprocess under the cap (docs/PGO.md, "The cap"): in a directory of its own
 * (the tuners write their JSON into the working directory), its output in {@code tuner.log} there,
 * stopped after the GEMM tuner's first phase, killed at the timeout. PoCL's kernel cache is off
 * ({@code POCL_KERNEL_CACHE=0}) so that no run is faster for what an earlier run compiled: every
 * arm pays for its own compilations.
 */
public final class TunerRunner {
    private static final long POLL_MILLIS = 200;

    private final TunerCap cap;
    private final Path workDir;
    private final Path tunerDir;

    /**
     * @param cap the cap of every run
     * @param workDir where each run gets its directory
     * @param tunerDir where the {@code clblast_tuner_*} programs are, or null for the PATH
     */
    public TunerRunner(TunerCap cap, Path workDir, Path tunerDir) {
        this.cap = cap;
        this.workDir = workDir;
        this.tunerDir = tunerDir;
    }

    /** How a run ended. */
    public enum Status {
        /** The tuner exited by itself. */
        FINISHED,
        /** Stopped once the phase the cap keeps had written its results. */
        STOPPED_AFTER_FIRST_PHASE,
        /** Killed at the timeout; the phases finished by then count. */
        TIMED_OUT,
        /** The program could not be started (not installed). */
        NOT_STARTED
    }

    /**
     * What a run left.
     *
     * @param task the run
     * @param status how it ended
     * @param wall its wall time
     * @param jsons the result files it wrote
     * @param message for NOT_STARTED, what to install; else the exit status or empty
     */
    public record Outcome(TuningTask task, Status status, Duration wall, List<Path> jsons, String message) {
        /** Keeps an immutable copy. */
        public Outcome {
            jsons = List.copyOf(jsons);
        }
    }

    /**
     * Runs {@code task} and waits for it, at most the cap's timeout (and a few seconds to stop it).
     *
     * @param task the tuner run
     * @return how it ended and what it wrote
     * @throws IOException if its directory cannot be made
     * @throws InterruptedException if interrupted while waiting (the tuner is killed)
     */
    public Outcome run(TuningTask task) throws IOException, InterruptedException {
        Path dir = Files.createDirectories(workDir.resolve(task.label().replace(' ', '_').replace("=", "")));
        List<String> command = task.command(cap);
        if (tunerDir != null) {
            command.set(0, tunerDir.resolve(command.get(0)).toString());
        }
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("tuner.log").toFile());
        pb.environment().put("POCL_KERNEL_CACHE", "0");
        long start = System.nanoTime();
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            return new Outcome(task, Status.NOT_STARTED, Duration.ZERO, List.of(), command.get(0)
                    + " cannot be started (" + e.getMessage() + "): install the Debian package clblast-utils");
        }
        String stopAfter = TunerCap.stopAfter(task.tuner(), task.precision());
        long deadline = start + cap.timeout().toNanos();
        Status status = null;
        try {
            while (status == null) {
                if (p.waitFor(POLL_MILLIS, TimeUnit.MILLISECONDS)) {
                    status = Status.FINISHED;
                } else if (stopAfter != null && complete(dir.resolve(stopAfter))) {
                    status = Status.STOPPED_AFTER_FIRST_PHASE;
                } else if (System.nanoTime() - deadline > 0) {
                    status = Status.TIMED_OUT;
                }
            }
        } finally {
            stop(p);
        }
        Duration wall = Duration.ofNanos(System.nanoTime() - start);
        int exit = status == Status.FINISHED ? p.exitValue() : 0;
        String message = exit > 128 ? "killed by signal " + (exit - 128) + ": no results from its unfinished phase"
                : exit != 0 ? "exit status " + exit : "";
        return new Outcome(task, status, wall, jsons(dir), message);
    }

    /** Whether a result file is there and whole (the tuner writes it with a series of fprintf calls). */
    private static boolean complete(Path json) {
        try {
            MiniJson.parse(Files.readString(json, StandardCharsets.UTF_8));
            return true;
        } catch (IOException | IllegalArgumentException notYet) {
            return false;
        }
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

    private static List<Path> jsons(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().matches("clblast_.*\\.json")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
