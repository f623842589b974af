package dev.hintmap.store;

import dev.hintmap.format.Layouts;
import java.lang.foreign.MemorySegment;

/**
 * The lock protocol of §6.2 for the structure lock and the slot locks: a CAS from 0 to the owner
 * word, spinning with periodic liveness checks of the holder, stealing the lock only from a dead
 * holder, and giving up on a live holder after the store's lock wait limit (FORMAT.md §6.2
 * "give up"). Twin of {@code owner_lock.c}, whose functions the private methods here are named
 * after.
 *
 * <p>Giving up is what keeps a stopped process, or a hostile file that names a live process as
 * a lock owner, from hanging every writer: the caller changes nothing and drops its sample. The
 * (lock, owner word) pair is remembered in the give-up memo with the time its holder was last
 * checked alive, so that a later waiter on the same word gives up at once, without reading
 * {@code /proc}, while that check is younger than the recheck period; an older one costs one
 * liveness check. A dropped sample therefore costs a memo scan and a clock read, not a
 * {@code /proc} read (~20 µs), however many samples a stopped holder makes us drop.
 *
 * <p>A lock that a throwable left holding our own owner word is freed by {@link LeakedLockSweep},
 * which this lock creates for its engine and asks before waiting on our own word.
 *
 * <p>Not final: a test's subclass (EngineBuilder) acts right after an acquisition and at the start of
 * a release, where a throwable leaves a lock behind for the sweep, and counts liveness checks.
 */
class OwnerLock {
    private static final int SPINS_BETWEEN_CHECKS = 1024;
    static final long CHECK_PERIOD_NANOS = 1_000_000;
    /** FORMAT.md §6.2 {@code lock_wait_limit}. */
    static final long DEFAULT_WAIT_LIMIT_NANOS = 5_000_000_000L;
    /** The leak period of {@link LeakedLockSweep}. */
    static final long DEFAULT_LEAK_PERIOD_NANOS = 1_000_000_000L;
    /**
     * (lock, owner word) pairs remembered (C {@code HM_GIVEUP_MEMO}). A fixed array in both twins
     * rather than a map: a waiter holds at most two locks, so a stopped process leaves few, a
     * remember allocates nothing, and past 16 (a hostile file) the oldest is overwritten, which
     * costs a later waiter one more wait, never correctness.
     */
    static final int GIVE_UP_MEMO = 16;
    /** {@link #giveUpKnown}: the store did not give up on this (lock, owner word). */
    private static final int GIVE_UP_UNKNOWN = 0;
    /** It did, and checked the holder less than the recheck period ago. */
    private static final int GIVE_UP_FRESH = 1;
    /** It did, and the last check is older. */
    private static final int GIVE_UP_STALE = 2;

    private final Memory memory;
    private final WriterTable writers;
    private final long owner;
    private final long selfToken;
    private final long waitLimitNanos;
    private final long giveUpRecheckNanos;
    private final long leakPeriodNanos;

    /** The give-up memo (C {@code giveup}): process-local, under its own monitor. */
    private final GiveUp[] giveUp = new GiveUp[GIVE_UP_MEMO];
    /** Entries in use, written under the memo's monitor and read without it as a hint (C {@code giveup_count}). */
    private volatile int giveUpCount;
    /** The entry a full memo overwrites next (C {@code giveup_next}). */
    private int giveUpNext;

    /** Acquisitions of the structure lock by this process: its progress, for the leak sweep. */
    volatile long structAcquisitions;
    /**
     * Progress of a thread of ours that holds the structure lock, for the leak sweep, besides its
     * acquisitions: each liveness check it makes while it waits for a slot lock (a victim's, or one
     * recovery frees), since such a wait may last the whole wait limit, and each 64 slots a
     * rebuild of the index (§8 step 2) walks, since a rebuild is O(high_water) and on a large or
     * cold file takes longer than the structure lock's leak period (issue 32 finding 10). Written
     * only by the holder (a plain increment of a volatile: one writer).
     */
    volatile long structProgress;
    /** The thread of ours holding the structure lock, else null; compared only with the current thread. */
    private Thread structHolder;
    /** Frees a lock of ours that a throwable left behind; null until an engine attaches it. */
    private LeakedLockSweep leaks;

