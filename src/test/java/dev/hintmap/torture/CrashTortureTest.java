package dev.hintmap.torture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import dev.hintmap.torture.Writers.Kind;
import dev.hintmap.torture.Writers.Writer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writer processes (C and Java) share one file and are killed with SIGKILL at random moments,
 * again and again (docs/archive/RELIABILITY.md). Short mode here; the long mode is
 * {@code ./mvnw test -Dtest=CrashTortureTest -Dhintmap.torture.kills=10000}. The seed is
 * printed and can be replayed with {@code -Dhintmap.torture.seed=N}; the long mode also sets
 * {@code -Dhintmap.torture.awaitEvery=16} so that JVM start-ups do not dominate its time.
 */
class CrashTortureTest {
    private static final int KILLS = Integer.getInteger("hintmap.torture.kills", 200);
    private static final long SEED = Long.getLong("hintmap.torture.seed", System.nanoTime());
    /** Every how many kills the loop first waits until every writer records (JVM start-ups are slow). */
    private static final int AWAIT_EVERY = Integer.getInteger("hintmap.torture.awaitEvery", 4);
    /**
     * FORMAT.md §6.3 states 10 ms per dead lock; a stall is a writer that makes no progress at all
     * for a minute (a loaded 2-core machine, JVMs starting, can hold one up for seconds).
     */
    private static final long STALL_LIMIT_NANOS = 60_000_000_000L;
    private static final Kind[] KINDS = Kind.values();

    @TempDir
    Path dir;

    private static void assertRecordIsOnlyItsOwnSamples(RegionRecord r) {
        int region = Integer.parseInt(r.name().substring("region-".length()));
        assertEquals(r.dispatchCount() * (1000L + region), r.kernelNsTotal(), () -> "torn or misattributed: " + r);
        assertEquals(r.dispatchCount() * region, r.bytesTotal(), r::toString);
        assertEquals(1000L + region, r.kernelNsMax(), r::toString);
    }

