package dev.hintmap;

import dev.hintmap.format.RecordRules;
import dev.hintmap.format.RecordScaling;
import dev.hintmap.format.Saturating;

/**
 * What a store knows about one region: running sums since the region was (last) inserted.
 * Sums saturate at {@link Long#MAX_VALUE}. Its mean and hot answers are {@link RecordFigures}'s, the same
 * as every other shape of a record gives.
 *
 * @param name the region's name, as its generator gave it
 * @param dispatchCount samples recorded
 * @param kernelNsTotal sum of kernel times, ns
 * @param kernelNsMax largest kernel time, ns
 * @param bytesTotal sum of bytes touched
 */
public record RegionRecord(String name, long dispatchCount, long kernelNsTotal, long kernelNsMax, long bytesTotal)
        implements RecordFigures {

    /**
     * Checks the components: any non-null name and non-negative sums are accepted. Whether the
     * sums could come from real samples ({@code dispatchCount >= 1},
     * {@code kernelNsMax <= kernelNsTotal}, ...) is checked where that matters, by
     * {@link HintStore#add(RegionRecord)}.
     *
     * @param name the region's name, not null
     * @param dispatchCount samples recorded, {@code >= 0}
     * @param kernelNsTotal sum of kernel times, ns, {@code >= 0}
     * @param kernelNsMax largest kernel time, ns, {@code >= 0}
     * @param bytesTotal sum of bytes touched, {@code >= 0}
     * @throws IllegalArgumentException if {@code name} is null or a sum is negative
     */
    public RegionRecord {
        if (name == null) {
            throw new IllegalArgumentException("name is null");
        }
        if (dispatchCount < 0 || kernelNsTotal < 0 || kernelNsMax < 0 || bytesTotal < 0) {
            throw new IllegalArgumentException("negative field in record of " + name);
        }
    }

    /**
     * Whether the record is sound: the condition every record that samples produce meets, the
     * one FORMAT.md §7.2.1 gives readers to tell a damaged record from one a writer left: at
     * least one dispatch, and {@code kernelNsTotal / dispatchCount <= kernelNsMax <= kernelNsTotal}
     * (the mean rounded down). {@link HintStore#add(RegionRecord)} refuses a record that fails it.
     *
     * @return true when the record meets that condition
     */
    public boolean isSound() {
        return RecordRules.isSound(dispatchCount, kernelNsTotal, kernelNsMax, bytesTotal);
    }

    /**
     * This record combined with another record of the same region, as if both sample sequences
     * had been recorded into one region: count, kernel total and bytes add with saturation at
     * {@link Long#MAX_VALUE}, the maximum is the larger one. Associative and commutative.
     *
     * @param other a record of the same region (equal {@link #name()})
     * @return a new record with the combined sums
     * @throws IllegalArgumentException if {@code other} belongs to another region
     */
    public RegionRecord merge(RegionRecord other) {
        if (!name.equals(other.name)) {
            throw new IllegalArgumentException("cannot merge region " + other.name + " into " + name);
        }
        return new RegionRecord(name, Saturating.add(dispatchCount, other.dispatchCount),
                Saturating.add(kernelNsTotal, other.kernelNsTotal), Math.max(kernelNsMax, other.kernelNsMax),
                Saturating.add(bytesTotal, other.bytesTotal));
    }

    /**
     * This record weighted by {@code factor} (FORMAT.md §7.6): the count becomes
     * {@code max(1, round(count * factor))} (saturating), the kernel and byte totals are scaled by the
     * same ratio, rounded down, so means are kept exactly unless a total saturates; a maximum above
     * the new kernel total is lowered to it. A factor below 1 ages a profile ({@code decay}); one above 1
     * weights a run more heavily in a merge. A record with no dispatches stays as it is.
     *
     * @param factor the weight, a positive finite number: below 1 to age, above 1 to weigh more
     * @return the scaled record; this record itself when {@code factor} is 1 or
     *     {@code dispatchCount} is 0
     * @throws IllegalArgumentException if {@code factor} is not a positive finite number
     */
    public RegionRecord scaled(double factor) {
        if (!(factor > 0 && factor < Double.POSITIVE_INFINITY)) {
            throw new IllegalArgumentException("factor " + factor + " is not a positive finite number");
        }
        if (dispatchCount == 0 || factor == 1) {
            return this;
        }
        long count = RecordScaling.count(dispatchCount, factor);
        long total = RecordScaling.scale(kernelNsTotal, count, dispatchCount);
        return new RegionRecord(name, count, total, Math.min(kernelNsMax, total),
                RecordScaling.scale(bytesTotal, count, dispatchCount));
    }

}
