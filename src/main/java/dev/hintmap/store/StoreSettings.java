package dev.hintmap.store;

/**
 * The time limits of one store's lock protocol, which only tests change, given at construction
 * (as the C library's {@code hm_test_*} setters act on one {@code hm_store}): never JVM-global, so
 * a test that shortens a limit affects only the stores it opened. {@link #DEFAULT} is what every
 * store opened through the public API gets. A test that acts inside a store reaches it through
 * {@link TestSeams}, not through these settings.
 */
public final class StoreSettings {
    /** FORMAT.md §6.2 {@code lock_wait_limit} and the other production values. */
    public static final StoreSettings DEFAULT = new StoreSettings(OwnerLock.DEFAULT_WAIT_LIMIT_NANOS,
            OwnerLock.CHECK_PERIOD_NANOS, OwnerLock.DEFAULT_LEAK_PERIOD_NANOS);

    final long lockWaitLimitNanos;
    /** How long a holder once given up on counts as alive without another liveness check (§6.2). */
    final long giveUpRecheckNanos;
    /** How long a lock holding our owner word with no progress is taken for held (LeakedLockSweep). */
    final long leakedLockNanos;

    private StoreSettings(long lockWaitLimitNanos, long giveUpRecheckNanos, long leakedLockNanos) {
        if (lockWaitLimitNanos < 0 || giveUpRecheckNanos < 0 || leakedLockNanos < 0) {
            throw new IllegalArgumentException("negative time: " + lockWaitLimitNanos + ", " + giveUpRecheckNanos + " ns");
        }
        this.lockWaitLimitNanos = lockWaitLimitNanos;
        this.giveUpRecheckNanos = giveUpRecheckNanos;
        this.leakedLockNanos = leakedLockNanos;
    }

    /** How long a lock waiter waits for a live holder before it gives up (FORMAT.md §6.2). */
    public StoreSettings lockWaitLimitNanos(long nanos) {
        return new StoreSettings(nanos, giveUpRecheckNanos, leakedLockNanos);
    }

    /** How long a holder given up on counts as alive before a waiter checks it again (1 ms by default). */
    public StoreSettings giveUpRecheckNanos(long nanos) {
        return new StoreSettings(lockWaitLimitNanos, nanos, leakedLockNanos);
    }

    /** How long a lock holding this process's owner word without progress is taken for held (1 s by default). */
    public StoreSettings leakedLockNanos(long nanos) {
        return new StoreSettings(lockWaitLimitNanos, giveUpRecheckNanos, nanos);
    }
}
