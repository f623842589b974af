package dev.hintmap.bench;

import dev.hintmap.HintStore;
import dev.hintmap.format.Layouts;
import dev.hintmap.format.Saturating;
import dev.hintmap.store.StoreEngine;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import org.openjdk.jmh.annotations.CompilerControl;

/**
 * A copy of {@code StoreEngine.recordInto} → {@code slotRecord} (with {@code LeakedLockSweep.sweepIfNeeded},
 * {@code OwnerLock.acquire/release}, {@code Memory}, {@code RecordCopies}, {@code Saturating}) for
 * {@link RecordStepBench}, on the very mapping of a real store, with one method per rung of the
 * ladder: each drops one more check than the one above it. Those classes are package-private in
 * {@code dev.hintmap.store}, so they cannot be called from here: the accesses are written again
 * with the same layouts and access modes as {@code Memory}, the offsets come from the public
 * {@link Layouts}, and the store's slot geometry, owner word and segment are read by reflection
 * (the benchmarks run from the class path, where that is allowed). {@link #full} is the faithful
 * copy; the bench measures it beside the real {@code recordInto} so that the copy's own fidelity
 * is a row of the table, not an assumption.
 *
 * <p>The object shape follows the engine's: the slot geometry, the lock and the sweep are separate
 * objects reached through final fields, and the segment is a {@code static final} (the engine's is
 * the constant of a per-store hidden class, {@code SegmentConstant}), so that C2 folds the same things.
 *
 * <p>Every rung is a call that is not inlined into the benchmark loop: in steady state the loop
 * calls {@code Region.record} and {@code StoreEngine.recordInto} out of line too (PrintInlining:
 * "already compiled into a big method"), while a small rung would be inlined, and the ladder would
 * then also measure the call and the loss of the loop's hoisting, not just the check it drops.
 */
final class RecordReplica {
    private static final VarHandle LONG = Layouts.U64.varHandle();
    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();
    private static final ValueLayout.OfLong PLAIN_U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(Layouts.U64.order());

    /** The store's mapping, set by {@link #of} before anything reads {@link Mapped}. One store per fork. */
    private static volatile MemorySegment pending;

    /** Initialised on the first record, after the setup: the segment is then a constant for C2. */
    private static final class Mapped {
        static final MemorySegment SEGMENT = pending;
        /**
         * The same pages as a segment of the global scope: no liveness check of a shared arena
         * (what makes an access to a closed store throw), the same bounds.
         */
        static final MemorySegment RAW = MemorySegment.ofAddress(SEGMENT.address()).reinterpret(SEGMENT.byteSize());
    }

    /** {@code Slots}: the geometry fields a record reads. */
    static final class Geometry {
        final int capacity;
        final long base;
        final long slotBytes;
        final long refBase;

        Geometry(int capacity, long base, long slotBytes, long refBase) {
            this.capacity = capacity;
            this.base = base;
            this.slotBytes = slotBytes;
            this.refBase = refBase;
        }

        long slot(int k) {
            return base + k * slotBytes;
        }

        long ref(int k) {
            return refBase + k;
        }
    }

    /** {@code LeakedLockSweep}'s fields the fast path reads. */
    static final class Sweep {
        volatile long throwables;
        volatile long sweptThrowables;
        volatile boolean leakCandidates;

        void sweepIfNeeded() {
            if (throwables != sweptThrowables || leakCandidates) {
                throw new IllegalStateException("no throwable ever leaves the replica");
            }
        }
    }

    /** {@code OwnerLock}'s fast path: test-and-CAS, the acquisition bookkeeping, the release store. */
    static final class Lock {
        final long owner;
        /** Always 0, as in the real lock when nobody ever gave up. */
        volatile int giveUpCount;
        long structAcquisitions;
        Thread structHolder;

        Lock(long owner) {
            this.owner = owner;
        }

