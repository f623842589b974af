package dev.hintmap;

import java.util.Comparator;

/**
 * What "hottest" means for {@link HintStore#hottest} and {@link HintSnapshot#hottest}: largest first,
 * equal keys by name in the one order of names ({@link #compareNames}).
 */
public enum RegionOrder {
    /** Total kernel time: where the GPU spends its time (the default, like {@code perf top}). */
    TOTAL_NS,
    /** Mean kernel time per dispatch: the measure {@link HintStore#isHot} compares with the threshold. */
    MEAN_NS,
    /** Number of dispatches. */
    COUNT,
    /** Longest single dispatch. */
    MAX_NS;

    /**
     * The value this order ranks by, larger is hotter.
     *
     * @param record the record to rank
     * @return its total, mean (rounded down; 0 without dispatches) or maximum kernel time in ns,
     *     or its dispatch count, {@code >= 0}
     */
    public long key(RegionRecord record) {
        return rank(record);
    }

    /** {@link #key(RegionRecord)} of any shape of a record; the mean is {@link RecordFigures#meanKernelNs()}. */
    long rank(RecordFigures figures) {
        return switch (this) {
            case TOTAL_NS -> figures.kernelNsTotal();
            case MEAN_NS -> figures.meanKernelNs();
            case COUNT -> figures.dispatchCount();
            case MAX_NS -> figures.kernelNsMax();
        };
    }

    /**
     * Hottest first; equal keys by name ({@link #compareNames}), so that the order is total,
     * reproducible and the same in Java, C and Python.
     *
     * @return a comparator that sorts records by descending {@link #key(RegionRecord)}, then by
     *     ascending {@link RegionRecord#name()} in the order of {@link #compareNames}
     */
    public Comparator<RegionRecord> comparator() {
        Comparator<RegionRecord> byKey = Comparator.comparingLong(this::key);
        return byKey.reversed().thenComparing(RegionRecord::name, RegionOrder::compareNames);
    }

    /**
     * The one order of region names, which every ordering of regions ends with (the hot set, every
     * {@code RegionOrder}, the command line tool's listings; docs/FORMAT.md §1, "The order of names"):
     * by their UTF-8 bytes compared as unsigned numbers, a proper prefix first. That is C's
     * {@code memcmp}, and for names (which hold no unpaired surrogate) the order of Unicode code points,
     * Python's order of {@code str}. {@link String#compareTo} is not it: it compares UTF-16 units, which
     * put a character above U+FFFF (a surrogate pair, {@code D800..DBFF} first) below U+E000..U+FFFF,
     * so that U+FFFD would come after U+1F600 (the pair {@code D83D DE00}), where its bytes
     * {@code EF BF BD} come before {@code F0 9F 98 80}. Usable as a {@code Comparator<String>}:
     * {@code names.sort(RegionOrder::compareNames)}. Allocates nothing.
     *
     * @param a a name
     * @param b another name
     * @return a negative number, zero or a positive number as {@code a} comes before, is equal to, or
     *     comes after {@code b}
     * @throws NullPointerException if either is null
     */
    public static int compareNames(String a, String b) {
        int n = Math.min(a.length(), b.length());
        for (int i = 0; i < n; i++) {
            char x = a.charAt(i);
            char y = b.charAt(i);
            if (x != y) {
                return Integer.compare(codePointRank(x), codePointRank(y));
            }
        }
        return Integer.compare(a.length(), b.length());
    }

    /**
     * Where a UTF-16 unit stands in code point order, compared at the first unit two strings differ in:
     * U+E000..U+FFFF move below the surrogates, which stand for the code points above U+FFFF. A
     * bijection on units, so the order stays total; within the surrogates nothing changes, so two pairs
     * that differ compare as their code points do (the fix-up of ICU's {@code u_strCompare} in code point
     * order).
     */
    private static int codePointRank(char c) {
        if (c >= 0xE000) {
            return c - 0x800;
        }
        return c >= 0xD800 ? c + 0x2000 : c;
    }
}
