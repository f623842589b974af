package dev.hintmap.store;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.TestStores;
import java.nio.file.Path;

/**
 * A creator that stops between allocating its temporary file and publishing it (FORMAT.md §5
 * creation steps 3–5), prints {@code allocated} and waits to be killed with SIGKILL.
 */
public final class CreationCrashChild {
    private CreationCrashChild() {}

    public static void main(String[] args) throws Exception {
        System.setProperty(TestSeams.PROPERTY, "true"); // a child JVM: before any store class reads it
        TestSeams.BEFORE_PUBLISH.set(() -> {
            System.out.println("allocated");
            System.out.flush();
            try {
                Thread.sleep(120_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try (HintStore store = TestStores.open(Path.of(args[0]), HintStoreOptions.defaults(), StoreSettings.DEFAULT)) {
            System.out.println("published (not killed), size " + store.size());
        }
    }
}
