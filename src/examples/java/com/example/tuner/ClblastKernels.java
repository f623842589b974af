package com.example.tuner;

import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * CLBlast 1.5.3's OpenCL kernels by function name — what the OpenCL layer records — and the kernel tuner
 * ({@code clblast_tuner_*}) whose results set the parameters each runs with (docs/OPENCL.md, "Planning from a
 * recorded file"). CLBlast keeps one parameter set per kernel family ({@code Xaxpy}, {@code XgemmDirect},
 * {@code Copy}, ...; the names {@code CLBlastOverrideParameters} takes), and several OpenCL functions read the
 * same set: {@code Xscal}, {@code Xcopy}, {@code Xswap} and {@code Xhad} run with {@code Xaxpy}'s,
 * {@code Xamax}, {@code Xasum} and {@code Xnrm2} with {@code Xdot}'s, the padding kernels of the indirect GEMM
 * and of the symmetric, Hermitian and triangular routines with {@code Pad}'s. A function maps to the tuner of its
 * set, which times the set on its own kernel ({@code XaxpyFastest}, {@code XgemmDirectTN}, ...).
 *
 * <p><b>Sizes.</b> Each run uses the tuner's default sizes (CLBlast 1.5.3's, passed explicitly so that another
 * version tunes the same problem), because the work sizes a layer name carries do not give the routine's sizes:
 * CLBlast enqueues the problem divided, and rounded up, by the very parameters being tuned — AXPY
 * {@code n/(WPT·VW)} items, the direct GEMM {@code ⌈m/WGD⌉·MDIMCD} by {@code ⌈n/WGD⌉·NDIMCD} (and {@code k}
 * not at all), the GEMM {@code ⌈m/MWG⌉·MDIMC} by {@code ⌈n/NWG⌉·NDIMC}, GEMV and GER rounded up to a multiple
 * of the work-group size, DOT a fixed number of groups whatever {@code n}. The name does not say which
 * parameters ran, so no size follows exactly from it for any kernel, and guessing one would tune a problem the
 * program may not have. The tuners of {@code invert} and {@code xconvgemm} take other arguments than
 * {@code -m -n -k}: they run with their own defaults.
 *
 * <p>Source of the table: the {@code __kernel} functions of the OpenCL sources CLBlast 1.5.3 embeds, the
 * parameter sets its routines read (the {@code Routine(..., {"Xaxpy"})} of each), and its tuners'
 * {@code kernel_family}, {@code kernel_name} and default sizes ({@code src/tuning/kernels/*.hpp}).
 */
public final class ClblastKernels {
    private ClblastKernels() {}

    /**
     * A kernel tuner of CLBlast 1.5.3 and the OpenCL functions whose parameters its results set.
     *
     * @param name the tuner's name without its {@code clblast_tuner_} prefix
     * @param sizes its default sizes by name ({@code m}, {@code n}, {@code k}), empty when it takes others
     * @param sets the parameter sets its results set (the parameters file's kernel column)
     * @param functions the OpenCL kernel functions that run with those sets
     */
    public record Tuner(String name, Map<String, Long> sizes, List<String> sets, List<String> functions) {
        /** Keeps immutable copies, the sizes in the order given. */
        public Tuner {
            sizes = Collections.unmodifiableMap(new LinkedHashMap<>(sizes));
            sets = List.copyOf(sets);
            functions = List.copyOf(functions);
        }
    }

    /** Every kernel tuner, in CLBlast's order of routines. */
    public static final List<Tuner> TUNERS = List.of(
            new Tuner("xaxpy", sizes("n", 4_194_304L), List.of("Xaxpy"), List.of("Xaxpy", "XaxpyFaster", "XaxpyFastest",
                    "XaxpyBatched", "Xcopy", "XcopyFast", "Xscal", "XscalFast", "Xswap", "XswapFast", "Xhad", "XhadFaster",
                    "XhadFastest")),
            new Tuner("xdot", sizes("n", 2_097_152L), List.of("Xdot"), List.of("Xdot", "XdotEpilogue", "Xamax",
                    "XamaxEpilogue", "Xasum", "XasumEpilogue", "Xnrm2", "Xnrm2Epilogue")),
            new Tuner("xgemv", sizes("m", 2048L, "n", 2048L), List.of("Xgemv", "XgemvFast", "XgemvFastRot"),
                    List.of("Xgemv", "XgemvFast", "XgemvFastRot")),
            new Tuner("xger", sizes("m", 1024L, "n", 1024L), List.of("Xger"), List.of("Xger", "Xher", "Xher2")),
            new Tuner("xgemm", sizes("m", 1024L, "n", 1024L, "k", 1024L), List.of("Xgemm"),
                    List.of("Xgemm", "XgemmUpper", "XgemmLower", "XgemmBatched", "XgemmStridedBatched")),
            new Tuner("xgemm_direct", sizes("m", 256L, "n", 256L, "k", 256L), List.of("XgemmDirect"),
                    List.of("XgemmDirectNN", "XgemmDirectNT", "XgemmDirectTN", "XgemmDirectTT", "XgemmDirectBatchedNN",
                            "XgemmDirectBatchedNT", "XgemmDirectBatchedTN", "XgemmDirectBatchedTT",
                            "XgemmDirectStridedBatchedNN", "XgemmDirectStridedBatchedNT", "XgemmDirectStridedBatchedTN",
                            "XgemmDirectStridedBatchedTT")),
            new Tuner("copy_fast", sizes("m", 1024L, "n", 1024L), List.of("Copy"), List.of("CopyMatrixFast",
                    "Xim2colKernelNormal", "Xim2colKernelFlip", "Xcol2imKernelNormal", "Xcol2imKernelFlip")),
            new Tuner("copy_pad", sizes("m", 1024L, "n", 1024L), List.of("Pad"), List.of("CopyPadMatrix",
                    "CopyPadMatrixBatched", "CopyPadMatrixStridedBatched", "CopyMatrix", "CopyMatrixBatched",
                    "CopyMatrixStridedBatched", "HermLowerToSquared", "HermUpperToSquared", "SymmLowerToSquared",
                    "SymmUpperToSquared", "TriaLowerToSquared", "TriaUpperToSquared")),
            new Tuner("transpose_fast", sizes("m", 1024L, "n", 1024L), List.of("Transpose"), List.of("TransposeMatrixFast")),
            new Tuner("transpose_pad", sizes("m", 1024L, "n", 1024L), List.of("Padtranspose"), List.of("TransposePadMatrix",
                    "TransposePadMatrixBatched", "TransposePadMatrixStridedBatched", "TransposeMatrix",
                    "TransposeMatrixBatched", "TransposeMatrixStridedBatched")),
            new Tuner("invert", Map.of(), List.of("Invert"), List.of("InvertDiagonalBlock", "TripleMatMul16Part1Lower",
                    "TripleMatMul16Part1Upper", "TripleMatMul16Part2Lower", "TripleMatMul16Part2Upper",
                    "TripleMatMul32Part1Lower", "TripleMatMul32Part1Upper", "TripleMatMul32Part2Lower",
                    "TripleMatMul32Part2Upper", "TripleMatMul64Part1Lower", "TripleMatMul64Part1Upper",
                    "TripleMatMul64Part2Lower", "TripleMatMul64Part2Upper")),
            new Tuner("xconvgemm", Map.of(), List.of("Xconvgemm"), List.of("Xconvgemm", "XconvgemmNormal", "XconvgemmFlip")));

    /** CLBlast's kernels that no kernel tuner serves, and why. */
    private static final Map<String, String> UNTUNED = Map.of(
            "FillMatrix", "a CLBlast kernel without tuned parameters (fixed work sizes)",
            "FillVector", "a CLBlast kernel without tuned parameters (fixed work sizes)",
            "trsv_forward", "a CLBlast kernel tuned by clblast_tuner_routine_xtrsv, a routine tuner this optimizer does not run",
            "trsv_backward", "a CLBlast kernel tuned by clblast_tuner_routine_xtrsv, a routine tuner this optimizer does not run");

    private static final Map<String, Tuner> BY_FUNCTION = new HashMap<>();

    static {
        for (Tuner t : TUNERS) {
            for (String f : t.functions()) {
                if (BY_FUNCTION.put(f, t) != null || UNTUNED.containsKey(f)) {
                    throw new ExceptionInInitializerError("kernel " + f + " listed twice");
                }
            }
        }
    }

    /**
     * The tuner of an OpenCL kernel function.
     *
     * @param function the function name, as {@code CL_KERNEL_FUNCTION_NAME} gives it
     * @return its tuner, or empty when CLBlast has no kernel tuner for it or it is not CLBlast's
     */
    public static Optional<Tuner> tunerOf(String function) {
        return Optional.ofNullable(BY_FUNCTION.get(function));
    }

    /**
     * Why a function has no tuner.
     *
     * @param function the function name
     * @return the reason for the plan: one of CLBlast's kernels without a kernel tuner, or
     *     {@code not a CLBlast kernel}
     */
    public static String whyNoTuner(String function) {
        return UNTUNED.getOrDefault(function, "not a CLBlast kernel");
    }

    private static Map<String, Long> sizes(Object... keysAndValues) {
        Map<String, Long> sizes = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            sizes.put((String) keysAndValues[i], (Long) keysAndValues[i + 1]);
        }
        return sizes;
    }
}
