package com.example.tuner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The FFTW optimizer end to end with a stand-in {@code fftwf-wisdom} (a shell script with its options,
 * so no FFTW is needed): the hot set's transforms are planned at the effort asked and merged into one
 * wisdom file; the planner shared with CLBlast decides (hot, cold, thin, budget); no usable hints give
 * an empty wisdom and exit 0; a run past its cap leaves nothing; and the live mode plans again when
 * the hot set changes under it.
 */
class FftwOptimizerTest {
    private static final String HOT_2D = "fftw:cof256x256";
    private static final String HOT_1D = "fftw:cof16384";
    private static final String REAL = "fftw:rof1024x768";
    private static final String COLD = "fftw:cof1024";
    private static final String THIN = "fftw:cof65536";

    @TempDir Path dir;

    /** Writes -o with the stand-in's wisdom: what it imported (-w) and one line per transform with the effort. */
    private Path bin(String extra) throws Exception {
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Path tool = bin.resolve("fftwf-wisdom");
        Files.writeString(tool, """
                #!/bin/sh
                echo "args $*" >> %s
                effort=patient out= ins= specs=
                while [ $# -gt 0 ]; do
                  case $1 in
                    -n) ;; -m) effort=measure ;; -x) effort=exhaustive ;; -e) effort=estimate ;;
                    -w) ins="$ins $2"; shift ;; -o) out=$2; shift ;; *) specs="$specs $1" ;;
                  esac
                  shift
                done
                %s
                { echo "(stand-in-wisdom"; for f in $ins; do grep '^  (' "$f"; done
                  for s in $specs; do echo "  ($s $effort)"; done; echo ")"; } > "$out"
                """.formatted(dir.resolve("tool.log"), extra));
        Files.setPosixFilePermissions(tool, PosixFilePermissions.fromString("rwx------"));
        return bin;
    }

