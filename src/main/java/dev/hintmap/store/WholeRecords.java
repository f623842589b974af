package dev.hintmap.store;

import dev.hintmap.format.RecordRules;
import dev.hintmap.format.RecordScaling;
import java.lang.foreign.MemorySegment;

/**
 * Whole-record operations (FORMAT.md §7.6): <em>add</em>, which merges profiles, and <em>decay</em>,
 * which ages one. Both change a LIVE slot's record by more than one sample with §7.1's slot protocol
 * and end in its publish ({@link StoreEngine#copyPublish}), so a reader sees the old or the new
 * record, never a mix. Only Java has them (the tools: {@code hintmap merge}, {@code decay}); C's
 * library records samples only.
 */
public class WholeRecords {
    private final StoreEngine engine;
    private final Slots slots;

    WholeRecords(StoreEngine engine) {
        this.engine = engine;
        this.slots = engine.slots;
    }

    /**
     * Adds a whole record to {@code name}: {@code count} dispatches with the given sums and
     * maximum (a sample is the record {@code (1, ns, ns, bytes)}). Counts and sums add with
     * saturation, the maximum is the larger one; an absent region is inserted with exactly this
     * record. The caller guarantees the record's invariants (§7.2.1). Where it went is reported as
     * for {@link StoreEngine#record(EncodedName, long, long, SlotRecord)}.
     */
    public void add(EncodedName name, long count, long total, long max, long bytes, SlotRecord scratch) {
        engine.record(name, count, total, max, bytes, scratch); // §7.1's loop is the engine's, for a sample too
    }

    /**
     * Scales the record of slot {@code k}, if it is LIVE, by {@code factor} in {@code (0, 1]}
     * under its slot lock (§7.1's publish, so readers see the old or the new record, never a
     * mix), as {@link dev.hintmap.RegionRecord#scaled} does (§7.6). Allocates nothing
     * (RecordScaling): other processes' writers spin on the lock it holds. The reference byte is
     * left alone: ageing is not a use.
     *
     * @return {@link Decay#AGED} when the slot held a region and it was aged, {@link Decay#NOT_LIVE}
     *     when it held none (or a damaged record), {@link Decay#LOCK_HELD} when a live holder kept
     *     its lock past the wait limit (§6.2) and nothing was looked at: the caller reads the slot
     *     lock-free to learn whether a region was skipped
     */
    public Decay decaySlot(int k, double factor) {
        LeakedLockSweep leaks = engine.leaks;
        leaks.sweepIfNeeded();
        try {
            MemorySegment seg = engine.mapping.segment();
            long lock = Slots.lock(slots.slot(k));
            if (!engine.locks.acquire(seg, lock)) {
                return Decay.LOCK_HELD; // a live holder kept it past the wait limit (§6.2): not aged
            }
            try {
                return decayLocked(seg, k, factor);
            } finally {
                engine.locks.release(seg, lock);
            }
        } catch (Throwable e) {
            leaks.throwables++; // as StoreEngine.recordInto: it may have left a lock behind (LeakedLockSweep)
            throw e;
        }
    }

    /** The body of {@link #decaySlot}, slot {@code k}'s lock held. */
    Decay decayLocked(MemorySegment seg, int k, double factor) {
        long slot = slots.slot(k);
        long gen = Memory.plainLong(seg, Slots.gen(slot)); // plain: changes only under the lock we hold
        int length = Memory.plainInt(seg, Slots.nameLen(slot));
        if ((gen & 1) != 0 || length <= 0 || length > slots.maxNameBytes) {
            return Decay.NOT_LIVE;
        }
        long seq = Memory.plainLong(seg, Slots.seq(slot));
        long current = Slots.copy(slot, seq);
        long count = RecordCopies.plainDispatchCount(seg, current);
        long total = RecordCopies.plainKernelNsTotal(seg, current);
        long max = RecordCopies.plainKernelNsMax(seg, current);
        long bytes = RecordCopies.plainBytesTotal(seg, current);
        if (!RecordRules.isSound(count, total, max, bytes)) {
            return Decay.NOT_LIVE; // damaged: readers treat it as absent, ageing it would not help
        }
        if (factor != 1) { // f = 1 leaves the record exactly as it is (§7.6), not rounded through a double
            long agedCount = RecordScaling.count(count, factor);
            total = RecordScaling.scale(total, agedCount, count); // floor(total * count' / count), exact
            bytes = RecordScaling.scale(bytes, agedCount, count);
            max = Math.min(max, total);
            count = agedCount;
        }
        StoreEngine.copyPublish(seg, slot, seq, count, total, max, bytes); // §7.1's publish: old or new record, never a mix
        return Decay.AGED;
    }

    /** What {@link #decaySlot} did with one slot. */
    public enum Decay { AGED, NOT_LIVE, LOCK_HELD }
}
