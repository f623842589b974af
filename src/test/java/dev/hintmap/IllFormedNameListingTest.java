package dev.hintmap;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.hintmap.format.FileGeometry;
import dev.hintmap.format.Layouts;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A listing shows a damaged name that is not valid UTF-8 with one U+FFFD per maximal ill-formed
 * subpart (FORMAT.md §9.1; the cases in {@code vectors/utf8-replacement.txt}): a surrogate's three
 * bytes are three U+FFFD, as Python's decoder and the WHATWG decoder show them, not the JDK's one.
 */
class IllFormedNameListingTest {
    private static final String NAME = "void cutlass::Kernel2<xyz>(Params)";

    @TempDir
    Path dir;

    @Test
    void aSurrogatesThreeBytesInADamagedNameAreListedAsThreeReplacementCharacters() throws Exception {
        Path file = dir.resolve("damaged.hints");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(4).maxNameBytes(64))) {
            store.record(NAME, 120_000, 4096);
        }
        FileGeometry g = new FileGeometry(4, 64);
        int at = NAME.indexOf("xyz");
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
                Arena arena = Arena.ofConfined()) {
            MemorySegment raw = ch.map(FileChannel.MapMode.READ_WRITE, 0, ch.size(), arena);
            long name = g.slotsOffset() + Layouts.SLOT_NAME; // slot 0: the one region
            assertEquals(NAME, new String(raw.asSlice(name, NAME.length()).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8));
            raw.set(ValueLayout.JAVA_BYTE, name + at, (byte) 0xED); // U+D800 as UTF-8 would encode it: no character
            raw.set(ValueLayout.JAVA_BYTE, name + at + 1, (byte) 0xA0);
            raw.set(ValueLayout.JAVA_BYTE, name + at + 2, (byte) 0x80);
        }
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            List<RegionRecord> regions = store.snapshot().regions();
            assertEquals(1, regions.size());
            assertEquals("void cutlass::Kernel2<\uFFFD\uFFFD\uFFFD>(Params)", regions.get(0).name());
        }
    }
}
