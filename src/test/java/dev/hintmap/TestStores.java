package dev.hintmap;

import dev.hintmap.store.StoreSettings;
import java.io.IOException;
import java.nio.file.Path;

/** Opens stores with per-store test settings ({@link StoreSettings}), for tests in any package. */
@SuppressWarnings("exports") // the settings are internal; tests of every package use them
public final class TestStores {
    private TestStores() {}

    public static HintStore open(Path file, HintStoreOptions options, StoreSettings settings) throws IOException {
        return HintStore.open(file, options, settings);
    }

    /** A store whose lock waiters give up on a live holder after {@code nanos} (FORMAT.md §6.2). */
    public static HintStore open(Path file, HintStoreOptions options, long lockWaitLimitNanos) throws IOException {
        return HintStore.open(file, options, StoreSettings.DEFAULT.lockWaitLimitNanos(lockWaitLimitNanos));
    }

    public static HintStore inMemory(HintStoreOptions options, StoreSettings settings) {
        return HintStore.inMemory(options, settings);
    }
}
