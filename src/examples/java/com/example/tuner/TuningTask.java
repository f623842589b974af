package com.example.tuner;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One run of a CLBlast tuner: which {@code clblast_tuner_*} program, at which precision and sizes.
 * Regions of the same kernel and sizes (another layout) share one task.
 *
 * @param tuner the tuner's name without its prefix: {@code xgemm}, {@code xgemv}, {@code xaxpy}
 * @param precision CLBlast's precision number
 * @param sizes the tuner's size arguments by name ({@code m}, {@code n}, {@code k}), in order
 * @param kernels the CLBlast kernels its results set (the parameters file's kernel column)
 */
public record TuningTask(String tuner, int precision, Map<String, Long> sizes, List<String> kernels) {
    /** The multiple of m and n that the GEMM tuner requires (its second phase's largest tile). */
    static final long GEMM_MULTIPLE = 128;

    /** Keeps immutable copies. */
    public TuningTask {
        sizes = Collections.unmodifiableMap(new LinkedHashMap<>(sizes));
        kernels = List.copyOf(kernels);
    }

    /**
     * The task that tunes a region's kernel at its shape.
     *
     * @param region a parsed region
     * @return the task, or a reason why none can tune it
     */
    public static Tunable of(ClblastRegion region) {
        Optional<Long> m = region.size("m");
        Optional<Long> n = region.size("n");
        Optional<Long> k = region.size("k");
        return switch (region.kernel()) {
            case "Xgemm" -> {
                if (m.isEmpty() || n.isEmpty() || k.isEmpty()) {
                    yield Tunable.no("Xgemm needs m, n and k");
                }
                if (m.get() % GEMM_MULTIPLE != 0 || n.get() % GEMM_MULTIPLE != 0) {
                    yield Tunable.no("clblast_tuner_xgemm needs m and n multiples of " + GEMM_MULTIPLE);
                }
                yield Tunable.yes(new TuningTask("xgemm", region.precision(),
                        Map.of("m", m.get(), "n", n.get(), "k", k.get()), List.of("Xgemm")));
            }
            case "Xgemv" -> m.isEmpty() || n.isEmpty() ? Tunable.no("Xgemv needs m and n")
                    : Tunable.yes(new TuningTask("xgemv", region.precision(), Map.of("m", m.get(), "n", n.get()),
                            List.of("Xgemv", "XgemvFast", "XgemvFastRot")));
            case "Xaxpy" -> n.isEmpty() ? Tunable.no("Xaxpy needs n")
                    : Tunable.yes(new TuningTask("xaxpy", region.precision(), Map.of("n", n.get()), List.of("Xaxpy")));
            default -> Tunable.no("no tuner for kernel " + region.kernel() + " in this optimizer");
        };
    }

    /**
     * The command line, with the cap's arguments.
     *
     * @param cap how far each run may go
     * @return {@code clblast_tuner_TUNER -precision P -m M ... [-fraction F] -runs R}
     */
    public List<String> command(TunerCap cap) {
        List<String> command = new ArrayList<>(List.of("clblast_tuner_" + tuner, "-precision", String.valueOf(precision)));
        for (String key : List.of("m", "n", "k")) { // the tuner's own order
            if (sizes.containsKey(key)) {
                command.add("-" + key);
                command.add(String.valueOf(sizes.get(key)));
            }
        }
        if (tuner.equals("xgemm")) { // the others' spaces are small: a fraction of them can leave none (TunerCap)
            command.addAll(List.of("-fraction", String.valueOf(cap.fraction())));
        }
        command.addAll(List.of("-runs", String.valueOf(cap.runs())));
        return command;
    }

    /**
     * A short label for plans and logs.
     *
     * @return e.g. {@code xgemm f32 m=256 n=2048 k=512}
     */
    public String label() {
        StringBuilder s = new StringBuilder(tuner).append(" f").append(precision);
        for (String key : List.of("m", "n", "k")) {
            if (sizes.containsKey(key)) {
                s.append(' ').append(key).append('=').append(sizes.get(key));
            }
        }
        return s.toString();
    }

    /**
     * Whether a region can be tuned, and by which task.
     *
     * @param task the task, or null
     * @param reason why not, or null
     */
    public record Tunable(TuningTask task, String reason) {
        static Tunable yes(TuningTask task) {
            return new Tunable(task, null);
        }

        static Tunable no(String reason) {
            return new Tunable(null, reason);
        }
    }
}
