package dev.hintmap.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The Java layouts against the tables of docs/FORMAT.md §2–§3. */
class LayoutTest {
    @Test
    void headerFieldsSitAtTheDocumentedOffsets() {
        assertEquals(4096, Layouts.HEADER.byteSize());
        assertEquals(0, Layouts.HDR_MAGIC);
        assertEquals(8, Layouts.HDR_FORMAT_VERSION);
        assertEquals(16, Layouts.HDR_LAYOUT_FINGERPRINT);
        assertEquals(24, Layouts.HDR_CAPACITY);
        assertEquals(48, Layouts.HDR_HOT_THRESHOLD_NS);
        assertEquals(88, Layouts.HDR_FILE_BYTES);
        assertEquals(120, Layouts.HDR_HEADER_CHECKSUM);
        assertEquals(128, Layouts.HDR_STRUCT_LOCK);
        assertEquals(144, Layouts.HDR_INDEX_SEQ);
        assertEquals(184, Layouts.HDR_RECOVERIES);
        assertEquals(192, Layouts.HDR_DROPPED_INSERTS);
        assertEquals(200, Layouts.HDR_STOLEN_LOCKS);
        assertEquals(96, Layouts.HDR_REF_TABLE_OFFSET);
    }

    @Test
    void anIndexEntryIsATagADistanceAndASlotInOneWord() {
        assertEquals(34, Layouts.INDEX_TAG_SHIFT);
        assertEquals(27, Layouts.INDEX_DIST_SHIFT);
        assertEquals((1L << 27) - 1, Layouts.INDEX_SLOT_MASK);
        assertEquals(127, Layouts.INDEX_DIST_MASK);
        // the largest slot and distance fit without touching the tag
        assertTrue((long) FileGeometry.MAX_CAPACITY <= Layouts.INDEX_SLOT_MASK);
        assertTrue(FileGeometry.MAX_PROBE_LIMIT - 1 <= Layouts.INDEX_DIST_MASK);
    }

    @Test
    void theReferenceTableLiesBetweenTheIndexAndTheSlotsOnItsOwnPages() {
        FileGeometry g = new FileGeometry(5000, 64);
        assertEquals(g.indexOffset() + 8L * g.indexEntries(), g.refTableOffset()); // index ends on a page boundary
        assertEquals(0, g.refTableOffset() % Layouts.PAGE);
        assertEquals(g.refTableOffset() + 8192, g.slotsOffset()); // 5000 bytes round up to two pages
        FileGeometry empty = new FileGeometry(0, 1);
        assertEquals(empty.refTableOffset(), empty.slotsOffset());
    }

    @Test
    void slotIsOneControlLineOneRecordLineThenTheName() {
        assertEquals(128, Layouts.SLOT_FIXED.byteSize());
        assertEquals(0, Layouts.SLOT_LOCK);
        assertEquals(8, Layouts.SLOT_SEQ);
        assertEquals(16, Layouts.SLOT_GEN);
        assertEquals(24, Layouts.SLOT_HASH);
        assertEquals(32, Layouts.SLOT_NAME_LEN);
        assertEquals(64, Layouts.SLOT_COPIES);
        assertEquals(128, Layouts.SLOT_NAME);
        assertEquals(32, Layouts.RECORD_COPY_BYTES);
        assertEquals(16, Layouts.WRITER_ENTRY.byteSize());
    }

    /**
     * The committed vector is the layout's description; C's {@code hm-layout} prints the same
     * (NativeConformanceTest diffs the two), so a field added on one side only fails the build.
     */
    @Test
    void theDescriptionWalkedFromTheLayoutsIsTheCommittedVector() throws java.io.IOException {
        java.util.List<String> vector = java.nio.file.Files.readAllLines(
                java.nio.file.Path.of("src/test/resources/vectors/layout.txt"));
        int from = vector.indexOf("# layout description: struct.field offset size (Java Layouts.describe(), C hm-layout)");
        assertTrue(from > 0, "the vector holds the description");
        assertEquals(String.join("\n", vector.subList(from + 1, vector.size())) + "\n", Layouts.describe());
    }

    @Test
    void everyAtomicWordIsNaturallyAligned() {
        for (String line : Layouts.describe().split("\n")) {
            String[] parts = line.split(" ");
            if (parts[1].equals("size")) {
                continue;
            }
            long offset = Long.parseLong(parts[1]);
            long size = Long.parseLong(parts[2]);
            if (size == 4 || size == 8) {
                assertEquals(0, offset % size, line);
            }
        }
    }

    @ParameterizedTest
    @CsvSource({
        // capacity, maxName, slotBytes, indexEntries, maxProbe, indexOffset, refTableOffset, slotsOffset, fileBytes
        "0, 64, 192, 16, 16, 20480, 24576, 24576, 24576",
        "4, 64, 192, 16, 16, 20480, 24576, 28672, 32768",
        "256, 64, 192, 512, 128, 20480, 24576, 28672, 77824",
        "1000, 1, 192, 2048, 128, 20480, 36864, 40960, 233472",
        "1048576, 64, 192, 2097152, 128, 20480, 16797696, 17846272, 219172864",
        "16, 65, 256, 32, 32, 20480, 24576, 28672, 32768",
    })
    void geometryIsDerivedAsDocumented(int capacity, int maxName, int slotBytes, int indexEntries, int maxProbe,
            long indexOffset, long refTableOffset, long slotsOffset, long fileBytes) {
        FileGeometry g = new FileGeometry(capacity, maxName);
        assertEquals(slotBytes, g.slotBytes());
        assertEquals(indexEntries, g.indexEntries());
        assertEquals(maxProbe, g.maxProbe());
        assertEquals(4096, g.writerTableOffset());
        assertEquals(indexOffset, g.indexOffset());
        assertEquals(refTableOffset, g.refTableOffset());
        assertEquals(slotsOffset, g.slotsOffset());
        assertEquals(fileBytes, g.fileBytes());
        assertTrue(g.slotsOffset() % 4096 == 0 && g.slotBytes() % 64 == 0);
    }
}
