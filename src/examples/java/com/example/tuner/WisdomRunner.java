package com.example.tuner;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Runs FFTW's planner ({@code fftwf-wisdom}, Debian package libfftw3-bin) on one transform under a
 * cap, and merges wisdom files into one (docs/PGO.md, "FFTW"). Every run plans without the system
 * wisdom ({@code -n}), in its own directory, at the effort asked ({@code fftwf-wisdom} plans PATIENT
 * unless told {@code -m}, {@code -x} or {@code -e}), and is killed at the timeout (a killed run writes
 * nothing: {@code fftwf-wisdom} writes its wisdom at the end).
 *
 * <p>Merging is the tool's own: {@code fftwf-wisdom -n -w A -w B ... -o OUT} with no transform imports
 * each file and writes the union (FFTW's wisdom is a set of solutions keyed by problem and planner
 * flags; importing several files accumulates them). The result is written beside the output and
 * renamed into place, so a runtime watching the file never reads half of it.
 */
public final class WisdomRunner {
    private final Effort effort;
    private final Duration timeout;
    private final Path workDir;
    private final Path toolDir;

    /** FFTW's planning effort ({@code fftwf-wisdom}'s option for it). */
    public enum Effort {
        /** FFTW_ESTIMATE: no timing ({@code -e}). */
        ESTIMATE("-e"),
        /** FFTW_MEASURE ({@code -m}). */
        MEASURE("-m"),
        /** FFTW_PATIENT: {@code fftwf-wisdom}'s default. */
        PATIENT(null),
        /** FFTW_EXHAUSTIVE ({@code -x}). */
        EXHAUSTIVE("-x");

        private final String option;

        Effort(String option) {
            this.option = option;
        }
    }

    /** How a run ended. */
    public enum Status {
        /** Planned and wrote its wisdom. */
        FINISHED,
        /** Killed at the timeout: no wisdom. */
        TIMED_OUT,
        /** Exited without wisdom (an error, a spec it refused). */
        FAILED,
        /** {@code fftwf-wisdom} could not be started (not installed). */
        NOT_STARTED
    }

    /**
     * What a run left.
     *
     * @param task the run
     * @param status how it ended
     * @param wall its wall time
     * @param wisdom the wisdom file it wrote, or null
     * @param message why not FINISHED, else empty
     */
    public record Outcome(FftwTask task, Status status, Duration wall, Path wisdom, String message) {}

    /**
     * @param effort the planning effort
     * @param timeout the cap of one run
     * @param workDir where each run gets its directory
     * @param toolDir where {@code fftwf-wisdom} is, or null for the PATH
     */
    public WisdomRunner(Effort effort, Duration timeout, Path workDir, Path toolDir) {
        this.effort = effort;
        this.timeout = timeout;
        this.workDir = workDir;
        this.toolDir = toolDir;
    }

    private String tool() {
        return toolDir == null ? "fftwf-wisdom" : toolDir.resolve("fftwf-wisdom").toString();
    }

    /**
     * Plans one transform.
     *
     * @param task the transform
     * @return how it ended and the wisdom it wrote
     * @throws IOException if its directory cannot be made
     * @throws InterruptedException if interrupted while waiting (the planner is killed)
     */
    public Outcome run(FftwTask task) throws IOException, InterruptedException {
        Path dir = workDir.resolve(task.label());
        Path wisdom = dir.resolve(task.label() + ".wisdom");
        Files.deleteIfExists(wisdom);
        List<String> command = new ArrayList<>(List.of(tool(), "-n"));
        if (effort.option != null) {
            command.add(effort.option);
        }
        command.addAll(List.of("-o", wisdom.getFileName().toString(), task.spec().text()));
        CappedProcess.Result r = CappedProcess.run(command, dir, Map.of(), timeout, null);
        return switch (r.ending()) {
            case NOT_STARTED -> new Outcome(task, Status.NOT_STARTED, r.wall(), null,
                    r.message() + ": install the Debian package libfftw3-bin");
            case TIMED_OUT -> new Outcome(task, Status.TIMED_OUT, r.wall(), null, "killed at the cap of "
                    + timeout.toSeconds() + " s");
            default -> r.message().isEmpty() && Files.size(wisdom) > 0 ? new Outcome(task, Status.FINISHED, r.wall(), wisdom, "")
                    : new Outcome(task, Status.FAILED, r.wall(), null,
                            (r.message().isEmpty() ? "no wisdom written" : r.message()) + ": see " + dir.resolve("tuner.log"));
        };
    }

    /**
     * Writes the union of {@code inputs} to {@code out} (an empty wisdom for none), atomically.
     *
     * @param inputs wisdom files, each whole
     * @param out where
     * @return empty when written, else why not (the output is then left as it was)
     * @throws IOException if the work directory cannot be made
     * @throws InterruptedException if interrupted while waiting
     */
    public String merge(List<Path> inputs, Path out) throws IOException, InterruptedException {
        Path dir = Files.createDirectories(workDir.resolve("merge"));
        Path target = out.toAbsolutePath();
        Path tmp = target.resolveSibling("." + target.getFileName() + ".tmp");
        List<String> command = new ArrayList<>(List.of(tool(), "-n"));
        for (Path in : inputs) {
            command.addAll(List.of("-w", in.toAbsolutePath().toString()));
        }
        command.addAll(List.of("-o", tmp.toString()));
        try {
            CappedProcess.Result r = CappedProcess.run(command, dir, Map.of(), timeout, null);
            if (r.ending() != CappedProcess.Ending.EXITED || !r.message().isEmpty() || !Files.isRegularFile(tmp)) {
                return r.ending() == CappedProcess.Ending.NOT_STARTED ? r.message() + ": install the Debian package libfftw3-bin"
                        : "fftwf-wisdom could not merge (" + r.ending() + " " + r.message() + "): see " + dir.resolve("tuner.log");
            }
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return "";
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
