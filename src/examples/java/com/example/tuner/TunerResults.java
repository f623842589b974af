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
 * (the GEMM tuners'), the fastest wins — except where each phase tunes its own part of the set: the DOT tuner's
 * {@code xdot_1} gives {@code WGS1} and {@code xdot_2} {@code WGS2} of {@code Xdot}, whose set is their union, and
 * only when both are there ({@code CLBlastOverrideParameters} refuses a set with a parameter missing). A file
 * that cannot be read or has no usable best is named in {@link #problems()} and skipped: that kernel keeps its
 * defaults.
 */
public final class TunerResults {
    private static final Pattern PARAMETER = Pattern.compile("[A-Z][A-Z0-9_]*=[0-9]{1,9}");
    /** Tuner families → the kernel whose parameters they set (CLBlast's doc/tuning.md table). */
    private static final Map<String, String> KERNEL_OF_FAMILY = Map.ofEntries(Map.entry("xgemm_1", "Xgemm"),
            Map.entry("xgemm_2", "Xgemm"), Map.entry("xgemm_11", "Xgemm"), Map.entry("xgemm_12", "Xgemm"),
            Map.entry("xgemv", "Xgemv"), Map.entry("xgemv_fast", "XgemvFast"), Map.entry("xgemv_fast_rot", "XgemvFastRot"),
            Map.entry("xaxpy", "Xaxpy"), Map.entry("xgemm_direct_1", "XgemmDirect"), Map.entry("xgemm_direct_2", "XgemmDirect"),
            Map.entry("xdot_1", "Xdot"), Map.entry("xdot_2", "Xdot"), Map.entry("xger", "Xger"), Map.entry("copy", "Copy"),
            Map.entry("pad", "Pad"), Map.entry("transpose", "Transpose"), Map.entry("padtranspose", "Padtranspose"),
            Map.entry("invert", "Invert"), Map.entry("xconvgemm", "Xconvgemm"));
    /** Kernels whose set is the union of what each of these phases tunes, in this order. */
    private static final Map<String, List<String>> PARTS_OF_KERNEL = Map.of("Xdot", List.of("xdot_1", "xdot_2"));

    private final Map<String, TunedKernel> best = new LinkedHashMap<>();
    /** For a kernel of {@link #PARTS_OF_KERNEL}: the best of each phase read so far. */
    private final Map<String, Map<String, TunedKernel>> parts = new LinkedHashMap<>();
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
        results.joinParts();
        return results;
    }

    /** Each kernel tuned in parts: the union of its phases' bests, timed as their sum, when none is missing. */
    private void joinParts() {
        parts.forEach((kernel, byPhase) -> {
            List<String> missing = PARTS_OF_KERNEL.get(kernel).stream().filter(p -> !byPhase.containsKey(p)).toList();
            if (!missing.isEmpty()) {
                problems.add(kernel + ": no result of phase " + String.join(", ", missing)
                        + ": its set would be incomplete, so it keeps its defaults");
                return;
            }
            Map<String, Long> union = new LinkedHashMap<>();
            double time = 0;
            for (String phase : PARTS_OF_KERNEL.get(kernel)) {
                union.putAll(byPhase.get(phase).parameters());
                time += byPhase.get(phase).timeMs();
            }
            best.put(kernel, new TunedKernel(kernel, time, union));
        });
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
        if (PARTS_OF_KERNEL.containsKey(kernel)) {
            parts.computeIfAbsent(kernel, k -> new LinkedHashMap<>()).merge(family, candidate, TunerResults::faster);
        } else {
            best.merge(kernel, candidate, TunerResults::faster);
        }
    }

    private static TunedKernel faster(TunedKernel a, TunedKernel b) {
        return b.timeMs() < a.timeMs() ? b : a;
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
