package dev.hintmap;

import java.util.function.IntConsumer;

/**
 * The windows of the API classes that only tests reach, as the store's ({@code dev.hintmap.store.TestSeams}):
 * hooks that a test in this package sets and production never sets, read only when {@link #ENABLED}.
 */
final class TestSeams {
    /** The store's property ({@link dev.hintmap.store.TestSeams#PROPERTY}): one switch for every package's seams. */
    static final String PROPERTY = dev.hintmap.store.TestSeams.PROPERTY;
    /** The store's flag, read once there: false outside tests, so C2 folds every branch on it away. */
    static final boolean ENABLED = dev.hintmap.store.TestSeams.ENABLED;

    /** Called after each slot of each scan of a {@link RegionCut}, so that a test can change the file there; null unless a test set it. */
    static volatile IntConsumer afterSlot;

    private TestSeams() {}

    /** Runs a test's action after slot {@code k} of a scan; nothing outside tests. */
    static void afterSlot(int k) {
        IntConsumer action = ENABLED ? afterSlot : null;
        if (action != null) {
            action.accept(k);
        }
    }
}
