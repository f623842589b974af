package dev.hintmap.store;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;

/**
 * The one way into what {@link HintStore} keeps package-private, for the {@code hintmap} command
 * line tool: it lives in this package, which the module does not export, so a program using the
 * library cannot reach it. {@code HintStore} registers its operations here when its class is
 * initialised (the JDK's "shared secrets" pattern).
 */
public final class HintStoreAccess {
    /** What {@link HintStore} lends: its package-private operations. */
    public interface Operations {
        /** {@code HintStore.createNew(file, options, like)}. */
        HintStore createNew(Path file, HintStoreOptions options, Path like) throws IOException;
    }

    private static volatile Operations operations;

    private HintStoreAccess() {}

    /**
     * Called once, by {@link HintStore}'s class initialisation.
     *
     * @param lent its operations
     * @throws IllegalStateException when they are registered already
     */
    public static synchronized void register(Operations lent) {
        if (operations != null) {
            throw new IllegalStateException("HintStore's operations are registered already");
        }
        operations = Objects.requireNonNull(lent, "lent");
    }

    private static Operations operations() {
        Operations lent = operations;
        if (lent == null) {
            try {
                Class.forName(HintStore.class.getName(), true, HintStore.class.getClassLoader()); // registers them
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(e);
            }
            lent = Objects.requireNonNull(operations, "HintStore did not register its operations");
        }
        return lent;
    }

    /**
     * Creates a new hint file exclusively, taking the owner, group and permission bits of
     * {@code like} (null: this process's, and the mode {@code options} ask for); as
     * {@code HintFiles.createNew(file, options)} otherwise.
     *
     * @param file the new file's path
     * @param options its layout and mode
     * @param like the file whose owner and mode the new one gets, or null
     * @return the open store, which the caller closes
     * @throws IOException as {@code HintFiles.createNew}
     */
    public static HintStore createNew(Path file, HintStoreOptions options, Path like) throws IOException {
        return operations().createNew(file, options, like);
    }
}
