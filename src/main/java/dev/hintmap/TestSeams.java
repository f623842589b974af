package dev.hintmap;

import java.util.function.IntConsumer;

/**
 * The windows of the API classes that only tests reach, as the store's ({@code dev.hintmap.store.TestSeams}):
 * hooks that a test in this package sets and production never sets, read only when {@link #ENABLED}.
 */
final class TestSeams {
    /** The system property that enables the seams: set only by the test JVMs (Surefire's configuration). */
    static final String PROPERTY = "hintmap.testSeams";
    /** False outside tests: C2 folds this static final and every branch on it away, as C compiles its hooks out. */
    static final boolean ENABLED = Boolean.getBoolean(PROPERTY);

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
