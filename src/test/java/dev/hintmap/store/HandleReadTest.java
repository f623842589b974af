package dev.hintmap.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.MutableRecord;
import dev.hintmap.Region;
import dev.hintmap.TestStores;
import dev.hintmap.format.FileGeometry;
import dev.hintmap.format.Layouts;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The handle read of FORMAT.md §7.2.2: a query through a {@link Region} (and one by name through
 * the thread's name cache) reads slot {@code k} without a name compare while its {@code gen} is
 * the one the handle resolved, reads only the words its answer needs, and resolves the name again
 * once {@code gen} moved. Each test changes words of the open file through a second mapping, as
 * another process would.
 */
class HandleReadTest {
    /** A kernel name as PyTorch's profiler reports it: templated, with spaces and punctuation. */
    private static final String GEMM = "void at::native::(anonymous namespace)::gemm_kernel<float, 128, 4>(float const*, float*, int)";
    private static final String SOFTMAX = "void cunn_SoftMaxForward<4, float, float, float, Epilogue>(float*, float const*, int)";
    private static final int MAX_NAME_BYTES = 256;

    @TempDir
    Path dir;
    private HintStore store;
    private FileChannel channel;
    private Arena arena;
    private MemorySegment raw;
    private final Slots slots = new Slots(new FileGeometry(1, MAX_NAME_BYTES));

    @BeforeEach
    void open() throws IOException {
        Path file = dir.resolve("handles.hints");
        store = HintStore.open(file, HintStoreOptions.defaults().capacity(1).maxNameBytes(MAX_NAME_BYTES).hotThresholdNs(1_000));
        channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        arena = Arena.ofConfined();
        raw = channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size(), arena);
    }

    @AfterEach
    void close() throws IOException {
        store.close();
        arena.close();
        channel.close();
    }

    private long slot0() {
        return slots.slot(0);
    }

    private long currentCopy() {
        return Slots.copy(slot0(), Memory.plainLong(raw, Slots.seq(slot0())));
    }

    @Test
    void whileTheGenerationStandsAHandleAnswersWithoutComparingTheName() {
        store.record(GEMM, 3_000, 64);
        Region gemm = store.region(GEMM);
        assertEquals(1, gemm.dispatchCount()); // resolves by name and remembers (slot 0, gen)
        long firstNameWord = Memory.plainLong(raw, Slots.nameWord(slot0(), 0));
        Memory.plainLong(raw, Slots.nameWord(slot0(), 0), ~firstNameWord); // gen left as it was

        assertEquals(1, gemm.dispatchCount(), "the generation, not the name, decides (§7.2.2)");
        assertTrue(gemm.isHot());
        assertEquals(1, store.dispatchCount(GEMM), "the name cache's pair is a handle too");
        assertEquals(0, store.region(GEMM).dispatchCount(), "a new handle compares the name, which no slot holds now");
    }

    @Test
    void aSlotReassignedToAnotherNameIsNeverReadThroughTheOldHandle() {
        store.record(GEMM, 3_000, 64);
        Region gemm = store.region(GEMM);
        assertTrue(gemm.isHot());
        long genBefore = Memory.plainLong(raw, Slots.gen(slot0()));

        store.record(SOFTMAX, 10, 8); // capacity 1: evicts GEMM and reuses slot 0
        assertEquals(genBefore + 2, Memory.plainLong(raw, Slots.gen(slot0())));
        assertEquals(0, gemm.dispatchCount());
        assertFalse(gemm.isHot());
        assertEquals(0, gemm.meanKernelNs());
        MutableRecord into = new MutableRecord();
        assertFalse(gemm.readInto(into));
        assertEquals(0, into.dispatchCount());

        store.record(GEMM, 500, 16); // back into slot 0, a new region with a new generation
        assertEquals(1, gemm.dispatchCount());
        assertEquals(500, gemm.meanKernelNs());
        assertFalse(gemm.isHot());
        assertTrue(gemm.readInto(into));
        assertEquals(16, into.bytesTotal());
    }

    @Test
    void aBusySlotReadsAbsentAndAnswersAgainOnceItsGenerationIsBack() {
        store.record(GEMM, 3_000, 64);
        Region gemm = store.region(GEMM);
        assertEquals(3_000, gemm.meanKernelNs());
        long gen = Memory.plainLong(raw, Slots.gen(slot0()));

        Memory.plainLong(raw, Slots.gen(slot0()), gen | 1); // a writer inside §7.4 steps 7-11
        assertEquals(0, gemm.dispatchCount());
        assertEquals(0, store.dispatchCount(GEMM));
        Memory.plainLong(raw, Slots.gen(slot0()), gen);
        assertEquals(1, gemm.dispatchCount());
        assertEquals(1, store.dispatchCount(GEMM));
    }

    @Test
    void everyAnswerReadsARecordThatIsNotSoundAsAbsentSoTheQueriesAgree() {
        store.record(GEMM, 3_000, 64);
        store.record(GEMM, 1_000, 64);
        Region gemm = store.region(GEMM);
        MutableRecord into = new MutableRecord();
        assertTrue(gemm.readInto(into));
        assertTrue(gemm.isHot());

        // max > total: a record no writer publishes (a damaged file); count and total alone look fine
        Memory.plainLong(raw, currentCopy() + Layouts.REC_KERNEL_NS_MAX, 9_999);
        assertFalse(gemm.readInto(into));
        assertEquals(0, gemm.dispatchCount(), "absent for every query, not present for some");
        assertEquals(0, gemm.meanKernelNs());
        assertFalse(gemm.isHot(), "hot only when present (FileFuzzing's check)");
        assertFalse(store.readInto(GEMM, into));
        assertEquals(0, store.dispatchCount(GEMM));
        assertFalse(store.isHot(GEMM));

        Memory.plainLong(raw, currentCopy() + Layouts.REC_KERNEL_NS_MAX, 3_000); // whole again
        assertEquals(2, gemm.dispatchCount());
        assertEquals(2_000, gemm.meanKernelNs());
        assertTrue(gemm.isHot());

        Memory.plainLong(raw, currentCopy() + Layouts.REC_BYTES_TOTAL, -5); // top bit set
        assertEquals(0, gemm.dispatchCount());
        assertFalse(store.isHot(GEMM));
    }

    @Test
    void aRecordPublishedMeanwhileIsReadWholeThroughTheHandle() {
        store.record(GEMM, 3_000, 64);
        Region gemm = store.region(GEMM);
        assertEquals(1, gemm.dispatchCount());
        for (int i = 2; i <= 5; i++) {
            gemm.record(1_000 * i, 64);
            MutableRecord into = new MutableRecord();
            assertTrue(gemm.readInto(into));
            assertEquals(i, into.dispatchCount());
            assertEquals(64L * i, into.bytesTotal());
            assertEquals(i, gemm.dispatchCount());
        }
    }

    /**
     * A {@link Region} keeps one (slot, gen) pair, as C's {@code hm_region} and the name cache do
     * (issue 35 §3): a query after the handle's own record reads where the record put the region,
     * with no lookup. The slot's name words are changed behind the handle's back (gen left as it
     * was), so a lookup by name would miss and answer 0.
     */
    @Test
    void aQueryThroughAHandleReadsWhereItsOwnRecordPutTheRegionWithoutALookup() {
        Region gemm = store.region(GEMM);
        gemm.record(3_000, 64); // inserted into slot 0: the handle keeps (slot 0, gen)
        long firstNameWord = Memory.plainLong(raw, Slots.nameWord(slot0(), 0));
        Memory.plainLong(raw, Slots.nameWord(slot0(), 0), ~firstNameWord);

        assertEquals(1, gemm.dispatchCount(), "the record's pair answers the query (§7.2.2)");
        assertTrue(gemm.isHot());
        assertEquals(0, store.dispatchCount(GEMM), "a lookup by name misses: the handle did not look up");
    }

    /** The other way round: a record after the handle's query goes where the query found the region. */
    @Test
    void aRecordThroughAHandleGoesWhereItsQueryFoundTheRegion() {
        store.record(GEMM, 3_000, 64);
        Region gemm = store.region(GEMM);
        assertEquals(1, gemm.dispatchCount()); // found by name: the handle keeps (slot 0, gen)
        long gen = Memory.plainLong(raw, Slots.gen(slot0()));
        long firstNameWord = Memory.plainLong(raw, Slots.nameWord(slot0(), 0));
        Memory.plainLong(raw, Slots.nameWord(slot0(), 0), ~firstNameWord);

        gemm.record(1_000, 64);
        assertEquals(gen, Memory.plainLong(raw, Slots.gen(slot0())), "recorded in place: no insertion, no eviction");
        assertEquals(2, gemm.dispatchCount());
        assertEquals(2_000, gemm.meanKernelNs());
    }
}
