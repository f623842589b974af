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
 * {@code StackOverflowError} (a caller deep in recursion) can be thrown at its entry, before its
 * store; likewise the bookkeeping of an acquire runs after its CAS and can throw. Stack banging
 * makes the store itself safe: HotSpot checks the stack at each call's entry, and the calls that
 * follow a store or a CAS inside the access are made from the same frame at no greater depth
 * than the one that performed it, so an overflow out of {@link #release} means the store did not
 * happen, and one out of a CAS means the CAS did not. The frame that catches such an error cannot
 * call anything (the call would overflow again): it stores the lock's offset into a
 * {@link Suspect} (a field write), sets {@link #anySuspect} and rethrows. The marked lock is
 * then held by our owner word and by no thread: the acquire that threw never returned it, the
 * release that threw never stored. A thread entering the store with no lock held
 * ({@link #resolveSuspects}) gives it back once it has seen it still held at two sightings at
 * least one check period apart — a margin for the case the argument above rules out — and a
 * thread that takes a marked lock with a CAS from 0 clears the mark (its release had happened).
 * Until then other processes wait for it as for a live holder, at most the wait limit.
 * Only an acquire that threw after its CAS, or a release that threw, marks: an error before
 * the CAS leaves nothing behind, and marking then could hand a lock another thread of ours holds
 * to the resolver. Slot locks have {@value #SLOT_SUSPECTS} marks, chosen by offset (two pending
 * marks on slots that share one overwrite each other, and the first waits for this process's
 * exit); the structure lock has its own.
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

    static final int SLOT_SUSPECTS = 8;
    /** Selects a slot lock's mark: {@code slotSuspects[(int) (offset >>> 6) & SLOT_SUSPECT_MASK]}, no call. */
    static final int SLOT_SUSPECT_MASK = SLOT_SUSPECTS - 1;
    /** Marks of slot locks left behind by a thread whose acquire or release threw (class notes). */
    final Suspect[] slotSuspects = new Suspect[SLOT_SUSPECTS];
    /** The mark of the structure lock, likewise. */
    final Suspect structSuspect = new Suspect();
    /** Whether a mark may be pending: one read on the way into the store. Written by marking frames too. */
    volatile boolean anySuspect;

    {
        for (int i = 0; i < SLOT_SUSPECTS; i++) {
            slotSuspects[i] = new Suspect();
        }
    }

    /**
     * A lock that a thread of this process left behind. {@link #lock} is written by a frame that
     * cannot afford a call: a plain field store, volatile so that every thread sees it.
     */
    static final class Suspect {
        /** The lock's offset, or 0. */
        volatile long lock;
        /** The lock {@link #sinceNanos} belongs to (a new mark starts a new wait); under this object's monitor. */
        private long sightedLock;
        private long sinceNanos;
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
        if (memory.casLong(offset, 0L, owner)) {
            try {
                acquired(offset);
            } catch (Throwable e) { // the lock is ours and nobody will release it: mark it (class notes)
                (offset == Layouts.STRUCT_LOCK ? structSuspect : slotSuspects[(int) (offset >>> 6) & SLOT_SUSPECT_MASK]).lock = offset;
                anySuspect = true;
                throw e;
            }
            return true;
        }
        return acquireContended(offset);
    }

    private Suspect suspectFor(long offset) {
        return offset == Layouts.STRUCT_LOCK ? structSuspect : slotSuspects[(int) (offset >>> 6) & SLOT_SUSPECT_MASK];
    }

    /** After a CAS that took the lock: what the memos knew about its word is out of date. */
    private void acquired(long offset) {
        if (anySuspect) {
            Suspect suspect = suspectFor(offset);
            synchronized (suspect) {
                if (suspect.lock == offset) {
                    suspect.lock = 0; // it was free: the release that threw had happened after all
                }
            }
        }
        if (anyStuck) {
            stuck.remove(offset); // the word was 0 (or dead): it changed since anyone gave up on it
        }
        if (probe != null) {
            probe.whileHeld(HeldLockProbe.Section.ACQUIRED);
        }
    }

    /**
     * Gives back the locks that threads of ours left behind (class notes). Called only by a
     * thread that holds no lock (the store's entry points): it may release any marked lock.
     */
    void resolveSuspects() {
        anySuspect = false; // before the scan: a mark made during it sets the flag again
        boolean pending = resolve(structSuspect);
        for (Suspect suspect : slotSuspects) {
            pending |= resolve(suspect);
        }
        if (pending) {
            anySuspect = true;
        }
    }

    /** @return whether the mark is still pending */
    private boolean resolve(Suspect suspect) {
        long lock = suspect.lock;
        if (lock == 0) {
            return false;
        }
        long now = System.nanoTime();
        synchronized (suspect) {
            lock = suspect.lock;
            if (lock == 0) {
                return false;
            }
            if (memory.acquireLong(lock) != owner) {
                suspect.lock = 0; // free, or taken by another process: nothing of ours is left there
                return false;
            }
            if (suspect.sightedLock != lock) {
                suspect.sightedLock = lock; // first sighting of this mark
                suspect.sinceNanos = now;
                return true;
            }
            if (now - suspect.sinceNanos < CHECK_PERIOD_NANOS) {
                return true;
            }
            suspect.lock = 0;
            suspect.sightedLock = 0;
            memory.releaseLong(lock, 0L); // left behind by a thread whose acquire or release threw
            return false;
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
                    try {
                        acquired(offset);
                    } catch (Throwable e) { // as in acquire
                        (offset == Layouts.STRUCT_LOCK ? structSuspect : slotSuspects[(int) (offset >>> 6) & SLOT_SUSPECT_MASK]).lock = offset;
                        anySuspect = true;
                        throw e;
                    }
                    return true;
                }
                continue;
            }
            if (holder == owner && anySuspect && suspectFor(offset).lock == offset) {
                // Left behind by a thread of ours (class notes); this thread holds no slot lock
                // (lock order), and when it waits for the structure lock it holds nothing.
                resolve(suspectFor(offset));
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
            try {
                memory.atomicAddLong(Layouts.STOLEN_LOCKS, 1);
                acquired(offset);
            } catch (Throwable e) { // as in acquire
                (offset == Layouts.STRUCT_LOCK ? structSuspect : slotSuspects[(int) (offset >>> 6) & SLOT_SUSPECT_MASK]).lock = offset;
                anySuspect = true;
                throw e;
            }
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
     * offset into its {@link Suspect} and setting {@link #anySuspect} (class notes).
     */
    void release(long offset) {
        if (probe != null) {
            probe.whileHeld(HeldLockProbe.Section.RELEASE);
        }
        memory.releaseLong(offset, 0L);
    }
}
