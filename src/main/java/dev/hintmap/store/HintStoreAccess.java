package dev.hintmap.store;

import dev.hintmap.HintStoreOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;

/**
 * The one way into what {@code dev.hintmap.HintStore} keeps package-private, for the
 * {@code hintmap} command line tool: it lives in this package, which the module does not export,
 * so a program using the library cannot reach it. {@code HintStore} registers its operations here
 * when its class is initialised (the JDK's "shared secrets" pattern); this class names no type of
 * the API above it, the caller passing the store's class.
 */
public final class HintStoreAccess {
    /**
     * What {@code HintStore} lends: its package-private operations.
     *
     * @param <S> the store type, {@code HintStore}
     */
    public interface Operations<S> {
        /** {@code HintStore.createNew(file, options, like)}. */
        S createNew(Path file, HintStoreOptions options, Path like) throws IOException;
    }

    private static volatile Operations<?> operations;

    private HintStoreAccess() {}

    /**
     * Called once, by {@code HintStore}'s class initialisation.
     *
     * @param lent its operations
     * @throws IllegalStateException when they are registered already
     */
    public static synchronized void register(Operations<?> lent) {
        if (operations != null) {
            throw new IllegalStateException("the store's operations are registered already");
        }
        operations = Objects.requireNonNull(lent, "lent");
    }

    /** The operations of {@code store}, initialising that class (which registers them) first. */
    private static Operations<?> operations(Class<?> store) {
        try {
            Class.forName(store.getName(), true, store.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
        return Objects.requireNonNull(operations, () -> store.getName() + " did not register its operations");
    }

    /**
     * Creates a new hint file exclusively, taking the owner, group and permission bits of
     * {@code like} (null: this process's, and the mode {@code options} ask for); as
     * {@code HintFiles.createNew(file, options)} otherwise.
     *
     * @param <S> the store type
     * @param store {@code HintStore.class}
     * @param file the new file's path
     * @param options its layout and mode
     * @param like the file whose owner and mode the new one gets, or null
     * @return the open store, which the caller closes
     * @throws IOException as {@code HintFiles.createNew}
     */
    public static <S> S createNew(Class<S> store, Path file, HintStoreOptions options, Path like) throws IOException {
        return store.cast(operations(store).createNew(file, options, like));
    }
}
