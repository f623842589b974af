package dev.hintmap.store;

import java.io.IOException;

/** The package-private test hooks of the store, for tests in other packages (fuzzing, child JVMs). */
public final class TestHooks {
    private TestHooks() {}

    /** Sets how long a lock waiter waits for a live holder (FORMAT.md §6.2); returns the previous limit. */
    public static long lockWaitLimitNanos(long nanos) {
        long previous = OwnerLock.waitLimitNanos;
        OwnerLock.waitLimitNanos = nanos;
        return previous;
    }

    /** Runs {@code hook} in every creator between allocating and publishing its temporary file; null removes it. */
    public static void beforePublish(Runnable hook) {
        MappedStore.beforePublishHook = hook;
    }

    /** This process's writer token (§3.5). */
    public static long currentToken() throws IOException {
        return ProcessIdentity.currentToken();
    }

    /** An owner word (§6.1) for writer entry {@code index} at {@code generation}. */
    public static long ownerWord(int index, long generation) {
        return WriterTable.ownerWord(index, generation);
    }
}