    /** The file opens after a kill and every record in it is consistent. */
    private static void assertFileOpensAndIsConsistent(Path file, int capacity) throws IOException {
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            List<RegionRecord> all = new ArrayList<>();
            store.snapshot().regions().forEach(all::add);
            assertTrue(all.size() <= capacity);
            all.forEach(CrashTortureTest::assertRecordIsOnlyItsOwnSamples);
        }
    }

    /** Every writer that was making progress before the kill makes progress after it. */
    private static void assertSurvivorsKeepGoing(Writers writers, List<Writer> survivors) throws Exception {
        for (Writer w : survivors) {
            long before = writers.progressTotal(w);
            if (before == 0 || !w.process().isAlive()) {
                continue; // still starting up
            }
            long deadline = System.nanoTime() + STALL_LIMIT_NANOS;
            while (writers.progressTotal(w) == before) {
                if (!w.process().isAlive()) {
                    fail(w.kind() + " writer died by itself: see " + w.progress().getParent());
                }
                if (System.nanoTime() > deadline) {
                    fail(w.kind() + " writer stalled after a kill (seed " + SEED + ")");
                }
                Thread.onSpinWait();
            }
        }
    }

    private static void awaitAllRecording(Writers writers, List<Writer> live) throws Exception {
        long deadline = System.nanoTime() + 4 * STALL_LIMIT_NANOS;
        for (Writer w : live) {
            while (writers.progressTotal(w) == 0) {
                if (!w.process().isAlive() || System.nanoTime() > deadline) {
                    fail(w.kind() + " writer never started recording (seed " + SEED + ")");
                }
                Thread.sleep(1);
            }
        }
    }

    private int killLoop(Writers writers, Path file, int capacity, int kills) throws Exception {
        try {
            SplittableRandom random = new SplittableRandom(SEED);
            List<Writer> live = new ArrayList<>();
            for (Kind kind : KINDS) {
                live.add(writers.start(kind, 0));
            }
            int killed = 0;
            while (killed < kills) {
                if (killed % AWAIT_EVERY == 0) {
                    awaitAllRecording(writers, live); // so kills also land in running writers, not only in start-up
                }
                Thread.sleep(random.nextInt(1, 15));
                Writer victim = live.remove(random.nextInt(live.size()));
                for (Writer w : live) {
                    assertTrue(w.process().isAlive(), () -> w.kind() + " writer exited by itself (" + w.process().exitValue()
                            + "); its log is next to " + w.progress());
                }
                Writers.kill(victim);
                killed++;
                assertFileOpensAndIsConsistent(file, capacity);
                assertSurvivorsKeepGoing(writers, live);
                live.add(writers.start(victim.kind(), 0));
            }
            for (Writer w : live) {
                Writers.kill(w);
                killed++;
            }
            return killed;
        } catch (Throwable failure) {
            writers.close(); // a failed run leaves no writer process behind
            throw failure;
        }
    }

    @Test
    void killedWritersLoseAtMostTheirInFlightSampleAndNeverStallTheOthers() throws Exception {
        System.out.println("CrashTortureTest seed " + SEED + ", " + KILLS + " kills");
        Path file = dir.resolve("torture.hints");
        int regions = 32;
        HintStore.open(file, HintStoreOptions.defaults()).close(); // capacity 256: no eviction
        Writers writers = new Writers(file, dir, regions);
        int killed = killLoop(writers, file, 256, KILLS);

        long[] completed = writers.progressAll();
        long inFlight = 0;
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            for (int r = 0; r < regions; r++) {
                String name = String.format("region-%05d", r);
                RegionRecord rec = store.recordFor(name).orElseThrow(() -> new AssertionError(name + " lost"));
                assertRecordIsOnlyItsOwnSamples(rec);
                long extra = rec.dispatchCount() - completed[r];
                assertTrue(extra >= 0, name + ": " + (-extra) + " completed samples lost (seed " + SEED + ")");
                inFlight += extra;
            }
            store.record("region-00000", 1000, 0); // and the file is writable again
        }
        assertTrue(inFlight <= killed, inFlight + " samples beyond the completed ones for " + killed
                + " killed writers (at most one in flight each; seed " + SEED + ")");
        long total = 0;
        for (long c : completed) {
            total += c;
        }
        System.out.printf("CrashTortureTest: %d kills, %,d completed samples checked, %d in-flight samples landed%n",
                killed, total, inFlight);
        assertTrue(total > 0);
    }

    @Test
    void aNewRunContinuesTheCountsOfAKilledRunExactly() throws Exception {
        Path file = dir.resolve("pgo.hints");
        int regions = 8;
        Writers writers = new Writers(file, dir, regions);
        Writer first = writers.start(Kind.C_HANDLES, 0); // creates the file, runs until killed
        awaitAllRecording(writers, List.of(first));
        Thread.sleep(50);
        Writers.kill(first);
        long[] firstRun = writers.progress(first);
        Writer second = writers.start(Kind.JAVA_BY_NAME, 80_000); // the next run, to completion
        assertTrue(second.process().waitFor(120, java.util.concurrent.TimeUnit.SECONDS));
        assertEquals(0, second.process().exitValue());
        long[] secondRun = writers.progress(second);
        long inFlight = 0;
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            for (int r = 0; r < regions; r++) {
                RegionRecord rec = store.recordFor(String.format("region-%05d", r)).orElseThrow();
                long extra = rec.dispatchCount() - firstRun[r] - secondRun[r];
                assertTrue(extra == 0 || extra == 1, rec + " vs " + firstRun[r] + " + " + secondRun[r]);
                inFlight += extra;
                assertRecordIsOnlyItsOwnSamples(rec);
            }
        }
        assertTrue(inFlight <= 1, "one killed writer has at most one sample in flight");
        assertEquals(10_000, secondRun[0]);
    }

    @Test
    void killsInsideInsertionsAndEvictionsAreRecoveredAndNeverMisattributeASample() throws Exception {
        Path file = dir.resolve("churn.hints");
        int capacity = 16;
        HintStore.open(file, HintStoreOptions.defaults().capacity(capacity)).close();
        Writers writers = new Writers(file, dir, 64); // every record is an insert with eviction
        int killed = killLoop(writers, file, capacity, Math.max(20, KILLS / 4));
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            for (int r = 0; r < 64; r++) {
                store.record(String.format("region-%05d", r), 1000 + r, r); // recovers whatever the last kill left
            }
            List<RegionRecord> all = new ArrayList<>();
            store.snapshot().regions().forEach(all::add);
            assertEquals(capacity, all.size());
            for (RegionRecord r : all) {
                assertRecordIsOnlyItsOwnSamples(r);
                assertEquals(r, store.recordFor(r.name()).orElseThrow(), "the index finds every region held");
            }
        }
        System.out.printf("CrashTortureTest churn: %d kills survived%n", killed);
        Files.deleteIfExists(file);
    }
}