    /** A lock given up on (C {@code hm_giveup}); {@code lock} 0: unused. */
    private static final class GiveUp {
        /** Volatile: {@link #giveUpForget} scans it without the monitor before confirming under it. */
        volatile long lock;
        long owner;
        /** {@link System#nanoTime()} of the last liveness check of the pair. */
        long checkedNanos;
    }

    OwnerLock(Memory memory, WriterTable writers, long owner, long selfToken, StoreSettings settings) {
        this.waitLimitNanos = settings.lockWaitLimitNanos;
        this.giveUpRecheckNanos = settings.giveUpRecheckNanos;
        this.leakPeriodNanos = settings.leakedLockNanos;
        this.memory = memory;
        this.writers = writers;
        this.owner = owner;
        this.selfToken = selfToken;
        for (int i = 0; i < GIVE_UP_MEMO; i++) {
            giveUp[i] = new GiveUp();
        }
    }

    /** Creates the leak sweep over {@code slots} that the engine's entry points drive. */
    LeakedLockSweep attachLeakSweep(Slots slots) {
        leaks = new LeakedLockSweep(memory, slots, this);
        return leaks;
    }

    long owner() {
        return owner;
    }

    /** How long a lock holding our owner word without progress counts as held before a sweep frees it. */
    long leakPeriodNanos() {
        return leakPeriodNanos;
    }

    /** §6.3 for the holder of a lock (C {@code holder_dead}); a test's subclass counts the checks. */
    boolean holderDead(long holder) {
        return writers.isDead(holder, selfToken);
    }

    /**
     * Takes the lock word at {@code offset} of {@code seg}, this store's segment as the caller's
     * entry point read it once (Memory), stealing it from a dead holder (the caller repairs what
     * needs repair: a slot needs none, the structure lock's journal tells).
     *
     * @return true when this thread holds the lock; false when it gave up on a live holder
     *     (the caller must change nothing under the lock and drop its sample)
     */
    boolean acquire(MemorySegment seg, long offset) {
        if (Memory.casLong(seg, offset, 0L, owner)) {
            acquired(offset);
            return true;
        }
        return acquireContended(seg, offset);
    }

    /** After a CAS that took the lock (C {@code giveup_clear}): what the memo knew about its word is out of date. */
    private void acquired(long offset) {
        if (offset == Layouts.HDR_STRUCT_LOCK) {
            structAcquisitions++; // under the lock just taken: one writer at a time
            structHolder = Thread.currentThread();
        }
        if (giveUpCount != 0) {
            giveUpForget(offset); // the word was 0 (or dead): it changed since anyone gave up on it
        }
    }

    /** The rest of §6.2 after a CAS found the word taken (C {@code hmi_lock_acquire_contended}). */
    private boolean acquireContended(MemorySegment seg, long offset) {
        if (giveUpCount != 0) {
            // §6.2 give up, remembered: a holder this store gave up on is not waited for again,
            // and not checked more than once per recheck period
            long holder = Memory.acquireLong(seg, offset);
            if (holder != 0) {
                long now = System.nanoTime();
                int known = giveUpKnown(offset, holder, now);
                if (known == GIVE_UP_FRESH) {
                    return false;
                }
                if (known == GIVE_UP_STALE) {
                    if (!holderDead(holder)) {
                        giveUpRemember(offset, holder, now);
                        return false;
                    }
                    if (lockSteal(seg, offset, holder)) {
                        return true;
                    }
                    // the word changed meanwhile: wait for the new holder as for any
                }
            }
        }
        int spins = 0;
        boolean yielding = false;
        long start = 0;
        long nextCheck = 0;
        while (true) {
            long holder = Memory.acquireLong(seg, offset);
            if (holder == 0) {
                if (Memory.casLong(seg, offset, 0L, owner)) {
                    acquired(offset);
                    return true;
                }
                continue;
            }
            long now;
            if (!yielding) {
                if (++spins % SPINS_BETWEEN_CHECKS != 0) {
                    Thread.onSpinWait();
                    continue;
                }
                yielding = true; // §6.2: after the first liveness check, yield between attempts
                now = start = System.nanoTime();
                nextCheck = now + CHECK_PERIOD_NANOS;
            } else {
                Thread.yield();
                // §6.3: from then on the holder is checked by the clock, once per millisecond, so a
                // holder that dies after being seen alive is noticed within about 1 ms however
                // slowly the yields come back on a loaded machine.
                now = System.nanoTime();
                if (now - nextCheck < 0) {
                    continue;
                }
                nextCheck = now + CHECK_PERIOD_NANOS;
            }
            if (structHolder == Thread.currentThread() && offset != Layouts.HDR_STRUCT_LOCK) {
                structProgress++; // the structure lock's holder is alive and waiting (LeakedLockSweep)
            }
            if (holder == owner && leaks != null && leaks.freeIfLeaked(offset)) {
                continue; // our own word, left behind by a throwable and now freed (LeakedLockSweep)
            }
            if (holderDead(holder)) {
                if (lockSteal(seg, offset, holder)) {
                    return true;
                }
                continue;
            }
            // §6.2 give up: a live holder for the whole limit, or one another thread of this
            // store gave up on meanwhile (this check refreshes the memo's time)
            if (giveUpKnown(offset, holder, now) != GIVE_UP_UNKNOWN || now - start >= waitLimitNanos) {
                giveUpRemember(offset, holder, now);
                return false;
            }
        }
    }

