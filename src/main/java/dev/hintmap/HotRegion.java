package dev.hintmap;

import java.util.Objects;

/**
 * One region of a {@link HotSet}: its record and the share of the file's kernel time it holds.
 *
 * @param record the region's record, named with its stored name (FORMAT.md §1.1)
 * @param share {@code record.kernelNsTotal()} over the file's kernel time in binary64 (each integer
 *     converted to the nearest double, then divided; the file's kernel time is the exact sum, which
 *     {@link HotSet#totalNs()} reports clamped to 2^63-1), in {@code (0, 1]}
 * @param cumulativeShare the same for the exact sum of the totals of this region and every region
 *     before it in the hot set, in {@code (0, 1]}
 */
public record HotRegion(RegionRecord record, double share, double cumulativeShare) {
    /**
     * Checks the components.
     *
     * @param record the region's record, not null
     * @param share its share, in {@code [0, 1]}
     * @param cumulativeShare the running share, in {@code [share, 1]}
     * @throws IllegalArgumentException if a share is outside its range (or NaN)
     * @throws NullPointerException if {@code record} is null
     */
    public HotRegion {
        Objects.requireNonNull(record, "record");
        if (!(share >= 0 && share <= 1) || !(cumulativeShare >= share && cumulativeShare <= 1)) {
            throw new IllegalArgumentException("shares " + share + ", " + cumulativeShare + " of " + record.name()
                    + " are not 0 <= share <= cumulativeShare <= 1");
        }
    }

    /**
     * The region's stored name.
     *
     * @return {@code record().name()}
     */
    public String name() {
        return record.name();
    }
}
