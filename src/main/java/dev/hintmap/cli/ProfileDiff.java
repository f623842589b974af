package dev.hintmap.cli;

import dev.hintmap.RegionOrder;
import dev.hintmap.RegionRecord;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The arithmetic of {@code hintmap diff}, apart from files: region by region change between two
 * profiles, and their overlap, in the manner of {@code llvm-profdata overlap}.
 *
 * <p>Overlap: with {@code T_A} the sum of every region's total kernel time in A and
 * {@code share_A(r) = total_A(r) / T_A} (0 for a region absent from A), the overlap is
 * {@code sum over the regions r of A and B of min(share_A(r), share_B(r))}: 1.0 when both
 * distribute their kernel time over the regions identically (whatever the absolute times: a profile
 * and its decayed copy overlap fully), 0.0 when no region has time in both. When neither profile
 * has any kernel time it is 1.0; when only one has none, 0.0. Computed in exact integer arithmetic
 * (saturated totals included) and rounded once.
 */
final class ProfileDiff {
    /** One region's change; {@code a} or {@code b} is null where the region is absent. */
    record Change(String name, RegionRecord a, RegionRecord b) {
        String in() {
            return a == null ? "B" : b == null ? "A" : "both";
        }

        long dispatchDelta() {
            return count(b) - count(a);
        }

        long totalDelta() {
            return total(b) - total(a); // both in [0, 2^63-1]: the difference cannot overflow
        }

        long meanDelta() {
            return mean(b) - mean(a);
        }

        private static long count(RegionRecord r) {
            return r == null ? 0 : r.dispatchCount();
        }

        private static long total(RegionRecord r) {
            return r == null ? 0 : r.kernelNsTotal();
        }

        private static long mean(RegionRecord r) {
            return r == null ? 0 : r.meanKernelNs();
        }
    }

    private ProfileDiff() {}

    /** Every region of A or B, largest absolute change of total kernel time first, equal changes by name. */
    static List<Change> changes(List<RegionRecord> a, List<RegionRecord> b) {
        Map<String, RegionRecord> inA = byName(a);
        Map<String, RegionRecord> inB = byName(b);
        TreeSet<String> names = new TreeSet<>(RegionOrder::compareNames);
        names.addAll(inA.keySet());
        names.addAll(inB.keySet());
        List<Change> changes = new ArrayList<>();
        for (String name : names) {
            changes.add(new Change(name, inA.get(name), inB.get(name)));
        }
        changes.sort(Comparator.comparingLong((Change c) -> Math.abs(c.totalDelta())).reversed()
                .thenComparing(Change::name, RegionOrder::compareNames));
        return changes;
    }

    /**
     * The overlap of the two profiles' kernel time distributions, as defined in the class comment,
     * computed exactly as {@code sum of min(t_A(r) * T_B, t_B(r) * T_A) / (T_A * T_B)} in integers and
     * rounded once: identical distributions give exactly 1.0, not 1 - an ulp.
     */
    static double overlap(List<RegionRecord> a, List<RegionRecord> b) {
        BigInteger totalA = exactSum(a);
        BigInteger totalB = exactSum(b);
        if (totalA.signum() == 0 || totalB.signum() == 0) {
            return totalA.signum() == totalB.signum() ? 1.0 : 0.0;
        }
        Map<String, RegionRecord> inB = byName(b);
        BigInteger common = BigInteger.ZERO;
        for (RegionRecord r : a) { // a region only in one profile adds min(share, 0) = 0
            RegionRecord other = inB.get(r.name());
            if (other != null) {
                BigInteger x = BigInteger.valueOf(r.kernelNsTotal()).multiply(totalB);
                BigInteger y = BigInteger.valueOf(other.kernelNsTotal()).multiply(totalA);
                common = common.add(x.min(y));
            }
        }
        return new BigDecimal(common).divide(new BigDecimal(totalA.multiply(totalB)), MathContext.DECIMAL64)
                .doubleValue();
    }

    private static BigInteger exactSum(List<RegionRecord> regions) {
        BigInteger sum = BigInteger.ZERO;
        for (RegionRecord r : regions) {
            sum = sum.add(BigInteger.valueOf(r.kernelNsTotal()));
        }
        return sum;
    }

    /** Total kernel ns of the regions, for display (double: no saturation). */
    static double sum(List<RegionRecord> regions) {
        double sum = 0;
        for (RegionRecord r : regions) {
            sum += r.kernelNsTotal();
        }
        return sum;
    }

    private static Map<String, RegionRecord> byName(List<RegionRecord> regions) {
        Map<String, RegionRecord> map = new TreeMap<>();
        regions.forEach(r -> map.put(r.name(), r));
        return map;
    }
}
