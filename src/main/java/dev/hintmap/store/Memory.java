package dev.hintmap.store;

import dev.hintmap.format.Layouts;
import dev.hintmap.format.Saturating;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * Access to the shared mapping, one method per memory-access mode. This is the only class that
 * touches VarHandles; every protocol class names the mode it needs through it, so the memory
 * order of each access is visible at its call site (see {@code docs/FORMAT.md} §6–§8).
 *
 * <p>Every access takes the segment: each operation reads its store's segment once and passes it,
 * so each access checks one value the compiler already holds in a register instead of reloading a
 * field chain after every fence (docs/archive/PERF-RECORD.md, docs/archive/PERF-READ.md). An instance is a segment
 * checked to be 8-byte aligned, which the plain accesses rely on (see {@link #PLAIN_U64}).
 */
final class Memory {
    private static final VarHandle LONG = Layouts.U64.varHandle();
    private static final VarHandle INT = Layouts.U32.varHandle();
    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();
    /**
     * The layouts of the plain accesses: {@link Layouts#U64} and {@link Layouts#U32} without their
     * alignment constraint, so that a plain access skips the per-access alignment check of the
     * segment (it cannot be folded for a segment that is not a constant; docs/archive/PERF-RECORD.md).
     * Every offset of the file is aligned by the layout and the segment base is 8-byte aligned (checked
     * by the constructor), so the instruction is the same aligned, single-copy-atomic load or store; the
     * atomic modes keep the aligned layouts, which their VarHandles require.
     */
    private static final ValueLayout.OfLong PLAIN_U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(Layouts.U64.order());
    private static final ValueLayout.OfInt PLAIN_U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(Layouts.U32.order());

    final MemorySegment segment;

    Memory(MemorySegment segment) {
        // The plain accesses' unaligned layouts rely on it (see PLAIN_U64): with the base 8-byte
        // aligned (mappings and stores are page-aligned, scratch segments malloc-aligned), every
        // offset the layout aligns is an aligned address.
        if (segment.address() % Long.BYTES != 0) {
            throw new IllegalArgumentException("segment at 0x" + Long.toHexString(segment.address())
                    + " is not 8-byte aligned");
        }
        this.segment = segment;
    }

    static long plainLong(MemorySegment seg, long offset) {
        return seg.get(PLAIN_U64, offset);
    }

    static void plainLong(MemorySegment seg, long offset, long value) {
        seg.set(PLAIN_U64, offset, value);
    }

    static int plainInt(MemorySegment seg, long offset) {
        return seg.get(PLAIN_U32, offset);
    }

    static void plainInt(MemorySegment seg, long offset, int value) {
        seg.set(PLAIN_U32, offset, value);
    }

    static long acquireLong(MemorySegment seg, long offset) {
        return (long) LONG.getAcquire(seg, offset);
    }

    static void releaseLong(MemorySegment seg, long offset, long value) {
        LONG.setRelease(seg, offset, value);
    }

    static long opaqueLong(MemorySegment seg, long offset) {
        return (long) LONG.getOpaque(seg, offset);
    }

    static void opaqueLong(MemorySegment seg, long offset, long value) {
        LONG.setOpaque(seg, offset, value);
    }

    static int opaqueInt(MemorySegment seg, long offset) {
        return (int) INT.getOpaque(seg, offset);
    }

    static void opaqueInt(MemorySegment seg, long offset, int value) {
        INT.setOpaque(seg, offset, value);
    }

    /** A reference byte (§3.9): relaxed, single-byte, never ordering anything. */
    static byte opaqueByte(MemorySegment seg, long offset) {
        return (byte) BYTE.getOpaque(seg, offset);
    }

    /**
     * A reference byte's store (§3.9, relaxed in C): a plain store, the same single {@code mov} a C
     * relaxed store of a byte compiles to, and a byte is never torn (JLS §17.6). Not opaque: the JDK 25
     * interpreter executes an opaque or volatile byte store as an {@code xchg}, and when that store
     * faults on a page of a file truncated under the mapping, HotSpot cannot decode the instruction to
     * skip it and dies ({@code ShouldNotReachHere} in {@code Assembler::locate_operand}) instead of
     * raising the {@link InternalError} every other access raises (docs/archive/RELIABILITY.md, "Truncation
     * under a writer"). What opaque adds to a plain store, a bound on how long the store may be
     * deferred, a reference bit (a hint for eviction) does not need.
     */
    static void plainByte(MemorySegment seg, long offset, byte value) {
        seg.set(ValueLayout.JAVA_BYTE, offset, value);
    }

    /**
     * Full-fence CAS (acquire on success is what the locks need; volatile is the only CAS mode
     * that is cheap everywhere), preceded by a plain load of the same word: a word that differs
     * fails without the CAS (test-and-test-and-set, the same outcome as a failed CAS at the moment
     * of the load). A failure orders nothing, so the load needs no acquire: every caller that acts
     * on a failure reads the word again with its own acquire (OwnerLock), and the plain load keeps
     * the compiler free to share the segment's checks with the CAS (docs/archive/PERF-RECORD.md).
     *
     * <p>The load is also what keeps a truncated file from crashing the JVM: the interpreter's
     * CAS on a page past the end of a truncated file is an unguarded native access, killed by
     * {@code SIGBUS}, while a load of the same page faults into an {@link InternalError}, which
     * the API turns into a clear exception (FORMAT.md §5.1, docs/SECURITY.md). Only a truncation
     * between the two instructions (nanoseconds) escapes it.
     */
    static boolean casLong(MemorySegment seg, long offset, long expected, long value) {
        if (seg.get(PLAIN_U64, offset) != expected) {
            return false;
        }
        return LONG.compareAndSet(seg, offset, expected, value);
    }

    /**
     * Adds {@code delta >= 0} to a counter only the structure-lock holder writes (FORMAT.md §3.2): an
     * opaque load, a saturating add (2^63-1 as every count of the file, §1; a damaged value with the
     * top bit set stays at the maximum) and an opaque store (C: a relaxed load and store); no other
     * writer races on it, so no CAS, and it orders nothing a reader relies on, so no release.
     */
    static void opaqueAddLong(MemorySegment seg, long offset, long delta) {
        opaqueLong(seg, offset, Saturating.add(opaqueLong(seg, offset), delta));
    }

    /**
     * Atomic saturating add, for counters any writer may bump (statistics): a CAS loop, each CAS
     * preceded by a load of the word as {@link #casLong} does.
     */
    static void atomicAddLong(MemorySegment seg, long offset, long delta) {
        while (true) {
            long current = (long) LONG.getOpaque(seg, offset);
            if (LONG.compareAndSet(seg, offset, current, Saturating.add(current, delta))) {
                return;
            }
        }
    }

    static void storeStoreFence() {
        VarHandle.storeStoreFence();
    }

    static void releaseFence() {
        VarHandle.releaseFence();
    }

    static void acquireFence() {
        VarHandle.acquireFence();
    }
}
