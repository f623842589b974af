package dev.hintmap.cli;

import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * The windows of a command that only tests reach, as the store's ({@code dev.hintmap.store.TestSeams}):
 * hooks that a test in this package sets and production never sets, read only when {@link #ENABLED}.
 */
final class TestSeams {
    /** The store's property ({@link dev.hintmap.store.TestSeams#PROPERTY}): one switch for every package's seams. */
    static final String PROPERTY = dev.hintmap.store.TestSeams.PROPERTY;
    /** The store's flag, read once there: false outside tests, so C2 folds every branch on it away. */
    static final boolean ENABLED = dev.hintmap.store.TestSeams.ENABLED;

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
