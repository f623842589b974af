package com.example.tuner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * CLBlast's OpenCL kernels, as the OpenCL layer names them, mapped to the tuner of the parameter set each runs
 * with (with or without the shape and build suffixes), at the tuner's sizes; every kernel function of CLBlast
 * 1.5.3 is either tuned or given a reason of CLBlast's own, and other kernels are "not a CLBlast kernel".
 */
class ClblastKernelsTest {
    private static final TunerCap CAP = new TunerCap(48, 700, 1, 1, Duration.ofSeconds(60));

    private static ClblastTask task(String name) {
        ClblastTask task = new ClblastTunables().of(name).task();
        assertTrue(task != null, name + ": " + new ClblastTunables().of(name).reason());
        return task;
    }

    /** The kernel functions of CLBlast 1.5.3 (the resource's header says how they were read from the library). */
    static List<String> clblastFunctions() throws Exception {
        try (InputStream in = ClblastKernelsTest.class.getResourceAsStream("clblast-1.5.3-kernels.txt")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().filter(l -> !l.startsWith("#")).toList();
        }
    }

    @Test
    void eachKernelMapsToTheTunerOfItsParameterSetWhateverItsSuffix() {
        Map<String, String> tunerOf = Map.ofEntries(Map.entry("Xaxpy", "xaxpy"), Map.entry("XaxpyFaster", "xaxpy"),
                Map.entry("XaxpyFastest[4096/64]", "xaxpy"), Map.entry("XscalFast#0123456789ab", "xaxpy"),
                Map.entry("Xdot", "xdot"), Map.entry("XdotEpilogue[64/64]", "xdot"), Map.entry("Xnrm2Epilogue", "xdot"),
                Map.entry("Xgemv", "xgemv"), Map.entry("XgemvFast[2048/64]", "xgemv"), Map.entry("XgemvFastRot", "xgemv"),
                Map.entry("Xger", "xger"), Map.entry("Xher2", "xger"), Map.entry("Xgemm[1024x1024/16x16]", "xgemm"),
                Map.entry("XgemmUpper", "xgemm"), Map.entry("XgemmDirectNN", "xgemm_direct"),
                Map.entry("XgemmDirectTN#3f2a9c1e07b4[64x32/8x8]", "xgemm_direct"),
                Map.entry("XgemmDirectStridedBatchedTT", "xgemm_direct"), Map.entry("CopyMatrixFast", "copy_fast"),
                Map.entry("Xim2colKernelNormal", "copy_fast"), Map.entry("CopyPadMatrix[1024x1024/8x8]", "copy_pad"),
                Map.entry("SymmLowerToSquared", "copy_pad"), Map.entry("TransposeMatrixFast", "transpose_fast"),
                Map.entry("TransposePadMatrix", "transpose_pad"), Map.entry("TransposeMatrix", "transpose_pad"),
                Map.entry("InvertDiagonalBlock", "invert"), Map.entry("TripleMatMul32Part2Upper", "invert"),
                Map.entry("XconvgemmNormal", "xconvgemm"));
        tunerOf.forEach((name, tuner) -> assertEquals(tuner, task(name).tuner(), name));
    }

    @Test
    void aRunTakesTheTunersSizesAndSetsAndNoRoutineChoice() {
        ClblastTask direct = task("XgemmDirectTN[64x32/8x8]");
        assertEquals(List.of("clblast_tuner_xgemm_direct", "-precision", "32", "-m", "256", "-n", "256", "-k", "256",
                "-fraction", "700", "-runs", "1"), direct.command(CAP));
        assertEquals(List.of("XgemmDirect"), direct.kernels());
        assertTrue(direct.routineChoice().isEmpty(), "the name says which GEMM kernel ran: nothing to pin");
        assertEquals("xaxpy f32 n=4194304", task("XaxpyFastest[4096/64]").label());
        assertEquals(List.of("Xgemv", "XgemvFast", "XgemvFastRot"), task("XgemvFast").kernels());
        assertEquals(List.of("Copy"), task("CopyMatrixFast").kernels());
        assertEquals(List.of("Pad"), task("CopyPadMatrix").kernels());
        assertEquals(List.of("clblast_tuner_invert", "-precision", "32", "-runs", "1"), task("InvertDiagonalBlock").command(CAP),
                "a tuner whose arguments are not m, n, k runs at its own defaults");
        assertEquals("invert f32", task("InvertDiagonalBlock").label());
        assertEquals(List.of("clblast_tuner_xger", "-precision", "32", "-m", "1024", "-n", "1024", "-fraction", "2",
                "-runs", "1"), task("Xher2").command(CAP), "171 configurations: about half within the cap");
        assertEquals(List.of("clblast_tuner_copy_pad", "-precision", "32", "-m", "1024", "-n", "1024", "-runs", "1"),
                task("CopyPadMatrix").command(CAP), "81: all of them, as GEMV's and AXPY's");
        assertEquals("-fraction 6", String.join(" ", task("Xim2colKernelNormal").command(new TunerCap(48, 700, 3, 1,
                Duration.ofSeconds(60)))).replaceAll(".*(-fraction [0-9]+).*", "$1"));
    }

