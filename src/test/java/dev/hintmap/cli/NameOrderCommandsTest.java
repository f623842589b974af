package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every listing of the tool orders names, and breaks ties of its key, by the one order of names
 * (FORMAT.md §1: UTF-8 bytes, unsigned), as the library and C do: names that lead with U+E000, U+FF21,
 * U+FFFD and U+1F600 (bytes EE, EF BC, EF BF, F0) come in that order, where Java's String order would put
 * the supplementary character first. Each region has the same record, so every key ties.
 */
class NameOrderCommandsTest {
    private static final String KERNEL = " void gemm_bf16_128x128<float>(Params const&)";
    /** In UTF-8 byte order. */
    private static final List<String> NAMES = List.of("\uE000" + KERNEL, "\uFF21" + KERNEL, "\uFFFD" + KERNEL,
            "\uD83D\uDE00" + KERNEL);

    @TempDir
    Path dir;

    /** A file holding every name with the same record; {@code totalNs} for each, inserted in reverse byte order. */
    private Path profile(String file, long totalNs) throws Exception {
        Path path = dir.resolve(file);
        try (HintStore store = HintStore.open(path, HintStoreOptions.defaults().capacity(16))) {
            for (String name : NAMES.reversed()) {
                store.add(new RegionRecord(name, 4, totalNs, totalNs / 4, 1 << 20));
            }
        }
        return path;
    }

    /** The names of {@link #NAMES} that {@code out} shows, in the order it shows them first. */
    private static List<String> shown(String out) {
        List<String> shown = new ArrayList<>(NAMES.stream().filter(out::contains).toList());
        shown.sort(Comparator.comparingInt(out::indexOf));
        return shown;
    }

    private static List<String> jsonNames(String json, String list) throws Exception {
        List<String> names = new ArrayList<>();
        new ObjectMapper().readTree(json).get(list).forEach(r -> names.add(r.get("name").asText()));
        return names;
    }

    @Test
    void dumpSortsByNameAndBreaksTiesOfEveryKeyByTheUtf8BytesOfTheName() throws Exception {
        Path file = profile("p.hints", 4_000_000);
        assertEquals(NAMES, jsonNames(Cli.run("dump", "--format", "json", file.toString()).expect(0).out(), "regions"),
                "--sort name, the default");
        for (String key : List.of("total", "mean", "count", "max")) {
            String json = Cli.run("dump", "--format", "json", "--sort", key, file.toString()).expect(0).out();
            assertEquals(NAMES, jsonNames(json, "regions"), "--sort " + key);
        }
        assertEquals(NAMES, shown(Cli.run("dump", "-w", file.toString()).expect(0).out()), "the table");
    }

    @Test
    void topHotAndExportRankEqualRegionsByTheUtf8BytesOfTheName() throws Exception {
        Path file = profile("p.hints", 4_000_000);
        for (String by : List.of("total", "mean", "count", "max")) {
            assertEquals(NAMES, shown(Cli.run("top", "-w", "--by", by, file.toString()).expect(0).out()), "top --by " + by);
        }
        assertEquals(NAMES, shown(Cli.run("hot", "--coverage", "1", "-w", file.toString()).expect(0).out()), "hot");
        assertEquals(NAMES.subList(0, 2), shown(Cli.run("export", "--top", "2", file.toString()).expect(0).out()),
                "export --top keeps the first two by name");
    }

    @Test
    void diffBreaksEqualChangesByTheUtf8BytesOfTheName() throws Exception {
        Path a = profile("a.hints", 4_000_000);
        Path b = profile("b.hints", 8_000_000);
        String json = Cli.run("diff", a.toString(), b.toString(), "--json").expect(0).out();
        assertEquals(NAMES, jsonNames(json, "regions"));
        assertEquals(NAMES, shown(Cli.run("diff", "-w", a.toString(), b.toString()).expect(0).out()), "the table");
    }

    @Test
    void mergeIntoASmallerFileKeepsTheFirstOfEqualRegionsByTheUtf8BytesOfTheName() throws Exception {
        Path in = profile("in.hints", 4_000_000);
        Path out = dir.resolve("out.hints");
        Cli.run("merge", "-q", "--capacity", "2", "-o", out.toString(), in.toString()).expect(0);
        assertEquals(NAMES.subList(0, 2), jsonNames(Cli.run("dump", "--format", "json", out.toString()).expect(0).out(),
                "regions"));
    }
}
