package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionOrder;
import dev.hintmap.format.Layouts;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A damaged {@code high_water} is an unsigned number clamped to capacity (FORMAT §5 step 5, §9.1;
 * issue 32 finding 15). Java read it as a signed {@code long}: 2^63 and 2^64-1 became negative and
 * clamped to 0, so {@code stat} showed 0 slots used and 0 hot and {@code dump}, {@code forEach},
 * {@code hottest} and {@code snapshot} listed nothing, while {@code size()} said 64, lookups found
 * every region and C's {@code hm-dump} listed all 64. 65 and 2^62 clamped right already.
 */
class DamagedHighWaterTest {
    private static final int CAPACITY = 64;

    @TempDir
    Path dir;

    private static String kernel(int i) {
        return "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params) #" + i;
    }

    /** A full file (every slot LIVE and indexed, every region hot) whose high_water then reads {@code highWater}. */
    private Path fullFileWithHighWater(long highWater) throws Exception {
        Path file = dir.resolve("damaged-high-water.hints");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(CAPACITY).maxNameBytes(256))) {
            for (int i = 0; i < CAPACITY; i++) {
                store.record(kernel(i), 200_000 + i, 4096); // above the 100 µs threshold: hot
            }
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
                Arena arena = Arena.ofConfined()) {
            MemorySegment raw = channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size(), arena);
            raw.set(ValueLayout.JAVA_LONG_UNALIGNED, Layouts.HDR_HIGH_WATER, highWater);
        }
        return file;
    }

    @ParameterizedTest(name = "high_water {0}")
    @ValueSource(strings = {"9223372036854775808", "18446744073709551615", "65", "4611686018427387904"})
    void everyScanListsAllRegionsWhenHighWaterIsAboveCapacity(String unsigned) throws Exception {
        Path file = fullFileWithHighWater(Long.parseUnsignedLong(unsigned));
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            assertEquals(CAPACITY, store.size());
            assertEquals(CAPACITY, store.info().highWater(), "slots ever used, clamped to capacity");
            AtomicInteger seen = new AtomicInteger();
            store.snapshot().regions().forEach(r -> seen.incrementAndGet());
            assertEquals(CAPACITY, seen.get(), "forEach");
            AtomicInteger viewed = new AtomicInteger();
            store.forEachView(v -> viewed.incrementAndGet());
            assertEquals(CAPACITY, viewed.get(), "forEachView");
            assertEquals(CAPACITY, store.hottest(1_000, RegionOrder.TOTAL_NS).size(), "hottest");
            assertEquals(CAPACITY, store.snapshot().size(), "snapshot");
            assertEquals(CAPACITY, store.snapshot().hotCount(), "hot regions");
        }

        String stat = Cli.run("stat", file.toString()).expect(0).out();
        assertTrue(stat.contains("64 used (100.0% of capacity), 64 slow (mean >= hot threshold), 64 slots ever used"), stat);
        String json = Cli.run("stat", "--json", file.toString()).expect(0).out().replaceAll("\\s", "");
        assertTrue(json.contains("\"hot_regions\":64") && json.contains("\"high_water\":64"), json);
        String csv = Cli.run("dump", "--format", "csv", file.toString()).expect(0).out();
        assertEquals(CAPACITY + 1, csv.lines().count(), "a header line and one line per region:\n" + csv);

        // C clamps the same word the same way: the two languages list the same regions
        Process c = new ProcessBuilder(Cli.nativeTool("hm-dump").toString(), file.toString()).redirectErrorStream(true).start();
        String out = new String(c.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(c.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, c.exitValue(), out);
        assertEquals(CAPACITY, out.lines().filter(l -> l.startsWith("region ")).count(), out);
    }
}
