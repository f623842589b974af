package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.format.Hm64Collisions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Long kernel names on the command line (FORMAT.md §1.1): {@code --name} of dump, top and export
 * finds a region by its whole name in a file that stores it shortened, and {@code diff} compares a
 * file that stores a name whole with one that stores it shortened as one region.
 */
class LongNameCliTest {
    /** 150 bytes, regular-expression characters included: what --filter cannot take as it is. */
    static final String TORCH = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>,"
            + " std::array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3>)";
    static final String OTHER = TORCH.replace("CUDAFunctor_add", "CUDAFunctor_mul");

    @TempDir
    Path dir;

    private Path file(String name, int maxNameBytes) throws Exception {
        Path file = dir.resolve(name);
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(8).maxNameBytes(maxNameBytes))) {
            store.record(TORCH, 200_000, 4096);
            store.record(TORCH, 100_000, 4096);
            store.record(OTHER, 50_000, 1024);
            store.record("gemm_bf16", 10, 1);
        }
        return file;
    }

    private static List<String> dumpedNames(String... args) throws Exception {
        JsonNode json = new ObjectMapper().readTree(Cli.run(args).expect(0).out());
        List<String> names = new ArrayList<>();
        json.get("regions").forEach(r -> names.add(r.get("name").asText()));
        return names;
    }

    @Test
    void nameSelectsALongKernelByItsWholeNameInDumpTopAndExport() throws Exception {
        Path file = file("short.hints", 64);
        String stored;
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            stored = store.storedName(TORCH);
        }
        assertEquals(64, stored.getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
        assertEquals(List.of(stored), dumpedNames("dump", "--format", "json", "--name", TORCH, file.toString()));
        assertEquals(List.of(stored), dumpedNames("dump", "--format", "json", "--name", stored, file.toString()));
        assertEquals(2, dumpedNames("dump", "--format", "json", "--name", TORCH, "--name", "gemm_bf16", file.toString()).size());
        assertEquals(List.of(), dumpedNames("dump", "--format", "json", "--name", TORCH + " ", file.toString()));
        String top = Cli.run("top", "--name", OTHER, file.toString()).expect(0).out();
        assertTrue(top.contains(Table.printable(dumpedNames("dump", "--format", "json", "--name", OTHER, file.toString()).get(0))),
                top);
        assertTrue(!top.contains("gemm_bf16"), top);
        String prom = Cli.run("export", "--prometheus", "--name", TORCH, file.toString()).expect(0).out();
        assertEquals(1, prom.lines().filter(l -> l.startsWith("hintmap_region_dispatches{")).count(), prom);
        assertTrue(prom.contains("~"), prom);
    }

    @Test
    void diffComparesANameStoredWholeAndShortenedAsOneRegion() throws Exception {
        Path whole = file("whole.hints", 256);
        Path shortened = file("short.hints", 64);
        JsonNode d = new ObjectMapper().readTree(
                Cli.run("diff", whole.toString(), shortened.toString(), "--json").expect(0).out());
        assertEquals(3, d.get("in_both").asLong(), d.toPrettyString());
        assertEquals(0, d.get("only_in_a").asLong() + d.get("only_in_b").asLong(), d.toPrettyString());
        assertEquals(1.0, d.get("overlap").asDouble());
        Path json = dir.resolve("whole.json"); // a JSON dump says its file's limit: the same comparison from it
        Files.writeString(json, Cli.run("dump", "--format", "json", whole.toString()).expect(0).out());
        d = new ObjectMapper().readTree(Cli.run("diff", json.toString(), shortened.toString(), "--json").expect(0).out());
        assertEquals(3, d.get("in_both").asLong(), d.toPrettyString());
    }

    /**
     * Issue 32 finding 1 on the command line: {@code dump --name} of a long name that shares its
     * hm64 with a recorded one (format version 2 answered with the recorded one's region) finds
     * nothing, and after both are recorded each finds its own region.
     */
    @Test
    void dumpNameTellsApartTwoLongNamesWithOneHm64() throws Exception {
        String[] pair = Hm64Collisions.pair();
        Path file = dir.resolve("collide.hints");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(8))) {
            for (int i = 0; i < 60; i++) {
                store.record(pair[0], 200_000, 4096);
            }
        }
        assertEquals(List.of(), dumpedNames("dump", "--format", "json", "--name", pair[1], file.toString()));
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            store.record(pair[1], 10, 1);
        }
        for (int i = 0; i < 2; i++) {
            JsonNode json = new ObjectMapper().readTree(
                    Cli.run("dump", "--format", "json", "--name", pair[i], file.toString()).expect(0).out());
            assertEquals(1, json.get("regions").size(), json.toPrettyString());
            assertEquals(i == 0 ? 60 : 1, json.get("regions").get(0).get("dispatch_count").asLong(), json.toPrettyString());
        }
    }
}
