package dev.hintmap.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import dev.hintmap.TestStores;
import dev.hintmap.format.FileGeometry;
import dev.hintmap.format.Layouts;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Item 1 of issue 7 in Java: mutable words of the file that are used as an offset, an index, a
 * length or a count are checked where they are used (FORMAT.md §5 step 5). Each test plants one
 * out-of-range word that a buggy or hostile writer could leave.
 */
class DamagedWordsTest {
    private static final FileGeometry GEOMETRY = new FileGeometry(4, 64);

    @TempDir
    Path dir;

    private Path storeWith(String... names) throws IOException {
        Path file = dir.resolve("damaged.hints");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(4))) {
            for (String name : names) {
                store.record(name, 100, 10);
            }
        }
        return file;
    }

    private static void withRawMapping(Path file, Consumer<Memory> action) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
                Arena arena = Arena.ofConfined()) {
            action.accept(new Memory(channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size(), arena)));
        }
    }

    private static List<String> names(HintStore store) {
        List<String> names = new ArrayList<>();
        store.snapshot().regions().forEach(r -> names.add(r.name()));
        return names.stream().sorted().toList();
    }

    @Test
    void statisticsCounterWithTheTopBitSetReadsAsZero() throws IOException {
        Path file = storeWith("a");
        withRawMapping(file, m -> Memory.plainLong(m.segment, Layouts.HDR_EVICTIONS, -1L));
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            assertEquals(0, store.info().evictions());
        }
    }

    @Test
    void evictingASlotWithAMalformedNameLengthRebuildsTheIndex() throws IOException {
        Path file = storeWith("a", "b", "c", "d");
        Slots slots = new Slots(GEOMETRY);
        withRawMapping(file, m -> Memory.plainInt(m.segment, Slots.nameLen(slots.slot(0)), -1)); // "a": 4 GiB long, its entry still indexed
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            assertTrue(store.recordFor("a").isEmpty(), "a malformed slot reads as absent");
            store.record("e", 1, 1); // the hand takes slot 0 (bit clear)
            assertEquals(new RegionRecord("e", 1, 1, 1, 1), store.recordFor("e").orElseThrow());
            assertEquals(List.of("b", "c", "d", "e"), names(store));
            assertEquals(4, store.size());
        }
        withRawMapping(file, m -> {
            int indexed = 0;
            for (int j = 0; j < GEOMETRY.indexEntries(); j++) {
                indexed += Memory.plainLong(m.segment, GEOMETRY.indexOffset() + 8L * j) != 0 ? 1 : 0;
            }
            assertEquals(4, indexed, "no junk entry left for the malformed slot");
        });
    }

    @Test
    void journalSlotOutOfRangeIsIgnoredAndTheIndexRebuilt() throws IOException {
        for (long journal : new long[] {GEOMETRY.capacity() + 1L, -1L, Long.MIN_VALUE}) {
            Path file = storeWith("a", "b");
            withRawMapping(file, m -> Memory.plainLong(m.segment, Layouts.HDR_JOURNAL_SLOT, journal));
            try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
                store.record("c", 1, 1); // recovers first
                assertEquals(List.of("a", "b", "c"), names(store), "journal " + journal);
                assertEquals(3, store.size());
            }
            withRawMapping(file, m -> assertEquals(0, Memory.plainLong(m.segment, Layouts.HDR_JOURNAL_SLOT)));
            java.nio.file.Files.delete(file);
        }
    }

    @Test
    void ownerWordNamingNoWriterEntryIsADeadOwner() throws IOException {
        Path file = storeWith("a");
        Slots slots = new Slots(GEOMETRY);
        withRawMapping(file, m -> {
            Memory.plainLong(m.segment, Slots.lock(slots.slot(0)), WriterTable.ownerWord(5000, 1)); // entry 5000 of 1024
            Memory.plainLong(m.segment, Layouts.HDR_STRUCT_LOCK, -1L);
        });
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            store.record("a", 100, 10);
            store.record("b", 100, 10);
            assertEquals(2, store.dispatchCount("a"));
            assertEquals(1, store.dispatchCount("b"));
        }
        withRawMapping(file, m -> assertEquals(2, Memory.plainLong(m.segment, Layouts.HDR_STOLEN_LOCKS)));
    }

    @Test
    void countsOutOfRangeAreClampedAndRepaired() throws IOException {
        Path file = storeWith("a", "b");
        withRawMapping(file, m -> {
            Memory.plainLong(m.segment, Layouts.HDR_LIVE_COUNT, Long.MAX_VALUE);
            Memory.plainLong(m.segment, Layouts.HDR_CLOCK_HAND, -7L);
        });
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            assertEquals(4, store.size(), "a reader clamps the count to capacity");
            store.record("c", 1, 1); // the writer repairs it (§8)
            assertEquals(3, store.size());
        }
    }
}
