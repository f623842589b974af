package dev.hintmap.nativelib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.hintmap.HintFileException;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.testkit.NativeTools;
import dev.hintmap.format.FileGeometry;
import dev.hintmap.format.Hm64;
import dev.hintmap.format.Layouts;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which field an open names when several are wrong: FORMAT.md §9's order of the opening checks
 * (§5 steps 1–4), the same in Java ({@code Header.validate}) and C ({@code hmi_header_validate},
 * through {@code hm-open}). A file gets every header field wrong at once; then the fields are
 * repaired one at a time, in that order, and each open must name the first field still wrong.
 */
class HeaderCheckOrderTest {
    private static final int CAPACITY = 8;
    private static final int MAX_NAME_BYTES = 64;

    @TempDir
    Path dir;

    /** One wrong value: the field an open names for it, and how to plant it in a valid header. */
    private record Damage(String field, String cCode, Consumer<ByteBuffer> plant) { }

    /** In FORMAT.md §9's order. */
    private static List<Damage> damages() {
        return List.of(
                new Damage("magic", "HM_EUNFINISHED", h -> h.putLong((int) Layouts.HDR_MAGIC, 0)),
                new Damage("format_version", "HM_EVERSION", h -> h.putInt((int) Layouts.HDR_FORMAT_VERSION, 99)),
                new Damage("header_bytes", "HM_EINCONSISTENT", h -> h.putInt((int) Layouts.HDR_HEADER_BYTES, 8192)),
                new Damage("header_checksum", "HM_ECHECKSUM", h -> { }), // planted last, over the rest
                new Damage("layout_fingerprint", "HM_ELAYOUT", h -> add(h, Layouts.HDR_LAYOUT_FINGERPRINT, 1)),
                new Damage("capacity", "HM_EINCONSISTENT", h -> h.putInt((int) Layouts.HDR_CAPACITY, FileGeometry.MAX_CAPACITY + 1)),
                new Damage("max_name_bytes", "HM_EINCONSISTENT", h -> h.putInt((int) Layouts.HDR_MAX_NAME_BYTES, 0)),
                new Damage("hot_threshold_ns", "HM_EINCONSISTENT", h -> h.putLong((int) Layouts.HDR_HOT_THRESHOLD_NS, Long.MIN_VALUE)),
                new Damage("slot_bytes", "HM_EINCONSISTENT", h -> add32(h, Layouts.HDR_SLOT_BYTES, 64)),
                new Damage("index_entries", "HM_EINCONSISTENT", h -> add32(h, Layouts.HDR_INDEX_ENTRIES, 1)),
                new Damage("max_probe", "HM_EINCONSISTENT", h -> add32(h, Layouts.HDR_MAX_PROBE, 1)),
                new Damage("writer_entries", "HM_EINCONSISTENT", h -> add32(h, Layouts.HDR_WRITER_ENTRIES, 1)),
                new Damage("writer_table_offset", "HM_EINCONSISTENT", h -> add(h, Layouts.HDR_WRITER_TABLE_OFFSET, 64)),
                new Damage("index_offset", "HM_EINCONSISTENT", h -> add(h, Layouts.HDR_INDEX_OFFSET, 64)),
                new Damage("ref_table_offset", "HM_EINCONSISTENT", h -> add(h, Layouts.HDR_REF_TABLE_OFFSET, 64)),
                new Damage("slots_offset", "HM_EINCONSISTENT", h -> add(h, Layouts.HDR_SLOTS_OFFSET, 64)),
                new Damage("file_bytes", "HM_EINCONSISTENT", h -> add(h, Layouts.HDR_FILE_BYTES, 4096)));
    }

    private static void add(ByteBuffer h, long offset, long delta) {
        h.putLong((int) offset, h.getLong((int) offset) + delta);
    }

    private static void add32(ByteBuffer h, long offset, int delta) {
        h.putInt((int) offset, h.getInt((int) offset) + delta);
    }

    @Test
    void bothLibrariesNameTheFirstWrongFieldInFormatOrder() throws Exception {
        Path valid = dir.resolve("valid.hints");
        try (HintStore store = HintStore.open(valid, HintStoreOptions.defaults().capacity(CAPACITY).maxNameBytes(MAX_NAME_BYTES))) {
            store.record("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)",
                    420_000, 1 << 20);
        }
        byte[] original = Files.readAllBytes(valid);
        List<Damage> damages = damages();
        List<String> java = new ArrayList<>();
        List<String> c = new ArrayList<>();
        List<String> want = new ArrayList<>();
        List<String> wantC = new ArrayList<>();
        int checksumStep = damages.stream().map(Damage::field).toList().indexOf("header_checksum");
        // file i: damages i.. planted, and 4096 bytes more than file_bytes (the last check)
        for (int i = 0; i <= damages.size(); i++) {
            byte[] bytes = Arrays.copyOf(original, original.length + 4096);
            ByteBuffer h = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
            for (Damage d : damages.subList(i, damages.size())) {
                d.plant().accept(h);
            }
            int from = (int) Layouts.HDR_FORMAT_VERSION;
            int length = (int) (Layouts.HDR_HEADER_CHECKSUM - from);
            long sum = Hm64.ofBytes(Arrays.copyOfRange(bytes, from, from + length), length);
            h.putLong((int) Layouts.HDR_HEADER_CHECKSUM, i <= checksumStep ? ~sum : sum);
            Path file = dir.resolve("wrong-from-" + i + ".hints");
            Files.write(file, bytes);
            // the last file has only its size wrong: both name file_bytes for that too (§9)
            want.add(i < damages.size() ? damages.get(i).field() : "file_bytes");
            wantC.add(want.getLast() + " " + (i < damages.size() ? damages.get(i).cCode() : "HM_EINCONSISTENT"));
            java.add(javaField(file));
            c.add(cField(file));
            assertTrue(Arrays.equals(bytes, Files.readAllBytes(file)), "a failed open leaves the file as it was");
        }
        assertEquals(want, java, "Java: the field of each HintFileException (its problem: HintFileValidationTest)");
        assertEquals(wantC, c, "C: the field and the code of each hm_open_ex");
    }

    /** The field Java's read-only open names. */
    private static String javaField(Path file) throws IOException {
        try {
            HintStore.open(file, HintStoreOptions.defaults().readOnly(true)).close();
            return fail("Java opened " + file);
        } catch (HintFileException e) {
            return e.field();
        }
    }

    private static final Pattern FIELD = Pattern.compile("\\[field ([a-z_]+)\\]");

    /** The field and code C's read-only open names ({@code ERR <code> <HM_E...> <message> [field f]}). */
    private static String cField(Path file) throws Exception {
        Process p = new ProcessBuilder(NativeTools.tool("hm-open").toString(), "--read-only", file.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "hm-open finished");
        assertTrue(out.startsWith("ERR "), "C opened " + file + ": " + out);
        Matcher m = FIELD.matcher(out);
        assertTrue(m.find(), "C names a field: " + out);
        return m.group(1) + " " + out.split(" ")[2];
    }
}
