package com.example.tuner;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The best configuration per kernel from the JSON files of one tuner run (CLBlast 1.5 writes
 * {@code clblast_FAMILY_PRECISION.json} per phase, with {@code kernel_family}, {@code best_time} and
 * {@code best_parameters}, "NAME=VALUE ..."). The kernel whose parameters they are, the name
 * CLBlastOverrideParameters takes, follows from the family ({@code xgemm_1} to {@code xgemm_4}:
 * Xgemm; {@code xgemm_direct_1} and {@code _2}: XgemmDirect; {@code xgemv_fast}: XgemvFast; ...), not from {@code best_kernel}, which names the OpenCL
 * function that ran ({@code XaxpyFastest} for Xaxpy's parameters). Of several phases of one kernel
 * (the GEMM tuners'), the fastest wins. A file that cannot be read or has no usable best is named in
 * {@link #problems()} and skipped: that kernel keeps its defaults.
 */
public final class TunerResults {
    private static final Pattern PARAMETER = Pattern.compile("[A-Z][A-Z0-9_]*=[0-9]{1,9}");
    /** Tuner families → the kernel whose parameters they set (CLBlast's doc/tuning.md table). */
    private static final Map<String, String> KERNEL_OF_FAMILY = Map.of("xgemm_1", "Xgemm", "xgemm_2", "Xgemm",
            "xgemm_11", "Xgemm", "xgemm_12", "Xgemm", "xgemv", "Xgemv", "xgemv_fast", "XgemvFast", "xgemv_fast_rot",
            "XgemvFastRot", "xaxpy", "Xaxpy", "xgemm_direct_1", "XgemmDirect", "xgemm_direct_2", "XgemmDirect");

    private final Map<String, TunedKernel> best = new LinkedHashMap<>();
    private final List<String> problems = new ArrayList<>();

    /**
     * Reads the JSON files of one run.
     *
     * @param files the {@code clblast_*.json} files the run wrote
     * @param precision the precision the run tuned: a file of another is skipped
     * @return the best per kernel and the problems met
     */
    public static TunerResults read(List<Path> files, int precision) {
        TunerResults results = new TunerResults();
        for (Path file : files) {
            try {
                results.add(file, Files.readString(file, StandardCharsets.UTF_8), precision);
            } catch (IOException | IllegalArgumentException e) {
                results.problems.add(file.getFileName() + ": " + e.getMessage());
            }
        }
        return results;
    }

    private void add(Path file, String text, int precision) {
        if (!(MiniJson.parse(text) instanceof Map<?, ?> json)) {
            throw new IllegalArgumentException("not a JSON object");
        }
        String family = field(json, "kernel_family");
        String kernel = KERNEL_OF_FAMILY.get(family);
        if (kernel == null) {
            throw new IllegalArgumentException("kernel_family '" + family + "' is not one this optimizer applies");
        }
        if (!field(json, "precision").equals(String.valueOf(precision))) {
            throw new IllegalArgumentException("precision " + field(json, "precision") + ", not " + precision);
        }
        double time = Double.parseDouble(field(json, "best_time"));
        if (!(time > 0 && time < Double.POSITIVE_INFINITY)) {
            throw new IllegalArgumentException("best_time " + time + " is not a positive time");
        }
        Map<String, Long> parameters = new LinkedHashMap<>();
        for (String p : field(json, "best_parameters").trim().split(" +")) {
            if (!PARAMETER.matcher(p).matches()) {
                throw new IllegalArgumentException("best_parameters entry '" + p + "' is not NAME=VALUE");
            }
            String name = p.substring(0, p.indexOf('='));
            if (!name.equals("PRECISION")) { // the tuner's record of the precision, not a kernel parameter
                parameters.put(name, Long.parseLong(p.substring(p.indexOf('=') + 1)));
            }
        }
        if (parameters.isEmpty()) {
            throw new IllegalArgumentException("no parameters");
        }
        TunedKernel candidate = new TunedKernel(kernel, time, parameters);
        best.merge(kernel, candidate, (a, b) -> b.timeMs() < a.timeMs() ? b : a);
    }

    private static String field(Map<?, ?> json, String name) {
        if (!(json.get(name) instanceof String value)) {
            throw new IllegalArgumentException("no string field " + name);
        }
        return value;
    }

    /**
     * The best configuration of each kernel the files tuned.
     *
     * @return by kernel name, in the order first met
     */
    public Map<String, TunedKernel> best() {
        return Map.copyOf(best);
    }

    /**
     * The files that could not be used, each with its reason.
     *
     * @return one line per file
     */
    public List<String> problems() {
        return List.copyOf(problems);
    }
}
