package dev.hintmap;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The hot set by coverage, computed from the regions read (docs/GUIDE.md, "The hot set by
 * coverage", which is the definition; the C twin is {@code hm_hot_set} in
 * native-bench/src/hot_set.c, and both answer the vectors of
 * {@code src/test/resources/vectors/hot-set.txt}). Every step is integer arithmetic but the shares
 * and {@link #needed}, which are binary64 operations that Java and C carry out identically. The
 * sums of kernel time are exact ({@link Uint128}): a file of several saturated regions has a whole
 * larger than 2^63-1, and the cut and every share are taken against that whole.
 */
final class HotSetRule {
    /**
     * Hottest first: larger total kernel time, then the stored name in the one order of names
     * ({@link RegionOrder#compareNames}: UTF-8 bytes, unsigned, a proper prefix first, as C's
     * {@code memcmp} orders them). The order of {@link RegionOrder#TOTAL_NS}, which
     * {@link HintStore#hottest} ranks by too.
     */
    static final Comparator<RegionRecord> HOTTEST = RegionOrder.TOTAL_NS.comparator();

    private HotSetRule() {}

    /**
     * Checks the two parameters of {@link HintStore#hotSet(double, long)} ({@link HotSet#requireValid}):
     * each message begins with the parameter's name, which the command line tool turns into its option's.
     */
    static void requireValid(double coverage, long minDispatches) {
        if (!(coverage >= 0 && coverage <= 1)) { // NaN fails both
            throw new IllegalArgumentException("coverage " + coverage + " is not a fraction in [0, 1]"
                    + " (0.95: the regions that make up 95% of the kernel time)");
        }
        if (minDispatches < 0) {
            throw new IllegalArgumentException("minDispatches must be >= 0, not " + minDispatches);
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
        // Exact sums (two words): saturating ones would make three regions of 2^63-1 ns look like one,
        // and the cut at coverage 1 would stop after the first.
        Uint128 total = Uint128.ZERO;
        Uint128 thinNs = Uint128.ZERO;
        int thin = 0;
        List<RegionRecord> eligible = new ArrayList<>(byName.size());
        for (RegionRecord r : byName.values()) {
            total = total.plus(r.kernelNsTotal());
            if (r.dispatchCount() < minDispatches) {
                thin++;
                thinNs = thinNs.plus(r.kernelNsTotal());
            } else if (r.kernelNsTotal() > 0) {
                eligible.add(r);
            }
        }
        eligible.sort(HOTTEST);
        Uint128 needed = needed(coverage, total);
        double whole = total.toDouble();
        Uint128 covered = Uint128.ZERO;
        List<HotRegion> hot = new ArrayList<>();
        for (RegionRecord r : eligible) {
            if (covered.compareTo(needed) >= 0) {
                break;
            }
            covered = covered.plus(r.kernelNsTotal());
            hot.add(new HotRegion(r, share((double) r.kernelNsTotal(), whole), share(covered.toDouble(), whole)));
        }
        return new HotSet(hot, coverage, minDispatches, total.clampedToLong(), needed.clampedToLong(),
                covered.clampedToLong(), share(covered.toDouble(), whole), covered.compareTo(needed) >= 0,
                byName.size(), thin, thinNs.clampedToLong(), share(thinNs.toDouble(), whole), consistent);
    }

    /**
     * What the set must cover: all of {@code total} when {@code coverage} is 1, else
     * {@code ceil(coverage ⊗ double(total))}, where {@code ⊗} is the binary64 product and
     * {@code double(total)} the nearest double, at most {@code total}. The product is rounded once,
     * so a decimal coverage means what it says: 0.8 of 100 ns needs 80 ns (the exact product of
     * 0.8's binary value and 100 is 80.000000000000004, whose ceiling is 81). Coverage 1 is
     * all of it even where {@code double(total)} lies below {@code total} (above 2^53 ns).
     */
    static Uint128 needed(double coverage, Uint128 total) {
        if (coverage == 1) {
            return total;
        }
        Uint128 n = Uint128.ceil(coverage * total.toDouble());
        return n.compareTo(total) < 0 ? n : total;
    }

    /** {@code part / whole}, both already rounded to binary64, in binary64; 0 when {@code whole} is 0. */
    static double share(double part, double whole) {
        return whole == 0 ? 0 : part / whole;
    }
}
