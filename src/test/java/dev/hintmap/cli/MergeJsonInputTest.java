package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code merge} with JSON dumps among its inputs: mixed with hint files, and malformed ones refused with exit 3. */
class MergeJsonInputTest {
    @TempDir
    Path dir;

    @Test
    void aJsonDumpAndAHintFileMergeAsTwoHintFilesWould() throws Exception {
        Path a = Cli.writtenByJava(dir.resolve("a.hints"));
        Path b = Cli.writtenByJava(dir.resolve("b.hints"));
        Path aJson = dir.resolve("a.json");
        Files.writeString(aJson, Cli.run("dump", "--format", "json", a.toString()).expect(0).out());
        Path fromFiles = dir.resolve("files.hints");
        Path fromMixed = dir.resolve("mixed.hints");
        Cli.run("merge", a.toString(), b.toString(), "-o", fromFiles.toString(), "-q").expect(0);
        Cli.run("merge", aJson.toString(), b.toString(), "-o", fromMixed.toString(), "-q", "--weight",
                aJson + "=1").expect(0);
        assertEquals(records(fromFiles), records(fromMixed));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            truncated            | {"regions": [ {"name": "a"            | not a valid JSON dump
            trailing content     | {"regions": []} {}                      | not a valid JSON dump
            duplicate key        | {"regions": [], "regions": []}          | Duplicate field
            not an object        | [1, 2]                                  | expected one object
            no regions           | {"capacity": 4}                         | no "regions" array
            missing field        | {"regions": [{"name": "a", "dispatchCount": 1, "kernelNsTotal": 5, "bytesTotal": 0}]} | regions[0].kernel_ns_max
            fraction             | {"regions": [{"name": "a", "dispatchCount": 1.5, "kernelNsTotal": 5, "kernelNsMax": 5, "bytesTotal": 0}]} | regions[0].dispatch_count
            beyond a long        | {"regions": [{"name": "a", "dispatchCount": 1, "kernelNsTotal": 99999999999999999999, "kernelNsMax": 5, "bytesTotal": 0}]} | regions[0].kernel_ns_total
            max above total      | {"regions": [{"name": "a", "dispatchCount": 1, "kernelNsTotal": 5, "kernelNsMax": 6, "bytesTotal": 0}]} | cannot come from any sequence
            zero dispatches      | {"regions": [{"name": "a", "dispatchCount": 0, "kernelNsTotal": 0, "kernelNsMax": 0, "bytesTotal": 0}]} | cannot come from any sequence
            name twice           | {"regions": [{"name": "a", "dispatchCount": 1, "kernelNsTotal": 5, "kernelNsMax": 5, "bytesTotal": 0}, {"name": "a", "dispatchCount": 1, "kernelNsTotal": 5, "kernelNsMax": 5, "bytesTotal": 0}]} | appears twice
            capacity too large   | {"capacity": 999999999999, "regions": []} | capacity
            """)
    void aMalformedJsonDumpIsNotAUsableProfile(String what, String json, String named) throws Exception {
        Path in = dir.resolve("bad.json");
        Files.writeString(in, json);
        Path out = dir.resolve("out.hints");
        Cli.Result r = Cli.run("merge", in.toString(), "-o", out.toString(), "-q").expect(ExitCode.BAD_FILE);
        assertTrue(r.err().startsWith("hintmap merge: " + in + ": "), r.err());
        assertFalse(r.err().contains("`"), "no Java class or feature names: " + r.err());
        assertTrue(r.err().contains(named), what + ": " + r.err());
        assertEquals(1, r.err().lines().count(), "one line: " + r.err());
        assertFalse(Files.exists(out), "nothing written");
    }

    @Test
    void aHintFileNamedLikeJsonIsStillReadAsJsonAndRefused() throws Exception {
        Path hints = Cli.writtenByJava(dir.resolve("really-hints.json"));
        Cli.run("merge", hints.toString(), "-o", dir.resolve("out.hints").toString(), "-q").expect(ExitCode.BAD_FILE);
    }

    private static Map<String, RegionRecord> records(Path file) throws Exception {
        Map<String, RegionRecord> map = new HashMap<>();
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            store.snapshot().regions().forEach(r -> map.put(r.name(), r));
        }
        return map;
    }

    /**
     * Reliability round 3, gap: a JSON profile saying {@code "capacity": 0} with regions made a
     * capacity-0 file that kept none of them, exit 0, where {@code --capacity 0} is refused for
     * exactly that reason. Refused the same way now; {@code --capacity N} is the way out.
     */
    @Test
    void aJsonProfileOfCapacityZeroWithRegionsIsRefusedAsCapacityZeroIs() throws Exception {
        Path json = Files.writeString(dir.resolve("zero.json"), """
                {"capacity": 0, "regions": [
                  {"name": "void gemm_kernel<float, 128>(float const*, float*, int)", "dispatchCount": 2,
                   "kernelNsTotal": 10, "kernelNsMax": 6, "bytesTotal": 4},
                  {"name": "void softmax_warp_forward<float, 1024>(float*, float const*, int)", "dispatchCount": 1,
                   "kernelNsTotal": 5, "kernelNsMax": 5, "bytesTotal": 0}]}
                """);
        Path out = dir.resolve("out.hints");
        Cli.Result refused = Cli.run("merge", "-q", json.toString(), "-o", out.toString()).expect(ExitCode.PROBLEMS);
        assertTrue(refused.err().contains("capacity 0") && refused.err().contains("none of the 2 regions")
                && refused.err().contains("--capacity N"), refused.err());
        assertFalse(Files.exists(out));
        Cli.run("merge", "-q", json.toString(), "-o", out.toString(), "--capacity", "4").expect(ExitCode.OK);
        assertEquals(2, records(out).size());
    }
}
