package dev.hintmap.store;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Settings of one store that only tests change, given at construction (as the C library's
 * {@code hm_test_*} setters act on one {@code hm_store}): never JVM-global, so a test that
 * shortens a limit affects only the stores it opened, and production code has no mutable
 * static hook. {@link #DEFAULT} is what every store opened through the public API gets.
 */
public final class StoreSettings {
    /** FORMAT.md §6.2 {@code lock_wait_limit}, the production engine, no creation hook. */
    public static final StoreSettings DEFAULT = new StoreSettings(OwnerLock.DEFAULT_WAIT_LIMIT_NANOS,
            OwnerLock.CHECK_PERIOD_NANOS, OwnerLock.DEFAULT_LEAK_PERIOD_NANOS, null, EngineBuilder.PRODUCTION, null);

    final long lockWaitLimitNanos;
    /** How long a holder once given up on counts as alive without another liveness check (§6.2). */
    final long giveUpRecheckNanos;
    /** How long a lock holding our owner word with no progress is taken for held (LeakedLockSweep). */
    final long leakedLockNanos;
    /** Null outside tests: counts every liveness check of a lock holder. */
    final AtomicLong livenessChecks;
    /** {@link EngineBuilder#PRODUCTION} outside tests. */
    final EngineBuilder engineBuilder;
    /** Null outside tests: runs in a creator between allocating and publishing its temporary file (§5 steps 3–5). */
    final Runnable beforePublish;

    private StoreSettings(long lockWaitLimitNanos, long giveUpRecheckNanos, long leakedLockNanos,
            AtomicLong livenessChecks, EngineBuilder engineBuilder, Runnable beforePublish) {
        if (lockWaitLimitNanos < 0 || giveUpRecheckNanos < 0 || leakedLockNanos < 0) {
            throw new IllegalArgumentException("negative time: " + lockWaitLimitNanos + ", " + giveUpRecheckNanos + " ns");
        }
        this.lockWaitLimitNanos = lockWaitLimitNanos;
        this.giveUpRecheckNanos = giveUpRecheckNanos;
        this.leakedLockNanos = leakedLockNanos;
        this.livenessChecks = livenessChecks;
        this.engineBuilder = engineBuilder;
        this.beforePublish = beforePublish;
    }

    /** How long a lock waiter waits for a live holder before it gives up (FORMAT.md §6.2). */
    public StoreSettings lockWaitLimitNanos(long nanos) {
        return new StoreSettings(nanos, giveUpRecheckNanos, leakedLockNanos, livenessChecks, engineBuilder, beforePublish);
    }

    /** How long a holder given up on counts as alive before a waiter checks it again (1 ms by default). */
    public StoreSettings giveUpRecheckNanos(long nanos) {
        return new StoreSettings(lockWaitLimitNanos, nanos, leakedLockNanos, livenessChecks, engineBuilder, beforePublish);
    }

    /** How long a lock holding this process's owner word without progress is taken for held (1 s by default). */
    public StoreSettings leakedLockNanos(long nanos) {
        return new StoreSettings(lockWaitLimitNanos, giveUpRecheckNanos, nanos, livenessChecks, engineBuilder, beforePublish);
    }

    /** Counts every liveness check of a lock holder into {@code counter}. */
    public StoreSettings countLivenessChecks(AtomicLong counter) {
        return new StoreSettings(lockWaitLimitNanos, giveUpRecheckNanos, leakedLockNanos, Objects.requireNonNull(counter, "counter"),
                engineBuilder, beforePublish);
    }

    /** Builds the writer's engine with {@code builder}: a test's subclasses that act inside critical sections. */
    StoreSettings engineBuilder(EngineBuilder builder) {
        return new StoreSettings(lockWaitLimitNanos, giveUpRecheckNanos, leakedLockNanos, livenessChecks,
                Objects.requireNonNull(builder, "builder"), beforePublish);
    }

    /** Runs in this store's creation between allocating and publishing the temporary file. */
    public StoreSettings beforePublish(Runnable hook) {
        return new StoreSettings(lockWaitLimitNanos, giveUpRecheckNanos, leakedLockNanos, livenessChecks, engineBuilder,
                Objects.requireNonNull(hook, "hook"));
    }
}
