package dev.hintmap.cli;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A strict parser of the Prometheus text exposition format, version 0.0.4
 * (https://prometheus.io/docs/instrumenting/exposition_formats/), for testing what {@code export}
 * writes: it rejects anything the specification does not allow, rather than guessing.
 *
 * <ul>
 *   <li>{@code # HELP name text} and {@code # TYPE name type} at most once per family, TYPE before the
 *       family's first sample; other {@code #} lines are comments;</li>
 *   <li>metric names {@code [a-zA-Z_:][a-zA-Z0-9_:]*}, label names {@code [a-zA-Z_][a-zA-Z0-9_]*} not
 *       starting with {@code __}, no label twice in a sample;</li>
 *   <li>label values in double quotes with exactly the escapes {@code \\}, {@code \"} and {@code \n};
 *       help text with {@code \\} and {@code \n};</li>
 *   <li>a counter family's samples are named {@code <family>} where the family name ends in {@code _total};</li>
 *   <li>values: Go float syntax ({@code NaN}, {@code +Inf}, {@code -Inf} included); no sample series twice;
 *       every family's samples contiguous.</li>
 * </ul>
 */
final class PrometheusTextParser {
    private static final Pattern METRIC = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    private static final Pattern LABEL = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");
    private static final Pattern FLOAT = Pattern.compile("[+-]?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?|NaN|[+-]Inf");
    private static final Set<String> TYPES = Set.of("counter", "gauge", "histogram", "summary", "untyped");

    record Sample(String name, Map<String, String> labels, double value) {}

    record Family(String name, String type, String help, List<Sample> samples) {}

    private PrometheusTextParser() {}

    static Map<String, Family> parse(String text) {
        if (!text.isEmpty() && !text.endsWith("\n")) {
            throw new IllegalArgumentException("the exposition must end with a line feed");
        }
        Map<String, String> types = new HashMap<>();
        Map<String, String> helps = new HashMap<>();
        Map<String, List<Sample>> samples = new LinkedHashMap<>();
        Set<String> series = new HashSet<>();
        Set<String> closed = new HashSet<>();
        String current = null;
        int lineNo = 0;
        for (String line : text.split("\n", -1)) {
            lineNo++;
            if (line.isEmpty()) {
                continue;
            }
            try {
                if (line.startsWith("#")) {
                    String[] parts = line.split(" ", 4);
                    if (parts.length >= 3 && (parts[1].equals("HELP") || parts[1].equals("TYPE"))) {
                        String name = requireMatch(METRIC, parts[2], "metric name");
                        if (parts[1].equals("TYPE")) {
                            String type = parts.length == 4 ? parts[3] : "";
                            if (!TYPES.contains(type)) {
                                throw new IllegalArgumentException("unknown type " + type);
                            }
                            if (types.put(name, type) != null || samples.containsKey(name)) {
                                throw new IllegalArgumentException("TYPE of " + name + " twice or after its samples");
                            }
                        } else if (helps.put(name, unescapeHelp(parts.length == 4 ? parts[3] : "")) != null) {
                            throw new IllegalArgumentException("HELP of " + name + " twice");
                        }
                    }
                    continue;
                }
                Sample s = sample(line);
                String family = s.name();
                if (!family.equals(current)) {
                    if (closed.contains(family)) {
                        throw new IllegalArgumentException("samples of " + family + " are not contiguous");
                    }
                    if (current != null) {
                        closed.add(current);
                    }
                    current = family;
                }
                if (!series.add(family + s.labels())) {
                    throw new IllegalArgumentException("series " + family + s.labels() + " twice");
                }
                samples.computeIfAbsent(family, k -> new ArrayList<>()).add(s);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("line " + lineNo + ": " + e.getMessage() + ": " + line, e);
            }
        }
        Map<String, Family> families = new LinkedHashMap<>();
        for (Map.Entry<String, List<Sample>> e : samples.entrySet()) {
            String type = types.getOrDefault(e.getKey(), "untyped");
            if (type.equals("counter") && !e.getKey().endsWith("_total")) {
                throw new IllegalArgumentException("counter " + e.getKey() + " does not end in _total");
            }
            families.put(e.getKey(), new Family(e.getKey(), type, helps.get(e.getKey()), e.getValue()));
        }
        return families;
    }

    private static Sample sample(String line) {
        int i = 0;
        while (i < line.length() && line.charAt(i) != '{' && line.charAt(i) != ' ') {
            i++;
        }
        String name = requireMatch(METRIC, line.substring(0, i), "metric name");
        Map<String, String> labels = new LinkedHashMap<>();
        if (i < line.length() && line.charAt(i) == '{') {
            i++;
            while (line.charAt(i) != '}') {
                int eq = line.indexOf('=', i);
                String label = requireMatch(LABEL, line.substring(i, eq), "label name");
                if (label.startsWith("__")) {
                    throw new IllegalArgumentException("reserved label name " + label);
                }
                if (line.charAt(eq + 1) != '"') {
                    throw new IllegalArgumentException("label value not quoted");
                }
                StringBuilder value = new StringBuilder();
                int j = eq + 2;
                while (line.charAt(j) != '"') {
                    char c = line.charAt(j);
                    if (c == '\\') {
                        char next = line.charAt(++j);
                        switch (next) {
                            case '\\' -> value.append('\\');
                            case '"' -> value.append('"');
                            case 'n' -> value.append('\n');
                            default -> throw new IllegalArgumentException("bad escape \\" + next + " in a label value");
                        }
                    } else {
                        value.append(c);
                    }
                    j++;
                }
                if (labels.put(label, value.toString()) != null) {
                    throw new IllegalArgumentException("label " + label + " twice");
                }
                i = j + 1;
                if (line.charAt(i) == ',') {
                    i++;
                } else if (line.charAt(i) != '}') {
                    throw new IllegalArgumentException("expected , or } after a label");
                }
            }
            i++;
        }
        if (i >= line.length() || line.charAt(i) != ' ') {
            throw new IllegalArgumentException("expected a space before the value");
        }
        String[] rest = line.substring(i + 1).split(" ");
        if (rest.length > 2 || (rest.length == 2 && !rest[1].matches("-?\\d+"))) {
            throw new IllegalArgumentException("expected a value and an optional integer timestamp");
        }
        String v = requireMatch(FLOAT, rest[0], "value");
        double value = v.equals("+Inf") ? Double.POSITIVE_INFINITY : v.equals("-Inf") ? Double.NEGATIVE_INFINITY
                : Double.parseDouble(v);
        return new Sample(name, labels, value);
    }

    private static String unescapeHelp(String help) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < help.length(); i++) {
            char c = help.charAt(i);
            if (c == '\\' && i + 1 < help.length()) {
                char next = help.charAt(++i);
                switch (next) {
                    case '\\' -> b.append('\\');
                    case 'n' -> b.append('\n');
                    default -> throw new IllegalArgumentException("bad escape \\" + next + " in HELP");
                }
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    private static String requireMatch(Pattern pattern, String s, String what) {
        if (!pattern.matcher(s).matches()) {
            throw new IllegalArgumentException("bad " + what + " '" + s + "'");
        }
        return s;
    }
}
