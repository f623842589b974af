package dev.hintmap.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/** How the report writes numbers, and the one statistic it takes (the median). */
final class ReportFormat {
    private ReportFormat() {}

    static String num(double v) {
        if (Double.isNaN(v)) {
            return "n/a";
        }
        if (Math.abs(v) >= 1000) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        if (Math.abs(v) >= 100) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        return String.format(Locale.ROOT, "%.1f", v);
    }

    static String alloc(double v) {
        if (Double.isNaN(v)) {
            return "n/a";
        }
        return v < 0.01 ? "≈ 0" : String.format(Locale.ROOT, v < 10 ? "%.2f" : "%,.0f", v);
    }

    static String allocExact(double v) {
        if (Double.isNaN(v)) {
            return "n/a";
        }
        return v < 10 ? String.format(Locale.ROOT, "%.4f", v) : String.format(Locale.ROOT, "%,.0f", v);
    }

    static double parse(String s) {
        try {
            return Double.parseDouble(s);
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    static String ratio(Measured a, Measured b) {
        return a.ok() && b.ok() ? String.format(Locale.ROOT, "%.2f×", a.median() / b.median()) : "n/a";
    }

    static double median(List<Double> values) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }
}