    @Test
    void everyNameOfOneParameterSetSharesOneRunAndOtherSetsDoNot() {
        ClblastTask run = task("XgemmDirectNN");
        for (String name : List.of("XgemmDirectTN", "XgemmDirectNN[256x128/8x8]", "XgemmDirectNN#0123456789ab",
                "XgemmDirectTT#fedcba987654[512x512/16x16]", "XgemmDirectBatchedNT")) {
            assertEquals(run, task(name), name);
        }
        assertEquals(task("Xaxpy"), task("XaxpyFastest[1048576/64]"));
        assertNotEquals(task("Xgemm"), task("XgemmDirectNN"), "another kernel, another set");
        assertNotEquals(task("CopyMatrixFast"), task("CopyPadMatrix"));
        assertNotEquals(task("Xgemm"), new ClblastTunables().of("clblast:Xgemm:f32:m=1024,n=1024,k=1024:NN").task(),
                "the runtime's region pins its routine choice; the layer's does not");
    }

    @Test
    void theLayersKernelsAreTunedAtThePrecisionGiven() {
        ClblastTunables doubles = new ClblastTunables(ClblastTunables.GemmKernel.AUTO, 896, 64);
        assertEquals(64, doubles.of("XgemmDirectNN").task().precision());
        assertEquals(32, doubles.of("clblast:Xgemm:f32:m=256,n=256,k=256:NN").task().precision(),
                "the runtime's names carry their own");
        assertEquals("xgemm", doubles.of("Xgemm").task().tuner(), "--gemm-kernel does not apply: the name says");
        assertEquals("xgemm_direct", new ClblastTunables(ClblastTunables.GemmKernel.INDIRECT, 896).of("XgemmDirectNN")
                .task().tuner());
        assertThrows(IllegalArgumentException.class, () -> new ClblastTunables(ClblastTunables.GemmKernel.AUTO, 896, 8));
    }

    @Test
    void otherKernelsAreNotClblastsAndClblastsOwnWithoutATunerSaySo() {
        ClblastTunables t = new ClblastTunables();
        for (String name : List.of("saxpy", "sum[50000]", "rng_gen_philox4x32_uniform", "global_bandwidth_v1_local_offset",
                "lin_comb#0123456789ab", "XaxpyFast", "xgemm")) {
            Tunable<ClblastTask> tunable = t.of(name);
            assertNull(tunable.task(), name);
            assertEquals("not a CLBlast kernel", tunable.reason(), name);
        }
        assertEquals("a CLBlast kernel without tuned parameters (fixed work sizes)", t.of("FillMatrix[1024x1024/8x8]").reason());
        assertTrue(t.of("trsv_forward").reason().contains("clblast_tuner_routine_xtrsv"), t.of("trsv_forward").reason());
        assertEquals("not a CLBlast region", t.of("Xgemm\n  tune  xgemm f32").reason(), "a name of neither form");
        assertEquals("not a CLBlast region", t.of("Xgemm[18446744073709551616]").reason(), "past a size_t: not the layer's");
        assertEquals("xgemm", t.of("Xgemm[18446744073709551615x18446744073709551615/1x1]").task().tuner(),
                "the largest work sizes change nothing: the run is the tuner's own size");
    }

    @Test
    void everyKernelOfClblast153IsTunedOrGivenClblastsReasonAndTheTableNamesNoOther() throws Exception {
        List<String> functions = clblastFunctions();
        assertEquals(88, functions.size());
        ClblastTunables t = new ClblastTunables();
        for (String f : functions) {
            assertNotEquals("not a CLBlast kernel", t.of(f).reason(), f);
        }
        Set<String> known = ClblastKernels.TUNERS.stream().flatMap(tuner -> tuner.functions().stream())
                .collect(Collectors.toSet());
        assertEquals(Set.of(), known.stream().filter(f -> !functions.contains(f)).collect(Collectors.toSet()),
                "functions CLBlast 1.5.3 does not have");
        assertEquals(84, known.size(), "all but FillMatrix, FillVector, trsv_forward, trsv_backward");
    }
}
