package dev.hintmap.nativelib;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import dev.hintmap.format.Layouts;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The golden hint file in src/test/resources/vectors: made from golden-samples.txt, expected
 * records in golden.txt. Java must write it byte for byte (but for its creation time and the
 * checksum that covers it), and both Java and C must read golden.txt back from it.
 * Regenerate after a deliberate format change with
 * {@code java -cp target/classes:target/test-classes dev.hintmap.nativelib.GoldenFileTest}.
 */
class GoldenFileTest {
    private static final Path VECTORS = Path.of("src", "test", "resources", "vectors");

    @TempDir
    Path dir;

    static void writeFromSamples(Path file) throws IOException {
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(4).maxNameBytes(64))) {
            for (String line : Files.readAllLines(VECTORS.resolve("golden-samples.txt"), StandardCharsets.UTF_8)) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] f = line.split(" ");
                store.record(f[0], Long.parseLong(f[1]), Long.parseLong(f[2]));
            }
        }
    }

    static String describe(List<RegionRecord> records) {
        TreeSet<String> lines = new TreeSet<>();
        for (RegionRecord r : records) {
            lines.add("region " + r.name() + " " + r.dispatchCount() + " " + r.kernelNsTotal() + " " + r.kernelNsMax() + " " + r.bytesTotal());
        }
        return String.join("\n", lines) + "\n";
    }

    private static String expected() throws IOException {
        return Files.readString(VECTORS.resolve("golden.txt"), StandardCharsets.UTF_8);
    }

    @Test
    void javaReadsTheGoldenRecords() throws IOException {
        try (HintStore store = HintStore.open(VECTORS.resolve("golden.hints"), HintStoreOptions.defaults().readOnly(true))) {
            List<RegionRecord> records = new java.util.ArrayList<>();
            store.snapshot().regions().forEach(records::add);
            assertEquals(expected(), describe(records));
        }
    }

    @Test
    void javaWritesTheGoldenFileByteForByte() throws IOException {
        Path file = dir.resolve("again.hints");
        writeFromSamples(file);
        assertArrayEquals(withoutCreationTime(Files.readAllBytes(VECTORS.resolve("golden.hints"))),
                withoutCreationTime(Files.readAllBytes(file)));
    }

    private static byte[] withoutCreationTime(byte[] b) {
        byte[] copy = b.clone(); // creation time and the checksum over it differ by design
        Arrays.fill(copy, (int) Layouts.HDR_CREATED_EPOCH_MS, (int) Layouts.HDR_CREATED_EPOCH_MS + 8, (byte) 0);
        Arrays.fill(copy, (int) Layouts.HDR_HEADER_CHECKSUM, (int) Layouts.HDR_HEADER_CHECKSUM + 8, (byte) 0);
        return copy;
    }

    @Test
    void theCLibraryWritesTheGoldenFileByteForByte() throws Exception {
        Path file = dir.resolve("c.hints");
        Process p = new ProcessBuilder(dev.hintmap.testkit.NativeTools.tool("hm-replay").toString(),
                file.toString(), VECTORS.resolve("golden-samples.txt").toString(), "4", "64").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        assertArrayEquals(withoutCreationTime(Files.readAllBytes(VECTORS.resolve("golden.hints"))),
                withoutCreationTime(Files.readAllBytes(file)));
    }

    @Test
    void theCLibraryReadsTheGoldenRecords() throws Exception {
        Process p = new ProcessBuilder(dev.hintmap.testkit.NativeTools.tool("hm-dump").toString(),
                VECTORS.resolve("golden.hints").toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        TreeSet<String> regions = new TreeSet<>();
        out.lines().filter(l -> l.startsWith("region ")).forEach(regions::add);
        assertEquals(expected(), String.join("\n", regions) + "\n");
        assertTrue(out.contains("size 4 capacity 4"), out);
    }

    /** Regenerates golden.hints and golden.txt (run from the project root). */
    public static void main(String[] args) throws IOException {
        Path golden = VECTORS.resolve("golden.hints");
        Files.deleteIfExists(golden);
        writeFromSamples(golden);
        try (HintStore store = HintStore.open(golden, HintStoreOptions.defaults().readOnly(true))) {
            List<RegionRecord> records = new java.util.ArrayList<>();
            store.snapshot().regions().forEach(records::add);
            Files.writeString(VECTORS.resolve("golden.txt"), describe(records), StandardCharsets.UTF_8);
        }
    }
}
