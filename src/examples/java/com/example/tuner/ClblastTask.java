package com.example.tuner;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One run of a CLBlast tuner: which {@code clblast_tuner_*} program, at which precision and sizes,
 * and which kernels its results set. Regions of the same kernel and sizes (another layout) share it.
 *
 * @param tuner the tuner's name without its prefix: {@code xgemm}, {@code xgemm_direct},
 *     {@code xgemv}, {@code xaxpy}
 * @param precision CLBlast's precision number
 * @param sizes the tuner's size arguments by name ({@code m}, {@code n}, {@code k}), in order
 * @param kernels the CLBlast kernels its results set (the parameters file's kernel column)
 * @param minIndirectSize for a GEMM run, the {@code XGEMM_MIN_INDIRECT_SIZE} the regions it serves are
 *     given (the {@code GemmRoutine} entry): a value that makes CLBlast take the kernel this run tunes
 *     for their shape, whatever the device's default; 0 for the other routines
 */
public record ClblastTask(String tuner, int precision, Map<String, Long> sizes, List<String> kernels,
        long minIndirectSize) implements PlanTask {

    /**
     * The routine choice that sends every GEMM under the bound to {@code XgemmDirect}: CLBlast runs
     * direct when {@code m·n·k < XGEMM_MIN_INDIRECT_SIZE³}, and the bound is {@code m·n·k <= 4096³}.
     */
    static final long PIN_DIRECT = 4097;
    /** The routine choice that sends every GEMM to {@code Xgemm} ({@code m·n·k >= 1}). */
    static final long PIN_INDIRECT = 1;

    /** Keeps immutable copies. */
    public ClblastTask {
        sizes = Collections.unmodifiableMap(new LinkedHashMap<>(sizes));
        kernels = List.copyOf(kernels);
    }

    /**
     * A run for a routine without a routine choice (GEMV, AXPY).
     *
     * @param tuner the tuner's name
     * @param precision CLBlast's precision number
     * @param sizes its size arguments
     * @param kernels the kernels its results set
     */
    public ClblastTask(String tuner, int precision, Map<String, Long> sizes, List<String> kernels) {
        this(tuner, precision, sizes, kernels, 0);
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
        int fraction = cap.fractionOf(tuner);
        if (fraction > 1 || tuner.startsWith("xgemm")) { // the GEMM tuners' own default is not "all"
            command.addAll(List.of("-fraction", String.valueOf(fraction)));
        }
        command.addAll(List.of("-runs", String.valueOf(cap.runs())));
        return command;
    }

    /**
     * The routine choice its regions are given, as a parameters-file entry.
     *
     * @return the {@code GemmRoutine} setting, or empty for a routine without a choice
     */
    public Optional<TunedKernel> routineChoice() {
        return minIndirectSize == 0 ? Optional.empty()
                : Optional.of(new TunedKernel("GemmRoutine", 0, Map.of("XGEMM_MIN_INDIRECT_SIZE", minIndirectSize)));
    }

    @Override
    public String label() {
        StringBuilder s = new StringBuilder(tuner).append(" f").append(precision);
        for (String key : List.of("m", "n", "k")) {
            if (sizes.containsKey(key)) {
                s.append(' ').append(key).append('=').append(sizes.get(key));
            }
        }
        return s.toString();
    }

    @Override
    public long size() {
        long product = 1;
        for (long v : sizes.values()) {
            product *= v; // within ClblastTunables' bound: at most 2^36
        }
        return product;
    }
}
