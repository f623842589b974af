package dev.hintmap;

import dev.hintmap.store.Answer;
import dev.hintmap.store.EncodedName;
import dev.hintmap.store.EncodedNames;
import dev.hintmap.store.SlotRecord;
import dev.hintmap.store.StoreEngine;
import java.util.Objects;

/**
 * A pre-resolved region of one {@link HintStore}: recording through it skips hashing and
 * looking up the name. The handle remembers the slot and its generation; when the region has
 * been evicted (and the slot reused) since, the next record notices it under the slot lock,
 * re-resolves the name (inserting the region again) and carries on. Thread-safe. With capacity 0
 * its records are dropped and its queries answer absent; on a read-only store its queries answer
 * and {@link #record} throws; once the store is closed every method but {@link #name()} throws
 * {@link IllegalStateException}.
 *
 * <p>Queries through a handle ({@link #readInto(MutableRecord)}, {@link #dispatchCount()},
 * {@link #meanKernelNs()}, {@link #isHot()}, {@link #isHot(long)}) answer what the same query by name
 * ({@link HintStore#readInto(String, MutableRecord)}, {@link HintStore#isHot(String)}) answers, with
 * one consistent read of the region's record. They follow the region too: a query after an eviction
 * reads it absent, one after its re-insertion (into any slot) reads the new record. A query never
 * inserts the region. While the slot where a record or a query last found the region keeps its
 * generation, a query compares no name (FORMAT.md §7.2.2) and allocates nothing (once compiled, as
 * {@link HintStore} says of every allocation-free path); after the region
 * moved, the one record or query that finds it again allocates the pair it then remembers.
 */
public final class Region {
    private final HintStore store;
    /**
     * The store's engine, read-only flag and capacity-0 flag, none of which changes while it is open:
     * kept here so that a record or query does not fetch them through the store each call
     * (docs/archive/RECORD-STEPS.md measured the handle's own checks at about 3 ns of a record). The engine
     * owns the hot threshold.
     */
    private final StoreEngine engine;
    private final boolean readOnly;
    private final boolean recordsNothing;
    private final EncodedName encoded;
    private final String name;
    /**
     * The one (slot, gen) pair of the handle, as C's {@code hm_region} keeps one: where the last
     * record put the region or the last query found it, or null (never found, or absent at the last
     * look). Records and queries use and replace the same pair, so a query after a record (or a
     * record after a query) needs no lookup. An immutable pair, replaced as a whole, so a racy plain
     * field is enough: a thread sees null or some pair a record or query resolved (final fields), never
     * one half of two (§7.2.2); a pair gone stale is caught by its generation, under the slot lock
     * for a record (§7.1), in the read for a query.
     */
    private EncodedNames.Resolution at;

    Region(HintStore store, EncodedName encoded, String name) {
        this.store = store;
        this.engine = store.engine();
        this.readOnly = store.isReadOnly();
        this.recordsNothing = engine.capacity() == 0;
        this.encoded = encoded;
        this.name = name;
    }

    /**
     * The region's name, as given.
     *
     * @return the name given to {@link HintStore#region(String)}, not its stored form
     *     ({@link HintStore#storedName(String)}) when it is longer than the file's limit
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
        store.checkOpen();
        if (readOnly) {
            throw store.readOnlyRefusal();
        }
        HintStore.requireNonNegative(kernelNs, bytesTouched);
        if (recordsNothing) {
            return;
        }
        try {
            EncodedNames.Resolution r = at;
            if (r != null && engine.recordInto(r.slot(), r.gen(), kernelNs, bytesTouched)) {
                return;
            }
            at = EncodedNames.recordResolving(engine, encoded, kernelNs, bytesTouched); // null: dropped
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
        if (query(Answer.RECORD, into.values) == 1) {
            return true;
        }
        into.clear();
        return false;
    }

    /**
     * Dispatches recorded for the region since it was (last) inserted: {@link MutableRecord#dispatchCount()}
     * of what {@link #readInto(MutableRecord)} reads, at the same cost (one read of the whole
     * record, FORMAT.md §7.2.2); allocates nothing.
     *
     * @return the number of dispatches, {@code >= 1} when present; 0 when absent
     * @throws IllegalStateException if the store is closed
     * @throws java.io.UncheckedIOException as for {@link #readInto(MutableRecord)}
     */
    public long dispatchCount() {
        return query(Answer.COUNT, null);
    }

    /**
     * Mean kernel time of the region per dispatch: {@link MutableRecord#meanKernelNs()} of what
     * {@link #readInto(MutableRecord)} reads, at the same cost; allocates nothing.
     *
     * @return the total kernel time divided by the dispatch count, in ns, rounded down; 0 when absent
     * @throws IllegalStateException if the store is closed
     * @throws java.io.UncheckedIOException as for {@link #readInto(MutableRecord)}
     */
    public long meanKernelNs() {
        return query(Answer.MEAN, null);
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
        return query(Answer.HOT, null) == 1;
    }

    /**
     * Whether the region is hot by the caller's threshold, as {@link HintStore#isHot(String, long)}:
     * the same read as {@link #isHot()}, compared with {@code thresholdNs} instead of the store's
     * threshold; allocates nothing.
     *
     * @param thresholdNs the mean kernel time in ns at or above which the caller calls a region
     *     hot, {@code >= 0}
     * @return true when the region is present and its mean kernel time is at least
     *     {@code thresholdNs}; false when absent
     * @throws IllegalArgumentException if {@code thresholdNs} is negative
     * @throws IllegalStateException if the store is closed
     * @throws java.io.UncheckedIOException as for {@link #readInto(MutableRecord)}
     */
    public boolean isHot(long thresholdNs) {
        HintStore.requireThreshold(thresholdNs);
        SlotRecord s = EncodedNames.scratch().snapshot;
        return query(Answer.RECORD, s) == 1 && s.isHot(thresholdNs);
    }

    /**
     * One query (FORMAT.md §7.2.2): through the handle's pair, with no name compare; when that
     * pair has gone stale (or there is none), a lookup by the encoded name (§7.3), whose pair is then
     * the handle's (the one allocation, after a lookup), or none when the region is absent.
     *
     * @param out the record's holder for {@link Answer#RECORD}; null for the other answers
     * @return as {@link StoreEngine#slotReadAt}, never {@link StoreEngine#STALE}
     */
    private long query(Answer answer, SlotRecord out) {
        store.checkOpen();
        try {
            EncodedNames.Resolution r = at;
            if (r != null) {
                long v = engine.slotReadAt(r.slot(), r.gen(), answer, out);
                if (v != StoreEngine.STALE) {
                    return v;
                }
            }
            SlotRecord s = out != null ? out : EncodedNames.scratch().snapshot;
            if (!engine.resolve(encoded, s)) {
                if (r != null) {
                    at = null; // absent: the next record inserts it, as C's handle forgets its slot
                }
                return 0;
            }
            at = new EncodedNames.Resolution(s.slot(), s.gen());
            return s.answer(answer, engine.hotThresholdNs());
        } catch (InternalError | IllegalStateException e) {
            throw store.accessFailed(e);
        }
    }

    @Override
    public String toString() {
        return "Region[" + name + "]";
    }
}
