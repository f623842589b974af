package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hintmap.HintFiles;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import dev.hintmap.format.Layouts;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reliability round 3, finding 5: a file in which one region sits in two slots (its index entry
 * damaged, so the next writer inserted it again; {@code verify} exits 1) made {@code export} exit 2
 * "bad usage" with the region's name unescaped on standard error, and {@code dump --format json}
 * write a profile that {@code merge} refused. Every command that reads such a file now reports the
 * region once, its two records combined as merge combines them, with a warning whose names are
 * escaped; every message a command prints is escaped.
 */
class DamagedFileOutputTest {
    /** A name with terminal escape sequences (a title change and a screen clear) around a real kernel name. */
    static final String HOSTILE = "\u001b]0;pwned\u0007void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16"
            + "_128x128_32x3_nn_align8>(Params)\u001b[2J";
    private static final String OTHER = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>"
            + "(int, at::native::FillFunctor<float>)";

    @TempDir
    Path dir;

    /**
     * A file whose region {@link #HOSTILE} is in two slots: recorded 3 times (slot 0), its index
     * entry lost, then recorded 2 more times by the next writer, which inserted it again (slot 2).
     */
    private Path damaged(String name) throws Exception {
        Path file = dir.resolve(name);
        HintStoreOptions options = HintStoreOptions.defaults().capacity(8).maxNameBytes(256);
        try (HintStore store = HintStore.open(file, options)) {
            for (int i = 0; i < 3; i++) {
                store.record(HOSTILE, 1_000, 10);
            }
            store.record(OTHER, 7_000, 70);
        }
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.seek(Layouts.HDR_INDEX_OFFSET);
            long index = Long.reverseBytes(raf.readLong());
            raf.seek(Layouts.HDR_INDEX_ENTRIES);
            int entries = Integer.reverseBytes(raf.readInt());
            boolean lost = false;
            for (int j = 0; j < entries && !lost; j++) {
                raf.seek(index + 8L * j);
                long entry = Long.reverseBytes(raf.readLong());
                if ((entry & Layouts.INDEX_SLOT_MASK) == 1) { // slot + 1: the entry of slot 0, HOSTILE
                    raf.seek(index + 8L * j);
                    raf.writeLong(0);
                    lost = true;
                }
            }
            assertTrue(lost, "found the index entry of slot 0");
        }
        try (HintStore store = HintStore.open(file, options)) {
            store.record(HOSTILE, 4_000, 40);
            store.record(HOSTILE, 4_000, 40);
        }
        List<String> slots = new ArrayList<>();
        try (HintStore store = HintStore.open(file, options.readOnly(true))) {
            store.snapshot().regions().forEach(r -> slots.add(r.name()));
        }
        assertEquals(List.of(HOSTILE, OTHER, HOSTILE), slots, "the region is in two slots now");
        assertFalse(HintFiles.verify(file, HintStoreOptions.defaults()).ok(), "verify rejects the file");
        return file;
    }

    /** The two records combined as merge combines them: 5 dispatches, 3,000 + 8,000 ns, max 4,000, 110 bytes. */
    private static final RegionRecord COMBINED = new RegionRecord(HOSTILE, 5, 11_000, 4_000, 110);

    private static void warnedOnceEscaped(Cli.Result r) {
        assertFalse(r.err().contains("\u001b") || r.err().contains("\u0007"), "no control character reaches the terminal: " + r.err());
        assertTrue(r.err().contains("1 region(s) found in more than one slot") && r.err().contains("\\x1b]0;pwned\\x07void cutlass"),
                r.err());
        assertEquals(1, r.err().lines().count(), r.err());
    }

    @Test
    void exportReportsTheRegionOnceCombinedAndExitsZero() throws Exception {
        Path file = damaged("damaged.hints");
        Cli.Result r = Cli.run("export", "--prometheus", file.toString()).expect(ExitCode.OK);
        warnedOnceEscaped(r);
        List<PrometheusTextParser.Sample> dispatches = PrometheusTextParser.parse(r.out()).get("hintmap_region_dispatches").samples();
        assertEquals(2, dispatches.size(), r.out());
        PrometheusTextParser.Sample hostile = dispatches.stream().filter(s -> s.labels().get("region").equals(HOSTILE)).findFirst()
                .orElseThrow(() -> new AssertionError(r.out()));
        assertEquals(5.0, hostile.value());
        Path out = dir.resolve("hintmap.prom");
        warnedOnceEscaped(Cli.run("export", "--prometheus", file.toString(), "-o", out.toString()).expect(ExitCode.OK));
        assertEquals(r.out(), Files.readString(out));
    }

    @Test
    void dumpJsonOfTheFileIsAProfileMergeAccepts() throws Exception {
        Path file = damaged("damaged.hints");
        Cli.Result dump = Cli.run("dump", "--format", "json", file.toString()).expect(ExitCode.OK);
        warnedOnceEscaped(dump);
        JsonNode regions = new ObjectMapper().readTree(dump.out()).get("regions");
        assertEquals(2, regions.size(), dump.out());
        Path json = Files.writeString(dir.resolve("dump.json"), dump.out());
        Path merged = dir.resolve("merged.hints");
        Cli.run("merge", "-q", json.toString(), "-o", merged.toString()).expect(ExitCode.OK);
        try (HintStore store = HintStore.open(merged, HintStoreOptions.defaults().readOnly(true))) {
            assertEquals(COMBINED, store.recordFor(HOSTILE).orElseThrow());
            assertEquals(2, store.size());
        }
    }

    @Test
    void copyMergeDiffAndTheOtherFormatsReportTheRegionOnce() throws Exception {
        Path file = damaged("damaged.hints");
        for (String format : List.of("table", "csv")) {
            Cli.Result r = Cli.run("dump", "--format", format, file.toString()).expect(ExitCode.OK);
            warnedOnceEscaped(r);
            assertEquals(1, r.out().lines().filter(l -> l.contains("pwned")).count(), format + ":\n" + r.out());
        }
        Path copy = dir.resolve("copy.hints");
        Cli.Result copied = Cli.run("copy", "-q", file.toString(), copy.toString()).expect(ExitCode.OK);
        warnedOnceEscaped(copied);
        assertTrue(copied.out().contains(": 2 regions"), copied.out());
        assertTrue(HintFiles.verify(copy, HintStoreOptions.defaults()).ok(), "the copy is sound");
        Path merged = dir.resolve("merged.hints");
        warnedOnceEscaped(Cli.run("merge", "-q", file.toString(), "-o", merged.toString()).expect(ExitCode.OK));
        for (Path p : List.of(copy, merged)) {
            try (HintStore store = HintStore.open(p, HintStoreOptions.defaults().readOnly(true))) {
                assertEquals(COMBINED, store.recordFor(HOSTILE).orElseThrow(), p.toString());
            }
        }
        Cli.Result diff = Cli.run("diff", "--json", file.toString(), copy.toString()).expect(ExitCode.OK);
        warnedOnceEscaped(diff);
        JsonNode report = new ObjectMapper().readTree(diff.out());
        assertEquals(1.0, report.get("overlap").asDouble(), diff.out());
        assertEquals(2, report.get("in_both").asInt(), diff.out());
    }

    /** Messages of every kind go through one escaping: an error naming a region, and a path. */
    @Test
    void errorMessagesEscapeNamesAndPaths() throws Exception {
        Path json = Files.writeString(dir.resolve("twice.json"), "{\"regions\": ["
                + "{\"name\": \"\\u001b[2J" + "k\", \"dispatchCount\": 1, \"kernelNsTotal\": 5, \"kernelNsMax\": 5, \"bytesTotal\": 0},"
                + "{\"name\": \"\\u001b[2J" + "k\", \"dispatchCount\": 1, \"kernelNsTotal\": 5, \"kernelNsMax\": 5, \"bytesTotal\": 0}]}");
        Cli.Result twice = Cli.run("merge", json.toString(), "-o", dir.resolve("o.hints").toString()).expect(ExitCode.BAD_FILE);
        assertTrue(twice.err().contains("region \\x1b[2Jk appears twice"), twice.err());
        Path odd = dir.resolve("odd\u001b[31mname.hints");
        Cli.Result missing = Cli.run("stat", odd.toString()).expect(ExitCode.BAD_FILE);
        assertFalse(missing.err().contains("\u001b"), missing.err());
        assertTrue(missing.err().contains("odd\\x1b[31mname.hints"), missing.err());
    }
}
