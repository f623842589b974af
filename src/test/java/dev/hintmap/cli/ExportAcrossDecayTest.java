package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What Prometheus sees across a {@code decay}: every series typed counter is still at or above its
 * previous value (no false counter reset), the per-region totals (gauges) went down, and the
 * {@code _created} time of the counters is unchanged (same file).
 */
class ExportAcrossDecayTest {
    @TempDir
    Path dir;

    @Test
    void countersStayMonotonicAcrossDecayWhileRegionGaugesDrop() throws Exception {
        Path file = Cli.writtenByJava(dir.resolve("samples.hints"));
        Map<String, PrometheusTextParser.Family> before = export(file);
        Cli.run("decay", "--factor", "0.25", file.toString()).expect(0);
        Map<String, PrometheusTextParser.Family> after = export(file);

        int counters = 0;
        for (PrometheusTextParser.Family family : before.values()) {
            if (!family.type().equals("counter")) {
                continue;
            }
            for (PrometheusTextParser.Sample old : family.samples()) {
                PrometheusTextParser.Sample now = find(after, old);
                assertTrue(now.value() >= old.value(), "counter " + old + " went down to " + now.value());
                counters++;
            }
        }
        assertTrue(counters >= 4, "the per-file counters are exported");

        int lowered = 0;
        for (String gauge : new String[] {"hintmap_region_dispatches", "hintmap_region_kernel_seconds",
                "hintmap_region_bytes"}) {
            assertEquals("gauge", before.get(gauge).type(), gauge);
            for (PrometheusTextParser.Sample old : before.get(gauge).samples()) {
                if (find(after, old).value() < old.value()) {
                    lowered++;
                }
            }
        }
        assertTrue(lowered > 0, "decay lowered per-region totals: typed counter they would read as resets");
        assertEquals(before.get("hintmap_evictions_created").samples(), after.get("hintmap_evictions_created").samples(),
                "same file, same series start");
    }

    private static Map<String, PrometheusTextParser.Family> export(Path file) {
        return PrometheusTextParser.parse(Cli.run("export", "--prometheus", file.toString()).expect(0).out());
    }

    private static PrometheusTextParser.Sample find(Map<String, PrometheusTextParser.Family> families,
            PrometheusTextParser.Sample like) {
        PrometheusTextParser.Family family = families.get(like.name());
        assertNotNull(family, like.name());
        return family.samples().stream().filter(s -> s.labels().equals(like.labels())).findFirst()
                .orElseThrow(() -> new AssertionError("series " + like + " gone"));
    }
}
