package dev.hintmap.eviction;

import dev.hintmap.format.FileGeometry;
import dev.hintmap.format.Layouts;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The frames {@link ClockHand} sweeps over a mapped file (FORMAT.md §7.4 step 3): the header's
 * {@code high_water} and {@code clock_hand} (§3.2) and the reference table (§3.9). Used only by the
 * holder of the structure lock, which orders every access to the two words between holders; C's
 * twin is {@code clock_hand.c}, which reads the same words in place.
 *
 * <p>The accesses, each in the mode FORMAT gives it (C's in brackets): the two words are read and
 * the hand stored plain [relaxed], since only structure-lock holders use them; {@code high_water} is
 * stored with release [release], since readers bound their scans by it (its acquire load pairs with
 * it); a reference byte is read opaque and cleared plain [relaxed]: a hint racing with recording
 * writers, which at worst only ages a region, and a plain byte store, not an opaque one, because the JDK 25
 * interpreter's opaque byte store cannot fault cleanly on a truncated file (store.Memory#plainByte).
 * This package depends on {@code format} only, so the accessors are written here rather than taken
 * from {@code store.Memory}, whose modes they repeat.
 */
public final class ClockFrames implements ClockHand.Frames {
    private static final VarHandle U64 = Layouts.U64.varHandle();
    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();

    private final MemorySegment mapping;
    private final int capacity;
    private final long refBase;

    /** The frames of {@code mapping}, a file of {@code geometry} (format version 2 or later: it has a reference table). */
    public ClockFrames(MemorySegment mapping, FileGeometry geometry) {
        this.mapping = mapping;
        this.capacity = geometry.capacity();
        this.refBase = geometry.refTableOffset();
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public long highWater() {
        return mapping.get(Layouts.U64, Layouts.HDR_HIGH_WATER); // plain: ours under struct_lock
    }

    @Override
    public void highWater(long value) {
        U64.setRelease(mapping, Layouts.HDR_HIGH_WATER, value); // release: the bound of lock-free scans
    }

    @Override
    public long hand() {
        return mapping.get(Layouts.U64, Layouts.HDR_CLOCK_HAND); // plain: ours under struct_lock
    }

    @Override
    public void hand(long value) {
        mapping.set(Layouts.U64, Layouts.HDR_CLOCK_HAND, value); // plain: ours under struct_lock
    }

    @Override
    public boolean clearReferenced(int slot) {
        long offset = refBase + slot;
        if ((byte) BYTE.getOpaque(mapping, offset) == 0) { // opaque (C relaxed): a hint writers set
            return false;
        }
        mapping.set(ValueLayout.JAVA_BYTE, offset, (byte) 0); // plain (C relaxed): see the class comment
        return true;
    }
}
