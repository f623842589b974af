package com.example.tuner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
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
                "clblast:Xgemm:f32:m=9999999999999999999,n=128,k=1:NN", "CLBLAST:Xgemm:f32:m=128,n=128,k=1:NN",
                "clblast:Xgemm:f32:m=128,n=128,k=1:NN~9c0e3a1b2f4d5e6a")) {
            assertTrue(ClblastRegion.parse(name).isEmpty(), name);
        }
    }

    @Test
    void eachKernelMapsToItsTunerWithTheShapeAsArguments() {
        TunerCap cap = new TunerCap(48, 700, 1, 1, Duration.ofSeconds(60));
        ClblastTask gemm = task(new ClblastTunables(), "clblast:Xgemm:f32:m=256,n=2048,k=512:NN");
        assertEquals(List.of("clblast_tuner_xgemm_direct", "-precision", "32", "-m", "256", "-n", "2048", "-k", "512",
                "-fraction", "700", "-runs", "1"), gemm.command(cap), "2.7e8 multiply-adds < 896³: CLBlast runs XgemmDirect");
        assertEquals(List.of("XgemmDirect"), gemm.kernels());
        ClblastTask gemv = task(new ClblastTunables(), "clblast:Xgemv:f32:m=1536,n=512:N");
        assertEquals(List.of("clblast_tuner_xgemv", "-precision", "32", "-m", "1536", "-n", "512", "-runs", "1"),
                gemv.command(cap));
        assertEquals(List.of("Xgemv", "XgemvFast", "XgemvFastRot"), gemv.kernels());
        assertEquals(List.of("clblast_tuner_xaxpy", "-precision", "32", "-n", "131072", "-fraction", "4", "-runs", "1"),
                task(new ClblastTunables(), "clblast:Xaxpy:f32:n=131072").command(new TunerCap(48, 700, 4, 1,
                        Duration.ofSeconds(60))), "a vector fraction above 1 is passed");
        assertEquals("xaxpy f32 n=131072", task(new ClblastTunables(), "clblast:Xaxpy:f32:n=131072").label());
        assertEquals(gemm, task(new ClblastTunables(), "clblast:Xgemm:f32:m=256,n=2048,k=512:TN"),
                "another layout, the same tuner run");
    }

    @Test
    void theGemmKernelTunedIsTheOneClblastRunsForTheShapeAndTheRegionIsPinnedToIt() {
        ClblastTunables pocl = new ClblastTunables(ClblastTunables.GemmKernel.AUTO, 896);
        ClblastTask small = task(pocl, "clblast:Xgemm:f32:m=512,n=512,k=512:NN");
        assertEquals("xgemm_direct", small.tuner());
        assertEquals("GemmRoutine", small.routineChoice().orElseThrow().kernel());
        assertEquals("XGEMM_MIN_INDIRECT_SIZE=4097", small.routineChoice().orElseThrow().parameterList(),
                "every GEMM under the bound (4096³) runs direct whatever the device's default");
        ClblastTask large = task(pocl, "clblast:Xgemm:f32:m=1024,n=1024,k=1024:NN");
        assertEquals("xgemm", large.tuner(), "1024³ >= 896³: CLBlast runs Xgemm with its helper kernels");
        assertEquals(List.of("clblast_tuner_xgemm", "-precision", "32", "-m", "1024", "-n", "1024", "-k", "1024",
                "-fraction", "48", "-runs", "1"), large.command(TunerCap.DEFAULT));
        assertEquals(Map.of("XGEMM_MIN_INDIRECT_SIZE", 1L), large.routineChoice().orElseThrow().parameters());
        assertEquals("xgemm", task(new ClblastTunables(ClblastTunables.GemmKernel.AUTO, 256),
                "clblast:Xgemm:f32:m=512,n=512,k=512:NN").tuner(), "another device's threshold");
        assertEquals("xgemm", task(new ClblastTunables(ClblastTunables.GemmKernel.INDIRECT, 896),
                "clblast:Xgemm:f32:m=512,n=512,k=512:NN").tuner());
        assertEquals("xgemm_direct", task(new ClblastTunables(ClblastTunables.GemmKernel.DIRECT, 896),
                "clblast:Xgemm:f32:m=1024,n=1024,k=1024:NN").tuner());
        assertTrue(task(pocl, "clblast:Xgemv:f32:m=1536,n=512:N").routineChoice().isEmpty());
    }

    @Test
    void aShapeTheTunerCannotTakeOrAKernelWithoutTunerIsSaidSo() {
        assertEquals("clblast_tuner_xgemm needs m and n multiples of 128",
                new ClblastTunables().of("clblast:Xgemm:f32:m=1000,n=1000,k=1000:NN").reason(), "1e9 runs indirect");
        assertEquals("xgemm_direct", task(new ClblastTunables(), "clblast:Xgemm:f32:m=100,n=128,k=64:NN").tuner(),
                "the direct kernel takes any shape");
        Tunable<ClblastTask> dot = new ClblastTunables().of("clblast:Xdot:f32:n=4096");
        assertNull(dot.task());
        assertEquals("no tuner for kernel Xdot in this optimizer", dot.reason());
        assertEquals("not a CLBlast region", new ClblastTunables().of("fftw:cof256x256").reason());
    }

    @Test
    void shapesPastTheBoundAreRefusedWithTheReasonNeverPlanned() {
        ClblastTunables t = new ClblastTunables();
        assertEquals("over the bound: operands of more than 2^63 bytes exceed 1 GiB",
                t.of("clblast:Xgemm:f32:m=999999872,n=999999872,k=999999999:NN").reason());
        assertEquals("over the bound: operands of 4000000008000000000 bytes exceed 1 GiB",
                t.of("clblast:Xgemv:f32:m=1000000000,n=1000000000:N").reason(), "the 10⁹×10⁹ GEMV");
        assertEquals("over the bound: m·n·k = 68853694464 multiply-adds exceed 4096³",
                t.of("clblast:Xgemm:f32:m=4096,n=4096,k=4104:NN").reason(), "operands of 0.2 GB, but 6.9e10 multiply-adds");
        assertEquals("over the bound: operands of 1073741840 bytes exceed 1 GiB", t.of("clblast:Xaxpy:f64:n=67108865").reason());
        assertEquals("xgemm", t.of("clblast:Xgemm:f32:m=4096,n=4096,k=4096:NN").task().tuner(), "4096³ is within");
        assertEquals("xaxpy", t.of("clblast:Xaxpy:f64:n=67108864").task().tuner(), "exactly 1 GiB is within");
    }

    private static ClblastTask task(ClblastTunables tunables, String name) {
        return tunables.of(name).task();
    }
}
