package dev.hintmap.cli;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/** Real-looking GPU kernel names, as CUPTI reports them, and a hint file that holds them, for the table and filter tests. */
final class KernelNames {
    private KernelNames() {}

    /** PyTorch's softmax, 169 bytes: a qualifier with an anonymous namespace, template arguments and parameters. */
    static final String SOFTMAX = "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float,"
            + " at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)";
    /** A CUTLASS kernel as cuBLAS launches it. */
    static final String CUTLASS =
            "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)";
    /** cuBLAS's own SGEMM: a C name. */
    static final String CUBLAS = "ampere_sgemm_128x64_nn";
    /** A kernel Triton generated for torch.compile. */
    static final String TRITON = "triton_poi_fused_add_0";
    /**
     * 585 bytes, PyTorch over CUTLASS; {@code BFloat16} first appears at byte 309, beyond the 239 bytes
     * of it a file of the default limit (256) keeps.
     */
    static final String LAYER_NORM = "void at::native::(anonymous namespace)::layer_norm_grad_input_kernel_vectorized"
            + "<float, float, at::native::(anonymous namespace)::WelfordDataLN, at::native::memory::LoadWithoutCast,"
            + " cutlass::gemm::GemmShape<128, 128, 32>, cutlass::gemm::GemmShape<64, 64, 32>,"
            + " cutlass::epilogue::thread::LinearCombination<c10::BFloat16, 8, float, float,"
            + " cutlass::epilogue::thread::ScaleType::Default, cutlass::FloatRoundStyle::round_to_nearest, c10::BFloat16>,"
            + " cutlass::arch::OpMultiplyAdd, 4, 8>(c10::BFloat16 const*, c10::BFloat16 const*, float const*,"
            + " float const*, c10::BFloat16*, int, int, int64_t)";
    /** A second 585-byte name that differs from {@link #LAYER_NORM} only in its tail: two rows a table must tell apart. */
    static final String LAYER_NORM_FP16 = LAYER_NORM.replace("int64_t)", "int32_t)");

    static final List<String> ALL = List.of(LAYER_NORM, LAYER_NORM_FP16, SOFTMAX, CUTLASS, CUBLAS, TRITON);

    static {
        if (LAYER_NORM.getBytes(StandardCharsets.UTF_8).length != 585
                || LAYER_NORM_FP16.getBytes(StandardCharsets.UTF_8).length != 585) {
            throw new AssertionError("the long names are 585 bytes");
        }
    }

    /** The record of the i-th name of {@link #ALL}: numbers of realistic widths, each different. */
    static RegionRecord record(int i) {
        long count = 1_000_003L * (i + 1);
        long mean = 123_457L + 1_111L * i;
        return new RegionRecord(ALL.get(i), count, mean * count, mean + 1_000, 4_096L * (i + 1) * count);
    }

    /**
     * A file of limit {@code maxNameBytes} holding every name of {@link #ALL}, each with its own
     * counts ({@link #record}).
     */
    static Path file(Path file, int maxNameBytes) throws IOException {
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(16).maxNameBytes(maxNameBytes))) {
            for (int i = 0; i < ALL.size(); i++) {
                store.add(record(i));
            }
        }
        return file;
    }
}
