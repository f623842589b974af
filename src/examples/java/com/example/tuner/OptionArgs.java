package com.example.tuner;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A command line of {@code --flag} and {@code --name VALUE} options, as the optimizers of this package
 * take them: an unknown option, a missing value, an option given twice or a value of the wrong kind is
 * an {@link IllegalArgumentException} naming it (the optimizers print it with their usage, exit 2).
 */
final class OptionArgs {
    private final Map<String, String> values = new HashMap<>();

    private OptionArgs() {}

    /**
     * Parses {@code args}.
     *
     * @param args the command line
     * @param flags the options that take no value
     * @param valued the options that take one
     * @return the options given
     */
    static OptionArgs parse(String[] args, Set<String> flags, Set<String> valued) {
        OptionArgs o = new OptionArgs();
        List<String> a = new ArrayList<>(List.of(args));
        while (!a.isEmpty()) {
            String opt = a.removeFirst();
            String value;
            if (flags.contains(opt)) {
                value = "true";
            } else if (valued.contains(opt)) {
                if (a.isEmpty()) {
                    throw new IllegalArgumentException(opt + " needs a value");
                }
                value = a.removeFirst();
            } else {
                throw new IllegalArgumentException((opt.startsWith("--") ? "unknown option " : "unknown argument ")
                        + Printable.escape(opt));
            }
            if (o.values.put(opt, value) != null) {
                throw new IllegalArgumentException(opt + " given twice");
            }
        }
        return o;
    }

    /** Whether the option (a flag, or one with a value) was given. */
    boolean has(String name) {
        return values.containsKey(name);
    }

    String string(String name, String otherwise) {
        return values.getOrDefault(name, otherwise);
    }

    Path path(String name) {
        String v = values.get(name);
        return v == null ? null : Path.of(v);
    }

    Path required(String name) {
        Path p = path(name);
        if (p == null) {
            throw new IllegalArgumentException(name + " is required");
        }
        return p;
    }

    long longAtLeast(String name, long otherwise, long min) {
        String v = values.get(name);
        if (v == null) {
            return otherwise;
        }
        try {
            long x = Long.parseLong(v);
            if (x >= min) {
                return x;
            }
        } catch (NumberFormatException e) {
            // named below
        }
        throw new IllegalArgumentException(name + " " + Printable.escape(v) + " is not an integer >= " + min);
    }

    int intAtLeast(String name, int otherwise, int min) {
        long x = longAtLeast(name, otherwise, min);
        if (x > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(name + " " + x + " is too large");
        }
        return (int) x;
    }

    double share(String name, double otherwise) {
        String v = values.get(name);
        if (v == null) {
            return otherwise;
        }
        try {
            double x = Double.parseDouble(v);
            if (x >= 0 && x <= 1) {
                return x;
            }
        } catch (NumberFormatException e) {
            // named below
        }
        throw new IllegalArgumentException(name + " " + Printable.escape(v) + " is not a number in [0, 1]");
    }
}
