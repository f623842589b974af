package dev.hintmap.store;

import dev.hintmap.format.FileGeometry;
import dev.hintmap.format.Layouts;
import java.lang.foreign.MemorySegment;

/**
 * The open-addressing index of name hashes (§3.8): linear probing bounded by {@code max_probe},
 * backward-shift deletion so there are no tombstones. Each entry carries its distance from home,
 * so a deletion moves entries without reading the slots they name. Mutations happen only under
 * the structure lock, with {@code index_seq} odd: their loads are plain (C relaxed), since only
 * the lock's holder stores entries, and their stores release, which lock-free lookups pair with
 * the acquire of {@link #entryAcquire}. Every method takes the segment its operation read once.
 */
final class HashIndex {
    private final long base;
    final int mask;
    final int maxProbe;
    private final int capacity;

    HashIndex(FileGeometry geometry) {
        this.base = geometry.indexOffset();
        this.mask = geometry.indexEntries() - 1;
        this.maxProbe = geometry.maxProbe();
        this.capacity = geometry.capacity();
    }

    int home(long hash) {
        return (int) (hash & mask);
    }

    /** A lock-free lookup's load: acquire, pairs with the release store of every entry. */
    long entryAcquire(MemorySegment seg, int j) {
        return Memory.acquireLong(seg, base + 8L * j);
    }

    /** The structure-lock holder's load: plain (C relaxed), only the holder stores entries. */
    long entryLocked(MemorySegment seg, int j) {
        return Memory.plainLong(seg, base + 8L * j);
    }

    /** Release (§3.8): a lookup that acquires the entry sees every store before it. */
    private void store(MemorySegment seg, int j, long entry) {
        Memory.releaseLong(seg, base + 8L * j, entry);
    }

    static long tag(long hash) {
        return hash >>> Layouts.INDEX_TAG_SHIFT;
    }

    /**
     * The entry a lookup of {@code hash} accepts at probe position {@code p}, less its slot bits:
     * same tag and same home (its distance is {@code p}), so a false match needs 30 equal hash
     * bits and an equal home.
     */
    static long probeKey(long hash, int p) {
        return tag(hash) << Layouts.INDEX_TAG_SHIFT | (long) p << Layouts.INDEX_DIST_SHIFT;
    }

    /** Whether entry {@code e} is one a lookup with this {@link #probeKey} should check. */
    static boolean matches(long e, long probeKey) {
        return (e & ~Layouts.INDEX_SLOT_MASK) == probeKey;
    }

    /** Slot named by a non-empty entry; may be out of range in a corrupt file, callers check. */
    static long slotOf(long entry) {
        return (entry & Layouts.INDEX_SLOT_MASK) - 1;
    }

    static int distOf(long entry) {
        return (int) (entry >>> Layouts.INDEX_DIST_SHIFT & Layouts.INDEX_DIST_MASK);
    }

    static long withDist(long entry, int dist) {
        return entry & ~(Layouts.INDEX_DIST_MASK << Layouts.INDEX_DIST_SHIFT) | (long) dist << Layouts.INDEX_DIST_SHIFT;
    }

    static long entry(long hash, int dist, int slot) {
        return probeKey(hash, dist) | (slot + 1L);
    }

    /** Whether an insertion of {@code hash} would find an empty entry within the probe bound. */
    boolean hasRoom(MemorySegment seg, long hash) {
        int j = home(hash);
        for (int p = 0; p < maxProbe; p++) {
            if (entryLocked(seg, j) == 0) {
                return true;
            }
            j = (j + 1) & mask;
        }
        return false;
    }

    /** Inserts at the first empty entry within the probe bound; false when there is none. */
    boolean insert(MemorySegment seg, long hash, int slot) {
        int j = home(hash);
        for (int p = 0; p < maxProbe; p++) {
            if (entryLocked(seg, j) == 0) {
                store(seg, j, entry(hash, p, slot));
                return true;
            }
            j = (j + 1) & mask;
        }
        return false;
    }

    /**
     * Removes the entry of {@code slot} (whose name hashes to {@code hash}) by backward-shift
     * deletion (§7.4 step 8), reading no slot. Returns false when the index proved inconsistent:
     * no such entry before the first empty one within the probe bound (backward shift keeps every
     * entry's run from its home free of empty entries, so the search stops there, as lookups do),
     * or a damaged entry in the run (naming no slot, or a distance beyond the probe bound), where
     * the shift stops; the caller rebuilds the index.
     */
    boolean delete(MemorySegment seg, long hash, int slot) {
        long tag = tag(hash);
        int hole = home(hash);
        for (int p = 0; ; p++) {
            if (p >= maxProbe) {
                return false;
            }
            long e = entryLocked(seg, hole);
            if (e == 0) {
                return false;
            }
            if (tag(e) == tag && slotOf(e) == slot) { // tag(entry): its top bits are the tag
                break;
            }
            hole = (hole + 1) & mask;
        }
        int i = hole;
        for (int scanned = 0; scanned < mask; scanned++) {
            i = (i + 1) & mask;
            long e = entryLocked(seg, i);
            if (e == 0) {
                break;
            }
            int shift = (i - hole) & mask;
            int dist = distOf(e);
            long k = slotOf(e);
            if (k < 0 || k >= capacity || dist >= maxProbe) {
                store(seg, hole, 0L);
                return false; // damaged: moving it could only spread the damage
            }
            // e may fill the hole only if the hole is not before its home: its home lies at or
            // before the hole, i.e. it moves no further back than its distance.
            if (shift <= dist) {
                store(seg, hole, withDist(e, dist - shift));
                hole = i;
            }
        }
        store(seg, hole, 0L);
        return true;
    }

    /** Empties every entry (§8 step 2a, {@code index_seq} odd). */
    void clear(MemorySegment seg) {
        for (int j = 0; j <= mask; j++) {
            store(seg, j, 0L);
        }
    }
}
