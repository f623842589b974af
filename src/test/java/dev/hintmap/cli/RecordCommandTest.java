package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code hintmap record}: samples from the command line or from a CSV or JSON Lines file, recorded
 * as the library records them, into a file opened as any writer opens it; a bad input records
 * nothing and names its line.
 */
class RecordCommandTest {
    static final String GEMM = "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)";
    /** Commas and a quote: what CSV must quote. */
    static final String ELEMENTWISE = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>,"
            + " at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>) \"fill\"";
    static final String TRITON = "triton_poi_fused_add_0";

    @TempDir Path dir;

    private static Map<String, RegionRecord> records(Path file) throws Exception {
        Map<String, RegionRecord> map = new HashMap<>();
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            store.snapshot().regions().forEach(r -> map.put(r.name(), r));
        }
        return map;
    }

    /** The samples the inputs below hold, recorded by the library itself. */
    private Map<String, RegionRecord> byTheLibrary() throws Exception {
        Path file = dir.resolve("library.hints");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            store.record(GEMM, 420_000, 1 << 20);
            store.record(ELEMENTWISE, 3_100, 4_096);
            store.record(GEMM, 380_000, 1 << 20);
            store.record(TRITON, 0, 0);
        }
        return records(file);
    }

    private static String csvField(String s) {
        return "\"" + s.replace("\"", "\"\"") + "\"";
    }

    @Test
    void oneSampleFromTheCommandLineCreatesTheFileAsAWriterWouldAndAddsUp() throws Exception {
        Path file = dir.resolve("run.hints");
        Cli.Result r = Cli.run("record", file.toString(), GEMM, "420000", "1048576").expect(0);
        assertEquals("recorded 1 sample of 1 region into " + file + "\n", r.out());
        Cli.run("record", "-q", file.toString(), GEMM, "380000", "1048576").expect(0);
        RegionRecord gemm = records(file).get(GEMM);
        assertEquals(new RegionRecord(GEMM, 2, 800_000, 420_000, 2 << 20), gemm);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)),
                "created as the library creates a file");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            assertEquals(HintStoreOptions.DEFAULT_CAPACITY, store.capacity(), "the default layout");
        }
    }

    @Test
    void csvAndJsonLinesRecordWhatTheLibraryRecordsForTheSameSamples() throws Exception {
        Map<String, RegionRecord> want = byTheLibrary();
        Path csv = Files.writeString(dir.resolve("samples.csv"), String.join("\r\n",
                "kernel_ns,name,bytes_touched", // any column order
                "420000," + csvField(GEMM) + ",1048576",
                "",
                "3100," + csvField(ELEMENTWISE) + ",4096",
                "380000," + csvField(GEMM) + ",1048576",
                "0," + TRITON + ",0") + "\r\n");
        Path jsonl = Files.writeString(dir.resolve("samples.jsonl"), String.join("\n",
                "{\"name\": " + new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(GEMM)
                        + ", \"kernel_ns\": 420000, \"bytes_touched\": 1048576}",
                "{\"kernel_ns\": 3100, \"bytes_touched\": 4096, \"name\": "
                        + new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(ELEMENTWISE) + "}",
                "",
                "{\"name\": \"" + GEMM + "\", \"kernel_ns\": 380000, \"bytes_touched\": 1048576}",
                "{\"name\": \"" + TRITON + "\", \"kernel_ns\": 0, \"bytes_touched\": 0}"));
        for (Path input : List.of(csv, jsonl)) {
            Path file = dir.resolve(input.getFileName() + ".hints");
            Cli.Result r = Cli.run("record", file.toString(), "--samples", input.toString()).expect(0);
            assertEquals("recorded 4 samples of 3 regions into " + file + "\n", r.out());
            assertEquals(want, records(file), input.getFileName().toString());
        }
    }

    @Test
    void samplesFromStandardInput() throws Exception {
        InputStream stdin = System.in;
        Path file = dir.resolve("stdin.hints");
        try {
            System.setIn(new ByteArrayInputStream(("name,kernel_ns,bytes_touched\n" + TRITON + ",3000,4096\n")
                    .getBytes(StandardCharsets.UTF_8)));
            Cli.run("record", "-q", file.toString(), "--samples", "-").expect(0);
        } finally {
            System.setIn(stdin);
        }
        assertEquals(new RegionRecord(TRITON, 1, 3_000, 3_000, 4_096), records(file).get(TRITON));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            negative time          | name,kernel_ns,bytes_touched\\na,1,2\\nb,-5,0                     | line 3: kernel_ns must be an integer in [0,
            negative bytes (JSONL) | {"name": "a", "kernel_ns": 1, "bytes_touched": 2}\\n{"name": "b", "kernel_ns": 1, "bytes_touched": -1} | line 2: bytes_touched must be an integer
            beyond a long          | name,kernel_ns,bytes_touched\\nb,99999999999999999999,0            | line 2: kernel_ns must be an integer
            a fraction (JSONL)     | {"name": "a", "kernel_ns": 1.5, "bytes_touched": 2}                 | line 1: kernel_ns must be an integer
            empty name             | name,kernel_ns,bytes_touched\\na,1,2\\n"",1,2                      | line 3: region name is empty
            empty name (JSONL)     | {"name": "", "kernel_ns": 1, "bytes_touched": 2}                    | line 1: region name is empty
            unquoted comma         | name,kernel_ns,bytes_touched\\nvoid k<4, float>(int),1,2           | line 2: 4 fields; a sample has 3
            a missing field        | name,kernel_ns,bytes_touched\\na,1                                  | line 2: 2 fields; a sample has 3
            a missing key (JSONL)  | {"name": "a", "kernel_ns": 1}                                       | line 1: the keys are kernel_ns, name
            another key (JSONL)    | {"name": "a", "kernel_ns": 1, "bytes": 2}                           | line 1: the keys are bytes, kernel_ns, name
            not JSON (JSONL)       | {"name": "a", "kernel_ns": 1, "bytes_touched": 2}\\n{"name": "b",  | line 2: not a JSON object on one line
            another header         | name,kernelNs,bytesTouched\\na,1,2                                  | line 1: the first line must name the columns name,kernel_ns,bytes_touched
            an unclosed quote      | name,kernel_ns,bytes_touched\\n"a,1,2                               | not CSV: Missing closing quote
            """)
    void aBadInputIsExitThreeNamingTheLineAndRecordsNothing(String what, String text, String named) throws Exception {
        Path file = dir.resolve("kept.hints");
        Cli.run("record", "-q", file.toString(), GEMM, "1000", "64").expect(0);
        byte[] before = Files.readAllBytes(file);
        Path input = Files.writeString(dir.resolve("bad.in"), text.replace("\\n", "\n"));
        Cli.Result r = Cli.run("record", file.toString(), "--samples", input.toString()).expect(ExitCode.BAD_FILE);
        assertTrue(r.err().startsWith("hintmap record: " + input + ": "), r.err());
        assertTrue(r.err().contains(named), what + ": " + r.err());
        assertEquals(1, r.err().lines().count(), r.err());
        assertEquals(Map.of(GEMM, new RegionRecord(GEMM, 1, 1000, 1000, 64)), records(file), "nothing recorded: " + what);
        assertEquals(before.length, Files.readAllBytes(file).length);
    }

    @Test
    void aLineThatIsNotUtf8IsNamedAndNothingIsRecorded() throws Exception {
        Path file = dir.resolve("utf8.hints");
        byte[] latin1 = "name,kernel_ns,bytes_touched\na,1,2\nk\u00e9rnel,1,2\n".getBytes(StandardCharsets.ISO_8859_1);
        Path input = Files.write(dir.resolve("latin1.csv"), latin1);
        Cli.Result r = Cli.run("record", file.toString(), "--samples", input.toString()).expect(ExitCode.BAD_FILE);
        assertEquals("hintmap record: " + input + ": line 3: not valid UTF-8 (region names are UTF-8 text)\n", r.err());
        assertFalse(Files.exists(file), "nothing recorded, not even the file created");
    }

    @Test
    void aNameLongerThanTheFilesLimitIsStoredShortenedAndFoundByItsWholeName() throws Exception {
        Path file = dir.resolve("limit.hints");
        Cli.run("create", file.toString(), "--capacity", "8", "--max-name-bytes", "64").expect(0);
        Cli.Result r = Cli.run("record", file.toString(), ELEMENTWISE, "3100", "4096").expect(0);
        assertTrue(r.err().startsWith("record: note: 1 name is longer than the file's 64 bytes and stored shortened"),
                r.err());
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            assertEquals(1, store.recordFor(ELEMENTWISE).orElseThrow().dispatchCount(), "found by the whole name");
            assertEquals(store.storedName(ELEMENTWISE), store.snapshot().regions().get(0).name());
        }
        assertTrue(Cli.run("dump", "--name", ELEMENTWISE, "--format", "csv", file.toString()).expect(0).out()
                .contains(",1,3100,3100,4096,"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            negative time    | -5     | 4096 | KERNEL_NS must be an integer in [0, 9223372036854775807], not '-5'
            negative bytes   | 3000   | -1   | BYTES must be an integer in [0, 9223372036854775807], not '-1'
            a fraction       | 1.5    | 0    | KERNEL_NS must be an integer
            beyond a long    | 3000   | 99999999999999999999 | BYTES must be an integer
            """)
    void aBadValueOnTheCommandLineIsAUsageError(String what, String kernelNs, String bytes, String message) {
        Path file = dir.resolve("never.hints");
        Cli.Result r = Cli.run("record", file.toString(), GEMM, kernelNs, bytes).expect(ExitCode.USAGE);
        assertTrue(r.err().startsWith("hintmap record: " + message), what + ": " + r.err());
        assertFalse(Files.exists(file), what);
    }

    @Test
    void aBadNameOrCommandLineIsAUsageErrorAndCreatesNothing() {
        Path file = dir.resolve("never.hints");
        assertTrue(Cli.run("record", file.toString(), "", "1", "2").expect(ExitCode.USAGE).err()
                .startsWith("hintmap record: NAME: region name is empty"));
        // What the JVM makes of argument bytes that are not UTF-8 (or of any non-ASCII byte under a C locale).
        assertTrue(Cli.run("record", file.toString(), "k\uFFFDrnel", "1", "2").expect(ExitCode.USAGE).err()
                .contains("NAME is not valid UTF-8 text"));
        assertTrue(Cli.run("record", file.toString(), GEMM, "1").expect(ExitCode.USAGE).err()
                .contains("give one sample as NAME KERNEL_NS BYTES, or --samples IN"));
        assertTrue(Cli.run("record", file.toString(), GEMM, "1", "2", "--samples", "x.csv").expect(ExitCode.USAGE).err()
                .contains("not both"));
        assertTrue(Cli.run("record", dir.resolve("run.json").toString(), GEMM, "1", "2").expect(ExitCode.USAGE).err()
                .contains("read a name ending in .json as a JSON profile"));
        assertFalse(Files.exists(file));
        assertFalse(Files.exists(dir.resolve("run.json")));
    }

    @Test
    void itRecordsBesideALiveWriterUnderTheRulesEveryCommandOpensFilesBy() throws Exception {
        Path file = dir.resolve("live.hints");
        try (HintStore runtime = HintStore.open(file, HintStoreOptions.defaults().capacity(16))) {
            runtime.record(GEMM, 420_000, 1 << 20);
            Cli.run("record", "-q", file.toString(), GEMM, "380000", "1048576").expect(0);
            runtime.record(GEMM, 400_000, 1 << 20);
            assertEquals(3, runtime.recordFor(GEMM).orElseThrow().dispatchCount(), "both writers' samples, none lost");
        }
        Path link = Files.createSymbolicLink(dir.resolve("link.hints"), file);
        assertTrue(Cli.run("record", link.toString(), TRITON, "1", "2").expect(ExitCode.BAD_FILE).err()
                .contains("--follow-symlinks"));
        Cli.run("record", "-q", "--follow-symlinks", link.toString(), TRITON, "1", "2").expect(0);
        assertEquals(1, records(file).get(TRITON).dispatchCount());
        Path text = Files.writeString(dir.resolve("notes.txt"), "not a hint file\n".repeat(500));
        byte[] notes = Files.readAllBytes(text);
        Cli.run("record", text.toString(), TRITON, "1", "2").expect(ExitCode.BAD_FILE);
        assertArrayEquals(notes, Files.readAllBytes(text), "a file that is not a hint file is left alone");
        Cli.run("record", Files.createDirectory(dir.resolve("d")).toString(), TRITON, "1", "2").expect(ExitCode.BAD_FILE);
    }
}
