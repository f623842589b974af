package dev.hintmap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.format.Hm64Collisions;
import dev.hintmap.testkit.NativeTools;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Kernel names as GPU programs have them (FORMAT.md §1.1): a 300-byte templated name recorded by
 * Java, by C and by the CUPTI collector (with the stand-in CUPTI) is found by the same 300-byte name
 * through every API that takes a name, whatever the file's {@code max_name_bytes}.
 */
class LongNameTest {
    /** 300 bytes, as a CUTLASS 3 kernel's demangled name runs; the collector's test builds the same one. */
    static final String NAME = longName();

    @TempDir
    Path dir;

    static String longName() {
        String head = "void cute::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, int>, ";
        String more = "cutlass::epilogue::collective::DefaultEpilogue<float, 8>, ";
        StringBuilder b = new StringBuilder(head);
        for (int n = 0; b.length() < 299; n++) {
            b.append(more.charAt(n % more.length()));
        }
        return b.append(')').toString();
    }

    @Test
    void theNameIsThreeHundredBytes() {
        assertEquals(300, NAME.getBytes(StandardCharsets.UTF_8).length);
    }

    /** Every method that takes a name, on files that store the name shortened (64, 40, 33) and whole (300, 1024). */
    @ParameterizedTest(name = "max_name_bytes {0}")
    @ValueSource(ints = {33, 40, 64, 300, 1024})
    void everyApiFindsALongNameByTheSameName(int maxNameBytes) throws IOException {
        Path file = dir.resolve("long-" + maxNameBytes + ".hints");
        HintStoreOptions options = HintStoreOptions.defaults().capacity(16).maxNameBytes(maxNameBytes).hotThresholdNs(1_000);
        String stored;
        try (HintStore store = HintStore.open(file, options)) {
            stored = store.storedName(NAME);
            assertEquals(Math.min(300, maxNameBytes), stored.getBytes(StandardCharsets.UTF_8).length);
            assertEquals(stored, store.storedName(stored), "the stored form of a stored form is itself");
            if (maxNameBytes >= 300) {
                assertSame(NAME, stored);
            }
            store.record(NAME, 2_000, 10);
            store.record(new String(NAME), 4_000, 10); // another String instance: no cached encoding
            Region handle = store.region(NAME);
            handle.record(6_000, 10);
            store.add(new RegionRecord(NAME, 2, 8_000, 5_000, 20));
            assertEquals(NAME, handle.name());

            assertEquals(5, store.dispatchCount(NAME));
            assertTrue(store.isHot(NAME));
            assertEquals(4_000, store.meanKernelNs(NAME));
            assertEquals(new RegionRecord(NAME, 5, 20_000, 6_000, 50), store.recordFor(NAME).orElseThrow());
            MutableRecord m = new MutableRecord();
            assertTrue(store.readInto(NAME, m));
            assertEquals(5, m.dispatchCount());
            assertTrue(handle.readInto(m));
            assertEquals(5, handle.dispatchCount());
            assertTrue(handle.isHot());
            assertEquals(4_000, handle.meanKernelNs());
            assertEquals(5, store.dispatchCount(stored), "found by its stored form too");

            assertEquals(1, store.size(), "one region, whatever the spelling");
            List<String> names = new ArrayList<>();
            store.snapshot().regions().forEach(r -> names.add(r.name()));
            assertEquals(List.of(stored), names);
            assertEquals(stored, store.hottest(1, RegionOrder.TOTAL_NS).get(0).name());
            HintSnapshot snapshot = store.snapshot();
            assertEquals(maxNameBytes, snapshot.maxNameBytes());
            assertEquals(5, snapshot.recordFor(NAME).orElseThrow().dispatchCount());
            assertEquals(stored, snapshot.recordFor(NAME).orElseThrow().name());
            assertTrue(snapshot.isHot(NAME));
            assertFalse(snapshot.isHot(NAME + " "), "another long name is another region");
            assertFalse(snapshot.isHot(""), "a name no store holds is absent");
            assertEquals(0, store.dispatchCount(NAME.substring(0, 299) + "]"), "a name that differs in its last byte");
        }
        try (HintStore reader = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            assertEquals(5, reader.dispatchCount(NAME), "another store of the same file");
        }
        assertEquals(0, HintFiles.verify(file, HintStoreOptions.defaults()).errors().size());
    }

