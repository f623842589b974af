package dev.hintmap;

import dev.hintmap.store.EncodedName;
import dev.hintmap.store.EncodedNames;
import dev.hintmap.store.SlotRecord;
import dev.hintmap.store.StoreEngine;
import java.util.Objects;

/**
 * A pre-resolved region of one {@link HintStore}: recording through it skips hashing and
 * looking up the name. The handle remembers the slot and its generation; when the region has
 * been evicted (and the slot reused) since, the next record notices it under the slot lock,
 * re-resolves the name (inserting the region again) and carries on. Thread-safe.
 *
 * <p>Queries through a handle ({@link #readInto(MutableRecord)}, {@link #dispatchCount()},
 * {@link #meanKernelNs()}, {@link #isHot()}) answer what the same query by name answers, with one
 * consistent read of the region's record, and allocate nothing. They follow the region too: a
 * query after an eviction reads it absent, one after its re-insertion (into any slot) reads the
 * new record. A query never inserts the region.
 */
public final class Region {
    private final HintStore store;
    private final EncodedName encoded;
    private final String name;
    /** Slot and generation last resolved, or null; replaced as a whole, never mutated. */
    private volatile EncodedNames.Resolution resolution;
    /**
     * The slot where a query last found the region, or -1: a hint, checked by name on every read
     * (any slot holding the name is this region), so a racy plain int is enough (no tearing, any
     * value ever stored is a valid guess).
     */
    private int querySlot = -1;

    Region(HintStore store, EncodedName encoded, String name) {
        this.store = store;
        this.encoded = encoded;
        this.name = name;
    }

    /**
     * The region's name.
     *
     * @return the name given to {@link HintStore#region(String)}
     */
    public String name() {
        return name;
    }

    /**
     * Records one dispatch, as {@link HintStore#record(String, long, long)} does.
     *
     * @param kernelNs the dispatch's kernel time in ns, {@code >= 0}
     * @param bytesTouched bytes the dispatch touched, {@code >= 0}
     * @throws IllegalArgumentException for a negative value; nothing is recorded
     * @throws IllegalStateException if the store is closed or read-only
     * @throws java.io.UncheckedIOException with a {@link HintFileException} ({@code TRUNCATED})
     *     when the file was truncated under the mapping, as {@link HintStore} describes
     */
    public void record(long kernelNs, long bytesTouched) {
        store.checkWritable();
        HintStore.requireNonNegative(kernelNs, bytesTouched);
        if (store.engine().capacity() == 0) {
            return;
        }
        try {
            EncodedNames.Resolution r = resolution;
            if (r != null && store.engine().recordInto(r.slot(), r.gen(), kernelNs, bytesTouched)) {
                return;
            }
            resolution = EncodedNames.recordResolving(store.engine(), encoded, kernelNs, bytesTouched);
        } catch (InternalError | IllegalStateException e) {
            throw store.accessFailed(e);
        }
    }

    /**
     * Reads the region's record into {@code into}, as {@link HintStore#readInto(String, MutableRecord)}
     * does, without hashing or encoding the name. Allocates nothing, never waits for a lock, never
     * inserts the region.
     *
     * @param into the holder to fill: the region's consistent record when present, cleared when
     *     absent
     * @return true when the region is present, false when it is absent (never recorded, evicted,
     *     or the store's capacity is 0)
     * @throws NullPointerException if {@code into} is null
     * @throws IllegalStateException if the store is closed
     * @throws java.io.UncheckedIOException with a {@link HintFileException} ({@code TRUNCATED})
     *     when the file was truncated under the mapping, as {@link HintStore} describes
     */
    public boolean readInto(MutableRecord into) {
        Objects.requireNonNull(into, "into");
        if (read(into.values)) {
            return true;
        }
        into.clear();
        return false;
    }

    /**
     * Dispatches recorded for the region, as {@link HintStore#dispatchCount(String)}; allocates nothing.
     *
     * @return the number of dispatches, {@code >= 1} when present; 0 when absent
     * @throws IllegalStateException if the store is closed
     * @throws java.io.UncheckedIOException as for {@link #readInto(MutableRecord)}
     */
    public long dispatchCount() {
        SlotRecord s = EncodedNames.scratch().snapshot;
        return read(s) ? s.dispatchCount() : 0;
    }

    /**
     * Mean kernel time of the region, as {@link HintStore#meanKernelNs(String)}; allocates nothing.
     *
     * @return the total kernel time divided by the dispatch count, in ns, rounded down; 0 when absent
     * @throws IllegalStateException if the store is closed
     * @throws java.io.UncheckedIOException as for {@link #readInto(MutableRecord)}
     */
    public long meanKernelNs() {
        SlotRecord s = EncodedNames.scratch().snapshot;
        return read(s) ? s.meanKernelNs() : 0;
    }

    /**
     * Whether the region is hot, as {@link HintStore#isHot(String)}; allocates nothing.
     *
     * @return true when the region is present and its mean kernel time is at least the store's
     *     {@link HintStore#hotThresholdNs()}; false when absent
     * @throws IllegalStateException if the store is closed
     * @throws java.io.UncheckedIOException as for {@link #readInto(MutableRecord)}
     */
    public boolean isHot() {
        SlotRecord s = EncodedNames.scratch().snapshot;
        return read(s) && s.isHot(store.hotThresholdNs);
    }

    /**
     * One consistent read of the region (FORMAT.md §7.2.1): where a query last found it, else where
     * the record path last put it, else a lookup by the encoded name (§7.3), whose slot is then
     * remembered. {@code out} is filled only when it returns true.
     */
    private boolean read(SlotRecord out) {
        store.checkOpen();
        try {
            StoreEngine engine = store.engine();
            int k = querySlot;
            if (engine.readIfNamed(k, encoded, out)) {
                return true;
            }
            EncodedNames.Resolution r = resolution;
            if (r != null && r.slot() != k && engine.readIfNamed(r.slot(), encoded, out)) {
                querySlot = r.slot();
                return true;
            }
            if (engine.resolve(encoded, out)) {
                querySlot = out.slot();
                return true;
            }
            return false;
        } catch (InternalError | IllegalStateException e) {
            throw store.accessFailed(e);
        }
    }

    @Override
    public String toString() {
        return "Region[" + name + "]";
    }
}
