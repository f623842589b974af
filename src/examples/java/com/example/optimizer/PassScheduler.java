package com.example.optimizer;

import dev.hintmap.HintSnapshot;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * How an optimizer uses hints (docs/GUIDE.md): it picks a pass schedule per region, spending
 * compile time on the expensive passes only where the GPU spends its time. Hints are a
 * prioritisation signal, never a correctness one: every region gets a correct schedule whatever
 * the hint file says, and when hints are absent, too thin, stale or unreadable, the default
 * schedule is used, exactly as if hintmap did not exist.
 *
 * <p>The scheduler takes one read-only snapshot of the file per compilation session, so it
 * never waits for the writers and decides every region of the session from the same data.
 *
 * <p>An example in the source set {@code src/examples/java}, which the build compiles with the
 * tests (PassSchedulerTest) and, in ExamplesIT, as a user would: against {@code target/hintmap.jar}
 * on the module path, so it uses nothing but the exported API. To run it on a hint file:
 *
 * <pre>
 * javac -d classes -cp target/hintmap.jar src/examples/java/com/example/optimizer/PassScheduler.java
 * java --enable-native-access=ALL-UNNAMED -cp classes:target/hintmap.jar com.example.optimizer.PassScheduler FILE REGION...
 * </pre>
 */
public final class PassScheduler {
    /** What the compiler runs on a region that has no useful hint. */
    public static final List<String> DEFAULT_SCHEDULE = List.of("canonicalize", "cse", "fuse-elementwise");
    /** The expensive schedule, worth its compile time only for hot regions. */
    public static final List<String> HOT_SCHEDULE = List.of("canonicalize", "cse", "fuse-elementwise",
            "tile-for-shared-memory", "software-pipeline", "vectorize-loads", "autotune-launch-bounds");

    private final Path hintFile;
    private final Duration maxAge;
    private final long minDispatches;
    private final Clock clock;
    private HintSnapshot snapshot;

    /**
     * @param hintFile the shared hint file the runtime records into
     * @param maxAge a snapshot older than this is stale: re-read, or ignored if the file cannot be read
     * @param minDispatches fewer samples than this are too thin to act on
     */
    public PassScheduler(Path hintFile, Duration maxAge, long minDispatches, Clock clock) {
        this.hintFile = hintFile;
        this.maxAge = maxAge;
        this.minDispatches = minDispatches;
        this.clock = clock;
    }

    /**
     * Prints the schedule of each region named after the hint file, as {@code REGION: pass, pass, ...}.
     *
     * @param args the hint file, then region names
     */
    public static void main(String[] args) {
        if (args.length < 2) {
            System.err.println("usage: PassScheduler HINT_FILE REGION...");
            System.exit(2);
        }
        PassScheduler scheduler = new PassScheduler(Path.of(args[0]), Duration.ofMinutes(5), 10, Clock.systemUTC());
        for (int i = 1; i < args.length; i++) {
            System.out.println(args[i] + ": " + String.join(", ", scheduler.scheduleFor(args[i])));
        }
    }

    /** The passes to run on {@code region}: never fails, whatever state the hint file is in. */
    public List<String> scheduleFor(String region) {
        Optional<HintSnapshot> hints = freshHints();
        if (hints.isEmpty()) {
            return DEFAULT_SCHEDULE; // no file, a damaged one, another version: compile as without hints
        }
        Optional<RegionRecord> record = hints.get().recordFor(region);
        if (record.isEmpty() || record.get().dispatchCount() < minDispatches) {
            return DEFAULT_SCHEDULE; // never seen, or seen too rarely to trust its mean
        }
        return hints.get().isHot(region) ? HOT_SCHEDULE : DEFAULT_SCHEDULE;
    }

    /** A snapshot no older than {@code maxAge}, re-read when needed; empty when the file cannot be used. */
    Optional<HintSnapshot> freshHints() {
        Instant now = clock.instant();
        if (snapshot != null && Duration.between(snapshot.takenAt(), now).compareTo(maxAge) <= 0) {
            return Optional.of(snapshot);
        }
        snapshot = null;
        try (HintStore store = HintStore.open(hintFile, HintStoreOptions.defaults().readOnly(true))) {
            snapshot = store.snapshot();
        } catch (IOException | UncheckedIOException | IllegalStateException e) {
            return Optional.empty(); // hints are optional: the reason could be logged, never thrown
        }
        if (Duration.between(snapshot.takenAt(), now).compareTo(maxAge) > 0) {
            snapshot = null; // the clock says even a new copy is too old (e.g. a frozen clock in tests)
            return Optional.empty();
        }
        return Optional.of(snapshot);
    }
}
