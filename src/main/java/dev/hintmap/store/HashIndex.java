package dev.hintmap.store;

import dev.hintmap.format.FileGeometry;
import java.lang.foreign.MemorySegment;

/**
 * The open-addressing index of name hashes (§3.8): linear probing bounded by {@code max_probe},
 * backward-shift deletion so there are no tombstones. Mutations happen only under the structure
 * lock, with {@code index_seq} odd; lookups are lock-free and read entries with acquire.
 */
final class HashIndex {
    private static final long SLOT_MASK = 0xFFFF_FFFFL;

    private final Memory memory;
    private final Slots slots;
    private final long base;
    final int mask;
    final int maxProbe;

    HashIndex(Memory memory, Slots slots, FileGeometry geometry) {
        this.memory = memory;
        this.slots = slots;
        this.base = geometry.indexOffset();
        this.mask = geometry.indexEntries() - 1;
        this.maxProbe = geometry.maxProbe();
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
        return hash >>> 32;
    }

    /** Slot named by a non-empty entry; may be out of range in a corrupt file, callers check. */
    static long slotOf(long entry) {
        return (entry & SLOT_MASK) - 1;
    }

    static long entry(long hash, int slot) {
        return tag(hash) << 32 | (slot + 1L);
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
                memory.releaseLong(base + 8L * j, entry(hash, slot));
                return true;
            }
            j = (j + 1) & mask;
        }
        return false;
    }

    /**
     * Removes the entry of {@code slot} (whose name hashes to {@code hash}) by backward-shift
     * deletion. Returns false when no such entry exists within the probe bound.
     */
    boolean delete(long hash, int slot) {
        long wanted = entry(hash, slot);
        int hole = home(hash);
        int p = 0;
        while (entryAcquire(hole) != wanted) {
            if (++p >= maxProbe) {
                return false;
            }
            hole = (hole + 1) & mask;
        }
        int i = hole;
        for (int scanned = 0; scanned <= mask; scanned++) {
            i = (i + 1) & mask;
            long e = entryAcquire(i);
            if (e == 0) {
                break;
            }
            long k = slotOf(e);
            int entryHome = k >= 0 && k < slots.capacity
                    ? home(memory.plainLong(Slots.hash(slots.slot((int) k)))) : i;
            // Move e into the hole unless its home lies cyclically in (hole, i].
            if (((i - entryHome) & mask) >= ((i - hole) & mask)) {
                memory.releaseLong(base + 8L * hole, e);
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
