package dev.hintmap.store;

import java.util.Objects;

/**
 * Settings of one store that only tests change, given at construction (as the C library's
 * {@code hm_test_*} setters act on one {@code hm_store}): never JVM-global, so a test that
 * shortens a limit affects only the stores it opened, and production code has no mutable
 * static hook. {@link #DEFAULT} is what every store opened through the public API gets.
 */
public final class StoreSettings {
    /** FORMAT.md §6.2 {@code lock_wait_limit}, no probe, no creation hook. */
    public static final StoreSettings DEFAULT = new StoreSettings(OwnerLock.DEFAULT_WAIT_LIMIT_NANOS, null, null);

    final long lockWaitLimitNanos;
    /** Null outside tests. */
    final HeldLockProbe heldLockProbe;
    /** Null outside tests: runs in a creator between allocating and publishing its temporary file (§5 steps 3–5). */
    final Runnable beforePublish;

    private StoreSettings(long lockWaitLimitNanos, HeldLockProbe heldLockProbe, Runnable beforePublish) {
        if (lockWaitLimitNanos < 0) {
            throw new IllegalArgumentException("lock wait limit " + lockWaitLimitNanos + " ns is negative");
        }
        this.lockWaitLimitNanos = lockWaitLimitNanos;
        this.heldLockProbe = heldLockProbe;
        this.beforePublish = beforePublish;
    }

    /** How long a lock waiter waits for a live holder before it gives up (FORMAT.md §6.2). */
    public StoreSettings lockWaitLimitNanos(long nanos) {
        return new StoreSettings(nanos, heldLockProbe, beforePublish);
    }

    /** Called inside every critical section, with the lock held (tests throw from it). */
    public StoreSettings heldLockProbe(HeldLockProbe probe) {
        return new StoreSettings(lockWaitLimitNanos, Objects.requireNonNull(probe, "probe"), beforePublish);
    }

    /** Runs in this store's creation between allocating and publishing the temporary file. */
    public StoreSettings beforePublish(Runnable hook) {
        return new StoreSettings(lockWaitLimitNanos, heldLockProbe, Objects.requireNonNull(hook, "hook"));
    }
}
