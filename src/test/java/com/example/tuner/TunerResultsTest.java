package com.example.tuner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tuners' JSON (files recorded from CLBlast 1.5.3's tuners on PoCL 3.1, shortened to two results
 * each) read into the parameters CLBlastOverrideParameters takes; damaged files skipped with a reason.
 */
class TunerResultsTest {
    @TempDir Path dir;

    static Path fixture(Path dir, String name) throws Exception {
        try (InputStream in = TunerResultsTest.class.getResourceAsStream(name)) {
            Path file = dir.resolve(name);
            Files.write(file, in.readAllBytes());
            return file;
        }
    }

    @Test
    void readsTheBestParametersOfEachKernelWithoutThePrecisionEntry() throws Exception {
        TunerResults r = TunerResults.read(List.of(fixture(dir, "clblast_xgemm_1_32.json")), 32);
        assertEquals(List.of(), r.problems());
        TunedKernel gemm = r.best().get("Xgemm");
        assertEquals(1.07, gemm.timeMs(), 1e-9);
        assertEquals("GEMMK=0 KREG=1 KWG=32 KWI=2 MDIMA=8 MDIMC=8 MWG=64 NDIMB=32 NDIMC=32 NWG=64 SA=1 SB=1 STRM=0"
                + " STRN=0 VWM=4 VWN=1", gemm.parameterList());
    }

    @Test
    void theKernelComesFromTheFamilyNotFromTheOpenClFunctionThatRan() throws Exception {
        TunerResults r = TunerResults.read(List.of(fixture(dir, "clblast_xaxpy_32.json"),
                fixture(dir, "clblast_xgemv_32.json")), 32);
        assertEquals(Map.of("VW", 4L, "WGS", 128L, "WPT", 2L), r.best().get("Xaxpy").parameters(), "best_kernel: XaxpyFastest");
        assertEquals(Map.of("WGS1", 256L, "WPT1", 1L), r.best().get("Xgemv").parameters());
        assertEquals(2, r.best().size());
    }

    @Test
    void ofTwoPhasesOfOneKernelTheFasterWins() throws Exception {
        Path first = fixture(dir, "clblast_xgemm_1_32.json");
        Path second = Files.writeString(dir.resolve("clblast_xgemm_2_32.json"), Files.readString(first)
                .replace("\"xgemm_1\"", "\"xgemm_2\"").replace("\"best_time\": \"1.07\"", "\"best_time\": \"0.81\"")
                .replace("MWG=64", "MWG=128"));
        TunedKernel best = TunerResults.read(List.of(first, second), 32).best().get("Xgemm");
        assertEquals(0.81, best.timeMs(), 1e-9);
        assertEquals(128L, best.parameters().get("MWG"));
    }

    @Test
    void theDotSetIsTheUnionOfItsTwoPhasesAndOnlyWhenBothAreThere() throws Exception {
        Path first = fixture(dir, "clblast_xdot_1_32.json");
        Path second = fixture(dir, "clblast_xdot_2_32.json");
        TunerResults both = TunerResults.read(List.of(first, second), 32);
        assertEquals(List.of(), both.problems());
        TunedKernel dot = both.best().get("Xdot");
        assertEquals(List.of("WGS1", "WGS2"), List.copyOf(dot.parameters().keySet()),
                "Xdot's whole set, as CLBlastOverrideParameters needs it: WGS1 from xdot_1, WGS2 from xdot_2");
        TunerResults one = TunerResults.read(List.of(first), 32);
        assertEquals(Map.of(), one.best(), "WGS1 alone is refused by CLBlast: not written");
        assertEquals(List.of("Xdot: no result of phase xdot_2: its set would be incomplete, so it keeps its defaults"),
                one.problems());
    }

    @Test
    void theHelperKernelsTunersSetTheirOwnFamiliesSets() throws Exception {
        String axpy = Files.readString(fixture(dir, "clblast_xaxpy_32.json"));
        Path copy = Files.writeString(dir.resolve("clblast_copy_32.json"), axpy.replace("\"xaxpy\"", "\"copy\"")
                .replace("PRECISION=32 VW=4 WGS=128 WPT=2", "COPY_DIMX=16 COPY_DIMY=8 COPY_VW=4 COPY_WPT=1 PRECISION=32"));
        Path pad = Files.writeString(dir.resolve("clblast_padtranspose_32.json"), axpy.replace("\"xaxpy\"", "\"padtranspose\"")
                .replace("PRECISION=32 VW=4 WGS=128 WPT=2", "PADTRA_PAD=1 PADTRA_TILE=16 PADTRA_WPT=2 PRECISION=32"));
        Map<String, TunedKernel> best = TunerResults.read(List.of(copy, pad), 32).best();
        assertEquals("COPY_DIMX=16 COPY_DIMY=8 COPY_VW=4 COPY_WPT=1", best.get("Copy").parameterList());
        assertEquals("PADTRA_PAD=1 PADTRA_TILE=16 PADTRA_WPT=2", best.get("Padtranspose").parameterList());
    }

    @Test
    void aDamagedOrForeignResultFileIsSkippedWithItsReason() throws Exception {
        String good = Files.readString(fixture(dir, "clblast_xgemm_1_32.json"));
        Path cut = Files.writeString(dir.resolve("clblast_xgemm_1_32.json"), good.substring(0, good.length() / 2));
        Path otherPrecision = Files.writeString(dir.resolve("p64.json"), good.replace("\"precision\": \"32\"", "\"precision\": \"64\""));
        Path badParameter = Files.writeString(dir.resolve("bad.json"), good.replace("MWG=64", "MWG=-1"));
        Path unknownFamily = Files.writeString(dir.resolve("trsv.json"), good.replace("\"xgemm_1\"", "\"xtrsv\""));
        Path noTime = Files.writeString(dir.resolve("time.json"), good.replace("\"best_time\": \"1.07\"", "\"best_time\": \"0\""));
        TunerResults r = TunerResults.read(List.of(cut, otherPrecision, badParameter, unknownFamily, noTime,
                dir.resolve("absent.json")), 32);
        assertEquals(Map.of(), r.best());
        List<String> problems = r.problems();
        assertEquals(6, problems.size());
        assertTrue(problems.get(0).startsWith("clblast_xgemm_1_32.json: JSON: "), problems.get(0));
        assertTrue(problems.get(1).contains("precision 64, not 32"), problems.get(1));
        assertTrue(problems.get(2).contains("'MWG=-1' is not NAME=VALUE"), problems.get(2));
        assertTrue(problems.get(3).contains("'xtrsv' is not one this optimizer applies"), problems.get(3));
        assertTrue(problems.get(4).contains("not a positive time"), problems.get(4));
        assertTrue(problems.get(5).startsWith("absent.json: "), problems.get(5));
    }
}
