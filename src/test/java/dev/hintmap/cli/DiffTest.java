package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code hintmap diff A B}: per-region changes and the overlap sum of min(share_A, share_B) of kernel time. */
class DiffTest {
    @TempDir
    Path dir;

    private Path profile(String name, RegionRecord... records) throws Exception {
        Path file = dir.resolve(name);
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(16))) {
            for (RegionRecord r : records) {
                store.add(r);
            }
        }
        return file;
    }

    private static JsonNode json(Path a, Path b, String... more) throws Exception {
        String[] args = new String[3 + more.length];
        args[0] = "diff";
        args[1] = a.toString();
        args[2] = b.toString();
        System.arraycopy(more, 0, args, 3, more.length);
        String[] withJson = java.util.Arrays.copyOf(args, args.length + 1);
        withJson[args.length] = "--json";
        return new ObjectMapper().readTree(Cli.run(withJson).expect(0).out());
    }

    @Test
    void aProfileOverlapsItselfFullyWithNoChange() throws Exception {
        Path a = Cli.writtenByJava(dir.resolve("a.hints"));
        Path c = Cli.writtenByC(dir.resolve("c.hints"));
        JsonNode d = json(a, c);
        assertEquals(1.0, d.get("overlap").asDouble());
        assertEquals(0, d.get("only_in_a").asLong() + d.get("only_in_b").asLong());
        for (JsonNode r : d.get("regions")) {
            assertEquals("both", r.get("in").asText());
            assertEquals(0, r.get("kernel_ns_total_change").asLong() | r.get("dispatch_count_change").asLong());
        }
    }

    @Test
    void disjointProfilesOverlapZero() throws Exception {
        Path a = profile("a.hints", new RegionRecord("x", 1, 10, 10, 0));
        Path b = profile("b.hints", new RegionRecord("y", 2, 40, 30, 0));
        JsonNode d = json(a, b);
        assertEquals(0.0, d.get("overlap").asDouble());
        assertEquals(1, d.get("only_in_a").asLong());
        assertEquals(1, d.get("only_in_b").asLong());
    }

    /**
     * A: x 300 ns in 3 dispatches, y 100 ns in 1 (shares 0.75, 0.25). B: x 100 ns in 1, z 100 ns in 2
     * (shares 0.5, 0.5). Overlap = min(0.75, 0.5) + min(0.25, 0) + min(0, 0.5) = 0.5. Changes B - A:
     * x -200 ns (largest, first), then y -100 and z +100 (equal size: by name).
     */
    @Test
    void aHandComputedExampleGivesTheExpectedJson() throws Exception {
        Path a = profile("a.hints", new RegionRecord("x", 3, 300, 120, 30), new RegionRecord("y", 1, 100, 100, 0));
        Path b = profile("b.hints", new RegionRecord("x", 1, 100, 100, 10), new RegionRecord("z", 2, 100, 60, 0));
        String want = """
                {"a": {"file": "A", "regions": 2, "kernel_ns_total": 400},
                 "b": {"file": "B", "regions": 2, "kernel_ns_total": 200},
                 "overlap": 0.5, "in_both": 1, "only_in_a": 1, "only_in_b": 1,
                 "regions": [
                   {"name": "x", "in": "both", "a": {"dispatch_count": 3, "kernel_ns_total": 300, "mean_kernel_ns": 100},
                    "b": {"dispatch_count": 1, "kernel_ns_total": 100, "mean_kernel_ns": 100},
                    "dispatch_count_change": -2, "kernel_ns_total_change": -200, "mean_kernel_ns_change": 0},
                   {"name": "y", "in": "a", "a": {"dispatch_count": 1, "kernel_ns_total": 100, "mean_kernel_ns": 100},
                    "b": null, "dispatch_count_change": -1, "kernel_ns_total_change": -100, "mean_kernel_ns_change": -100},
                   {"name": "z", "in": "b", "a": null, "b": {"dispatch_count": 2, "kernel_ns_total": 100, "mean_kernel_ns": 50},
                    "dispatch_count_change": 2, "kernel_ns_total_change": 100, "mean_kernel_ns_change": 50}]}
                """.replace("\"A\"", new ObjectMapper().writeValueAsString(a.toString()))
                .replace("\"B\"", new ObjectMapper().writeValueAsString(b.toString()));
        assertEquals(new ObjectMapper().readTree(want), json(a, b));
        assertEquals(1, json(a, b, "-n", "1").get("regions").size(), "-n bounds the list, not the counts");

        String table = Cli.run("diff", a.toString(), b.toString()).expect(0).out().replace(a.toString(), "A.hints")
                .replace(b.toString(), "B.hints");
        assertEquals("""
                A: A.hints  2 regions, 400 ns kernel time
                B: B.hints  2 regions, 200 ns kernel time
                overlap 0.5000 (of the kernel time distributions: 1 identical, 0 disjoint)
                regions: 1 in both, 1 only in A, 1 only in B

                REGION  IN    DISPATCHES A  DISPATCHES B  TOTAL A  TOTAL B   CHANGE  MEAN A  MEAN B  CHANGE
                x       both             3             1   300 ns   100 ns  -200 ns  100 ns  100 ns    0 ns
                y       A                1             -   100 ns        -  -100 ns  100 ns       -
                z       B                -             2        -   100 ns  +100 ns       -   50 ns
                """.lines().map(String::stripTrailing).toList(),
                table.lines().map(String::stripTrailing).toList());
    }

    @Test
    void overlapIgnoresScaleAndTreatsEmptyProfiles() {
        List<RegionRecord> a = List.of(new RegionRecord("x", 1, 30, 30, 0), new RegionRecord("y", 1, 10, 10, 0));
        List<RegionRecord> tenTimes = List.of(new RegionRecord("x", 10, 300, 30, 0), new RegionRecord("y", 10, 100, 10, 0));
        assertEquals(1.0, ProfileDiff.overlap(a, tenTimes), 1e-12);
        assertEquals(1.0, ProfileDiff.overlap(List.of(), List.of()));
        assertEquals(0.0, ProfileDiff.overlap(a, List.of()));
        List<RegionRecord> saturated = List.of(new RegionRecord("x", 3, Long.MAX_VALUE, Long.MAX_VALUE, 0),
                new RegionRecord("y", 1, Long.MAX_VALUE, Long.MAX_VALUE, 0));
        assertEquals(0.75, ProfileDiff.overlap(a, saturated), 1e-12, "min(0.75, 0.5) + min(0.25, 0.5)");
    }

    @Test
    void aJsonDumpIsAcceptedAsEitherSide() throws Exception {
        Path a = Cli.writtenByJava(dir.resolve("a.hints"));
        Path json = dir.resolve("a.json");
        Files.writeString(json, Cli.run("dump", "--format", "json", a.toString()).expect(0).out());
        assertEquals(1.0, json(json, a).get("overlap").asDouble());
        assertTrue(Cli.run("diff", a.toString(), dir.resolve("missing.hints").toString()).exit() == ExitCode.BAD_FILE);
        Cli.run("diff", a.toString(), a.toString(), "-n", "-1").expect(ExitCode.USAGE);
    }
}
