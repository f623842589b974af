package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One spelling of the fields in every output: snake_case, as FORMAT.md, the C library, the Python
 * module and the CSV columns name them ({@code dispatch_count}); the camelCase keys hintmap 0.1.0's
 * JSON dump wrote ({@code dispatchCount}) are still read, so a profile kept from then merges.
 */
class JsonNamingTest {
    static final String GEMM = "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)";
    static final String SOFTMAX = "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float,"
            + " at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)";

    @TempDir Path dir;

    private Path file() throws Exception {
        Path file = dir.resolve("run.hints");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(16))) {
            store.record(GEMM, 420_000, 1 << 20);
            store.record(GEMM, 380_000, 1 << 20);
            store.record(SOFTMAX, 31_000, 1 << 16);
        }
        return file;
    }

    /** Every key of every object in {@code node}, at any depth. */
    private static List<String> keys(JsonNode node) {
        List<String> keys = new ArrayList<>();
        if (node.isObject()) {
            node.fieldNames().forEachRemaining(keys::add);
            node.elements().forEachRemaining(child -> keys.addAll(keys(child)));
        } else if (node.isArray()) {
            node.elements().forEachRemaining(child -> keys.addAll(keys(child)));
        }
        return keys;
    }

    @Test
    void everyJsonOutputSpellsItsKeysInSnakeCaseAndADumpsRegionKeysAreTheCsvColumns() throws Exception {
        Path file = file();
        ObjectMapper json = new ObjectMapper();
        JsonNode dump = json.readTree(Cli.run("dump", "--format", "json", file.toString()).expect(0).out());
        JsonNode stat = json.readTree(Cli.run("stat", "--json", file.toString()).expect(0).out());
        JsonNode diff = json.readTree(Cli.run("diff", "--json", file.toString(), file.toString()).expect(0).out());
        for (JsonNode output : List.of(dump, stat, diff)) {
            for (String key : keys(output)) {
                assertTrue(key.matches("[a-z][a-z0-9]*(_[a-z0-9]+)*"), "snake_case: " + key + " in\n" + output);
            }
        }
        String csvHeader = Cli.run("dump", "--format", "csv", file.toString()).expect(0).out().lines().findFirst().orElseThrow();
        List<String> regionKeys = new ArrayList<>();
        dump.get("regions").get(0).fieldNames().forEachRemaining(regionKeys::add);
        assertEquals(csvHeader, String.join(",", regionKeys), "the JSON's region keys are the CSV's columns, in order");
        JsonNode gemm = dump.get("regions").get(1); // sorted by name: "void at::..." first
        assertEquals(GEMM, gemm.get("name").asText());
        assertEquals(2, gemm.get("dispatch_count").asLong());
        assertEquals(800_000, gemm.get("kernel_ns_total").asLong());
        assertEquals(100_000, dump.get("hot_threshold_ns").asLong());
        assertEquals(1, stat.get("hot_regions").asInt());
        assertEquals(831_000, diff.get("a").get("kernel_ns_total").asLong());
    }

    /** A profile as hintmap 0.1.0's dump wrote it: camelCase keys. */
    private static String camelCaseProfile(String snakeCase) {
        String camel = snakeCase;
        for (String key : List.of("taken_at", "hot_threshold_ns", "max_name_bytes", "dispatch_count", "kernel_ns_total",
                "kernel_ns_max", "bytes_total", "mean_kernel_ns", "mean_bytes")) {
            camel = camel.replace("\"" + key + "\"", "\"" + ProfileInput.camelCase(key) + "\"");
        }
        return camel;
    }

    private static Map<String, RegionRecord> records(Path file) throws Exception {
        Map<String, RegionRecord> map = new HashMap<>();
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            store.snapshot().regions().forEach(r -> map.put(r.name(), r));
            assertEquals(50_000, store.hotThresholdNs(), "the profile's threshold, read under either spelling");
        }
        return map;
    }

    @Test
    void mergeAndDiffReadAProfileInTheSnakeCaseTheyWriteAndInTheCamelCaseOfEarlierDumps() throws Exception {
        Path file = dir.resolve("threshold.hints");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(16).hotThresholdNs(50_000))) {
            store.record(GEMM, 420_000, 1 << 20);
            store.record(GEMM, 380_000, 1 << 20);
            store.record(SOFTMAX, 31_000, 1 << 16);
        }
        String snakeText = Cli.run("dump", "--format", "json", file.toString()).expect(0).out();
        String camelText = camelCaseProfile(snakeText);
        assertTrue(camelText.contains("\"dispatchCount\"") && !camelText.contains("\"dispatch_count\""), camelText);
        Path snake = Files.writeString(dir.resolve("snake.json"), snakeText);
        Path camel = Files.writeString(dir.resolve("camel.json"), camelText);

        Map<String, RegionRecord> want = records(file);
        for (Path profile : List.of(snake, camel)) {
            Path out = dir.resolve(profile.getFileName() + ".hints");
            Cli.run("merge", "-q", profile.toString(), "-o", out.toString()).expect(0);
            assertEquals(want, records(out), profile.getFileName() + " merges to the file it was dumped from");
        }
        JsonNode diff = new ObjectMapper().readTree(Cli.run("diff", "--json", snake.toString(), camel.toString()).expect(0).out());
        assertEquals(1.0, diff.get("overlap").asDouble());
        assertEquals(2, diff.get("in_both").asInt());
    }

    @Test
    void aFieldGivenInBothSpellingsIsRefusedNamingBoth() throws Exception {
        Path json = Files.writeString(dir.resolve("both.json"), """
                {"regions": [{"name": "%s", "dispatch_count": 2, "dispatchCount": 3,
                  "kernel_ns_total": 800000, "kernel_ns_max": 420000, "bytes_total": 2097152}]}
                """.formatted(GEMM));
        Path out = dir.resolve("out.hints");
        Cli.Result r = Cli.run("merge", "-q", json.toString(), "-o", out.toString()).expect(ExitCode.BAD_FILE);
        assertTrue(r.err().contains("given twice, as \"dispatch_count\" and as \"dispatchCount\"")
                && r.err().contains("[field regions[0].dispatch_count]"), r.err());
        assertFalse(Files.exists(out));
    }
}