        boolean acquire(MemorySegment seg, long offset) {
            if (casLong(seg, offset, 0L, owner)) {
                acquired(offset);
                return true;
            }
            throw new IllegalStateException("lock at " + offset + " taken in a one-thread benchmark");
        }

        private void acquired(long offset) {
            if (offset == Layouts.HDR_STRUCT_LOCK) {
                structAcquisitions++;
                structHolder = Thread.currentThread();
            }
            if (giveUpCount != 0) {
                throw new IllegalStateException("no give-up in a one-thread benchmark");
            }
        }

        void release(MemorySegment seg, long offset) {
            if (offset == Layouts.HDR_STRUCT_LOCK) {
                structHolder = null;
            }
            LONG.setRelease(seg, offset, 0L);
        }
    }

    private final Geometry slots;
    private final Lock locks;
    private final Sweep leaks = new Sweep();
    final long owner;

    private RecordReplica(Geometry slots, long owner) {
        this.slots = slots;
        this.locks = new Lock(owner);
        this.owner = owner;
    }

    /** The replica over {@code store}'s mapping; call once per JVM, before the first record. */
    static RecordReplica of(HintStore store) {
        try {
            StoreEngine engine = engine(store);
            Object mapping = field(engine, "mapping");
            Method segmentOf = Class.forName("dev.hintmap.store.SegmentConstant").getMethod("segment");
            segmentOf.setAccessible(true);
            MemorySegment segment = (MemorySegment) segmentOf.invoke(mapping);
            Object s = field(engine, "slots");
            Geometry geometry = new Geometry((int) field(s, "capacity"), (long) field(s, "base"),
                    (long) field(s, "slotBytes"), (long) field(s, "refBase"));
            long owner = (long) field(field(engine, "locks"), "owner");
            if (pending != null && pending != segment) {
                throw new IllegalStateException("one store per JVM: the segment is a static final");
            }
            pending = segment;
            return new RecordReplica(geometry, owner);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("the replica follows StoreEngine's fields; update it", e);
        }
    }

    private static Object field(Object of, String name) throws ReflectiveOperationException {
        Field f = of.getClass().getDeclaredField(name);
        f.setAccessible(true);
        return f.get(of);
    }

