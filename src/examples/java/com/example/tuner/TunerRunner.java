package com.example.tuner;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Runs one CLBlast tuner under the cap (docs/PGO.md, "The cap"), in a directory of its own (the tuners
 * write their JSON into the working directory): stopped after the GEMM tuner's first phase, killed at
 * the timeout. PoCL's kernel cache is off ({@code POCL_KERNEL_CACHE=0}) so that no run is faster for
 * what an earlier run compiled: every arm pays for its own compilations.
 *
 * <p>Each run leaves {@code outcome.txt} beside its JSON: the command and the run's wall time. Given a
 * directory of earlier runs ({@code reuse}), a task whose directory there holds the same command is not
 * run again: its results and its recorded wall time are taken (status REUSED). A tuner samples the same
 * configurations for the same command every time, so the measurement runs each (kernel, shape) once and
 * charges every arm that plans it with that run's time (docs/PGO.md, "The arms").
 */
public final class TunerRunner {
    private final TunerCap cap;
    private final Path workDir;
    private final Path tunerDir;
    private final Path reuseDir;

    /**
     * @param cap the cap of every run
     * @param workDir where each run gets its directory
     * @param tunerDir where the {@code clblast_tuner_*} programs are, or null for the PATH
     * @param reuseDir a work directory of earlier runs whose results may be taken, or null
     */
    public TunerRunner(TunerCap cap, Path workDir, Path tunerDir, Path reuseDir) {
        this.cap = cap;
        this.workDir = workDir;
        this.tunerDir = tunerDir;
        this.reuseDir = reuseDir;
    }

    /**
     * A runner that runs every task.
     *
     * @param cap the cap of every run
     * @param workDir where each run gets its directory
     * @param tunerDir where the {@code clblast_tuner_*} programs are, or null for the PATH
     */
    public TunerRunner(TunerCap cap, Path workDir, Path tunerDir) {
        this(cap, workDir, tunerDir, null);
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
        NOT_STARTED,
        /** Not run: the results and wall time of an earlier run of the same command were taken. */
        REUSED
    }

    /**
     * What a run left.
     *
     * @param task the run
     * @param status how it ended
     * @param wall its wall time (for REUSED, the earlier run's)
     * @param jsons the result files it wrote
     * @param message for NOT_STARTED, what to install; else the exit status or empty
     */
    public record Outcome(ClblastTask task, Status status, Duration wall, List<Path> jsons, String message) {
        /** Keeps an immutable copy. */
        public Outcome {
            jsons = List.copyOf(jsons);
        }
    }

    /**
     * Runs {@code task} and waits for it, at most the cap's timeout (and a few seconds to stop it), or
     * takes an earlier run's results.
     *
     * @param task the tuner run
     * @return how it ended and what it wrote
     * @throws IOException if its directory cannot be made
     * @throws InterruptedException if interrupted while waiting (the tuner is killed)
     */
    public Outcome run(ClblastTask task) throws IOException, InterruptedException {
        String dirName = task.label().replace(' ', '_').replace("=", "");
        List<String> command = task.command(cap);
        if (tunerDir != null) {
            command.set(0, tunerDir.resolve(command.getFirst()).toString());
        }
        Optional<Outcome> earlier = reuseDir == null ? Optional.empty() : earlier(task, reuseDir.resolve(dirName));
        if (earlier.isPresent()) {
            return earlier.get();
        }
        Path dir = workDir.resolve(dirName);
        String stopAfter = TunerCap.stopAfter(task.tuner(), task.precision());
        CappedProcess.Result r = CappedProcess.run(command, dir, Map.of("POCL_KERNEL_CACHE", "0"), cap.timeout(),
                stopAfter == null ? null : () -> complete(dir.resolve(stopAfter)));
        if (r.ending() == CappedProcess.Ending.NOT_STARTED) {
            return new Outcome(task, Status.NOT_STARTED, r.wall(), List.of(),
                    r.message() + ": install the Debian package clblast-utils");
        }
        Status status = switch (r.ending()) {
            case STOPPED -> Status.STOPPED_AFTER_FIRST_PHASE;
            case TIMED_OUT -> Status.TIMED_OUT;
            default -> Status.FINISHED;
        };
        String message = r.message().startsWith("killed by signal") ? r.message() + ": no results from its unfinished phase"
                : r.message();
        Files.writeString(dir.resolve("outcome.txt"), String.format(Locale.ROOT, "command %s%nstatus %s%nwall_s %.3f%n",
                String.join(" ", task.command(cap)), status, r.wall().toNanos() / 1e9), StandardCharsets.UTF_8);
        return new Outcome(task, status, r.wall(), jsons(dir), message);
    }

    /** The earlier run in {@code dir}, when it ran the same command. */
    private Optional<Outcome> earlier(ClblastTask task, Path dir) throws IOException {
        Path outcome = dir.resolve("outcome.txt");
        if (!Files.isRegularFile(outcome)) {
            return Optional.empty();
        }
        List<String> lines = Files.readAllLines(outcome, StandardCharsets.UTF_8);
        if (lines.size() < 3 || !lines.get(0).equals("command " + String.join(" ", task.command(cap)))) {
            return Optional.empty(); // another cap: run it afresh
        }
        Duration wall;
        try {
            wall = Duration.ofNanos(Math.round(Double.parseDouble(lines.get(2).substring("wall_s ".length())) * 1e9));
        } catch (NumberFormatException | IndexOutOfBoundsException e) {
            return Optional.empty();
        }
        return Optional.of(new Outcome(task, Status.REUSED, wall, jsons(dir), "results of " + dir + " (" + lines.get(1) + ")"));
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

    private static List<Path> jsons(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().matches("clblast_.*\\.json")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
