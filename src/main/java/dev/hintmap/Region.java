package dev.hintmap;

import dev.hintmap.store.EncodedName;
import dev.hintmap.store.EncodedNames;

/**
 * A pre-resolved region of one {@link HintStore}: recording through it skips hashing and
 * looking up the name. The handle remembers the slot and its generation; when the region has
 * been evicted (and the slot reused) since, the next record notices it under the slot lock,
 * re-resolves the name (inserting the region again) and carries on. Thread-safe.
 */
public final class Region {
    private final HintStore store;
    private final EncodedName encoded;
    private final String name;
    /** Slot and generation last resolved, or null; replaced as a whole, never mutated. */
    private volatile EncodedNames.Resolution resolution;

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
        store.mapped().requireOpen();
        store.requireWritable();
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
        } catch (InternalError fault) {
            throw store.mapped().onFault(fault);
        } catch (IllegalStateException e) {
            throw store.mapped().onClosedRace(e); // closed by another thread meanwhile
        }
    }

    @Override
    public String toString() {
        return "Region[" + name + "]";
    }
}
