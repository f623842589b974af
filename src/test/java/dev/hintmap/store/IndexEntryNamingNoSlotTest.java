package dev.hintmap.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintFiles;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.MutableRecord;
import dev.hintmap.TestStores;
import dev.hintmap.format.FileGeometry;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An index entry naming no slot (slot field above {@code capacity}, or 0: a damaged file) with the
 * tag and the distance of a name, so that a lookup of that name would follow it (FORMAT.md §7.3,
 * §8). Java does what C does (issue 35 §3): a lock-free lookup takes it for no match, probes on and
 * remembers nothing; the writer whose lookup under the structure lock meets it recovers (§8) and
 * resolves again before it inserts. C's twin: test_hardening.c
 * {@code entry_naming_no_slot_is_passed_by_readers_and_repaired_by_the_writer_that_meets_it}.
 */
class IndexEntryNamingNoSlotTest {
    private static final int CAPACITY = 8;
    private static final int MAX_NAME_BYTES = 256;
    private static final FileGeometry GEOMETRY = new FileGeometry(CAPACITY, MAX_NAME_BYTES);
    private static final HintStoreOptions OPTIONS = HintStoreOptions.defaults().capacity(CAPACITY).maxNameBytes(MAX_NAME_BYTES);
    private static final String GEMM = "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)";
    private static final String LAYER_NORM = "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>"
            + "(int, float, float const*, float const*, float const*, float*, float*, float*)";
    private static final String ATTENTION = "void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64, 64, 4, false, false,"
            + " cutlass::half_t>, true, false>(Flash_fwd_params)";

    @TempDir
    Path dir;

    /** A file holding GEMM, with two entries naming no slot where a lookup of LAYER_NORM goes. */
    private Path fileWithEntriesNamingNoSlot() throws IOException {
        Path file = dir.resolve("damaged-index.hints");
        try (HintStore store = HintStore.open(file, OPTIONS)) {
            store.record(GEMM, 3_000, 64);
        }
        EncodedName name = new EncodedName();
        name.encodeChecked(LAYER_NORM, MAX_NAME_BYTES, false);
        HashIndex index = new HashIndex(GEOMETRY);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
                Arena arena = Arena.ofConfined()) {
            MemorySegment seg = channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size(), arena);
            int j = index.home(name.hash);
            int p = 0;
            while (index.entryLocked(seg, j) != 0) {
                j = (j + 1) & index.mask;
                p++;
            }
            int next = (j + 1) & index.mask;
            assertEquals(0, index.entryLocked(seg, next), "two free entries in a row");
            Memory.releaseLong(seg, entryOffset(j), HashIndex.entry(name.hash, p, CAPACITY)); // slot field 9 > capacity 8
            Memory.releaseLong(seg, entryOffset(next), HashIndex.entry(name.hash, p + 1, -1)); // slot field 0
        }
        return file;
    }

    private static long entryOffset(int j) {
        return GEOMETRY.indexOffset() + 8L * j;
    }

    @Test
    void aLookupPassesAnEntryNamingNoSlotAndLeavesNothingForAnInsertionThatNeverMeetsIt() throws IOException {
        Path file = fileWithEntriesNamingNoSlot();
        try (HintStore store = HintStore.open(file, OPTIONS)) {
            assertEquals(0, store.dispatchCount(LAYER_NORM), "an entry naming no slot is no match");
            assertFalse(store.isHot(LAYER_NORM));
            assertFalse(store.readInto(LAYER_NORM, new MutableRecord()));
            assertEquals(1, store.dispatchCount(GEMM));

            store.record(ATTENTION, 500, 8); // its lookups follow neither entry
            assertEquals(0, store.info().recoveries(), "the lookups of LAYER_NORM remembered nothing of what they passed");
            assertEquals(2, store.size());
            assertEquals(1, store.dispatchCount(ATTENTION));
        }
    }

    @Test
    void theWriterThatMeetsAnEntryNamingNoSlotRepairsTheIndexAndInsertsTheRegionOnce() throws IOException {
        Path file = fileWithEntriesNamingNoSlot();
        try (HintStore store = HintStore.open(file, OPTIONS)) {
            store.record(LAYER_NORM, 2_000, 64);
            assertEquals(1, store.info().recoveries(), "recovered before inserting (§8)");
            assertEquals(1, store.dispatchCount(LAYER_NORM));
            assertEquals(1, store.dispatchCount(GEMM));
            assertEquals(2, store.size());
            store.record(LAYER_NORM, 2_000, 64);
            assertEquals(2, store.dispatchCount(LAYER_NORM), "found again: one region, not a second copy");
            assertEquals(1, store.info().recoveries());
        }
        var report = HintFiles.verify(file, HintStoreOptions.defaults());
        assertTrue(report.ok(), "the rebuild dropped both entries: " + report.findings());
    }
}
