package dev.hintmap;

import java.util.List;
import java.util.Objects;

/**
 * The hot set of a hint file by coverage ({@link HintStore#hotSet(double, long)}; defined in
 * docs/GUIDE.md, "The hot set by coverage"): the fewest regions, hottest by total kernel time
 * first, whose kernel time covers at least a fraction of the whole file's, leaving out regions
 * with too few dispatches to trust. This is how profile-guided optimizers define hot (LLVM's
 * profile summary, Go's PGO), rather than by a fixed mean: a 5 µs kernel launched a million times
 * is hot, one 200 µs launch is not.
 *
 * <p>The sums behind the figures are exact (a file of several regions of 2^63-1 ns has a whole
 * above 2^63-1, and the set and every share are taken against that whole); the {@code long}
 * figures report each sum clamped to 2^63-1, the most a {@code long} of the format holds.
 *
 * @param regions the hot set, hottest first (larger {@code kernelNsTotal}; equal totals by stored
 *     name in UTF-8 byte order); immutable
 * @param coverage the fraction asked for, in {@code [0, 1]}
 * @param minDispatches the fewest dispatches a region needs to count, {@code >= 0}
 * @param totalNs the kernel time of every region read (thin ones included), ns: the exact sum,
 *     clamped to {@code 2^63-1}
 * @param neededNs what the set had to cover, clamped to {@code 2^63-1}: the whole when
 *     {@code coverage} is 1, else {@code ceil(coverage * total)} in binary64, at most the whole
 *     (GUIDE.md gives the exact computation)
 * @param coveredNs the kernel time of the set, clamped to {@code 2^63-1}
 * @param coveredShare the share of the file's kernel time the set covers: the exact sums, each
 *     rounded to binary64, divided in binary64; in {@code [0, 1]}, 0 when the file has no kernel time
 * @param reached whether the set covers what was asked (the exact sums compared): false when the
 *     regions with enough dispatches hold less than {@code coverage} of the kernel time (thin
 *     regions hold the rest); the set is then every region with enough dispatches and some kernel time
 * @param regionsRead the regions read (a name read twice counted once)
 * @param thinRegions the regions left out for having fewer than {@code minDispatches} dispatches
 * @param thinNs their kernel time, clamped to {@code 2^63-1}
 * @param thinShare their share of the file's kernel time, computed as {@code coveredShare}
 * @param consistent whether the regions were read in one cut of the file (FORMAT.md §7.5): false
 *     only when writers kept inserting or evicting regions through every attempt (or one died
 *     inside a change), and the answer is then a hint from the last scan, each name counted once
 */
public record HotSet(List<HotRegion> regions, double coverage, long minDispatches, long totalNs, long neededNs,
        long coveredNs, double coveredShare, boolean reached, int regionsRead, int thinRegions, long thinNs,
        double thinShare, boolean consistent) {

    /**
     * Keeps an immutable copy of the regions.
     *
     * @param regions the hot set, hottest first, not null
     * @param coverage the fraction asked for
     * @param minDispatches the fewest dispatches a region needs to count
     * @param totalNs the file's kernel time, clamped
     * @param neededNs what the set had to cover, clamped
     * @param coveredNs what it covers, clamped
     * @param coveredShare the share it covers
     * @param reached whether it covers what was asked
     * @param regionsRead the regions read
     * @param thinRegions the regions left out as thin
     * @param thinNs their kernel time, clamped
     * @param thinShare their share of the kernel time
     * @param consistent whether the read was one cut
     * @throws NullPointerException if {@code regions} or one of them is null
     * @throws IllegalArgumentException if a share is outside {@code [0, 1]} (or NaN)
     */
    public HotSet {
        regions = List.copyOf(Objects.requireNonNull(regions, "regions"));
        if (!(coveredShare >= 0 && coveredShare <= 1) || !(thinShare >= 0 && thinShare <= 1)) {
            throw new IllegalArgumentException("shares " + coveredShare + ", " + thinShare + " are not in [0, 1]");
        }
    }

    /**
     * Checks the two parameters of a hot set as {@link HintStore#hotSet(double, long)} and
     * {@link HintSnapshot#hotSet(double, long)} check them (the one check, docs/GUIDE.md), so that
     * a caller can refuse them before it opens a file: the command line tool's {@code hot} does.
     *
     * @param coverage the fraction of kernel time to cover, in {@code [0, 1]}
     * @param minDispatches the fewest dispatches a region needs to count as hot, {@code >= 0}
     * @throws IllegalArgumentException if {@code coverage} is NaN or outside {@code [0, 1]}, or
     *     {@code minDispatches} is negative; the message begins with the parameter's name
     *     ({@code coverage}, {@code minDispatches}) and then says what is wrong with it
     */
    public static void requireValid(double coverage, long minDispatches) {
        HotSetRule.requireValid(coverage, minDispatches);
    }

    /**
     * Whether a region belongs to the set.
     *
     * @param storedName the region's stored name ({@link HintStore#storedName(String)}), as the
     *     regions of the set are named
     * @return true when one of {@link #regions()} has that name
     */
    public boolean contains(String storedName) {
        for (HotRegion r : regions) {
            if (r.name().equals(storedName)) {
                return true;
            }
        }
        return false;
    }
}
