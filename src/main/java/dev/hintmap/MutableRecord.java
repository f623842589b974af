package dev.hintmap;

import dev.hintmap.store.SlotRecord;
import java.util.Objects;

/**
 * A reusable holder for one region's record, filled in place by the allocation-free queries
 * ({@link HintStore#readInto(String, MutableRecord)}, {@link Region#readInto(MutableRecord)},
 * {@link RegionView#readInto(MutableRecord)}): what {@link RegionRecord} carries, without the name
 * and without a new object per query. Keep one per thread (or per call site) and pass it to every
 * query; the store never keeps a reference to it.
 *
 * <p>A fill is one consistent record (the same seqlock read as {@link HintStore#recordFor}: one
 * update, never a mix of two). A query of an absent region {@linkplain #clear() clears} the
 * holder, so it reads as zero, as {@link Region#dispatchCount()} does for an absent region.
 *
 * <p>Its mean and hot answers are {@link RecordFigures}'s, as for {@link RegionRecord}; a cleared holder
 * has no dispatch, so its means are 0 and it is never hot.
 *
 * <p>Not thread-safe: one thread fills and reads it at a time.
 *
 * <pre>{@code
 * MutableRecord r = new MutableRecord();          // once
 * if (store.readInto("gemm_bf16_128x128", r) && r.isHot(store.hotThresholdNs())) { ... }
 * }</pre>
 */
public final class MutableRecord implements RecordFigures {
    /** Filled by the store's read protocol directly, so a query copies each field once. */
    final SlotRecord values = new SlotRecord();

    /** An empty holder: every field 0, as after {@link #clear()}. */
    public MutableRecord() {}

    /**
     * Samples recorded since the region was (last) inserted.
     *
     * @return the dispatch count, {@code >= 1} after a successful query, 0 when cleared
     */
    @Override
    public long dispatchCount() {
        return values.dispatchCount();
    }

    /**
     * Sum of kernel times.
     *
     * @return the total in ns, {@code >= 0}
     */
    @Override
    public long kernelNsTotal() {
        return values.kernelNsTotal();
    }

    /**
     * Largest kernel time.
     *
     * @return the maximum in ns, {@code >= 0}
     */
    @Override
    public long kernelNsMax() {
        return values.kernelNsMax();
    }

    /**
     * Sum of bytes touched.
     *
     * @return the total in bytes, {@code >= 0}
     */
    @Override
    public long bytesTotal() {
        return values.bytesTotal();
    }

    /**
     * Whether the holder holds a record: false after {@link #clear()} or a query of an absent
     * region.
     *
     * @return true when {@link #dispatchCount()} is at least 1
     */
    public boolean isPresent() {
        return values.dispatchCount() > 0;
    }

    /** Sets every field to 0, as a query of an absent region does. */
    public void clear() {
        values.clear();
    }

    /**
     * An immutable copy of this record under {@code name}; allocates, unlike the queries.
     *
     * @param name the region's name
     * @return a new record with this holder's fields
     * @throws IllegalArgumentException if {@code name} is null
     */
    public RegionRecord toRecord(String name) {
        return new RegionRecord(name, dispatchCount(), kernelNsTotal(), kernelNsMax(), bytesTotal());
    }

    /** Whether this holder holds the same four fields as {@code record}, its name aside (tests). */
    boolean sameFieldsAs(RegionRecord record) {
        Objects.requireNonNull(record, "record");
        return dispatchCount() == record.dispatchCount() && kernelNsTotal() == record.kernelNsTotal()
                && kernelNsMax() == record.kernelNsMax() && bytesTotal() == record.bytesTotal();
    }

    @Override
    public String toString() {
        return "MutableRecord[dispatchCount=" + dispatchCount() + ", kernelNsTotal=" + kernelNsTotal()
                + ", kernelNsMax=" + kernelNsMax() + ", bytesTotal=" + bytesTotal() + "]";
    }
}