    static StoreEngine engine(HintStore store) {
        try {
            Method engineOf = HintStore.class.getDeclaredMethod("engine");
            engineOf.setAccessible(true);
            return (StoreEngine) engineOf.invoke(store);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Checks that slot {@code k} holds generation {@code gen} and a free lock: the offsets agree with the store. */
    void check(int k, long gen) {
        MemorySegment seg = Mapped.SEGMENT;
        long slot = slots.slot(k);
        if (seg.get(PLAIN_U64, slot + Layouts.SLOT_GEN) != gen || (long) LONG.getAcquire(seg, slot + Layouts.SLOT_LOCK) != 0) {
            throw new IllegalStateException("slot " + k + " does not hold generation " + gen + " with a free lock");
        }
    }

    static boolean casLong(MemorySegment seg, long offset, long expected, long value) {
        if (seg.get(PLAIN_U64, offset) != expected) {
            return false;
        }
        return LONG.compareAndSet(seg, offset, expected, value);
    }

    // ------------------------------------------------------------------ the ladder, top to bottom

    /** {@code recordInto}: the sweep check, the throwable counter, then {@link #slotRecordFull}. */
    @CompilerControl(CompilerControl.Mode.DONT_INLINE)
    boolean full(int k, long gen, long ns, long bytes) {
        leaks.sweepIfNeeded();
        try {
            return slotRecordFull(k, gen, 1, ns, ns, bytes);
        } catch (Throwable e) {
            leaks.throwables++;
            throw e;
        }
    }

    /** Without the sweep check and the try/catch counter around the record. */
    @CompilerControl(CompilerControl.Mode.DONT_INLINE)
    boolean noSweep(int k, long gen, long ns, long bytes) {
        return slotRecordFull(k, gen, 1, ns, ns, bytes);
    }

    private boolean slotRecordFull(int k, long gen, long count, long total, long max, long bytes) {
        MemorySegment seg = Mapped.SEGMENT;
        long lock = slots.slot(k) + Layouts.SLOT_LOCK;
        if (!locks.acquire(seg, lock)) {
            return true;
        }
        try {
            return recordLocked(seg, k, gen, count, total, max, bytes);
        } finally {
            locks.release(seg, lock);
        }
    }

    /** {@code StoreEngine.recordLocked}: the body of the critical section. */
    private boolean recordLocked(MemorySegment seg, int k, long gen, long count, long total, long max, long bytes) {
        long slot = slots.slot(k);
        if (seg.get(PLAIN_U64, slot + Layouts.SLOT_GEN) != gen) {
            return false;
        }
        VarHandle.releaseFence();
        long seq = seg.get(PLAIN_U64, slot + Layouts.SLOT_SEQ);
        long current = copy(slot, seq);
        long next = copy(slot, seq + 1);
        writeSaturating(seg, current, next, count, total, max, bytes);
        LONG.setRelease(seg, slot + Layouts.SLOT_SEQ, seq + 1);
        long ref = slots.ref(k);
        if ((byte) BYTE.getOpaque(seg, ref) == 0) {
            seg.set(ValueLayout.JAVA_BYTE, ref, (byte) 1);
        }
        return true;
    }

    /**
     * Without the lock's bookkeeping: the test-and-CAS and the release store of the same word, no
     * struct-lock compare, no give-up memo read, no try/finally.
     */
    @CompilerControl(CompilerControl.Mode.DONT_INLINE)
    boolean plainLock(int k, long gen, long ns, long bytes) {
        MemorySegment seg = Mapped.SEGMENT;
        long slot = slots.slot(k);
        long lock = slot + Layouts.SLOT_LOCK;
        if (!casLong(seg, lock, 0L, owner)) {
            throw new IllegalStateException("lock taken");
        }
        if (seg.get(PLAIN_U64, slot + Layouts.SLOT_GEN) != gen) {
            LONG.setRelease(seg, lock, 0L);
            return false;
        }
        VarHandle.releaseFence();
        long seq = seg.get(PLAIN_U64, slot + Layouts.SLOT_SEQ);
        writeSaturating(seg, copy(slot, seq), copy(slot, seq + 1), 1, ns, ns, bytes);
        LONG.setRelease(seg, slot + Layouts.SLOT_SEQ, seq + 1);
        long ref = slots.ref(k);
        if ((byte) BYTE.getOpaque(seg, ref) == 0) {
            seg.set(ValueLayout.JAVA_BYTE, ref, (byte) 1);
        }
        LONG.setRelease(seg, lock, 0L);
        return true;
    }

    /** Without the plain load before the CAS (test-and-test-and-set): a bare CAS. */
    @CompilerControl(CompilerControl.Mode.DONT_INLINE)
    boolean bareCas(int k, long gen, long ns, long bytes) {
        MemorySegment seg = Mapped.SEGMENT;
        long slot = slots.slot(k);
        long lock = slot + Layouts.SLOT_LOCK;
        if (!LONG.compareAndSet(seg, lock, 0L, owner)) {
            throw new IllegalStateException("lock taken");
        }
        if (seg.get(PLAIN_U64, slot + Layouts.SLOT_GEN) != gen) {
            LONG.setRelease(seg, lock, 0L);
            return false;
        }
        VarHandle.releaseFence();
        long seq = seg.get(PLAIN_U64, slot + Layouts.SLOT_SEQ);
        writeSaturating(seg, copy(slot, seq), copy(slot, seq + 1), 1, ns, ns, bytes);
        LONG.setRelease(seg, slot + Layouts.SLOT_SEQ, seq + 1);
        long ref = slots.ref(k);
        if ((byte) BYTE.getOpaque(seg, ref) == 0) {
            seg.set(ValueLayout.JAVA_BYTE, ref, (byte) 1);
        }
        LONG.setRelease(seg, lock, 0L);
        return true;
    }

    /** Without the release fence before the copy's stores (no instruction on x86-64: a compiler barrier). */
    @CompilerControl(CompilerControl.Mode.DONT_INLINE)
    boolean noFence(int k, long gen, long ns, long bytes) {
        MemorySegment seg = Mapped.SEGMENT;
        long slot = slots.slot(k);
        long lock = slot + Layouts.SLOT_LOCK;
        if (!LONG.compareAndSet(seg, lock, 0L, owner)) {
            throw new IllegalStateException("lock taken");
        }
        if (seg.get(PLAIN_U64, slot + Layouts.SLOT_GEN) != gen) {
            LONG.setRelease(seg, lock, 0L);
            return false;
        }
        long seq = seg.get(PLAIN_U64, slot + Layouts.SLOT_SEQ);
        writeSaturating(seg, copy(slot, seq), copy(slot, seq + 1), 1, ns, ns, bytes);
        LONG.setRelease(seg, slot + Layouts.SLOT_SEQ, seq + 1);
        long ref = slots.ref(k);
        if ((byte) BYTE.getOpaque(seg, ref) == 0) {
            seg.set(ValueLayout.JAVA_BYTE, ref, (byte) 1);
        }
        LONG.setRelease(seg, lock, 0L);
        return true;
    }

    /** Without the opaque test of the reference byte: the byte is stored every time. */
    @CompilerControl(CompilerControl.Mode.DONT_INLINE)
    boolean noRefTest(int k, long gen, long ns, long bytes) {
        MemorySegment seg = Mapped.SEGMENT;
        long slot = slots.slot(k);
        long lock = slot + Layouts.SLOT_LOCK;
        if (!LONG.compareAndSet(seg, lock, 0L, owner)) {
            throw new IllegalStateException("lock taken");
        }
        if (seg.get(PLAIN_U64, slot + Layouts.SLOT_GEN) != gen) {
            LONG.setRelease(seg, lock, 0L);
            return false;
        }
        long seq = seg.get(PLAIN_U64, slot + Layouts.SLOT_SEQ);
        writeSaturating(seg, copy(slot, seq), copy(slot, seq + 1), 1, ns, ns, bytes);
        LONG.setRelease(seg, slot + Layouts.SLOT_SEQ, seq + 1);
        seg.set(ValueLayout.JAVA_BYTE, slots.ref(k), (byte) 1);
        LONG.setRelease(seg, lock, 0L);
        return true;
    }

    /** Without saturation: plain {@code +} and {@link Math#max}. */
    @CompilerControl(CompilerControl.Mode.DONT_INLINE)
    boolean noSaturating(int k, long gen, long ns, long bytes) {
        MemorySegment seg = Mapped.SEGMENT;
        long slot = slots.slot(k);
        long lock = slot + Layouts.SLOT_LOCK;
        if (!LONG.compareAndSet(seg, lock, 0L, owner)) {
            throw new IllegalStateException("lock taken");
        }
        if (seg.get(PLAIN_U64, slot + Layouts.SLOT_GEN) != gen) {
            LONG.setRelease(seg, lock, 0L);
            return false;
        }
        long seq = seg.get(PLAIN_U64, slot + Layouts.SLOT_SEQ);
        long current = copy(slot, seq);
        long next = copy(slot, seq + 1);
        seg.set(PLAIN_U64, next + Layouts.REC_DISPATCH_COUNT, seg.get(PLAIN_U64, current + Layouts.REC_DISPATCH_COUNT) + 1);
        seg.set(PLAIN_U64, next + Layouts.REC_KERNEL_NS_TOTAL, seg.get(PLAIN_U64, current + Layouts.REC_KERNEL_NS_TOTAL) + ns);
        seg.set(PLAIN_U64, next + Layouts.REC_KERNEL_NS_MAX, Math.max(seg.get(PLAIN_U64, current + Layouts.REC_KERNEL_NS_MAX), ns));
        seg.set(PLAIN_U64, next + Layouts.REC_BYTES_TOTAL, seg.get(PLAIN_U64, current + Layouts.REC_BYTES_TOTAL) + bytes);
        LONG.setRelease(seg, slot + Layouts.SLOT_SEQ, seq + 1);
        seg.set(ValueLayout.JAVA_BYTE, slots.ref(k), (byte) 1);
        LONG.setRelease(seg, lock, 0L);
        return true;
    }

    /**
     * The floor: {@link #noSaturating} on the same pages through a global-scope segment, so without
     * the shared arena's liveness check (what makes a closed store throw instead of crash). Its
     * body is a copy of noSaturating's, not a shared helper taking the segment: a helper that C2
     * declines to inline (already compiled, too big) loses the constant segment and measures that.
     */
    @CompilerControl(CompilerControl.Mode.DONT_INLINE)
    boolean raw(int k, long gen, long ns, long bytes) {
        MemorySegment seg = Mapped.RAW;
        long slot = slots.slot(k);
        long lock = slot + Layouts.SLOT_LOCK;
        if (!LONG.compareAndSet(seg, lock, 0L, owner)) {
            throw new IllegalStateException("lock taken");
        }
        if (seg.get(PLAIN_U64, slot + Layouts.SLOT_GEN) != gen) {
            LONG.setRelease(seg, lock, 0L);
            return false;
        }
        long seq = seg.get(PLAIN_U64, slot + Layouts.SLOT_SEQ);
        long current = copy(slot, seq);
        long next = copy(slot, seq + 1);
        seg.set(PLAIN_U64, next + Layouts.REC_DISPATCH_COUNT, seg.get(PLAIN_U64, current + Layouts.REC_DISPATCH_COUNT) + 1);
        seg.set(PLAIN_U64, next + Layouts.REC_KERNEL_NS_TOTAL, seg.get(PLAIN_U64, current + Layouts.REC_KERNEL_NS_TOTAL) + ns);
        seg.set(PLAIN_U64, next + Layouts.REC_KERNEL_NS_MAX, Math.max(seg.get(PLAIN_U64, current + Layouts.REC_KERNEL_NS_MAX), ns));
        seg.set(PLAIN_U64, next + Layouts.REC_BYTES_TOTAL, seg.get(PLAIN_U64, current + Layouts.REC_BYTES_TOTAL) + bytes);
        LONG.setRelease(seg, slot + Layouts.SLOT_SEQ, seq + 1);
        seg.set(ValueLayout.JAVA_BYTE, slots.ref(k), (byte) 1);
        LONG.setRelease(seg, lock, 0L);
        return true;
    }

    private static long copy(long slot, long seq) {
        return slot + Layouts.SLOT_COPIES + (seq & 1) * Layouts.RECORD_COPY_BYTES;
    }

    private static void writeSaturating(MemorySegment seg, long current, long next, long count, long total, long max, long bytes) {
        seg.set(PLAIN_U64, next + Layouts.REC_DISPATCH_COUNT,
                Saturating.add(seg.get(PLAIN_U64, current + Layouts.REC_DISPATCH_COUNT), count));
        seg.set(PLAIN_U64, next + Layouts.REC_KERNEL_NS_TOTAL,
                Saturating.add(seg.get(PLAIN_U64, current + Layouts.REC_KERNEL_NS_TOTAL), total));
        seg.set(PLAIN_U64, next + Layouts.REC_KERNEL_NS_MAX,
                Saturating.max(seg.get(PLAIN_U64, current + Layouts.REC_KERNEL_NS_MAX), max));
        seg.set(PLAIN_U64, next + Layouts.REC_BYTES_TOTAL,
                Saturating.add(seg.get(PLAIN_U64, current + Layouts.REC_BYTES_TOTAL), bytes));
    }
}
