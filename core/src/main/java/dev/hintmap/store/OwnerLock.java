package dev.hintmap.store;

import dev.hintmap.format.Layouts;

/**
 * The lock protocol of §6.2 for the structure lock and the slot locks: a CAS from 0 to the owner
 * word, spinning with periodic liveness checks of the holder, stealing the lock only from a dead
 * holder.
 */
final class OwnerLock {
    private static final int SPINS_BETWEEN_CHECKS = 1024;
    private static final long CHECK_PERIOD_NANOS = 1_000_000;

    private final Memory memory;
    private final WriterTable writers;
    private final long owner;
    private final long selfToken;

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
     * Takes the lock word at {@code offset}.
     *
     * @return true when the lock was stolen from a dead holder (the caller may need to repair)
     */
    boolean acquire(long offset) {
        if (memory.casLong(offset, 0L, owner)) {
            return false;
        }
        return acquireContended(offset);
    }

    private boolean acquireContended(long offset) {
        int spins = 0;
        boolean yielding = false;
        long nextCheck = 0;
        while (true) {
            long holder = memory.acquireLong(offset);
            if (holder == 0) {
                if (memory.casLong(offset, 0L, owner)) {
                    return false;
                }
                continue;
            }
            if (!yielding) {
                if (++spins % SPINS_BETWEEN_CHECKS != 0) {
                    Thread.onSpinWait();
                    continue;
                }
                yielding = true; // §6.2: after the first liveness check, yield between attempts
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
            }
            if (writers.isDead(holder, selfToken) && memory.casLong(offset, holder, owner)) {
                memory.atomicAddLong(Layouts.STOLEN_LOCKS, 1);
                return true;
            }
        }
    }

    /** Gives the lock back; the release store publishes every write made while holding it. */
    void release(long offset) {
        memory.releaseLong(offset, 0L);
    }
}
