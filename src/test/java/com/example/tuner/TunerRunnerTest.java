package com.example.tuner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cap on a tuner run, with stand-in tuners (shell scripts named as CLBlast's, so no OpenCL is
 * needed): the GEMM tuner is stopped once its first phase's JSON is whole, a run past the timeout is
 * killed keeping what it wrote, a missing tuner names the package to install, and PoCL's kernel cache
 * is off for every run.
 */
class TunerRunnerTest {
    @TempDir Path dir;

    /** A stand-in tuner: the shell {@code body}, run in the run's directory. */
    static Path tuner(Path bin, String name, String body) throws Exception {
        Files.createDirectories(bin);
        Path script = bin.resolve("clblast_tuner_" + name);
        Files.writeString(script, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        return script;
    }

    private static ClblastTask gemm() {
        return new ClblastTask("xgemm", 32, Map.of("m", 256L, "n", 256L, "k", 128L), List.of("Xgemm"));
    }

    @Test
    void theGemmTunerIsStoppedOnceItsFirstPhaseIsWrittenWhole() throws Exception {
        Path fixture = TunerResultsTest.fixture(dir, "clblast_xgemm_1_32.json");
        Path bin = dir.resolve("bin");
        // says its arguments first (the runner may stop it as soon as the JSON is whole), writes the first
        // phase's JSON in two halves, then would go on for an hour with phase 2
        tuner(bin, "xgemm", "echo \"args $*\"; head -c 300 " + fixture + " > clblast_xgemm_1_32.json; sleep 1; cat "
                + fixture + " > clblast_xgemm_1_32.json; exec sleep 3600");
        TunerRunner.Outcome o = new TunerRunner(new TunerCap(16, 1, Duration.ofSeconds(600)), dir.resolve("work"), bin)
                .run(gemm());
        assertEquals(TunerRunner.Status.STOPPED_AFTER_FIRST_PHASE, o.status());
        assertEquals(1, o.jsons().size());
        assertEquals("Xgemm", TunerResults.read(o.jsons(), 32).best().keySet().iterator().next());
        String log = Files.readString(o.jsons().getFirst().resolveSibling("tuner.log"));
        assertTrue(log.contains("args -precision 32 -m 256 -n 256 -k 128 -fraction 16 -runs 1"), log);
    }

    @Test
    void aRunPastTheTimeoutIsKilledAndKeepsThePhasesItFinished() throws Exception {
        Path fixture = TunerResultsTest.fixture(dir, "clblast_xgemv_32.json");
        Path bin = dir.resolve("bin");
        tuner(bin, "xgemv", "cp " + fixture + " .; exec sleep 3600"); // phase 1 done, phase 2 never ends
        ClblastTask gemv = new ClblastTask("xgemv", 32, Map.of("m", 1536L, "n", 512L), List.of("Xgemv", "XgemvFast"));
        TunerRunner.Outcome o = new TunerRunner(new TunerCap(16, 1, Duration.ofSeconds(2)), dir.resolve("work"), bin)
                .run(gemv);
        assertEquals(TunerRunner.Status.TIMED_OUT, o.status());
        assertEquals(List.of("Xgemv"), List.copyOf(TunerResults.read(o.jsons(), 32).best().keySet()));
    }

    @Test
    void everyRunHasPoclsKernelCacheOffAndItsOwnDirectory() throws Exception {
        Path bin = dir.resolve("bin");
        tuner(bin, "xaxpy", "echo \"cache=$POCL_KERNEL_CACHE dir=$(pwd)\"");
        ClblastTask axpy = new ClblastTask("xaxpy", 32, Map.of("n", 4096L), List.of("Xaxpy"));
        TunerRunner runner = new TunerRunner(new TunerCap(16, 1, Duration.ofSeconds(60)), dir.resolve("work"), bin);
        TunerRunner.Outcome o = runner.run(axpy);
        assertEquals(TunerRunner.Status.FINISHED, o.status());
        assertEquals(List.of(), o.jsons());
        Path runDir = dir.resolve("work").resolve("xaxpy_f32_n4096");
        assertEquals("cache=0 dir=" + runDir.toRealPath(), Files.readString(runDir.resolve("tuner.log")).trim());
    }

    @Test
    void aTunerThatCrashesLeavesNoResultAndSaysSo() throws Exception {
        Path bin = dir.resolve("bin");
        tuner(bin, "xaxpy", "kill -SEGV $$"); // as clblast_tuner_xaxpy -n 4096 did once on PoCL 3.1
        ClblastTask axpy = new ClblastTask("xaxpy", 32, Map.of("n", 4096L), List.of("Xaxpy"));
        TunerRunner.Outcome o = new TunerRunner(new TunerCap(16, 1, Duration.ofSeconds(60)), dir.resolve("work"), bin)
                .run(axpy);
        assertEquals(TunerRunner.Status.FINISHED, o.status());
        assertEquals(List.of(), o.jsons());
        assertEquals("killed by signal 11: no results from its unfinished phase", o.message());
    }

    @Test
    void aRunOfTheSameCommandIsReusedWithItsRecordedWallTimeAndAnotherCapRunsAfresh() throws Exception {
        Path fixture = TunerResultsTest.fixture(dir, "clblast_xgemm_direct_2_32.json");
        Path bin = dir.resolve("bin");
        tuner(bin, "xgemm_direct", "echo run >> " + dir.resolve("runs.log") + "; sleep 1; cp " + fixture + " .");
        ClblastTask direct = new ClblastTask("xgemm_direct", 32, Map.of("m", 256L, "n", 512L, "k", 512L),
                List.of("XgemmDirect"), ClblastTask.PIN_DIRECT);
        TunerCap cap = new TunerCap(48, 700, 1, 1, Duration.ofSeconds(60));
        TunerRunner.Outcome first = new TunerRunner(cap, dir.resolve("b"), bin).run(direct);
        assertEquals(TunerRunner.Status.FINISHED, first.status());
        assertTrue(first.wall().toMillis() >= 1000, first.wall().toString());

        TunerRunner.Outcome reused = new TunerRunner(cap, dir.resolve("c"), bin, dir.resolve("b")).run(direct);
        assertEquals(TunerRunner.Status.REUSED, reused.status());
        assertEquals(first.wall().toMillis(), reused.wall().toMillis(), 1.0, "the earlier run's time is charged");
        assertEquals(TunerResults.read(first.jsons(), 32).best(), TunerResults.read(reused.jsons(), 32).best());
        assertEquals(1, Files.readAllLines(dir.resolve("runs.log")).size(), "not run again");

        TunerRunner.Outcome otherCap = new TunerRunner(new TunerCap(48, 350, 1, 1, Duration.ofSeconds(60)),
                dir.resolve("e"), bin, dir.resolve("b")).run(direct);
        assertEquals(TunerRunner.Status.FINISHED, otherCap.status(), "a run with another fraction is another run");
        assertEquals(2, Files.readAllLines(dir.resolve("runs.log")).size());
    }

    @Test
    void aMissingTunerNamesThePackageToInstall() throws Exception {
        TunerRunner.Outcome o = new TunerRunner(new TunerCap(16, 1, Duration.ofSeconds(60)), dir.resolve("work"),
                dir.resolve("empty-bin")).run(gemm());
        assertEquals(TunerRunner.Status.NOT_STARTED, o.status());
        assertTrue(o.message().endsWith("install the Debian package clblast-utils"), o.message());
    }
}
