package dev.hintmap.cli;

import java.util.Locale;

/** Human-readable numbers for tables: durations from ns, sizes from bytes, counts with separators. */
final class Units {
    private Units() {}

    /** {@code 850 ns}, {@code 12.5 µs}, {@code 3.20 ms}, {@code 1.50 s}, {@code 2.0 h}. */
    static String duration(double ns) {
        double abs = Math.abs(ns);
        if (abs < 1_000) {
            return String.format(Locale.ROOT, "%.0f ns", ns);
        }
        if (abs < 1_000_000) {
            return String.format(Locale.ROOT, "%.1f µs", ns / 1e3);
        }
        if (abs < 1_000_000_000) {
            return String.format(Locale.ROOT, "%.2f ms", ns / 1e6);
        }
        if (abs < 3_600e9) {
            return String.format(Locale.ROOT, "%.2f s", ns / 1e9);
        }
        return String.format(Locale.ROOT, "%.1f h", ns / 3_600e9);
    }

    /** {@code 512 B}, {@code 4.0 KiB}, {@code 1.5 MiB}, ... */
    static String bytes(double bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
        int u = 0;
        double value = bytes;
        while (Math.abs(value) >= 1024 && u < units.length - 1) {
            value /= 1024;
            u++;
        }
        return u == 0 ? String.format(Locale.ROOT, "%.0f B", value) : String.format(Locale.ROOT, "%.1f %s", value, units[u]);
    }

    /** {@code 1,234,567}. */
    static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    /** A rate per second, e.g. {@code 12,345/s}; {@code -} when unknown. */
    static String rate(double perSecond) {
        if (Double.isNaN(perSecond)) {
            return "-";
        }
        return perSecond >= 100 ? String.format(Locale.ROOT, "%,.0f/s", perSecond)
                : String.format(Locale.ROOT, "%.1f/s", perSecond);
    }

    /** A share in percent, e.g. {@code 42.0%}. */
    static String percent(double fraction) {
        return Double.isNaN(fraction) ? "-" : String.format(Locale.ROOT, "%.1f%%", 100 * fraction);
    }
}
