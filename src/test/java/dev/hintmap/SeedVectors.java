package dev.hintmap;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The cases of {@code vectors/seed.txt}, the seed contract that C's {@code test_seed.c} and Python's
 * {@code test_seed.py} replay too; the file's header describes its lines.
 */
final class SeedVectors {
    /** One line of a case: its verb, its numeric fields in order, and the name that ends it ("" for none). */
    record Step(String verb, long[] numbers, boolean hot, String name, String line) {
        long number(int i) {
            return numbers[i];
        }
    }

    record Case(String title, int capacity, long hotThresholdNs, List<Step> steps) {}

    private SeedVectors() {}

    static List<Case> load() {
        String text;
        try (InputStream in = SeedVectors.class.getResourceAsStream("/vectors/seed.txt")) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Case> cases = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split("\t", -1);
            switch (f[0]) {
                case "case" -> cases.add(new Case(f[1], Integer.parseInt(f[2]), Long.parseLong(f[3]), new ArrayList<>()));
                case "record" -> cases.getLast().steps().add(step(f, 2, line));
                case "expect" -> cases.getLast().steps().add(step(f, 5, line));
                case "absent" -> cases.getLast().steps().add(step(f, 0, line));
                case "size", "evictions" -> cases.getLast().steps().add(
                        new Step(f[0], new long[] {Long.parseLong(f[1])}, false, "", line));
                case "hot_at" -> cases.getLast().steps().add(step(f, 1, line));
                default -> throw new IllegalStateException("unknown line in seed.txt: " + line);
            }
        }
        return cases;
    }

    /** A step of {@code numbers} numeric fields, then (expect, hot_at) hot|cold, then the name. */
    private static Step step(String[] f, int numbers, String line) {
        long[] n = new long[numbers];
        for (int i = 0; i < numbers; i++) {
            n[i] = Long.parseLong(f[1 + i]);
        }
        boolean hasHot = f[0].equals("expect") || f[0].equals("hot_at");
        if (hasHot && !f[1 + numbers].equals("hot") && !f[1 + numbers].equals("cold")) {
            throw new IllegalStateException("hot|cold expected in seed.txt: " + line);
        }
        boolean hot = hasHot && f[1 + numbers].equals("hot");
        return new Step(f[0], n, hot, f[f.length - 1], line);
    }
}
