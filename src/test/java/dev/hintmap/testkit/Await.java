package dev.hintmap.testkit;

import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Waits for a condition of the code under test (a counter, a progress count, a state) instead of
 * for a time: a test that sleeps and then asserts passes or fails by how the machine was loaded.
 * The limit is far above any real wait on a loaded 2-core machine, so only a hang reaches it.
 */
public final class Await {
    /** Seconds before a wait is taken for a hang. */
    public static final long LIMIT_SECONDS = 120;

    private Await() {}

    /** A condition that may read files or processes. */
    @FunctionalInterface
    public interface Condition {
        boolean holds() throws Exception;
    }

    /**
     * Returns once {@code condition} holds; polls it every millisecond.
     *
     * @throws AssertionError naming {@code what} when it does not hold within {@link #LIMIT_SECONDS}
     */
    public static void until(String what, Condition condition) throws Exception {
        until(() -> what, condition);
    }

    /** As {@link #until(String, Condition)}, describing what was awaited (with the progress made) only on failure. */
    public static void until(Supplier<String> what, Condition condition) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIMIT_SECONDS);
        while (!condition.holds()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within " + LIMIT_SECONDS + " s (a hang): " + what.get());
            }
            Thread.sleep(1);
        }
    }
}
