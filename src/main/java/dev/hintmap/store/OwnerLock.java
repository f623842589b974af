package dev.hintmap.store;

import dev.hintmap.format.Layouts;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The lock protocol of §6.2 for the structure lock and the slot locks: a CAS from 0 to the owner
 * word, spinning with periodic liveness checks of the holder, stealing the lock only from a dead
 * holder, and giving up on a live holder after the store's lock wait limit (FORMAT.md §6.2
 * "give up").
 *
 * <p>Giving up is what keeps a stopped process, or a hostile file that names a live process as
 * a lock owner, from hanging every writer: the caller changes nothing and drops its sample. The
 * (lock, owner word) pair is remembered with the time its holder was last seen alive, so that a
 * later waiter on the same word gives up at once, without reading {@code /proc}, while that
 * sighting is younger than one check period; an older one costs one liveness check. A dropped
 * sample therefore costs a map lookup and a clock read (~100 ns), not a {@code /proc} read
 * (~20 µs), however many samples a stopped holder makes us drop.
 *
 * <h2>A lock left behind by a throwable</h2>
 * Every critical section releases in a {@code finally}, but the release is itself a call, and a
 * {@code StackOverflowError} (a caller deep in recursion) can be thrown at its entry, before its
 * store; an acquire can throw after its CAS succeeded, and the JIT's deoptimisation can raise one
 * between any two bytecodes. A lock can then be left holding our owner word with no thread
 * inside it, and other processes would wait for it as for a live holder. Rather than guess where
 * such an error struck, the store counts every throwable that leaves it ({@link #throwables},
 * a field increment in the engine's entry points, which a frame without stack to spare can still
 * do) and, while that count is ahead of what was swept, {@link StoreEngine} sweeps the lock words
 * (at most once per check period, by a thread holding no lock): a lock that holds our owner word
 * with no progress at all — for a slot, its {@code seq} and {@code gen} unchanged; for the
 * structure lock, no acquisition by this process — across the store's leak period (1 s) is held
 * by no thread of ours (they hold locks for nanoseconds, and every record or structural change
 * under one is progress), and is released. Only a thread of ours descheduled for the whole period
 * in the middle of a critical section could be mistaken for one.
 */
final class OwnerLock {
    private static final int SPINS_BETWEEN_CHECKS = 1024;
    static final long CHECK_PERIOD_NANOS = 1_000_000;
    /** FORMAT.md §6.2 {@code lock_wait_limit}. */
    static final long DEFAULT_WAIT_LIMIT_NANOS = 5_000_000_000L;
    /** The leak period of the class notes. */
    static final long DEFAULT_LEAK_PERIOD_NANOS = 1_000_000_000L;
    /** Remembered stuck locks per store; past this many the memory is cleared (a hostile file can name many). */
    private static final int MAX_STUCK = 4096;

    private final Memory memory;
    private final WriterTable writers;
    private final long owner;
    private final long selfToken;
    private final long waitLimitNanos;
    /** Lock offset → the live owner word a waiter gave up on (§6.2) and when it was last seen alive; process-local. */
    private final ConcurrentHashMap<Long, Stuck> stuck = new ConcurrentHashMap<>();
    /** Whether {@link #stuck} may hold anything: a plain read keeps the uncontended path free of the map. */
    private boolean anyStuck;
    /** Null outside tests; see {@link HeldLockProbe.Section#ACQUIRED} and {@link HeldLockProbe.Section#RELEASE}. */
    private final HeldLockProbe probe;

    /**
     * Throwables that left the store through its entry points (class notes): written by frames
     * that may have no stack left, so a plain increment of a volatile field (lost updates are
     * harmless: any change is noticed).
     */
    volatile long throwables;
    /** Acquisitions of the structure lock by this process: its progress, for the leak sweep. */
    volatile long structAcquisitions;
    /** Frees a lock of ours that a throwable left behind (StoreEngine#freeIfLeaked); null until set. */
    private java.util.function.LongPredicate leakSweep;

    void leakSweep(java.util.function.LongPredicate sweep) {
        this.leakSweep = sweep;
    }

    /** A live owner word given up on, and the {@link System#nanoTime()} of its last liveness check. */
    private record Stuck(long holder, long aliveAtNanos) {}

    private final long giveUpRecheckNanos;
    private final long leakPeriodNanos;
    /** Null outside tests. */
    private final java.util.concurrent.atomic.AtomicLong livenessChecks;

    OwnerLock(Memory memory, WriterTable writers, long owner, long selfToken, StoreSettings settings) {
        this.probe = settings.heldLockProbe;
        this.waitLimitNanos = settings.lockWaitLimitNanos;
        this.giveUpRecheckNanos = settings.giveUpRecheckNanos;
        this.leakPeriodNanos = settings.leakedLockNanos;
        this.livenessChecks = settings.livenessChecks;
        this.memory = memory;
        this.writers = writers;
        this.owner = owner;
        this.selfToken = selfToken;
    }

    /** §6.3 for the holder of a lock; counted for tests. */
    private boolean holderIsDead(long holder) {
        if (livenessChecks != null) {
            livenessChecks.incrementAndGet();
        }
        return writers.isDead(holder, selfToken);
    }

    long owner() {
        return owner;
    }

    /** How long a lock holding our owner word without progress counts as held before a sweep frees it. */
    long leakPeriodNanos() {
        return leakPeriodNanos;
    }

    /**
     * Takes the lock word at {@code offset}, stealing it from a dead holder (the caller repairs
     * what needs repair: a slot needs none, the structure lock's journal tells).
     *
     * @return true when this thread holds the lock; false when it gave up on a live holder
     *     (the caller must change nothing under the lock and drop its sample)
     */
    boolean acquire(long offset) {
        return acquire(memory.segment, offset);
    }

    /** As {@link #acquire(long)}, through this store's segment as the caller read it once (Memory). */
    boolean acquire(MemorySegment seg, long offset) {
        if (Memory.casLong(seg, offset, 0L, owner)) {
            acquired(offset);
            return true;
        }
        return acquireContended(offset);
    }

    /** After a CAS that took the lock: what the memos knew about its word is out of date. */
    private void acquired(long offset) {
        if (offset == Layouts.HDR_STRUCT_LOCK) {
            structAcquisitions++; // under the lock just taken: one writer at a time
        }
        if (anyStuck) {
            stuck.remove(offset); // the word was 0 (or dead): it changed since anyone gave up on it
        }
        if (probe != null) {
            probe.whileHeld(HeldLockProbe.Section.ACQUIRED);
        }
    }

    private boolean acquireContended(long offset) {
        int spins = 0;
        boolean yielding = false;
        long nextCheck = 0;
        long deadline = 0;
        while (true) {
            long holder = Memory.acquireLong(memory.segment, offset);
            if (holder == 0) {
                if (takeFree(offset)) {
                    return true;
                }
                continue;
            }
            // Only after a give-up: the map's get boxes the offset, an allocation per contended acquire otherwise.
            Stuck knownStuck = anyStuck ? stuck.get(offset) : null;
            if (knownStuck != null) {
                if (knownStuck.holder == holder) {
                    // Gave up on this very owner word before: no second wait. Seen alive within the
                    // check period: give up at once (§6.3's own granularity); else check it once.
                    long now = System.nanoTime();
                    if (now - knownStuck.aliveAtNanos < giveUpRecheckNanos) {
                        return false;
                    }
                    if (steal(offset, holder)) {
                        return true;
                    }
                    if (Memory.acquireLong(memory.segment, offset) == holder) {
                        remember(offset, holder, now);
                        return false;
                    }
                    continue;
                }
                stuck.remove(offset, knownStuck); // the word changed since
            }
            if (!yielding) {
                if (++spins % SPINS_BETWEEN_CHECKS != 0) {
                    Thread.onSpinWait();
                    continue;
                }
                yielding = true; // §6.2: after the first liveness check, yield between attempts
                deadline = System.nanoTime() + waitLimitNanos;
            } else {
                Thread.yield();
                // §6.3: from then on the holder is checked by the clock, once per millisecond, so a
                // holder that dies after being seen alive is noticed within about 1 ms however
                // slowly the yields come back on a loaded machine.
                long now = System.nanoTime();
                if (now - nextCheck < 0) {
                    continue;
                }
                nextCheck = now + CHECK_PERIOD_NANOS;
                if (holder == owner && leakSweep != null && leakSweep.test(offset)) {
                    continue; // our own word, left behind by a throwable and now freed (class notes)
                }
                if (now - deadline > 0 && !holderIsDead(holder)) {
                    remember(offset, holder, now);
                    return false; // §6.2 give up: a live holder for the whole limit
                }
            }
            if (steal(offset, holder)) {
                return true;
            }
        }
    }

    private boolean takeFree(long offset) {
        if (Memory.casLong(memory.segment, offset, 0L, owner)) {
            acquired(offset);
            return true;
        }
        return false;
    }

    /** Steals the lock if {@code holder} is dead; false when it is alive (or the word moved on). */
    private boolean steal(long offset, long holder) {
        if (holderIsDead(holder) && Memory.casLong(memory.segment, offset, holder, owner)) {
            Memory.atomicAddLong(memory.segment, Layouts.HDR_STOLEN_LOCKS, 1);
            acquired(offset);
            return true;
        }
        return false;
    }

    private void remember(long offset, long holder, long aliveAtNanos) {
        if (stuck.size() >= MAX_STUCK) {
            stuck.clear();
        }
        stuck.put(offset, new Stuck(holder, aliveAtNanos));
        anyStuck = true;
    }

    /**
     * Gives the lock back; the release store publishes every write made while holding it. The
     * store's entry point counts whatever is thrown from here (class notes).
     */
    void release(long offset) {
        release(memory.segment, offset);
    }

    /** As {@link #release(long)}, through this store's segment as the caller read it once (Memory). */
    void release(MemorySegment seg, long offset) {
        if (probe != null) {
            probe.whileHeld(HeldLockProbe.Section.RELEASE);
        }
        Memory.releaseLong(seg, offset, 0L);
    }
}
