package dev.hintmap.store;

import dev.hintmap.format.Layouts;
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
 * <h2>A lock whose acquire or release threw</h2>
 * Every critical section releases in a {@code finally}, but the release is itself a call, and a
 * {@code StackOverflowError} (a caller deep in recursion) can be thrown at its entry, before the
 * store, or inside the access after it; likewise an acquire can throw after its CAS succeeded.
 * The frame that saw the error then cannot call anything (the call would overflow again): it
 * only stores the lock's offset into a {@link Suspect}, a field write, and rethrows (one for the
 * structure lock, one for slot locks: an insertion that overflows can leave both). All this
 * process's threads share one owner word, so the word alone cannot tell a lock that a thread
 * left behind from one that another of our threads holds right now. The mark does: a thread
 * that acquires the suspect lock normally clears it (the release had happened after all), and a
 * later acquire of any lock of this store (a thread with stack to spare) resolves it — when the
 * word still holds our owner word at two sightings at least one check period apart, the mark
 * is still set, and no acquisition cleared it, no thread of ours holds it (they hold locks for
 * nanoseconds), so it is released. Until then other processes wait for it as for a live
 * holder, at most the wait limit. One slot-lock mark per store: a second error while one is
 * pending overwrites it, and that lock waits for this process's exit (only overflows at the same
 * moment on two threads do that).
 */
final class OwnerLock {
    private static final int SPINS_BETWEEN_CHECKS = 1024;
    static final long CHECK_PERIOD_NANOS = 1_000_000;
    /** FORMAT.md §6.2 {@code lock_wait_limit}. */
    static final long DEFAULT_WAIT_LIMIT_NANOS = 5_000_000_000L;
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
    /** The mark of a slot lock whose acquire or release threw (class notes). */
    final Suspect slotSuspect = new Suspect();
    /** The mark of the structure lock, likewise. */
    final Suspect structSuspect = new Suspect();

    /**
     * A lock that a thread of this process may have left behind. {@link #lock} is written by a
     * frame that cannot afford a call: a plain field store, volatile so that every thread sees it.
     */
    static final class Suspect {
        private static final java.lang.invoke.VarHandle LOCK;

        static {
            try {
                LOCK = java.lang.invoke.MethodHandles.lookup().findVarHandle(Suspect.class, "lock", long.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        /** The lock's offset, or 0. */
        volatile long lock;
        /** When the pending lock was first found still held (never 0 then), or 0; under this object's monitor. */
        private long sinceNanos;

        boolean clear(long offset) {
            return LOCK.compareAndSet(this, offset, 0L);
        }
    }

    /** A live owner word given up on, and the {@link System#nanoTime()} of its last liveness check. */
    private record Stuck(long holder, long aliveAtNanos) {}

    private final long giveUpRecheckNanos;
    /** Null outside tests. */
    private final java.util.concurrent.atomic.AtomicLong livenessChecks;

    OwnerLock(Memory memory, WriterTable writers, long owner, long selfToken, StoreSettings settings) {
        this.probe = settings.heldLockProbe;
        this.waitLimitNanos = settings.lockWaitLimitNanos;
        this.giveUpRecheckNanos = settings.giveUpRecheckNanos;
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

    /**
     * Takes the lock word at {@code offset}, stealing it from a dead holder (the caller repairs
     * what needs repair: a slot needs none, the structure lock's journal tells).
     *
     * @return true when this thread holds the lock; false when it gave up on a live holder
     *     (the caller must change nothing under the lock and drop its sample)
     */
    boolean acquire(long offset) {
        if ((slotSuspect.lock | structSuspect.lock) != 0) {
            resolve(slotSuspect);
            resolve(structSuspect);
        }
        if (memory.casLong(offset, 0L, owner)) {
            acquired(offset);
            return true;
        }
        return acquireContended(offset);
    }

    /** After a CAS that took the lock: what the memos knew about its word is out of date. */
    private void acquired(long offset) {
        Suspect suspect = offset == Layouts.STRUCT_LOCK ? structSuspect : slotSuspect;
        if (suspect.lock == offset) {
            suspect.clear(offset); // it was free: the release that threw had happened
        }
        if (anyStuck) {
            stuck.remove(offset); // the word was 0 (or dead): it changed since anyone gave up on it
        }
        if (probe != null) {
            probe.whileHeld(HeldLockProbe.Section.ACQUIRED);
        }
    }

    /**
     * Releases the suspect lock when no thread of ours can hold it (class notes); called on the
     * way into an acquire, never for a lock the caller holds.
     */
    private void resolve(Suspect suspect) {
        long lock = suspect.lock;
        if (lock == 0) {
            return;
        }
        long now = System.nanoTime();
        synchronized (suspect) {
            if (suspect.lock != lock) {
                return;
            }
            if (memory.acquireLong(lock) != owner) {
                suspect.clear(lock); // free or taken on since: nothing was left behind
                suspect.sinceNanos = 0;
                return;
            }
            if (suspect.sinceNanos == 0) {
                suspect.sinceNanos = now | 1; // first sighting
                return;
            }
            if (now - suspect.sinceNanos < CHECK_PERIOD_NANOS) {
                return;
            }
            if (suspect.clear(lock)) {
                suspect.sinceNanos = 0;
                memory.releaseLong(lock, 0L); // left behind by a thread whose acquire or release threw
            }
        }
    }

    private boolean acquireContended(long offset) {
        int spins = 0;
        boolean yielding = false;
        long nextCheck = 0;
        long deadline = 0;
        while (true) {
            long holder = memory.acquireLong(offset);
            if (holder == 0) {
                if (memory.casLong(offset, 0L, owner)) {
                    acquired(offset);
                    return true;
                }
                continue;
            }
            if (holder == owner && (slotSuspect.lock == offset || structSuspect.lock == offset)) {
                resolve(offset == Layouts.STRUCT_LOCK ? structSuspect : slotSuspect); // perhaps left behind (class notes)
            }
            Stuck knownStuck = stuck.get(offset);
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
                    if (memory.acquireLong(offset) == holder) {
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

    /** Steals the lock if {@code holder} is dead; false when it is alive (or the word moved on). */
    private boolean steal(long offset, long holder) {
        if (holderIsDead(holder) && memory.casLong(offset, holder, owner)) {
            memory.atomicAddLong(Layouts.STOLEN_LOCKS, 1);
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
     * caller holds the lock and catches whatever is thrown from here by storing the
     * offset into its {@link Suspect} (class notes).
     */
    void release(long offset) {
        if (probe != null) {
            probe.whileHeld(HeldLockProbe.Section.RELEASE);
        }
        memory.releaseLong(offset, 0L);
    }
}
