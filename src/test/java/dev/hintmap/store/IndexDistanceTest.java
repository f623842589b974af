package dev.hintmap.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintFiles;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.TestStores;
import dev.hintmap.VerifyReport;
import dev.hintmap.format.FileGeometry;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Index entries carry their distance from home (FORMAT.md §3.8) and backward-shift deletion
 * (§7.4 step 8) keeps it true without reading slots: under heavy eviction churn on a small,
 * crowded index every entry's distance stays its true distance (verify checks each one), every
 * region stays findable, and runs with distances above 0 do occur.
 */
class IndexDistanceTest {
    @TempDir
    Path dir;

    @Test
    void distancesStayTrueAndEveryRegionFindableThroughEvictionChurn() throws Exception {
        Path file = dir.resolve("churn.hints");
        int capacity = 8; // 16 index entries, half full: clusters form and are cut by deletions
        SplittableRandom random = new SplittableRandom(14);
        Map<String, Long> counts = new HashMap<>();
        int maxDistanceSeen = 0;
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(capacity))) {
            for (int op = 0; op < 3000; op++) {
                String name = "r" + random.nextInt(40);
                store.record(name, 1000, 1);
                if (op % 100 == 99) {
                    VerifyReport report = HintFiles.verify(store);
                    assertTrue(report.ok(), "after op " + op + ": " + report.findings());
                    store.snapshot().regions().forEach(r -> counts.put(r.name(), r.dispatchCount()));
                    for (Map.Entry<String, Long> e : counts.entrySet()) {
                        assertEquals(e.getValue(), store.dispatchCount(e.getKey()), e.getKey() + " findable by name");
                    }
                    counts.clear();
                    maxDistanceSeen = Math.max(maxDistanceSeen, maxDistance(file, new FileGeometry(capacity, 64)));
                }
            }
        }
        assertTrue(maxDistanceSeen >= 2, "the churn built runs of colliding homes (max distance " + maxDistanceSeen + ")");
    }

    private static int maxDistance(Path file, FileGeometry g) throws Exception {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ); Arena arena = Arena.ofConfined()) {
            MemorySegment m = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size(), arena);
            int max = 0;
            for (int j = 0; j < g.indexEntries(); j++) {
                long e = m.get(dev.hintmap.format.Layouts.U64, g.indexOffset() + 8L * j);
                if (e != 0) {
                    max = Math.max(max, HashIndex.distOf(e));
                }
            }
            return max;
        }
    }
}
