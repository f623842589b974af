package com.example.tuner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The runtime's region names parsed back, and the tuner run each maps to. */
class ClblastRegionTest {
    @Test
    void parsesRoutinePrecisionShapeAndLayoutAsTheRuntimeWritesThem() {
        ClblastRegion gemm = ClblastRegion.parse("clblast:Xgemm:f32:m=1024,n=4096,k=1024:NN").orElseThrow();
        assertEquals("Xgemm", gemm.kernel());
        assertEquals(32, gemm.precision());
        assertEquals(Map.of("m", 1024L, "n", 4096L, "k", 1024L), gemm.shape());
        assertEquals("NN", gemm.layout());
        ClblastRegion axpy = ClblastRegion.parse("clblast:Xaxpy:f64:n=131072").orElseThrow();
        assertEquals(64, axpy.precision());
        assertEquals("", axpy.layout());
    }

    @Test
    void anythingElseIsNotAClblastRegionAndKeepsTheDefaults() {
        for (String name : List.of(
                "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)",
                "clblast:Xgemm:f32", "clblast:Xgemm:f8:m=1,n=1,k=1:NN", "clblast:Xgemm:f32:m=0,n=128,k=1:NN",
                "clblast:Xgemm:f32:m=128,m=128,k=1:NN", "clblast:Xgemm:f32:m=128,n=128,k=1:NN trailing",
                "clblast:Xgemm:f32:m=9999999999,n=128,k=1:NN", "CLBLAST:Xgemm:f32:m=128,n=128,k=1:NN",
                "clblast:Xgemm:f32:m=128,n=128,k=1:NN~9c0e3a1b2f4d5e6a")) {
            assertTrue(ClblastRegion.parse(name).isEmpty(), name);
        }
    }

    @Test
    void eachKernelMapsToItsTunerWithTheShapeAsArguments() {
        TunerCap cap = new TunerCap(16, 1, java.time.Duration.ofSeconds(60));
        TuningTask gemm = task("clblast:Xgemm:f32:m=256,n=2048,k=512:NN");
        assertEquals(List.of("clblast_tuner_xgemm", "-precision", "32", "-m", "256", "-n", "2048", "-k", "512",
                "-fraction", "16", "-runs", "1"), gemm.command(cap));
        assertEquals(List.of("Xgemm"), gemm.kernels());
        TuningTask gemv = task("clblast:Xgemv:f32:m=1536,n=512:N");
        assertEquals(List.of("clblast_tuner_xgemv", "-precision", "32", "-m", "1536", "-n", "512", "-runs", "1"),
                gemv.command(cap));
        assertEquals(List.of("Xgemv", "XgemvFast", "XgemvFastRot"), gemv.kernels());
        assertEquals("xaxpy f32 n=131072", task("clblast:Xaxpy:f32:n=131072").label());
        assertEquals(gemm, task("clblast:Xgemm:f32:m=256,n=2048,k=512:TN"), "another layout, the same tuner run");
    }

    @Test
    void aShapeTheTunerCannotTakeOrAKernelWithoutTunerIsSaidSo() {
        assertEquals("clblast_tuner_xgemm needs m and n multiples of 128",
                TuningTask.of(ClblastRegion.parse("clblast:Xgemm:f32:m=100,n=128,k=64:NN").orElseThrow()).reason());
        TuningTask.Tunable dot = TuningTask.of(ClblastRegion.parse("clblast:Xdot:f32:n=4096").orElseThrow());
        assertNull(dot.task());
        assertEquals("no tuner for kernel Xdot in this optimizer", dot.reason());
    }

    private static TuningTask task(String name) {
        return TuningTask.of(ClblastRegion.parse(name).orElseThrow()).task();
    }
}
