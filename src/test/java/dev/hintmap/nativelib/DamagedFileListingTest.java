package dev.hintmap.nativelib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.testkit.NativeTools;
import dev.hintmap.RegionRecord;
import dev.hintmap.format.FileGeometry;
import dev.hintmap.format.Layouts;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which slots a listing of a damaged file includes, and what its hot-region count counts
 * (FORMAT.md §9.1, "Listings"): the same in Java ({@code forEachView}, {@code snapshot}) and C
 * ({@code hm_region_at} over {@code hm_high_water()}, through {@code hm-dump}). One file carries
 * each kind of damage at once: {@code high_water} far above capacity, a record that is not sound,
 * a name held by two slots (with the other slot's {@code hash}), and a {@code name_len} over the
 * limit.
 */
class DamagedFileListingTest {
    private static final int CAPACITY = 8;
    private static final int MAX_NAME_BYTES = 64;
    private static final long THRESHOLD = 100_000;

    private static final String GEMM = "void gemm_bf16_128x128<float, 4>(Params const&)";
    private static final String FLASH = "void flash_fwd_kernel<128, 64, true>(Flash_fwd_params)";
    private static final String NORM = "void layer_norm_kernel<float, float>(int, float*)";
    private static final String SOFTMAX = "void softmax_warp_forward<float, float, 10>(float*, int)";
    private static final String REDUCE = "void reduce_kernel<512, 1, ReduceOp<float>>(ReduceOp<float>)";
    private static final String FILL = "void at::native::fill_kernel<float>(float*, float, long)";

    @TempDir
    Path dir;

    @Test
    void javaAndCListTheSameSlotsOfADamagedFileAndCountTheSameHotRegions() throws Exception {
        Path file = dir.resolve("damaged.hints");
        List<String> names = List.of(GEMM, FLASH, NORM, SOFTMAX, REDUCE, FILL);
        long[] kernelNs = {200_000, 300_000, 5_000, 150_000, 90_000, 50_000};
        try (HintStore store = HintStore.open(file,
                HintStoreOptions.defaults().capacity(CAPACITY).maxNameBytes(MAX_NAME_BYTES).hotThresholdNs(THRESHOLD))) {
            for (int i = 0; i < names.size(); i++) {
                assertTrue(names.get(i).length() <= MAX_NAME_BYTES, "stored whole: " + names.get(i));
                store.record(names.get(i), kernelNs[i], 4096);
            }
        }
        FileGeometry g = new FileGeometry(CAPACITY, MAX_NAME_BYTES);
        List<String> want;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
                Arena arena = Arena.ofConfined()) {
            MemorySegment raw = ch.map(FileChannel.MapMode.READ_WRITE, 0, ch.size(), arena);
            raw.set(ValueLayout.JAVA_LONG_UNALIGNED, Layouts.HDR_HIGH_WATER, Long.MIN_VALUE); // 2^63: every slot below capacity
            long norm = slotOf(raw, g, NORM);
            for (int copy = 0; copy < 2; copy++) { // kernel_ns_max above kernel_ns_total: not sound (§7.2.1)
                long at = norm + Layouts.SLOT_COPIES + copy * Layouts.RECORD_COPY_BYTES;
                long total = raw.get(ValueLayout.JAVA_LONG_UNALIGNED, at + Layouts.REC_KERNEL_NS_TOTAL);
                raw.set(ValueLayout.JAVA_LONG_UNALIGNED, at + Layouts.REC_KERNEL_NS_MAX, total + 1);
            }
            long flashSlot = slotOf(raw, g, FLASH);
            long softmax = slotOf(raw, g, SOFTMAX); // now a second slot named FLASH, its hash still SOFTMAX's
            byte[] flash = FLASH.getBytes(StandardCharsets.UTF_8);
            raw.asSlice(softmax + Layouts.SLOT_NAME, g.nameAreaBytes()).fill((byte) 0);
            MemorySegment.copy(flash, 0, raw, ValueLayout.JAVA_BYTE, softmax + Layouts.SLOT_NAME, flash.length);
            raw.set(ValueLayout.JAVA_INT_UNALIGNED, softmax + Layouts.SLOT_NAME_LEN, flash.length);
            raw.set(ValueLayout.JAVA_INT_UNALIGNED, slotOf(raw, g, REDUCE) + Layouts.SLOT_NAME_LEN, MAX_NAME_BYTES + 1);
            // listed, in slot order: GEMM, FLASH, FLASH again with SOFTMAX's record, FILL (not NORM, not REDUCE)
            long[][] listed = {{slotOf(raw, g, GEMM), 0}, {flashSlot, 1}, {softmax, 2}, {slotOf(raw, g, FILL), 3}};
            String[] lines = {line(GEMM, 1, 200_000), line(FLASH, 1, 300_000), line(FLASH, 1, 150_000), line(FILL, 1, 50_000)};
            want = Arrays.stream(listed).sorted((x, y) -> Long.compare(x[0], y[0])).map(x -> lines[(int) x[1]]).toList();
        }
        List<String> java = new ArrayList<>();
        int javaHot;
        long javaSize;
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            store.forEachView(v -> java.add(line(v.name(), v.dispatchCount(), v.kernelNsTotal())));
            assertEquals(want, store.snapshot().regions().stream().map(r -> line(r.name(), r.dispatchCount(), r.kernelNsTotal())).toList(),
                    "snapshot lists what forEachView lists");
            javaHot = store.snapshot().hotCount();
            javaSize = store.size();
            assertEquals(3, store.snapshot().regions().stream().filter(r -> r.isHot(THRESHOLD)).count());
        }
        assertEquals(want, java, "Java's listing");
        assertEquals(3, javaHot, "GEMM, FLASH and FLASH again: one per listed slot, the name held twice counts twice");
        assertEquals(6, javaSize, "size() is live_count's count, not the listing's");

        List<String> c = new ArrayList<>();
        long cSize = -1;
        int cHot = 0;
        Process p = new ProcessBuilder(NativeTools.tool("hm-dump").toString(), file.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "hm-dump finished");
        assertEquals(0, p.exitValue(), out);
        for (String l : out.lines().toList()) {
            String[] w = l.split(" ");
            if (l.startsWith("region ")) { // region <name with spaces> count total max bytes
                String name = String.join(" ", Arrays.copyOfRange(w, 1, w.length - 4));
                long count = Long.parseLong(w[w.length - 4]);
                long total = Long.parseLong(w[w.length - 3]);
                c.add(line(name, count, total));
                cHot += new RegionRecord(name, count, total, Long.parseLong(w[w.length - 2]), Long.parseLong(w[w.length - 1]))
                        .isHot(THRESHOLD) ? 1 : 0;
            } else if (l.startsWith("size ")) {
                cSize = Long.parseLong(w[1]);
            }
        }
        assertEquals(want, c, "C's listing (hm_region_at)");
        assertEquals(javaHot, cHot, "hot regions of C's listing by §7.2.1's rule");
        assertEquals(javaSize, cSize, "hm_size");
    }

    private static String line(String name, long count, long total) {
        return name + " " + count + " " + total;
    }

    /** The offset of the slot that holds {@code name} (as recorded, before any damage). */
    private static long slotOf(MemorySegment raw, FileGeometry g, String name) {
        byte[] want = name.getBytes(StandardCharsets.UTF_8);
        for (int k = 0; k < g.capacity(); k++) {
            long slot = g.slotsOffset() + (long) k * g.slotBytes();
            int len = raw.get(ValueLayout.JAVA_INT_UNALIGNED, slot + Layouts.SLOT_NAME_LEN);
            if (len == want.length && Arrays.equals(want,
                    raw.asSlice(slot + Layouts.SLOT_NAME, len).toArray(ValueLayout.JAVA_BYTE))) {
                return slot;
            }
        }
        throw new AssertionError(name + " is in no slot");
    }
}
