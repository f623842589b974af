package dev.hintmap.store;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Settings of one store that only tests change, given at construction (as the C library's
 * {@code hm_test_*} setters act on one {@code hm_store}): never JVM-global, so a test that
 * shortens a limit affects only the stores it opened, and production code has no mutable
 * static hook. {@link #DEFAULT} is what every store opened through the public API gets. A test
 * that acts inside the store reaches it through {@link TestSeams}, not through these settings.
 */
public final class StoreSettings {
    /** FORMAT.md §6.2 {@code lock_wait_limit} and the other production values. */
    public static final StoreSettings DEFAULT = new StoreSettings(OwnerLock.DEFAULT_WAIT_LIMIT_NANOS,
            OwnerLock.CHECK_PERIOD_NANOS, OwnerLock.DEFAULT_LEAK_PERIOD_NANOS, null);

    final long lockWaitLimitNanos;
    /** How long a holder once given up on counts as alive without another liveness check (§6.2). */
    final long giveUpRecheckNanos;
    /** How long a lock holding our owner word with no progress is taken for held (LeakedLockSweep). */
    final long leakedLockNanos;
    /** Null outside tests: counts every liveness check of a lock holder. */
    final AtomicLong livenessChecks;

    private StoreSettings(long lockWaitLimitNanos, long giveUpRecheckNanos, long leakedLockNanos,
            AtomicLong livenessChecks) {
        if (lockWaitLimitNanos < 0 || giveUpRecheckNanos < 0 || leakedLockNanos < 0) {
            throw new IllegalArgumentException("negative time: " + lockWaitLimitNanos + ", " + giveUpRecheckNanos + " ns");
        }
        this.lockWaitLimitNanos = lockWaitLimitNanos;
        this.giveUpRecheckNanos = giveUpRecheckNanos;
        this.leakedLockNanos = leakedLockNanos;
        this.livenessChecks = livenessChecks;
    }

    /** How long a lock waiter waits for a live holder before it gives up (FORMAT.md §6.2). */
    public StoreSettings lockWaitLimitNanos(long nanos) {
        return new StoreSettings(nanos, giveUpRecheckNanos, leakedLockNanos, livenessChecks);
    }

    /** How long a holder given up on counts as alive before a waiter checks it again (1 ms by default). */
    public StoreSettings giveUpRecheckNanos(long nanos) {
        return new StoreSettings(lockWaitLimitNanos, nanos, leakedLockNanos, livenessChecks);
    }

    /** How long a lock holding this process's owner word without progress is taken for held (1 s by default). */
    public StoreSettings leakedLockNanos(long nanos) {
        return new StoreSettings(lockWaitLimitNanos, giveUpRecheckNanos, nanos, livenessChecks);
    }

    /** Counts every liveness check of a lock holder into {@code counter}. */
    public StoreSettings countLivenessChecks(AtomicLong counter) {
        return new StoreSettings(lockWaitLimitNanos, giveUpRecheckNanos, leakedLockNanos, Objects.requireNonNull(counter, "counter"));
    }
}
