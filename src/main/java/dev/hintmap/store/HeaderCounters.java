package dev.hintmap.store;

import dev.hintmap.format.Layouts;
import java.lang.foreign.MemorySegment;

/**
 * The statistics counters of the header (FORMAT.md §3.2–§3.3): {@code evictions}, {@code recoveries}
 * and {@code dropped_inserts}, each a <em>holder's counter</em> that only the structure-lock holder
 * writes, and {@code stolen_locks}, which any writer bumps ({@link OwnerLock}, a CAS loop).
 *
 * <p>Every access is opaque (C relaxed), reads and writes alike, in both libraries: a counter orders
 * nothing a reader relies on, and a holder's increment races with no other writer (the structure
 * lock orders one holder's store before the next holder's load), so a load, a saturating {@code + 1}
 * (§1) and a store, no CAS, no release. A value with the top bit set (a damaged file) reads as 0
 * (§5 step 5); its next increment stores {@code 2^63-1}.
 */
public final class HeaderCounters {
    private final SegmentConstant mapping;

    HeaderCounters(SegmentConstant mapping) {
        this.mapping = mapping;
    }

    /** Regions evicted since the file was created, by every process. */
    public long evictions() {
        return read(Layouts.HDR_EVICTIONS);
    }

    /** Crashed structural changes repaired (§8). */
    public long recoveries() {
        return read(Layouts.HDR_RECOVERIES);
    }

    /** New regions not inserted because the probe bound was exceeded (§7.4 steps 3 and 10). */
    public long droppedInserts() {
        return read(Layouts.HDR_DROPPED_INSERTS);
    }

    /** Locks taken over from dead owners (§6.2). */
    public long stolenLocks() {
        return read(Layouts.HDR_STOLEN_LOCKS);
    }

    private long read(long offset) {
        return Math.max(0, Memory.opaqueLong(mapping.segment(), offset)); // a damaged value reads as 0
    }

    /** {@code +1} to the holder's counter at {@code offset}; the caller holds the structure lock. */
    void holderCount(long offset) {
        MemorySegment seg = mapping.segment();
        Memory.opaqueAddLong(seg, offset, 1);
    }
}
