package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionOrder;
import dev.hintmap.RegionRecord;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code --filter REGEX} of top, dump and export (find semantics), and {@code export --top N}. */
class RegionFilterTest {
    @TempDir
    Path dir;

    Path file;
    List<RegionRecord> regions = new ArrayList<>();

    @BeforeEach
    void write() throws Exception {
        file = Cli.writtenByJava(dir.resolve("samples.hints"));
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            store.snapshot().regions().forEach(regions::add);
        }
    }

    private Set<String> namesMatching(String regex) {
        Pattern p = Pattern.compile(regex);
        return regions.stream().map(RegionRecord::name).filter(n -> p.matcher(n).find())
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private Set<String> dumpedNames(String... filter) throws Exception {
        List<String> args = new ArrayList<>(List.of("dump", "--format", "json"));
        args.addAll(List.of(filter));
        args.add(file.toString());
        JsonNode json = new ObjectMapper().readTree(Cli.run(args.toArray(String[]::new)).expect(0).out());
        Set<String> names = new TreeSet<>();
        json.get("regions").forEach(r -> names.add(r.get("name").asText()));
        return names;
    }

    @Test
    void filterKeepsRegionsWithAMatchAnywhereInTheName() throws Exception {
        Set<String> want = namesMatching("_f|_b");
        assertTrue(want.size() >= 2 && want.size() < regions.size(), "a filter that selects some: " + want);
        assertTrue(want.contains("attention_softmax_f32") && want.contains("one_off_scan_b"), want.toString());
        assertEquals(want, dumpedNames("--filter", "_f|_b"));
    }

    @Test
    void anchorsSelectWholeNamesOnly() throws Exception {
        assertEquals(Set.of(), dumpedNames("--filter", "^gemm$"));
        assertEquals(Set.of("gemm_bf16_128x128x64"), dumpedNames("--filter", "^gemm_.*4$"));
    }

    @Test
    void theDumpTableCountsTheMatchesAgainstTheWholeFile() {
        String out = Cli.run("dump", "--filter", "scan", file.toString()).expect(0).out();
        assertTrue(out.contains("one_off_scan_a") && out.contains("one_off_scan_b"), out);
        assertFalse(out.contains("gemm"), out);
        assertTrue(out.endsWith("2 of " + regions.size() + " regions match\n"), out);
    }

    @Test
    void topShowsOnlyMatchingRowsButKeepsTheWholeFilesSummary() {
        String all = Cli.run("top", file.toString()).expect(0).out();
        String some = Cli.run("top", "--filter", "attn|softmax", file.toString()).expect(0).out();
        assertEquals(all.lines().skip(1).findFirst(), some.lines().skip(1).findFirst(), "summary line of the whole file");
        List<String> rows = some.lines().filter(l -> l.matches("\\d+\\s.*")).toList(); // a row starts with its rank
        assertEquals(2, rows.size(), some);
        assertTrue(rows.get(0).contains("flash_attn_fwd_bf16") || rows.get(0).contains("attention_softmax_f32"), some);
        assertTrue(Cli.run("top", "--filter", "nothing-like-this", file.toString()).expect(0).out()
                .contains("(no region matches the filter)"));
    }

    @Test
    void exportTopKeepsTheHottestByTotalAmongTheMatches() {
        String text = Cli.run("export", "--prometheus", "--filter", "_", "--top", "3", file.toString()).expect(0).out();
        Set<String> exported = new TreeSet<>();
        PrometheusTextParser.parse(text).get("hintmap_region_kernel_seconds").samples()
                .forEach(s -> exported.add(s.labels().get("region")));
        Set<String> want = regions.stream().filter(r -> r.name().contains("_"))
                .sorted(RegionOrder.TOTAL_NS.comparator()).limit(3).map(RegionRecord::name)
                .collect(Collectors.toCollection(TreeSet::new));
        assertEquals(want, exported);
        assertEquals(regions.size(), PrometheusTextParser.parse(text).get("hintmap_regions").samples().get(0).value(),
                "per-file metrics are of the whole file");
        assertTrue(PrometheusTextParser.parse(Cli.run("export", "--prometheus", "--top", "0", file.toString()).expect(0)
                .out()).get("hintmap_region_kernel_seconds") == null, "--top 0: no region series");
        Cli.run("export", "--prometheus", "--top", "-1", file.toString()).expect(ExitCode.USAGE);
    }

    @ParameterizedTest
    @ValueSource(strings = {"top", "dump", "export --prometheus"})
    void aBadRegexIsAUsageErrorNamedOnOneLine(String command) {
        List<String> args = new ArrayList<>(List.of(command.split(" ")));
        args.addAll(List.of("--filter", "gemm(", file.toString()));
        Cli.Result r = Cli.run(args.toArray(String[]::new)).expect(ExitCode.USAGE);
        String first = r.err().lines().findFirst().orElse("");
        assertTrue(first.contains("--filter") && first.contains("not a Java regular expression: Unclosed group"),
                r.err());
        assertFalse(r.err().lines().anyMatch(l -> l.strip().equals("^")),
                "no caret line of PatternSyntaxException's three-line message: " + r.err());
    }
}
