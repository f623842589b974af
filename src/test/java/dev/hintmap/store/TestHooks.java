package dev.hintmap.store;

import dev.hintmap.os.ProcessIdentity;
import java.io.IOException;

/** Package-private facts of the store, for tests in other packages (fuzzing, child JVMs). */
public final class TestHooks {
    private TestHooks() {}

    /** This process's writer token (§3.5). */
    public static long currentToken() throws IOException {
        return ProcessIdentity.currentToken();
    }

    /** An owner word (§6.1) for writer entry {@code index} at {@code generation}. */
    public static long ownerWord(int index, long generation) {
        return WriterTable.ownerWord(index, generation);
    }
}
