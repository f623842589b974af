package dev.hintmap.cli;

import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * The windows of a command that only tests reach, as the store's ({@code dev.hintmap.store.TestSeams}):
 * hooks that a test in this package sets and production never sets, read only when {@link #ENABLED}.
 */
final class TestSeams {
    /** The system property that enables the seams: set only by the test JVMs (Surefire's configuration, the tests' child JVMs). */
    static final String PROPERTY = "hintmap.testSeams";
    /** False outside tests: C2 folds this static final and every branch on it away, as C compiles its hooks out. */
    static final boolean ENABLED = Boolean.getBoolean(PROPERTY);

    /**
     * A test's hold on a command whose temporary file is half written (so that it can be
     * interrupted there, deterministically); null unless a test set it.
     */
    static volatile Consumer<Path> halfWritten;
    /** A test's record of the syncs an output makes ({@link Durability}); null unless a test set it. */
    static volatile Durability syncs;

    private TestSeams() {}

    /** Runs a test's hold on the half-written temporary {@code tmp}; nothing outside tests. */
    static void holdHalfWritten(Path tmp) {
        Consumer<Path> hold = ENABLED ? halfWritten : null;
        if (hold != null) {
            hold.accept(tmp);
        }
    }

    /** The syncs an output makes: {@link Durability#SYSTEM} outside tests. */
    static Durability durability() {
        Durability recorder = ENABLED ? syncs : null;
        return recorder == null ? Durability.SYSTEM : recorder;
    }
}
