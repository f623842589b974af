package com.example.tuner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The OpenCL layer's region names parsed back, in each of the four HINTMAP_NAME forms, and only those. */
class LayerRegionTest {
    @Test
    void parsesTheKernelAloneAsHintmapNameKernelWritesIt() {
        LayerRegion r = LayerRegion.parse("XgemmDirectTN").orElseThrow();
        assertEquals("XgemmDirectTN", r.kernel());
        assertEquals("", r.buildTag());
        assertFalse(r.hasShape());
        assertEquals(List.of(), r.local());
    }

    @Test
    void parsesTheWorkSizesOfKernelPlusShapeWithAndWithoutALocalSize() {
        LayerRegion gemm = LayerRegion.parse("Xgemm[1024x1024/16x16]").orElseThrow();
        assertEquals("Xgemm", gemm.kernel());
        assertEquals(List.of(1024L, 1024L), gemm.global());
        assertEquals(List.of(16L, 16L), gemm.local());
        LayerRegion sum = LayerRegion.parse("sum[50000]").orElseThrow();
        assertEquals(List.of(50000L), sum.global());
        assertEquals(List.of(), sum.local(), "the implementation chose the local size");
        assertEquals(List.of(64L, 8L, 2L), LayerRegion.parse("XconvgemmNormal[64x8x2/8x8x1]").orElseThrow().global());
        assertEquals(List.of(1L), LayerRegion.parse("task[1/1]").orElseThrow().local(), "clEnqueueTask");
        LayerRegion unread = LayerRegion.parse("Xaxpy[?]").orElseThrow();
        assertEquals("Xaxpy", unread.kernel());
        assertFalse(unread.hasShape(), "a shape the layer could not read");
    }

    @Test
    void parsesTheBuildTagAloneAndWithTheShape() {
        LayerRegion build = LayerRegion.parse("XaxpyFastest#0123456789ab").orElseThrow();
        assertEquals("XaxpyFastest", build.kernel());
        assertEquals("#0123456789ab", build.buildTag());
        LayerRegion both = LayerRegion.parse("Xgemm#3f2a9c1e07b4[1024x1024/16x16]").orElseThrow();
        assertEquals("Xgemm", both.kernel());
        assertEquals("#3f2a9c1e07b4", both.buildTag());
        assertEquals(List.of(16L, 16L), both.local());
    }

    @Test
    void aSizeTTakesEverySizeUpTo2To64Minus1ReadAsUnsigned() {
        LayerRegion huge = LayerRegion.parse("Xaxpy[18446744073709551615/1]").orElseThrow();
        assertEquals("18446744073709551615", Long.toUnsignedString(huge.global().getFirst()));
        assertEquals(0L, LayerRegion.parse("k[0]").orElseThrow().global().getFirst(), "OpenCL 2.1 allows an empty range");
        assertTrue(LayerRegion.parse("Xaxpy[18446744073709551616]").isEmpty(), "2^64 is past a size_t");
        assertTrue(LayerRegion.parse("Xaxpy[999999999999999999999]").isEmpty(), "21 digits");
    }

    @Test
    void anythingTheLayerDoesNotWriteIsNotALayerRegion() {
        for (String name : List.of(
                "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)",
                "clblast:Xgemm:f32:m=1024,n=4096,k=1024:NN", "fftw:cof256x256", "", "9Xgemm", "Xgemm ", " Xgemm",
                "Xgemm\n  tune  xgemm f32", "Xgemm\u001b[2K", "Xgemm[]", "Xgemm[01024]", "Xgemm[1024x1024/16]",
                "Xgemm[1x2x3x4]", "Xgemm[1024/16/16]", "Xgemm[1024", "Xgemm[1024]trailing", "Xgemm[1024][?]",
                "Xgemm#3F2A9C1E07B4", "Xgemm#3f2a9c1e07b", "Xgemm#3f2a9c1e07b4a", "Xgemm[1024]#3f2a9c1e07b4",
                "Xgemm[-1]", "Xgemm[+1]", "Xgemm[1e3]", "Xgemm[?/16]",
                "Xgemm" + "x".repeat(300) + "~9c0e3a1b2f4d5e6a7b8c9d0e1f2a3b4c")) {
            assertTrue(LayerRegion.parse(name).isEmpty(), name);
        }
    }
}
