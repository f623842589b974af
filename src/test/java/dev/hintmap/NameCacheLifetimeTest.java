package dev.hintmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.ref.WeakReference;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The thread-local name cache (store.EncodedNames) outlives the stores a thread records into: up
 * to 1,024 entries per thread, and {@code hintmap top --watch} reopens its file every refresh. Its
 * entries held the engine of the store they were resolved in, so every closed store stayed
 * reachable, with its lock state and leak sweep, for as long as the thread lived (issue 32 finding
 * 14). Entries now name the store by an id, and a closed store is garbage like any other object.
 */
class NameCacheLifetimeTest {
    private static final int STORES = 48;

    @TempDir
    Path dir;

    private static String kernel(int i) {
        return "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params) #" + i;
    }

    @Test
    void storesClosedAfterRecordingAndQueryingByNameBecomeUnreachable() throws Exception {
        List<WeakReference<Object>> engines = new ArrayList<>();
        for (int i = 0; i < STORES; i++) {
            try (HintStore store = HintStore.open(dir.resolve("run-" + i + ".hints"), HintStoreOptions.defaults())) {
                store.record(kernel(i), 150_000, 4096); // a name of its own: its own cache entry
                store.record(kernel(i), 150_000, 4096); // through the cache entry
                assertTrue(store.isHot(kernel(i))); // the query path keeps an entry too
                assertEquals(2, store.dispatchCount(kernel(i)));
                engines.add(new WeakReference<>(store.engine()));
            }
        }
        int reachable = STORES;
        for (int round = 0; round < 100 && reachable > 0; round++) { // bounded: a few collections suffice
            System.gc();
            Thread.sleep(10);
            reachable = (int) engines.stream().filter(r -> r.get() != null).count();
        }
        assertEquals(0, reachable, "closed stores still reachable after 100 collections (from this thread's name cache)");
    }
}
