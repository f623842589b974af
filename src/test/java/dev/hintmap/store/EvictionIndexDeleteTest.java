package dev.hintmap.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintFiles;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.TestStores;
import dev.hintmap.VerifyReport;
import dev.hintmap.format.FileGeometry;
import dev.hintmap.format.Layouts;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * FORMAT.md §7.4 step 8 on the paths a damaged file takes, as Java and C both do them: the
 * victim's entry is searched up to the first empty entry, a delete that finds none makes the
 * change rebuild the index afterwards (no recovery counted), and {@code live_count} never goes
 * below 0 on the way.
 */
class EvictionIndexDeleteTest {
    private static final FileGeometry GEOMETRY = new FileGeometry(4, 64);

    @TempDir
    Path dir;

    private static <T> T withRawMapping(Path file, Function<MemorySegment, T> action) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
                Arena arena = Arena.ofConfined()) {
            return action.apply(channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size(), arena));
        }
    }

    private Path fullStore(int capacity, String... names) throws IOException {
        Path file = dir.resolve("evict.hints");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().maxNameBytes(64).capacity(capacity))) {
            for (String name : names) {
                store.record(name, 100, 10);
            }
        }
        return file;
    }

    @Test
    void deleteStopsAtTheFirstEmptyEntryAndShiftsTheRunBack() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(GEOMETRY.fileBytes(), 4096);
            HashIndex index = new HashIndex(GEOMETRY);
            long hash = 0x5L << Layouts.INDEX_TAG_SHIFT | 2; // home 2
            long entries = GEOMETRY.indexOffset();

            // An entry one past an empty home is unreachable: not found, left as it is.
            Memory.plainLong(seg, entries + 8L * 3, HashIndex.entry(hash, 1, 0));
            assertFalse(index.delete(seg, hash, 0));
            assertEquals(HashIndex.entry(hash, 1, 0), Memory.plainLong(seg, entries + 8L * 3));

            // With the home taken, the same run is reachable: deleting its head shifts the rest back.
            Memory.plainLong(seg, entries + 8L * 2, HashIndex.entry(hash, 0, 1));
            assertTrue(index.delete(seg, hash, 1));
            assertEquals(HashIndex.entry(hash, 0, 0), Memory.plainLong(seg, entries + 8L * 2));
            assertEquals(0L, Memory.plainLong(seg, entries + 8L * 3));
        }
    }

    @Test
    void victimWithoutAnIndexEntryIsEvictedAndTheIndexRebuiltWithoutARecovery() throws Exception {
        Path file = fullStore(2, "a", "b");
        long indexSeq = withRawMapping(file, seg -> {
            for (int j = 0; j < new FileGeometry(2, 64).indexEntries(); j++) {
                Memory.plainLong(seg, new FileGeometry(2, 64).indexOffset() + 8L * j, 0L); // every entry lost
            }
            return Memory.plainLong(seg, Layouts.HDR_INDEX_SEQ);
        });
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().maxNameBytes(64).capacity(2))) {
            store.record("c", 100, 10);
            assertEquals(1, store.dispatchCount("c"), "the new region is indexed");
            assertEquals(1, store.info().evictions());
            assertEquals(2, store.size());
            VerifyReport report = HintFiles.verify(store);
            assertTrue(report.ok(), report.findings().toString());
        }
        withRawMapping(file, seg -> {
            assertEquals(0L, Memory.plainLong(seg, Layouts.HDR_RECOVERIES), "a rebuild after step 11 is no recovery");
            assertEquals(indexSeq + 2, Memory.plainLong(seg, Layouts.HDR_INDEX_SEQ),
                    "odd from step 6 until the rebuild ends: 2 in all (FORMAT §7.4 step 8)");
            assertEquals(0L, Memory.plainLong(seg, Layouts.HDR_JOURNAL_SLOT));
            return null;
        });
    }

    @Test
    void evictionFromALiveCountOfZeroLeavesOne() throws Exception {
        Path file = fullStore(2, "a", "b");
        withRawMapping(file, seg -> {
            Memory.plainLong(seg, Layouts.HDR_LIVE_COUNT, 0L); // damaged, but in range: no recovery
            return null;
        });
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().maxNameBytes(64).capacity(2))) {
            store.record("c", 100, 10);
            assertEquals(1, store.info().evictions());
            assertEquals(1, store.size(), "-1 stops at 0, then +1");
        }
    }
}
