package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionOrder;
import dev.hintmap.RegionRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code dump} JSON and CSV, and {@code export --prometheus}, parsed back by real parsers and compared with the file. */
class DumpAndExportTest {
    /** Names a generator may well produce, and names a hostile writer may choose. */
    static final List<String> NAMES = List.of(
            "plain_gemm", "with space", "comma,separated", "double\"quote", "single'quote", "back\\slash",
            "new\nline", "tab\there", "carriage\rreturn", "nul\0byte", "bell\u0007", "esc\u001b[2J",
            "emoji_\uD83D\uDE80", "カーネル", "c1\u0085control", "=equals", "#hash", "{brace}", "trailing\\");

    @TempDir
    Path dir;

    Path file;
    Map<String, RegionRecord> expected;

    @BeforeEach
    void write() throws Exception {
        file = dir.resolve("names.hints");
        expected = new HashMap<>();
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().hotThresholdNs(5_000))) {
            long ns = 1_000;
            for (String name : NAMES) {
                store.record(name, ns, ns * 2);
                store.record(name, ns * 3, 7);
                ns += 997;
            }
            store.record("huge", Long.MAX_VALUE, Long.MAX_VALUE);
            store.record("huge", Long.MAX_VALUE, 1);
            store.snapshot().regions().forEach(r -> expected.put(r.name(), r));
        }
        assertEquals(NAMES.size() + 1, expected.size());
    }

    @Test
    void jsonParsesBackToExactlyTheFilesRecords() throws Exception {
        JsonNode json = new ObjectMapper().readTree(Cli.run("dump", "--format", "json", file.toString()).expect(0).out());
        assertEquals(file.toString(), json.get("file").asText());
        assertEquals(256, json.get("capacity").asInt());
        assertEquals(5_000, json.get("hot_threshold_ns").asLong());
        Map<String, RegionRecord> parsed = new HashMap<>();
        List<String> order = new ArrayList<>();
        for (JsonNode r : json.get("regions")) {
            RegionRecord record = new RegionRecord(r.get("name").asText(), r.get("dispatch_count").asLong(),
                    r.get("kernel_ns_total").asLong(), r.get("kernel_ns_max").asLong(), r.get("bytes_total").asLong());
            parsed.put(record.name(), record);
            order.add(record.name());
            assertEquals(record.meanKernelNs(), r.get("mean_kernel_ns").asLong());
            assertEquals(record.meanBytes(), r.get("mean_bytes").asLong());
            assertEquals(record.meanKernelNs() >= 5_000, r.get("hot").asBoolean());
            assertTrue(r.get("dispatch_count").isIntegralNumber() && r.get("kernel_ns_total").canConvertToLong());
        }
        assertEquals(expected, parsed);
        assertEquals(order.stream().sorted(RegionOrder::compareNames).toList(), order, "sorted by name by default");
        assertEquals(Long.MAX_VALUE, parsed.get("huge").kernelNsTotal(), "saturated totals print exactly");
    }

    @Test
    void csvParsesBackToExactlyTheFilesRecords() throws Exception {
        String csv = Cli.run("dump", "--format", "csv", "--sort", "count", file.toString()).expect(0).out();
        CsvMapper mapper = new CsvMapper();
        List<Map<String, String>> rows = new ArrayList<>();
        try (MappingIterator<Map<String, String>> it = mapper.readerFor(Map.class)
                .with(CsvSchema.emptySchema().withHeader()).readValues(csv)) {
            it.forEachRemaining(rows::add);
        }
        assertEquals(DumpCommand.COLUMNS, new ArrayList<>(rows.get(0).keySet()));
        Map<String, RegionRecord> parsed = new HashMap<>();
        for (Map<String, String> row : rows) {
            RegionRecord r = new RegionRecord(row.get("name"), Long.parseLong(row.get("dispatch_count")),
                    Long.parseLong(row.get("kernel_ns_total")), Long.parseLong(row.get("kernel_ns_max")),
                    Long.parseLong(row.get("bytes_total")));
            parsed.put(r.name(), r);
            assertEquals(String.valueOf(r.meanKernelNs() >= 5_000), row.get("hot"));
        }
        assertEquals(expected, parsed);
    }

    @Test
    void csvColumnsAreTheJsonKeysOfARegionInSnakeCaseAsTheHelpSays() throws Exception {
        String json = Cli.run("dump", "--format", "json", file.toString()).expect(0).out();
        com.fasterxml.jackson.databind.JsonNode region = new com.fasterxml.jackson.databind.ObjectMapper().readTree(json)
                .get("regions").get(0);
        List<String> keys = new ArrayList<>();
        region.fieldNames().forEachRemaining(keys::add);
        List<String> snake = keys.stream().map(k -> k.replaceAll("([A-Z])", "_$1").toLowerCase(java.util.Locale.ROOT)).toList();
        assertEquals(DumpCommand.COLUMNS, snake, "the same fields in the same order: " + keys);
        String csvHeader = Cli.run("dump", "--format", "csv", file.toString()).expect(0).out().lines().findFirst().orElseThrow();
        assertEquals(String.join(",", DumpCommand.COLUMNS), csvHeader);
        assertTrue(Cli.run("dump", "--help").expect(0).out().contains("snake_case"), "the help says which is which");
    }

    @Test
    void theTableShowsControlCharactersEscapedOnOneLinePerRegion() {
        String out = Cli.run("dump", "--wide", file.toString()).expect(0).out();
        assertFalse(out.contains("\u001b") || out.contains("\u0007") || out.contains("\r") || out.contains("\0"),
                "no raw control character reaches the terminal");
        assertTrue(out.contains("esc\\x1b[2J"), out);
        assertTrue(out.contains("new\\x0aline"), out);
        assertEquals(1 + NAMES.size() + 1 + 1, out.split("\n").length, "header, one line per region, total");
        for (String width : List.of("100", "40")) { // names shortened to fit: from their escaped form
            String fitted = Cli.run("dump", "--width", width, file.toString()).expect(0).out();
            assertFalse(fitted.contains("\u001b") || fitted.contains("\u0007") || fitted.contains("\r")
                    || fitted.contains("\0"), "no raw control character at width " + width + ":\n" + fitted);
        }
    }

    @Test
    void prometheusExportIsValidTextFormatWithEveryRegionAndItsValues() throws Exception {
        String text = Cli.run("export", "--prometheus", file.toString()).expect(0).out();
        Map<String, PrometheusTextParser.Family> families = PrometheusTextParser.parse(text);
        PrometheusTextParser.Family dispatches = families.get("hintmap_region_dispatches");
        assertEquals("gauge", dispatches.type(), "decay lowers it: not a counter");
        assertEquals("Kernel dispatches recorded for the region (a gauge: decay and eviction lower it).",
                dispatches.help());
        Map<String, Double> byRegion = new HashMap<>();
        for (PrometheusTextParser.Sample s : dispatches.samples()) {
            assertEquals(file.toString(), s.labels().get("file"));
            byRegion.put(s.labels().get("region"), s.value());
        }
        Map<String, Double> want = new HashMap<>();
        expected.forEach((name, r) -> want.put(name, (double) r.dispatchCount()));
        assertEquals(want, byRegion, "every region, names unescaped exactly");
        for (PrometheusTextParser.Sample s : families.get("hintmap_region_kernel_seconds").samples()) {
            assertEquals(expected.get(s.labels().get("region")).kernelNsTotal() / 1e9, s.value(), 1e-9);
        }
        for (PrometheusTextParser.Sample s : families.get("hintmap_region_hot").samples()) {
            assertEquals(expected.get(s.labels().get("region")).meanKernelNs() >= 5_000 ? 1.0 : 0.0, s.value());
        }
        assertEquals("gauge", families.get("hintmap_region_kernel_max_seconds").type());
        assertEquals("gauge", families.get("hintmap_region_bytes").type());
        assertEquals(20.0, families.get("hintmap_regions").samples().get(0).value());
        assertEquals(256.0, families.get("hintmap_capacity_regions").samples().get(0).value());
        assertEquals(5e-6, families.get("hintmap_hot_threshold_seconds").samples().get(0).value());
        assertEquals("counter", families.get("hintmap_evictions_total").type());
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            assertEquals(store.info().created().toEpochMilli() / 1e3,
                    families.get("hintmap_evictions_created").samples().get(0).value(), 1e-3,
                    "a per-file counter starts at the file's creation");
        }
    }

    @Test
    void exportWithoutAFormatOptionWritesThePrometheusTextAsWithIt() {
        Cli.Result plain = Cli.run("export", file.toString()).expect(0);
        assertEquals("", plain.err());
        assertEquals(Cli.run("export", "--prometheus", file.toString()).expect(0).out(), plain.out(),
                "Prometheus is the only format, so the default; --prometheus stays accepted");
        assertEquals(20, PrometheusTextParser.parse(plain.out()).get("hintmap_region_dispatches").samples().size());
    }

    @Test
    void theStrictParserRejectsWhatTheFormatForbids() {
        assertThrows(IllegalArgumentException.class, () -> PrometheusTextParser.parse("a{b=\"x\\t\"} 1\n"), "bad escape");
        assertThrows(IllegalArgumentException.class, () -> PrometheusTextParser.parse("a{b=\"x\"} 1"), "no final LF");
        assertThrows(IllegalArgumentException.class, () -> PrometheusTextParser.parse("a-b 1\n"), "bad name");
        assertThrows(IllegalArgumentException.class, () -> PrometheusTextParser.parse("a{b=x} 1\n"), "unquoted");
        assertThrows(IllegalArgumentException.class,
                () -> PrometheusTextParser.parse("# TYPE a counter\na 1\n"), "counter without _total");
        assertThrows(IllegalArgumentException.class, () -> PrometheusTextParser.parse("a 1\nb 1\na 2\n"), "split family");
        assertThrows(IllegalArgumentException.class, () -> PrometheusTextParser.parse("a 1\na 2\n"), "series twice");
        assertThrows(IllegalArgumentException.class, () -> PrometheusTextParser.parse("a one\n"), "bad value");
        assertEquals(1, PrometheusTextParser.parse("# TYPE a_total counter\na_total{x=\"\\\\\\n\\\"\"} +Inf 17\n").size());
    }

    @Test
    void exportToAFileReplacesItAtomically() throws Exception {
        Path prom = dir.resolve("hintmap.prom");
        Files.writeString(prom, "old");
        Cli.run("export", "--prometheus", "-o", prom.toString(), file.toString()).expect(0);
        String text = Files.readString(prom);
        assertEquals(Cli.run("export", "--prometheus", file.toString()).out(), text);
        try (var listing = Files.list(dir)) {
            assertEquals(List.of("hintmap.prom", "names.hints"), listing.map(p -> p.getFileName().toString()).sorted().toList(),
                    "no temporary file left");
        }
    }
}
