package dev.hintmap.testkit;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The two ways to get a store; behaviour tests run against both. */
public enum StoreKind {
    IN_MEMORY {
        @Override
        public HintStore open(HintStoreOptions options) {
            return HintStore.inMemory(options);
        }
    },
    MAPPED_FILE {
        @Override
        public HintStore open(HintStoreOptions options) {
            try {
                Path dir = Files.createTempDirectory("hintmap-test");
                dir.toFile().deleteOnExit();
                Path file = dir.resolve("store.hints");
                file.toFile().deleteOnExit();
                return HintStore.open(file, options);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };

    public abstract HintStore open(HintStoreOptions options);
}
