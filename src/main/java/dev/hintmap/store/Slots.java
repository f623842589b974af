package dev.hintmap.store;

import dev.hintmap.format.FileGeometry;
import dev.hintmap.format.FormatVersion;
import dev.hintmap.format.Layouts;

/**
 * Offsets of slot {@code k}, its fields (§3.6) and its reference byte (§3.9); all arithmetic on
 * slot addresses lives here.
 */
final class Slots {
    final int capacity;
    final int maxNameBytes;
    final int nameAreaWords;
    private final long base;
    private final long slotBytes;
    private final long refBase;

    Slots(FileGeometry geometry) {
        this(geometry, FormatVersion.CURRENT);
    }

    /** The slots of a file of {@code version} (version 1's start elsewhere, and it has no reference table). */
    Slots(FileGeometry geometry, FormatVersion version) {
        this.capacity = geometry.capacity();
        this.maxNameBytes = geometry.maxNameBytes();
        this.nameAreaWords = geometry.nameAreaBytes() / 8;
        this.base = version.slotsOffset(geometry);
        this.slotBytes = geometry.slotBytes();
        this.refBase = version.hasReferenceTable() ? geometry.refTableOffset() : -1;
    }

    /**
     * The slots below {@code highWater}, a {@code high_water} word read from the file: clamped to
     * capacity as an unsigned number (FORMAT §5 step 5, §9.1), so a damaged value with the top bit
     * set bounds a scan at capacity, as in C, never at 0.
     */
    int usedSlots(long highWater) {
        return Long.compareUnsigned(highWater, capacity) > 0 ? capacity : (int) highWater;
    }

    /** Slot {@code k}'s CLOCK reference byte, packed with its neighbours' in the reference table (not in version 1). */
    long ref(int k) {
        return refBase + k;
    }

    long slot(int k) {
        return base + k * slotBytes;
    }

    static long lock(long slot) {
        return slot + Layouts.SLOT_LOCK;
    }

    static long seq(long slot) {
        return slot + Layouts.SLOT_SEQ;
    }

    static long gen(long slot) {
        return slot + Layouts.SLOT_GEN;
    }

    static long hash(long slot) {
        return slot + Layouts.SLOT_HASH;
    }

    static long nameLen(long slot) {
        return slot + Layouts.SLOT_NAME_LEN;
    }

    /** Record copy {@code seq & 1} of the slot. */
    static long copy(long slot, long seq) {
        return slot + Layouts.SLOT_COPIES + (seq & 1) * Layouts.RECORD_COPY_BYTES;
    }

    static long nameWord(long slot, int i) {
        return slot + Layouts.SLOT_NAME + 8L * i;
    }
}
