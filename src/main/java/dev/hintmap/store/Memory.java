package dev.hintmap.store;

import dev.hintmap.format.Layouts;
import dev.hintmap.format.Saturating;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

/**
 * Access to the shared mapping, one method per memory-access mode. This is the only class that
 * touches VarHandles; every protocol class names the mode it needs through it, so the memory
 * order of each access is visible at its call site (see {@code docs/FORMAT.md} §6–§8).
 */
final class Memory {
    private static final VarHandle LONG = Layouts.U64.varHandle();
    private static final VarHandle INT = Layouts.U32.varHandle();

    final MemorySegment segment;

    Memory(MemorySegment segment) {
        this.segment = segment;
    }

    long plainLong(long offset) {
        return segment.get(Layouts.U64, offset);
    }

    void plainLong(long offset, long value) {
        segment.set(Layouts.U64, offset, value);
    }

    int plainInt(long offset) {
        return segment.get(Layouts.U32, offset);
    }

    void plainInt(long offset, int value) {
        segment.set(Layouts.U32, offset, value);
    }

    long acquireLong(long offset) {
        return (long) LONG.getAcquire(segment, offset);
    }

    void releaseLong(long offset, long value) {
        LONG.setRelease(segment, offset, value);
    }

    long opaqueLong(long offset) {
        return (long) LONG.getOpaque(segment, offset);
    }

    void opaqueLong(long offset, long value) {
        LONG.setOpaque(segment, offset, value);
    }

    int opaqueInt(long offset) {
        return (int) INT.getOpaque(segment, offset);
    }

    void opaqueInt(long offset, int value) {
        INT.setOpaque(segment, offset, value);
    }

    /**
     * Full-fence CAS (acquire on success is what the locks need; volatile is the only CAS mode
     * that is cheap everywhere), preceded by an acquire load of the same word: a word that
     * differs fails without the CAS (test-and-test-and-set, the same outcome as a failed CAS at
     * the moment of the load).
     *
     * <p>The load is also what keeps a truncated file from crashing the JVM: the interpreter's
     * CAS on a page past the end of a truncated file is an unguarded native access, killed by
     * {@code SIGBUS}, while a load of the same page faults into an {@link InternalError}, which
     * the API turns into a clear exception (FORMAT.md §5.1, docs/SECURITY.md). Only a truncation
     * between the two instructions (nanoseconds) escapes it.
     */
    boolean casLong(long offset, long expected, long value) {
        if ((long) LONG.getAcquire(segment, offset) != expected) {
            return false;
        }
        return LONG.compareAndSet(segment, offset, expected, value);
    }

    /**
     * Adds {@code delta >= 0} to a counter under the structure lock or from a single owner (no
     * other writer races on these counters), saturating at 2^63-1 as every count of the file does
     * (FORMAT.md §1); a damaged value with the top bit set stays at the maximum.
     */
    void addPlainLong(long offset, long delta) {
        releaseLong(offset, Saturating.add(plainLong(offset), delta));
    }

    /**
     * Atomic saturating add, for counters any writer may bump (statistics): a CAS loop, each CAS
     * preceded by a load of the word as {@link #casLong} does.
     */
    void atomicAddLong(long offset, long delta) {
        while (true) {
            long current = (long) LONG.getOpaque(segment, offset);
            if (LONG.compareAndSet(segment, offset, current, Saturating.add(current, delta))) {
                return;
            }
        }
    }

    /** {@code min(counter + delta, 2^63-1)} with the counter read as unsigned, as C's {@code sat_add}. */

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