    /**
     * Issue 32 finding 1: two different 1,047-byte kernel names with one hm64
     * ({@link Hm64Collisions}: hm64's zero state), which format version 2 stored under one name at
     * every limit, so that the second, never recorded, read the first one's 60 dispatches, hot, and
     * its records added to the first's. In version 3 they are two regions: in Java, by name and
     * through a handle, and in C ({@code hm-dump FILE NAME}, hm_lookup) on the same file.
     */
    @ParameterizedTest(name = "max_name_bytes {0}")
    @ValueSource(ints = {64, 256, 1024})
    void twoLongNamesWithOneHm64AreTwoRegions(int maxNameBytes) throws Exception {
        String[] pair = Hm64Collisions.pair();
        String a = pair[0];
        String b = pair[1];
        Path file = dir.resolve("collide-" + maxNameBytes + ".hints");
        try (HintStore store = HintStore.open(file,
                HintStoreOptions.defaults().capacity(16).maxNameBytes(maxNameBytes).hotThresholdNs(1_000))) {
            for (int i = 0; i < 60; i++) {
                store.record(a, 5_000, 10);
            }
            assertEquals(0, store.dispatchCount(b), "never recorded");
            assertFalse(store.isHot(b));
            assertEquals(Optional.empty(), store.recordFor(b));
            assertEquals(0, store.region(b).dispatchCount());
            assertNotEquals(store.storedName(a), store.storedName(b));
        }
        String c = run(NativeTools.tool("hm-dump").toString(), file.toString(), b);
        assertTrue(c.contains("absent "), "C finds no record for the name never recorded: " + c);
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            store.region(b).record(7, 1); // b's records start b's region; a's stay a's
            assertEquals(new RegionRecord(a, 60, 300_000, 5_000, 600), store.recordFor(a).orElseThrow());
            assertEquals(new RegionRecord(b, 1, 7, 7, 1), store.recordFor(b).orElseThrow());
            assertEquals(2, store.size());
        }
        c = run(NativeTools.tool("hm-dump").toString(), file.toString(), a, b);
        assertTrue(c.contains(" 60 300000 5000 600\n") && c.contains(" 1 7 7 1\n"), c);
        assertEquals(0, HintFiles.verify(file, HintStoreOptions.defaults()).errors().size());
    }

    /** {@code rejectLongNames(true)}: names over the limit are an error in every method, as before §1.1. */
    @Test
    void aStoreOpenedToRejectLongNamesRefusesThemEverywhere() throws IOException {
        Path file = dir.resolve("strict.hints");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().maxNameBytes(64).rejectLongNames(true))) {
            List<Consumer<HintStore>> calls = List.of(s -> s.record(NAME, 1, 1), s -> s.region(NAME), s -> s.isHot(NAME),
                    s -> s.dispatchCount(NAME), s -> s.meanKernelNs(NAME), s -> s.recordFor(NAME),
                    s -> s.readInto(NAME, new MutableRecord()), s -> s.add(new RegionRecord(NAME, 1, 1, 1, 1)));
            for (Consumer<HintStore> call : calls) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> call.accept(store));
                assertTrue(e.getMessage().contains("longer than 64 UTF-8 bytes"), e.getMessage());
            }
            assertEquals(0, store.size());
            store.record(store.storedName(NAME), 1, 1); // its stored form fits: that is just a name
            assertEquals(1, store.size());
        }
    }

    /** A long name recorded by Java is found by C's hm_lookup by the same name, and one recorded by C by Java. */
    @Test
    void javaAndCFindEachOthersLongNamesByTheSameName() throws Exception {
        Path file = dir.resolve("cross.hints");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(16).maxNameBytes(64))) {
            store.record(NAME, 1_000, 1);
            store.record(NAME, 3_000, 1);
        }
        String dump = run(NativeTools.tool("hm-dump").toString(), file.toString(), NAME);
        assertTrue(dump.contains("region " + NAME + " 2 4000 3000 2\n"), dump);
        String other = NAME.replace("float, 8", "half_t, 16");
        String opened = run(NativeTools.tool("hm-open").toString(), "--record", other, "5000", "7", "--record", NAME, "500", "1",
                file.toString());
        assertTrue(opened.startsWith("OK"), opened);
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            assertEquals(3, store.dispatchCount(NAME));
            assertEquals(new RegionRecord(other, 1, 5_000, 5_000, 7), store.recordFor(other).orElseThrow());
            assertEquals(2, store.size());
        }
    }

    /**
     * The CUPTI collector, driven by the stand-in CUPTI, records a 300-byte kernel name into a file
     * of {@code max_name_bytes} 64; Java finds it by that name through every query.
     */
    @Test
    void theCollectorsLongKernelNameIsFoundByJavaByTheSameName() throws Exception {
        Path collector = NativeTools.BUILD.resolve("libhintmap_cupti.so");
        Path fake = NativeTools.BUILD.resolve("libfake_cupti.so");
        Path driver = NativeTools.BUILD.resolve("test_collector");
        if (!Files.exists(collector) || !Files.exists(fake) || !Files.isExecutable(driver)) {
            System.out.println("skip: LongNameTest collector case: no CUPTI headers here, so the collector was not built");
            Assumptions.abort("the CUPTI collector was not built (no CUDA toolkit)");
        }
        String out = run(driver.toString(), collector.toString(), fake.toString(), dir.toString(), "longname");
        assertTrue(out.contains("test_collector: ok (longname)"), out);
        try (HintStore store = HintStore.open(dir.resolve("longname.hints"), HintStoreOptions.defaults().readOnly(true))) {
            assertEquals(64, store.maxNameBytes());
            assertEquals(new RegionRecord(NAME, 3, 600_000, 250_000, 0), store.recordFor(NAME).orElseThrow());
            assertTrue(store.isHot(NAME));
            assertEquals(200_000, store.meanKernelNs(NAME));
            assertEquals(3, store.region(NAME).dispatchCount());
            assertEquals(3, store.snapshot().recordFor(NAME).orElseThrow().dispatchCount());
            assertArrayEquals(new String[] {store.storedName(NAME)},
                    store.snapshot().regions().stream().map(RegionRecord::name).toArray());
        }
    }

    private static String run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), out);
        assertEquals(0, p.exitValue(), String.join(" ", command) + ":\n" + out);
        return out;
    }
}
