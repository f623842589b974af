package dev.hintmap.store;

import dev.hintmap.format.FileGeometry;
import dev.hintmap.format.Layouts;
import java.lang.foreign.MemorySegment;

/**
 * The open-addressing index of name hashes (§3.8): linear probing bounded by {@code max_probe},
 * backward-shift deletion so there are no tombstones. Each entry carries its distance from home,
 * so a deletion moves entries without reading the slots they name (v2). Mutations happen only
 * under the structure lock, with {@code index_seq} odd; lookups are lock-free and read entries
 * with acquire.
 */
final class HashIndex {
    private final Memory memory;
    private final long base;
    final int mask;
    final int maxProbe;
    private final int capacity;

    HashIndex(Memory memory, FileGeometry geometry) {
        this.memory = memory;
        this.base = geometry.indexOffset();
        this.mask = geometry.indexEntries() - 1;
        this.maxProbe = geometry.maxProbe();
        this.capacity = geometry.capacity();
    }

    int home(long hash) {
        return (int) (hash & mask);
    }

    long entryAcquire(int j) {
        return entryAcquire(memory.segment, j);
    }

    /** As {@link #entryAcquire(int)}, through the segment the lookup read once (StoreEngine#resolve). */
    long entryAcquire(MemorySegment seg, int j) {
        return Memory.acquireLong(seg, base + 8L * j);
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
    boolean hasRoom(long hash) {
        int j = home(hash);
        for (int p = 0; p < maxProbe; p++) {
            if (entryAcquire(j) == 0) {
                return true;
            }
            j = (j + 1) & mask;
        }
        return false;
    }

    /** Inserts at the first empty entry within the probe bound; false when there is none. */
    boolean insert(long hash, int slot) {
        int j = home(hash);
        for (int p = 0; p < maxProbe; p++) {
            if (entryAcquire(j) == 0) {
                memory.releaseLong(base + 8L * j, entry(hash, p, slot));
                return true;
            }
            j = (j + 1) & mask;
        }
        return false;
    }

    /**
     * Removes the entry of {@code slot} (whose name hashes to {@code hash}) by backward-shift
     * deletion (§7.4 step 8), reading no slot. Returns false when no such entry exists within
     * the probe bound, or when the run holds a damaged entry (naming no slot, or a distance
     * beyond the probe bound): the shift stops there, as C's does, and the caller rebuilds.
     */
    boolean delete(long hash, int slot) {
        long tag = tag(hash);
        int hole = home(hash);
        int p = 0;
        while (true) {
            long e = entryAcquire(hole);
            if (e != 0 && tag(e) == tag && slotOf(e) == slot) { // tag(entry): its top bits are the tag
                break;
            }
            if (++p >= maxProbe) {
                return false;
            }
            hole = (hole + 1) & mask;
        }
        int i = hole;
        for (int scanned = 0; scanned < mask; scanned++) {
            i = (i + 1) & mask;
            long e = entryAcquire(i);
            if (e == 0) {
                break;
            }
            int shift = (i - hole) & mask;
            int dist = distOf(e);
            long k = slotOf(e);
            if (k < 0 || k >= capacity || dist >= maxProbe) {
                memory.releaseLong(base + 8L * hole, 0L);
                return false; // damaged: moving it could only spread the damage
            }
            // e may fill the hole only if the hole is not before its home: its home lies at or
            // before the hole, i.e. it moves no further back than its distance.
            if (shift <= dist) {
                memory.releaseLong(base + 8L * hole, withDist(e, dist - shift));
                hole = i;
            }
        }
        memory.releaseLong(base + 8L * hole, 0L);
        return true;
    }

    void clear() {
        for (int j = 0; j <= mask; j++) {
            memory.opaqueLong(base + 8L * j, 0L);
        }
    }
}
