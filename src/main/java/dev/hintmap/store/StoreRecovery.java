package dev.hintmap.store;

import dev.hintmap.format.Layouts;
import java.lang.foreign.MemorySegment;

/**
 * Recovery of a structural change whose writer died, or of a damaged index (FORMAT.md §8), under
 * the structure lock: free the journaled slot left BUSY (step 1), rebuild the index from the slots
 * (step 2), clear the journal and count the recovery (step 3). The §8 part of C's
 * {@code store_engine.c}, in the same order; {@link StoreEngine} calls it from §7.4 step 1 (and step 2,
 * when the re-resolve met an entry naming no slot) and after a step 8 that found the index inconsistent.
 *
 * <p>O(capacity), and only after a crash inside a structural change or on a damaged file: nothing
 * here is on a hot path, so it allocates what it needs.
 */
class StoreRecovery {
    /**
     * Slots a rebuild of the index (§8 step 2) walks between two reports of progress to the leak
     * sweep (LeakedLockSweep). A rebuild is often the first in its process, so interpreted: one was
     * measured at ~275 µs a slot on a loaded 2-core machine, so 1,024 slots would take 0.28 s, a
     * seventh of the structure lock's leak period; 64 take ~18 ms, and the report (one volatile
     * increment) costs nothing beside a slot's name check.
     */
    static final int REBUILD_PROGRESS_SLOTS = 64;

    private final StoreEngine engine;
    private final Slots slots;

    StoreRecovery(StoreEngine engine) {
        this.engine = engine;
        this.slots = engine.slots;
    }

    /**
     * §7.4 step 1's five triggers: a dead writer left a structural change unfinished
     * ({@code journal_slot}, odd {@code index_seq}), or a coordination word is out of range.
     */
    boolean needed() {
        MemorySegment seg = engine.mapping.segment();
        long capacity = slots.capacity;
        // plain: the structure lock's acquire ordered the previous holder's stores
        return Memory.plainLong(seg, Layouts.HDR_JOURNAL_SLOT) != 0
                || (Memory.plainLong(seg, Layouts.HDR_INDEX_SEQ) & 1) != 0
                || Long.compareUnsigned(Memory.plainLong(seg, Layouts.HDR_CLOCK_HAND), capacity) >= 0
                || Long.compareUnsigned(Memory.plainLong(seg, Layouts.HDR_HIGH_WATER), capacity) > 0
                || Long.compareUnsigned(Memory.plainLong(seg, Layouts.HDR_LIVE_COUNT), capacity) > 0;
    }

    /**
     * §8; structure lock held.
     *
     * @return false when it gave up on a slot lock held by a live process (§6.2): the journal and
     *     {@code index_seq} are left as they are, for the next holder of the structure lock
     */
    boolean recover() {
        MemorySegment seg = engine.mapping.segment();
        long journal = Memory.plainLong(seg, Layouts.HDR_JOURNAL_SLOT);
        // §8 step 1: only a journaled slot left BUSY is half-changed. One whose gen is even is the
        // untouched victim (a death before step 7) or the complete new region (after step 11's
        // gen): freeing it would lose completed records and shrink the region count while
        // index_seq is even; step 2 keeps it if sound.
        // Plain: gen changes only under the slot lock, which the dead writer held.
        if (journal > 0 && journal <= slots.capacity
                && (Memory.plainLong(seg, Slots.gen(slots.slot((int) (journal - 1)))) & 1) != 0
                && !slotFree(seg, (int) (journal - 1))) {
            return false;
        }
        if (!indexRebuild()) {
            return false;
        }
        Memory.releaseLong(seg, Layouts.HDR_JOURNAL_SLOT, 0L); // 3: release: the journal cleared after the repair
        engine.counters().holderCount(Layouts.HDR_RECOVERIES);
        return true;
    }

    /** Frees slot {@code k} under its lock (§8 step 1); false when the lock's live holder kept it (§6.2). */
    private boolean slotFree(MemorySegment seg, int k) {
        long lock = Slots.lock(slots.slot(k));
        if (!engine.locks.acquire(seg, lock)) {
            return false;
        }
        try {
            slotClear(seg, k);
        } finally {
            engine.locks.release(seg, lock);
        }
        return true;
    }

