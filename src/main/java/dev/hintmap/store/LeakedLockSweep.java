package dev.hintmap.store;

import dev.hintmap.format.Layouts;
import java.lang.foreign.MemorySegment;
import java.util.HashMap;

/**
 * Frees the locks of this process that a throwable left behind, which C has no need for. Every
 * critical section releases its lock in a {@code finally}, but the release is itself a call: a
 * {@code StackOverflowError} (a caller deep in recursion) can be thrown at its entry, before its
 * store; an acquire can throw after its CAS succeeded, and the JIT's deoptimisation can raise one
 * between any two bytecodes. A lock can then hold our owner word with no thread inside it, and
 * every writer of every process would wait for it as for a live holder (5 s, then drop its samples
 * until this JVM exits). Rather than guess where such an error struck, the engine's entry points
 * count every throwable that leaves them ({@link #throwables}, a field increment that a frame
 * without stack to spare can still do) and, while that count is ahead of what was swept, sweep
 * the lock words (at most once per check period, on a thread holding no lock): a lock that holds
 * our owner word with no progress at all — for a slot, its {@code seq} and {@code gen} unchanged;
 * for the structure lock, no acquisition by this process, no liveness check by a holder of ours
 * waiting for a slot lock under it and no 64 slots walked by a rebuild of the index under it
 * (OwnerLock#structProgress) — across the leak period (1 s) is held by
 * no thread of ours (they hold locks for nanoseconds, and every record or structural change under
 * one is progress), and is released. Only a thread of ours descheduled for the whole period in
 * the middle of a critical section could be mistaken for one. A thread of ours that waits for its
 * own owner word asks {@link #freeIfLeaked} at each liveness check, so it is freed without a sweep.
 */
final class LeakedLockSweep {
    /** The structure lock is held for a whole recovery (O(capacity)) with no acquisition: it gets more. */
    private static final int STRUCT_LEAK_PERIODS = 2;

    private final Memory memory;
    private final Slots slots;
    private final OwnerLock locks;
    /**
     * Throwables that left the store through its entry points: written by frames that may have
     * no stack left, so a plain increment of a volatile field (lost updates are harmless: any
     * change is noticed).
     */
    volatile long throwables;
    /** {@link #throwables} when the last complete sweep began. */
    private volatile long sweptThrowables;
    /** Whether the last sweep saw a lock of ours without progress for less than its period. */
    private volatile boolean leakCandidates;
    /** Lock offset → {progress a, progress b, since} of a lock seen holding our owner word; under itself. */
    private final HashMap<Long, long[]> leakSightings = new HashMap<>();
    private long lastSweepNanos;

    LeakedLockSweep(Memory memory, Slots slots, OwnerLock locks) {
        this.memory = memory;
        this.slots = slots;
        this.locks = locks;
    }

    /** Sweeps when a throwable may have left a lock behind: two field reads otherwise. Call holding no lock. */
    void sweepIfNeeded() {
        if (throwables != sweptThrowables || leakCandidates) {
            sweepLeakedLocks();
        }
    }

    private void sweepLeakedLocks() {
        long now = System.nanoTime();
        MemorySegment seg = memory.segment;
        synchronized (leakSightings) {
            if (now - lastSweepNanos < OwnerLock.CHECK_PERIOD_NANOS && lastSweepNanos != 0) {
                return; // at most once per check period: a sweep reads every lock word
            }
            lastSweepNanos = now;
            long swept = throwables;
            boolean pending = sighting(seg, Layouts.HDR_STRUCT_LOCK, locks.structAcquisitions, locks.structProgress, now,
                    STRUCT_LEAK_PERIODS * locks.leakPeriodNanos());
            int used = slots.usedSlots(Memory.acquireLong(seg, Layouts.HDR_HIGH_WATER)); // unsigned clamp (§5 step 5)
            for (int k = 0; k < used; k++) {
                long slot = slots.slot(k);
                pending |= sighting(seg, Slots.lock(slot), Memory.acquireLong(seg, Slots.seq(slot)),
                        Memory.acquireLong(seg, Slots.gen(slot)), now, locks.leakPeriodNanos());
            }
            leakCandidates = pending;
            sweptThrowables = swept; // only now: an overflow inside the sweep leaves it to run again
        }
    }

    /**
     * For a thread of ours waiting for {@code lock} while our owner word holds it: frees it if
     * it was left behind (no progress for its period). The waiter does not hold it, so releasing
     * it cannot pull it from under the caller; true when it was freed.
     */
    boolean freeIfLeaked(long lock) {
        long now = System.nanoTime();
        MemorySegment seg = memory.segment;
        synchronized (leakSightings) {
            boolean pending;
            if (lock == Layouts.HDR_STRUCT_LOCK) {
                pending = sighting(seg, lock, locks.structAcquisitions, locks.structProgress, now,
                        STRUCT_LEAK_PERIODS * locks.leakPeriodNanos());
            } else {
                long slot = lock - Layouts.SLOT_LOCK; // a slot lock is the slot's first word
                pending = sighting(seg, lock, Memory.acquireLong(seg, Slots.seq(slot)),
                        Memory.acquireLong(seg, Slots.gen(slot)), now, locks.leakPeriodNanos());
            }
            if (pending) {
                leakCandidates = true;
            }
            return Memory.acquireLong(seg, lock) != locks.owner();
        }
    }

    /**
     * One lock word's sighting: true while it holds our owner word with no progress for less than
     * the leak period; at the end of the period it is released (held by no thread of ours).
     */
    private boolean sighting(MemorySegment seg, long lock, long progressA, long progressB, long now, long period) {
        if (Memory.acquireLong(seg, lock) != locks.owner()) {
            leakSightings.remove(lock);
            return false;
        }
        long[] seen = leakSightings.get(lock);
        if (seen == null || seen[0] != progressA || seen[1] != progressB) {
            leakSightings.put(lock, new long[] {progressA, progressB, now}); // first sighting, or progress since
            return true;
        }
        if (now - seen[2] < period) {
            return true;
        }
        if (lock == Layouts.HDR_STRUCT_LOCK) {
            locks.structureLockFreed();
        }
        Memory.releaseLong(seg, lock, 0L); // ours, and no thread of ours made progress under it for the whole period
        leakSightings.remove(lock);
        return false;
    }
}
