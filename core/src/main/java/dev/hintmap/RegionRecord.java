package dev.hintmap;

/**
 * What a store knows about one region: running sums since the region was (last) inserted.
 * Sums saturate at {@link Long#MAX_VALUE}.
 *
 * @param name the region's name, as its generator gave it
 * @param dispatchCount samples recorded
 * @param kernelNsTotal sum of kernel times, ns
 * @param kernelNsMax largest kernel time, ns
 * @param bytesTotal sum of bytes touched
 */
public record RegionRecord(String name, long dispatchCount, long kernelNsTotal, long kernelNsMax, long bytesTotal) {

    public RegionRecord {
        if (name == null) {
            throw new IllegalArgumentException("name is null");
        }
        if (dispatchCount < 0 || kernelNsTotal < 0 || kernelNsMax < 0 || bytesTotal < 0) {
            throw new IllegalArgumentException("negative field in record of " + name);
        }
    }

    /** Mean kernel time in ns, rounded down; 0 when nothing was recorded. */
    public long meanKernelNs() {
        return dispatchCount == 0 ? 0 : kernelNsTotal / dispatchCount;
    }

    /** Mean bytes touched per dispatch, rounded down; 0 when nothing was recorded. */
    public long meanBytes() {
        return dispatchCount == 0 ? 0 : bytesTotal / dispatchCount;
    }
}
