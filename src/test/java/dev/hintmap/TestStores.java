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

    /**
     * The region's dispatch count read by name, 0 when absent: one field of
     * {@link HintStore#readInto(String, MutableRecord)}, the by-name read a user writes for it
     * (the deprecated {@code HintStore.dispatchCount(String)} read the same record).
     */
    public static long dispatchCount(HintStore store, String name) {
        MutableRecord r = new MutableRecord();
        store.readInto(name, r);
        return r.dispatchCount();
    }

    /** The region's mean kernel time read by name, 0 when absent, as {@link #dispatchCount(HintStore, String)}. */
    public static long meanKernelNs(HintStore store, String name) {
        MutableRecord r = new MutableRecord();
        store.readInto(name, r);
        return r.meanKernelNs();
    }
}