    /**
     * The body of §8's <em>free</em>, slot {@code k}'s lock held: BUSY first, then no name and no
     * record, then the next even {@code gen}; the hand points at the free slot.
     */
    void slotClear(MemorySegment seg, int k) {
        long slot = slots.slot(k);
        long busy = Memory.plainLong(seg, Slots.gen(slot)) | 1; // plain: the slot lock's holder wrote it last
        Memory.opaqueLong(seg, Slots.gen(slot), busy); // opaque: readers load gen lock-free
        Memory.storeStoreFence(); // readers see BUSY before the fields change
        StoreEngine.clearName(seg, slots, slot); // plain: gen is odd, published by its release below
        long seq = Memory.plainLong(seg, Slots.seq(slot));
        RecordCopies.plainWrite(seg, Slots.copy(slot, seq), 0, 0, 0, 0);
        RecordCopies.plainWrite(seg, Slots.copy(slot, seq + 1), 0, 0, 0, 0);
        Memory.plainByte(seg, slots.ref(k), (byte) 0); // plain (C relaxed): a hint (§3.9)
        Memory.releaseLong(seg, Slots.gen(slot), busy + 1); // release: the next even gen publishes the FREE slot
        Memory.plainLong(seg, Layouts.HDR_CLOCK_HAND, k); // plain: the next insertion takes the free slot, not a live region
    }

    /**
     * §8 step 2: rebuilds the index from the slots; structure lock held, {@code index_seq} odd from
     * 2a until 2d.
     *
     * @return false when it gave up on a slot lock, leaving {@code index_seq} odd for the next holder
     */
    boolean indexRebuild() {
        MemorySegment seg = engine.mapping.segment();
        long indexSeq = Memory.plainLong(seg, Layouts.HDR_INDEX_SEQ) | 1;
        Memory.opaqueLong(seg, Layouts.HDR_INDEX_SEQ, indexSeq); // 2a: opaque, odd; lock-free readers load it
        Memory.storeStoreFence(); // readers see index_seq odd before any entry changes
        engine.index.clear(seg);
        long highWater = Memory.plainLong(seg, Layouts.HDR_HIGH_WATER);
        if (Long.compareUnsigned(highWater, slots.capacity) > 0) { // 2b: clamped, and stored only then
            highWater = slots.capacity;
            Memory.releaseLong(seg, Layouts.HDR_HIGH_WATER, highWater); // release: the bound of lock-free scans
        }
        if (Long.compareUnsigned(Memory.plainLong(seg, Layouts.HDR_CLOCK_HAND), Math.max(1, slots.capacity)) >= 0) {
            Memory.plainLong(seg, Layouts.HDR_CLOCK_HAND, 0L); // plain: only struct_lock holders use the hand
        }
        long live = 0;
        EncodedName stored = new EncodedName(); // recovery only: allocation is fine here
        SlotRecord record = new SlotRecord();
        for (int k = 0; k < highWater; k++) { // 2c
            if ((k & (REBUILD_PROGRESS_SLOTS - 1)) == REBUILD_PROGRESS_SLOTS - 1) {
                engine.locks.structureProgress(); // a long rebuild is alive, not a leaked lock (LeakedLockSweep)
            }
            long slot = slots.slot(k);
            int length = Memory.plainInt(seg, Slots.nameLen(slot));
            long gen = Memory.plainLong(seg, Slots.gen(slot));
            if (length == 0 && (gen & 1) == 0) {
                continue; // FREE
            }
            if (keep(seg, k, slot, gen, length, stored, record)) {
                live++;
            } else if (!slotFree(seg, k)) {
                return false;
            }
        }
        Memory.releaseLong(seg, Layouts.HDR_LIVE_COUNT, live); // 2d: release, while index_seq is odd (§7.5)
        Memory.releaseLong(seg, Layouts.HDR_INDEX_SEQ, indexSeq + 1); // release: even, index stable
        return true;
    }

    /**
     * §8 step 2c for slot {@code k}, which is not FREE: whether it is kept, inserted into the index.
     * Sound (SlotSoundness) is the rule verify's LIVE count uses, so a repaired file verifies clean. A
     * record that writers kept republishing for the whole read bound ({@link StoreEngine#UNSETTLED}) is
     * not known to be unsound: the region is kept, not destroyed for a hint that was only missing.
     */
    private boolean keep(MemorySegment seg, int k, long slot, long gen, int length, EncodedName stored,
            SlotRecord record) {
        if ((gen & 1) != 0 || !SlotSoundness.nameSound(seg, slots, slot, length, stored, SlotSoundness.IGNORED)) {
            return false;
        }
        int read = engine.slotReadForRebuild(seg, k, record);
        return (read == StoreEngine.UNSETTLED || (read > 0 && record.isSound())) // sound, or not known to be unsound
                && SlotSoundness.keptFirst(indexed, stored, k, SlotSoundness.IGNORED); // a later duplicate, or no room: freed
    }

    /** The slots kept so far are the index rebuilt so far (§8 step 2c's duplicate rule, SlotSoundness). */
    private final SlotSoundness.Kept indexed = new SlotSoundness.Kept() {
        @Override
        public int slotOf(EncodedName name) {
            return engine.resolveLocked(name);
        }

        @Override
        public boolean keep(EncodedName name, int k) {
            return engine.index.insert(engine.mapping.segment(), name.hash, k);
        }
    };
}