    private Path hints() throws Exception {
        Path file = dir.resolve("run1.hints");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            store.add(new RegionRecord(HOT_2D, 400, 500_000_000, 2_000_000, 0));
            store.add(new RegionRecord(HOT_1D, 800, 300_000_000, 600_000, 0));
            store.add(new RegionRecord(REAL, 40, 150_000_000, 5_000_000, 0));
            store.add(new RegionRecord(COLD, 100, 10_000_000, 150_000, 0));
            store.add(new RegionRecord(THIN, 1, 40_000_000, 40_000_000, 0));
        }
        return file;
    }

    private static String run(String... args) throws Exception {
        PrintStream saved = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            FftwOptimizer.main(args);
        } finally {
            System.setOut(saved);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    private static List<String> entries(Path wisdom) throws Exception {
        return Files.readAllLines(wisdom).stream().filter(l -> l.startsWith("  (")).map(String::strip).toList();
    }

    @Test
    void plansTheHotSetsTransformsAndMergesTheirWisdomIntoOneFile() throws Exception {
        Path wisdom = dir.resolve("app.wisdom");
        String out = run("--hints", hints().toString(), "--wisdom", wisdom.toString(), "--coverage", "0.9",
                "--budget-s", "600", "--timeout-s", "60", "--tool-dir", bin("").toString(), "--work", dir.resolve("w").toString());
        // 0.9 of 1,000 ms from regions with >= 2 dispatches: 500 + 300 + 150; the thin 65536 counts in the whole only
        assertEquals(List.of("(cof256x256 patient)", "(cof16384 patient)", "(rof1024x768 patient)"), entries(wisdom), out);
        assertTrue(out.startsWith("plan: 3 tuner run(s) for 95.0% of the kernel time, budget 600 s\n"), out);
        assertTrue(out.contains("run cof256x256 status=FINISHED"), out);
        assertTrue(out.lines().anyMatch(l -> l.startsWith("tuning wall_s=") && l.endsWith("runs=3 specs=3 wisdom=" + wisdom)), out);
        List<String> calls = Files.readAllLines(dir.resolve("tool.log"));
        assertTrue(calls.contains("args -n -o cof256x256.wisdom cof256x256"), calls.toString());
        assertTrue(calls.getLast().startsWith("args -n -w "), "merged by the tool itself: " + calls.getLast());
    }

    @Test
    void theBudgetCutsHottestFirstAndTheEffortIsPassed() throws Exception {
        Path wisdom = dir.resolve("app.wisdom");
        String out = run("--hints", hints().toString(), "--wisdom", wisdom.toString(), "--budget-s", "120",
                "--timeout-s", "60", "--effort", "measure", "--tool-dir", bin("").toString(), "--work", dir.resolve("w").toString());
        assertEquals(List.of("(cof256x256 measure)", "(cof16384 measure)"), entries(wisdom), out);
        assertTrue(out.contains(String.format(java.util.Locale.ROOT, "  skip  %-32s %5.1f%%  %s", "over the budget", 15.0, REAL)),
                out);
    }

    @Test
    void withoutHintsTheLargestTransformsComeFirst() throws Exception {
        String out = run("--hints", hints().toString(), "--plan", "largest", "--budget-s", "120", "--timeout-s", "60",
                "--plan-only");
        assertEquals(List.of("rof1024x768", "cof256x256"), out.lines().filter(l -> l.startsWith("  tune  "))
                .map(l -> l.substring(8).split(" +")[0]).toList(), "786,432 and 65,536 points: the thin 65536 ties, by label");
    }

    @Test
    void noUsableHintsGiveAnEmptyWisdomAndExitZero() throws Exception {
        Path wisdom = dir.resolve("app.wisdom");
        Path damaged = Files.write(dir.resolve("damaged.hints"), new byte[10_000]);
        String out = run("--hints", damaged.toString(), "--wisdom", wisdom.toString(), "--tool-dir", bin("").toString(),
                "--work", dir.resolve("w").toString());
        assertTrue(out.startsWith("no usable hints ("), out);
        assertEquals(List.of(), entries(wisdom));
        assertTrue(Files.readString(wisdom).startsWith("(stand-in-wisdom"), "a wisdom file the runtime can import");
    }

    @Test
    void absentThinColdAndUnreadableHintsPlanNothingForThem() throws Exception {
        String plan = run("--hints", hints().toString(), "--coverage", "0.9", "--plan-only");
        for (String notPlanned : List.of(COLD, THIN, "fftw:cof512x512")) { // cold, thin, absent from the file
            assertTrue(plan.lines().noneMatch(l -> l.startsWith("  tune ") && l.endsWith(notPlanned)), plan);
        }
        Path v1 = Files.copy(Path.of(System.getProperty("hintmap.home", "."), "src/test/resources/vectors/golden-v1.hints"),
                dir.resolve("v1.hints"));
        Path text = Files.writeString(dir.resolve("notes.hints"), "not hints at all, but long enough".repeat(200));
        for (Path file : List.of(dir.resolve("missing.hints"), v1, text)) {
            String out = run("--hints", file.toString(), "--plan-only");
            assertTrue(out.startsWith("no usable hints (") && out.lines().count() == 1, out);
        }
    }

    @Test
    void aTransformPastItsCapLeavesNoWisdomAndTheOthersAreKept() throws Exception {
        Path wisdom = dir.resolve("app.wisdom");
        String out = run("--hints", hints().toString(), "--wisdom", wisdom.toString(), "--timeout-s", "2", "--tool-dir",
                bin("case \"$specs\" in *cof16384*) exec sleep 3600 ;; esac").toString(), "--work", dir.resolve("w").toString());
        assertTrue(out.contains("run cof16384 status=TIMED_OUT"), out);
        assertEquals(List.of("(cof256x256 patient)", "(rof1024x768 patient)"), entries(wisdom), out);
    }

    @Test
    void aMissingPlannerNamesThePackageAndWritesNoWisdom() throws Exception {
        Path wisdom = dir.resolve("app.wisdom");
        String out = run("--hints", hints().toString(), "--wisdom", wisdom.toString(), "--tool-dir",
                dir.resolve("empty").toString(), "--work", dir.resolve("w").toString());
        assertTrue(out.contains("status=NOT_STARTED"), out);
        assertTrue(out.contains("install the Debian package libfftw3-bin"), out);
        assertTrue(out.contains("wisdom not written: "), out);
        assertTrue(Files.notExists(wisdom));
    }

    @Test
    void theLiveLoopPlansAgainWhenTheHotSetChangesUnderIt() throws Exception {
        Path file = dir.resolve("live.hints");
        Path wisdom = dir.resolve("live.wisdom");
        Path log = dir.resolve("optimizer.log");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            store.add(new RegionRecord(HOT_2D, 400, 500_000_000, 2_000_000, 0));
            Thread shift = Thread.ofPlatform().start(() -> {
                try {
                    Thread.sleep(2_500);
                    store.add(new RegionRecord(HOT_1D, 8_000, 5_000_000_000L, 2_000_000, 0)); // the mix changed
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            run("--hints", file.toString(), "--wisdom", wisdom.toString(), "--coverage", "0.8", "--watch",
                    "--interval-s", "1", "--duration-s", "5", "--log", log.toString(), "--tool-dir", bin("").toString(),
                    "--work", dir.resolve("w").toString());
            shift.join();
        }
        List<String> events = Files.readAllLines(log).stream().map(l -> l.substring(l.indexOf(" event ") + 7)).toList();
        assertTrue(events.getFirst().startsWith("plan hot=cof256x256 covered=1.000 new=cof256x256"), events.toString());
        assertTrue(events.contains("wisdom gen=1 specs=cof256x256"), events.toString());
        assertTrue(events.stream().anyMatch(e -> e.startsWith("plan hot=cof16384 covered=0.909 new=cof16384")), events.toString());
        assertTrue(events.contains("wisdom gen=2 specs=cof256x256,cof16384"), events.toString());
        assertEquals("done gen=2", events.getLast());
        assertEquals(List.of("(cof256x256 patient)", "(cof16384 patient)"), entries(wisdom),
                "the wisdom keeps what was planned before the shift");
        assertTrue(Files.readAllLines(log).getFirst().matches("[0-9]{10}\\.[0-9]{3} event .*"));
    }
}
