package dev.hintmap.torture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import dev.hintmap.torture.Writers.Kind;
import dev.hintmap.torture.Writers.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * C and Java writer processes insert, evict and reuse the same slots at once (64 regions,
 * capacity 16): every record holds only its own region's samples, the index finds every
 * region the slots hold, and nothing exceeds capacity.
 */
class CrossLanguageChurnTest {
    @TempDir
    Path dir;

    @Test
    void writersOfBothLanguagesEvictingEachOthersRegionsNeverMisattributeASample() throws Exception {
        Path file = dir.resolve("churn.hints");
        int capacity = 16;
        HintStore.open(file, HintStoreOptions.defaults().capacity(capacity)).close();
        try (Writers writers = new Writers(file, dir, 64)) { // a failed run leaves no process behind
            run(file, capacity, writers);
        }
    }

    private void run(Path file, int capacity, Writers writers) throws Exception {
        List<Writer> all = new ArrayList<>();
        for (Kind kind : Kind.values()) {
            all.add(writers.start(kind, 200_000));
        }
        for (Writer w : all) {
            assertTrue(w.process().waitFor(300, TimeUnit.SECONDS));
            assertEquals(0, w.process().exitValue(), () -> {
                try {
                    return Files.readString(dir.resolve("writer-" + all.indexOf(w) + ".log"));
                } catch (java.io.IOException e) {
                    return e.toString();
                }
            });
        }
        long evictions;
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            List<RegionRecord> held = new ArrayList<>();
            store.snapshot().regions().forEach(held::add);
            assertEquals(capacity, held.size());
            assertEquals(capacity, store.size());
            for (RegionRecord r : held) {
                int region = Integer.parseInt(r.name().substring("region-".length()));
                assertEquals(r.dispatchCount() * (1000L + region), r.kernelNsTotal(), r::toString);
                assertEquals(r.dispatchCount() * region, r.bytesTotal(), r::toString);
                assertEquals(r, store.recordFor(r.name()).orElseThrow(), "the index finds " + r.name());
            }
            evictions = store.info().evictions();
        }
        assertTrue(evictions > 100_000, "evictions " + evictions);
    }
}
