package dev.hintmap.store;

import dev.hintmap.format.Layouts;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The lock protocol of §6.2 for the structure lock and the slot locks: a CAS from 0 to the owner
 * word, spinning with periodic liveness checks of the holder, stealing the lock only from a dead
 * holder, and giving up on a live holder after {@link #waitLimitNanos} (FORMAT.md §6.2 "give up").
 *
 * <p>Giving up is what keeps a stopped process, or a hostile file that names a live process as
 * a lock owner, from hanging every writer: the caller changes nothing and drops its sample. The
 * (lock, owner word) pair is remembered, so that the next waiter on the same word gives up
 * after one liveness check instead of waiting the whole limit again, until the word changes.
 */
final class OwnerLock {
    private static final int SPINS_BETWEEN_CHECKS = 1024;
    private static final long CHECK_PERIOD_NANOS = 1_000_000;
    /** FORMAT.md §6.2 {@code lock_wait_limit}. */
    static final long DEFAULT_WAIT_LIMIT_NANOS = 5_000_000_000L;
    /** Remembered stuck locks per store; past this many the memory is cleared (a hostile file can name many). */
    private static final int MAX_STUCK = 4096;

    /** How long a waiter waits for a live holder; package-private so that tests can shorten it. */
    static volatile long waitLimitNanos = DEFAULT_WAIT_LIMIT_NANOS;

    private final Memory memory;
    private final WriterTable writers;
    private final long owner;
    private final long selfToken;
    /** Lock offset → the live owner word a waiter gave up on (§6.2); process-local. */
    private final ConcurrentHashMap<Long, Long> stuck = new ConcurrentHashMap<>();
    /** Whether {@link #stuck} may hold anything: a plain read keeps the uncontended path free of the map. */
    private boolean anyStuck;

    OwnerLock(Memory memory, WriterTable writers, long owner, long selfToken) {
        this.memory = memory;
        this.writers = writers;
        this.owner = owner;
        this.selfToken = selfToken;
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
            if (anyStuck) {
                stuck.remove(offset); // the word was 0: it changed since anyone gave up on it
            }
            return true;
        }
        return acquireContended(offset);
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
                    if (anyStuck) {
                        stuck.remove(offset);
                    }
                    return true;
                }
                continue;
            }
            Long knownStuck = stuck.get(offset);
            if (knownStuck != null) {
                if (knownStuck == holder) {
                    // Gave up on this very owner word before: one liveness check, no second wait.
                    if (steal(offset, holder)) {
                        return true;
                    }
                    if (memory.acquireLong(offset) == holder) {
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
                if (now - deadline > 0 && !writers.isDead(holder, selfToken)) {
                    remember(offset, holder);
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
        if (writers.isDead(holder, selfToken) && memory.casLong(offset, holder, owner)) {
            memory.atomicAddLong(Layouts.STOLEN_LOCKS, 1);
            stuck.remove(offset);
            return true;
        }
        return false;
    }

    private void remember(long offset, long holder) {
        if (stuck.size() >= MAX_STUCK) {
            stuck.clear();
        }
        stuck.put(offset, holder);
        anyStuck = true;
    }

    /** Gives the lock back; the release store publishes every write made while holding it. */
    void release(long offset) {
        memory.releaseLong(offset, 0L);
    }
}
