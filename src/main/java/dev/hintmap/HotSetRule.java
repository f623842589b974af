package dev.hintmap;

import dev.hintmap.format.Saturating;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The hot set by coverage, computed from the regions read (docs/OPTIMIZER.md, "The hot set by
 * coverage", which is the definition; the C twin is {@code hm_hot_set} in
 * native-bench/src/hot_set.c, and both answer the vectors of
 * {@code src/test/resources/vectors/hot-set.txt}). Every step is integer arithmetic but the shares
 * and {@link #needed}, which are binary64 operations that Java and C carry out identically.
 */
final class HotSetRule {
    /**
     * Hottest first: larger total kernel time, then the stored name in UTF-8 byte order (unsigned,
     * a proper prefix first), the order C's {@code memcmp} gives; Java's {@code String.compareTo}
     * would differ from it for characters above U+FFFF.
     */
    static final Comparator<RegionRecord> HOTTEST = Comparator.comparingLong(RegionRecord::kernelNsTotal).reversed()
            .thenComparing(RegionRecord::name, HotSetRule::compareUtf8);

    private HotSetRule() {}

    /** Checks the two parameters of {@link HintStore#hotSet(double, long)}. */
    static void requireValid(double coverage, long minDispatches) {
        if (!(coverage >= 0 && coverage <= 1)) { // NaN fails both
            throw new IllegalArgumentException("coverage " + coverage + " is not a fraction in [0, 1]"
                    + " (0.95: the regions that make up 95% of the kernel time)");
        }
        if (minDispatches < 0) {
            throw new IllegalArgumentException("minDispatches " + minDispatches + " is negative");
        }
    }

    /**
     * The hot set of {@code read} (each region as its slot held it; a name may appear twice, see
     * {@link RegionCut.Regions}).
     */
    static HotSet select(List<RegionRecord> read, boolean consistent, double coverage, long minDispatches) {
        requireValid(coverage, minDispatches);
        // A name read twice (a damaged index, or a scan that was not one cut) is one region, its
        // records combined as merge combines them, as `hintmap dump` reports it.
        Map<String, RegionRecord> byName = new LinkedHashMap<>(Math.max(16, read.size() * 2));
        for (RegionRecord r : read) {
            byName.merge(r.name(), r, RegionRecord::merge);
        }
        long total = 0;
        long thinNs = 0;
        int thin = 0;
        List<RegionRecord> eligible = new ArrayList<>(byName.size());
        for (RegionRecord r : byName.values()) {
            total = Saturating.add(total, r.kernelNsTotal());
            if (r.dispatchCount() < minDispatches) {
                thin++;
                thinNs = Saturating.add(thinNs, r.kernelNsTotal());
            } else if (r.kernelNsTotal() > 0) {
                eligible.add(r);
            }
        }
        eligible.sort(HOTTEST);
        long needed = needed(coverage, total);
        long covered = 0;
        List<HotRegion> hot = new ArrayList<>();
        for (RegionRecord r : eligible) {
            if (covered >= needed) {
                break;
            }
            covered = Saturating.add(covered, r.kernelNsTotal());
            hot.add(new HotRegion(r, share(r.kernelNsTotal(), total), share(covered, total)));
        }
        return new HotSet(hot, coverage, minDispatches, total, needed, covered, byName.size(), thin, thinNs,
                consistent);
    }

    /**
     * What the set must cover: {@code ceil(coverage ⊗ double(total))}, where {@code ⊗} is the
     * binary64 product and {@code double(total)} the nearest double; at most {@code total}. The
     * product is rounded once, so a decimal coverage means what it says: 0.8 of 100 ns needs 80 ns
     * (the exact product of 0.8's binary value and 100 is 80.000000000000004, whose ceiling is 81).
     */
    static long needed(double coverage, long total) {
        double product = coverage * (double) total;
        if (product >= 0x1p63) {
            return total;
        }
        long n = (long) product; // truncation of a non-negative double below 2^63: exact
        if ((double) n < product) {
            n++;
        }
        return Math.min(n, total);
    }

    /** {@code part / total} in binary64; 0 when {@code total} is 0. */
    static double share(long part, long total) {
        return total == 0 ? 0 : (double) part / (double) total;
    }

    /**
     * Compares two names as their UTF-8 bytes compare, unsigned: by code point, which for strings
     * without unpaired surrogates (every stored name) is the same order.
     */
    static int compareUtf8(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i);
            int cb = b.codePointAt(j);
            if (ca != cb) {
                return Integer.compare(ca, cb);
            }
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Integer.compare(a.length() - i, b.length() - j);
    }
}