    /** Takes the lock from {@code holder}, found dead (§6.2 steal); false when the word changed meanwhile. */
    private boolean lockSteal(MemorySegment seg, long offset, long holder) {
        if (!Memory.casLong(seg, offset, holder, owner)) {
            return false;
        }
        Memory.atomicAddLong(seg, Layouts.HDR_STOLEN_LOCKS, 1);
        acquired(offset);
        return true;
    }

    /** Whether this store gave up on (offset, holder), and whether its last check is younger than the recheck period. */
    private int giveUpKnown(long offset, long holder, long now) {
        if (giveUpCount == 0) {
            return GIVE_UP_UNKNOWN; // a hint; the monitor orders the memo
        }
        synchronized (giveUp) {
            for (GiveUp g : giveUp) {
                if (g.lock == offset && g.owner == holder) {
                    return now - g.checkedNanos < giveUpRecheckNanos ? GIVE_UP_FRESH : GIVE_UP_STALE;
                }
            }
        }
        return GIVE_UP_UNKNOWN;
    }

    /** Remembers giving up on (offset, holder) after a liveness check at {@code checked}, or refreshes that time. */
    private void giveUpRemember(long offset, long holder, long checked) {
        synchronized (giveUp) {
            int free = GIVE_UP_MEMO;
            for (int i = 0; i < GIVE_UP_MEMO; i++) {
                long lock = giveUp[i].lock;
                if (lock == offset) {
                    free = i; // one entry per lock: the newest owner
                } else if (free == GIVE_UP_MEMO && lock == 0) {
                    free = i;
                }
            }
            if (free == GIVE_UP_MEMO) {
                free = giveUpNext; // full: overwrite round robin
                giveUpNext = (giveUpNext + 1) % GIVE_UP_MEMO;
            }
            GiveUp g = giveUp[free];
            if (g.lock == 0) {
                giveUpCount++;
            }
            g.lock = offset;
            g.owner = holder;
            g.checkedNanos = checked;
        }
    }

    /** Forgets what this store gave up on the lock at {@code offset} (C {@code hmi_giveup_forget}). */
    private void giveUpForget(long offset) {
        boolean found = false;
        for (int i = 0; i < GIVE_UP_MEMO && !found; i++) {
            found = giveUp[i].lock == offset; // a hint, confirmed under the monitor
        }
        if (!found) {
            return;
        }
        synchronized (giveUp) {
            for (GiveUp g : giveUp) {
                if (g.lock == offset) {
                    g.lock = 0;
                    g.owner = 0;
                    giveUpCount--;
                }
            }
        }
    }

    /**
     * Gives the lock back; the release store publishes every write made while holding it. The
     * store's entry point counts whatever is thrown from here (LeakedLockSweep).
     */
    void release(MemorySegment seg, long offset) {
        if (offset == Layouts.HDR_STRUCT_LOCK) {
            structHolder = null; // before the store: the next holder sets it after its CAS
        }
        Memory.releaseLong(seg, offset, 0L);
    }

    /** The holder of the structure lock made progress other than an acquisition (see {@link #structProgress}). */
    void structureProgress() {
        structProgress++;
    }

    /** The leak sweep freed our structure lock: no thread of ours holds it. */
    void structureLockFreed() {
        structHolder = null;
    }
}
