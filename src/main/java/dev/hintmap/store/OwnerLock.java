package dev.hintmap.store;

import dev.hintmap.format.Layouts;

/**
 * The lock protocol of §6.2 for the structure lock and the slot locks: a CAS from 0 to the owner
 * word, spinning with periodic liveness checks of the holder, stealing the lock only from a dead
 * holder.
 */
final class OwnerLock {
    private static final int SPINS_BETWEEN_CHECKS = 1024;

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
        boolean holderSeenAlive = false;
        while (true) {
            long holder = memory.acquireLong(offset);
            if (holder == 0) {
                if (memory.casLong(offset, 0L, owner)) {
                    return false;
                }
                continue;
            }
            if (++spins % SPINS_BETWEEN_CHECKS != 0) {
                if (holderSeenAlive) {
                    Thread.yield();
                } else {
                    Thread.onSpinWait();
                }
                continue;
            }
            if (writers.isDead(holder, selfToken)) {
                if (memory.casLong(offset, holder, owner)) {
                    memory.atomicAddLong(Layouts.STOLEN_LOCKS, 1);
                    return true;
                }
            } else {
                holderSeenAlive = true;
            }
        }
    }

    /** Gives the lock back; the release store publishes every write made while holding it. */
    void release(long offset) {
        memory.releaseLong(offset, 0L);
    }
}
