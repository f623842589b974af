package com.example.tuner;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Which CLBlast tuner run tunes a region the CLBlast runtime records ({@link ClblastRegion}), and the
 * bound past which this optimizer refuses to plan one (docs/PGO.md, "What the planner refuses").
 *
 * <p><b>The GEMM kernel is the one the call runs.</b> CLBlast runs a GEMM on {@code XgemmDirect}
 * when {@code m·n·k < XGEMM_MIN_INDIRECT_SIZE³} (its {@code UseDirectKernel}; 896 on PoCL's CPU
 * device, so every GEMM under 7.2e8 multiply-adds), else on {@code Xgemm} with helper kernels.
 * Tuning {@code Xgemm} for a shape that runs direct changes nothing, which is why this optimizer
 * chooses by the device's threshold ({@link GemmKernel#AUTO}, {@code minIndirectSize} as
 * {@code clblast-runtime --defaults} prints it), or as told, and gives the regions of each GEMM run a
 * {@code GemmRoutine} entry that makes CLBlast take the tuned kernel for their shape whatever the
 * device's default ({@link ClblastTask#minIndirectSize()}).
 *
 * <p><b>The bound.</b> A tuner allocates the call's operands on the device and times every
 * configuration on them: a GEMM of {@code m = n = 999999872, k = 999999999} or a 10⁹×10⁹ GEMV would
 * never finish (or never allocate). This optimizer refuses a region whose operands exceed
 * {@value #MAX_OPERAND_BYTES} bytes (1 GiB) or, for a GEMM, whose multiply-adds exceed
 * {@value #MAX_GEMM_MULTIPLY_ADDS} (4096³), with the reason in the plan; its runtime keeps CLBlast's
 * defaults. Products are computed without overflow.
 *
 * <p><b>Names the OpenCL layer records.</b> A region named by the layer ({@link LayerRegion}: {@code XgemmDirectTN},
 * {@code XaxpyFastest[4096/64]}, {@code Xgemm#3f2a9c1e07b4}) maps to the tuner of its kernel's parameter set
 * ({@link ClblastKernels}) at the tuner's default sizes, so every region of one set — other functions, shapes,
 * builds — shares one run. The name says which GEMM kernel ran, so no routine choice is made or written for it
 * ({@code --gemm-kernel} does not apply), and it carries no precision: the layer's regions are tuned at the
 * precision given here (32 unless told). A name of the layer's form whose kernel is not CLBlast's is
 * {@code not a CLBlast kernel}; a name of neither form is {@code not a CLBlast region}.
 */
public final class ClblastTunables implements Tunables<ClblastTask> {
    /** The most operand bytes a tuned call may have: 1 GiB. */
    public static final long MAX_OPERAND_BYTES = 1L << 30;
    /** The most multiply-adds of a tuned GEMM: 4096³. */
    public static final long MAX_GEMM_MULTIPLY_ADDS = 1L << 36;
    /** The multiple of m and n that the (indirect) GEMM tuner requires (its second phase's largest tile). */
    static final long GEMM_MULTIPLE = 128;

    /** Which GEMM kernel to tune. */
    public enum GemmKernel {
        /** The one CLBlast runs for the shape, by the device's {@code XGEMM_MIN_INDIRECT_SIZE}. */
        AUTO,
        /** {@code XgemmDirect} for every shape. */
        DIRECT,
        /** {@code Xgemm} for every shape the tuner can take (m and n multiples of 128). */
        INDIRECT
    }

    private final GemmKernel gemmKernel;
    private final long minIndirectSize;
    private final int layerPrecision;

    /**
     * @param gemmKernel which GEMM kernel to tune
     * @param minIndirectSize the device's {@code XGEMM_MIN_INDIRECT_SIZE}, for {@link GemmKernel#AUTO}
     * @param layerPrecision the precision (16, 32 or 64) at which kernels named by the OpenCL layer are tuned
     */
    public ClblastTunables(GemmKernel gemmKernel, long minIndirectSize, int layerPrecision) {
        if (minIndirectSize < 1) {
            throw new IllegalArgumentException("XGEMM_MIN_INDIRECT_SIZE must be >= 1: " + minIndirectSize);
        }
        if (layerPrecision != 16 && layerPrecision != 32 && layerPrecision != 64) {
            throw new IllegalArgumentException("the precision must be 16, 32 or 64: " + layerPrecision);
        }
        this.gemmKernel = gemmKernel;
        this.minIndirectSize = minIndirectSize;
        this.layerPrecision = layerPrecision;
    }

    /**
     * Tunes the layer's kernels in single precision.
     *
     * @param gemmKernel which GEMM kernel to tune
     * @param minIndirectSize the device's {@code XGEMM_MIN_INDIRECT_SIZE}, for {@link GemmKernel#AUTO}
     */
    public ClblastTunables(GemmKernel gemmKernel, long minIndirectSize) {
        this(gemmKernel, minIndirectSize, 32);
    }

    /** Tunes the kernel that CLBlast 1.5.3 runs on PoCL's CPU device (threshold 896). */
    public ClblastTunables() {
        this(GemmKernel.AUTO, 896);
    }

    @Override
    public Tunable<ClblastTask> of(String regionName) {
        Optional<ClblastRegion> parsed = ClblastRegion.parse(regionName);
        if (parsed.isEmpty()) {
            return LayerRegion.parse(regionName).map(this::ofLayer).orElseGet(() -> Tunable.no("not a CLBlast region"));
        }
        ClblastRegion region = parsed.get();
        Optional<Long> m = region.size("m");
        Optional<Long> n = region.size("n");
        Optional<Long> k = region.size("k");
        long bytes = region.precision() / 8;
        return switch (region.kernel()) {
            case "Xgemm" -> {
                if (m.isEmpty() || n.isEmpty() || k.isEmpty()) {
                    yield Tunable.no("Xgemm needs m, n and k");
                }
                String over = overBound(bytes, List.of(List.of(m.get(), k.get()), List.of(k.get(), n.get()),
                        List.of(m.get(), n.get())), product(product(m.get(), n.get()), k.get()), "m·n·k");
                yield over != null ? Tunable.no(over) : gemm(region, m.get(), n.get(), k.get());
            }
            case "Xgemv" -> {
                if (m.isEmpty() || n.isEmpty()) {
                    yield Tunable.no("Xgemv needs m and n");
                }
                String over = overBound(bytes, List.of(List.of(m.get(), n.get()), List.of(m.get()), List.of(n.get())),
                        -1, null);
                yield over != null ? Tunable.no(over)
                        : Tunable.yes(new ClblastTask("xgemv", region.precision(), Map.of("m", m.get(), "n", n.get()),
                                List.of("Xgemv", "XgemvFast", "XgemvFastRot")));
            }
            case "Xaxpy" -> {
                if (n.isEmpty()) {
                    yield Tunable.no("Xaxpy needs n");
                }
                String over = overBound(bytes, List.of(List.of(n.get()), List.of(n.get())), -1, null);
                yield over != null ? Tunable.no(over)
                        : Tunable.yes(new ClblastTask("xaxpy", region.precision(), Map.of("n", n.get()), List.of("Xaxpy")));
            }
            default -> Tunable.no("no tuner for kernel " + region.kernel() + " in this optimizer");
        };
    }

    /** A kernel the OpenCL layer recorded: its set's tuner at the tuner's sizes, whatever the name's shape. */
    private Tunable<ClblastTask> ofLayer(LayerRegion region) {
        return ClblastKernels.tunerOf(region.kernel())
                .map(t -> Tunable.yes(new ClblastTask(t.name(), layerPrecision, t.sizes(), t.sets())))
                .orElseGet(() -> Tunable.no(ClblastKernels.whyNoTuner(region.kernel())));
    }

    private Tunable<ClblastTask> gemm(ClblastRegion region, long m, long n, long k) {
        // CLBlast's UseDirectKernel; m·n·k is within the bound here, and a threshold past 4096 has a cube
        // past every bounded m·n·k (and would overflow)
        boolean runsDirect = minIndirectSize > 4096 || m * n * k < minIndirectSize * minIndirectSize * minIndirectSize;
        boolean direct = switch (gemmKernel) {
            case AUTO -> runsDirect;
            case DIRECT -> true;
            case INDIRECT -> false;
        };
        Map<String, Long> sizes = Map.of("m", m, "n", n, "k", k);
        if (direct) {
            return Tunable.yes(new ClblastTask("xgemm_direct", region.precision(), sizes, List.of("XgemmDirect"),
                    ClblastTask.PIN_DIRECT));
        }
        if (m % GEMM_MULTIPLE != 0 || n % GEMM_MULTIPLE != 0) {
            return Tunable.no("clblast_tuner_xgemm needs m and n multiples of " + GEMM_MULTIPLE);
        }
        return Tunable.yes(new ClblastTask("xgemm", region.precision(), sizes, List.of("Xgemm"), ClblastTask.PIN_INDIRECT));
    }

    /**
     * Null when the operands fit the bound (and, for a GEMM, the multiply-adds), else the reason.
     *
     * @param bytes bytes per element
     * @param operands each operand's dimensions
     * @param work the multiply-adds (Long.MAX_VALUE past the range), or -1 when not bounded
     * @param workName how the reason names them
     */
    private static String overBound(long bytes, List<List<Long>> operands, long work, String workName) {
        long total = 0;
        for (List<Long> dims : operands) {
            long elements = 1;
            for (long d : dims) {
                elements = product(elements, d);
            }
            total = sum(total, product(elements, bytes));
        }
        if (total > MAX_OPERAND_BYTES) {
            return String.format(Locale.ROOT, "over the bound: operands of %s bytes exceed 1 GiB",
                    total == Long.MAX_VALUE ? "more than 2^63" : String.valueOf(total));
        }
        if (work > MAX_GEMM_MULTIPLY_ADDS) {
            return "over the bound: " + workName + " = " + (work == Long.MAX_VALUE ? "more than 2^63" : work)
                    + " multiply-adds exceed 4096³";
        }
        return null;
    }

    /** a·b for a, b >= 0, saturating at Long.MAX_VALUE. */
    private static long product(long a, long b) {
        long high = Math.multiplyHigh(a, b);
        long low = a * b;
        return high != 0 || low < 0 ? Long.MAX_VALUE : low;
    }

    /** a+b for a, b >= 0, saturating at Long.MAX_VALUE. */
    private static long sum(long a, long b) {
        long s = a + b;
        return s < 0 ? Long.MAX_VALUE : s;
    }
}
