package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * {@code dump --format json} is a text profile that round-trips: a profile written to a hint file,
 * dumped as JSON and merged from that JSON into a new hint file has exactly the records it had.
 */
class JsonProfileProperties {
    /** MergeProperties' records (some near saturation) under names that JSON must escape. */
    @Provide
    Arbitrary<List<RegionRecord>> profile() {
        Arbitrary<String> names = Arbitraries.of(DumpAndExportTest.NAMES);
        return new MergeProperties().profile().flatMap(records -> names.list().ofSize(records.size()).map(fresh -> {
            Map<String, RegionRecord> byName = new LinkedHashMap<>();
            for (int i = 0; i < records.size(); i++) {
                RegionRecord r = records.get(i);
                String name = i % 2 == 0 ? r.name() : fresh.get(i); // half keep MergeProperties' names
                byName.putIfAbsent(name, new RegionRecord(name, r.dispatchCount(), r.kernelNsTotal(), r.kernelNsMax(),
                        r.bytesTotal()));
            }
            return new ArrayList<>(byName.values());
        }));
    }

    @Property(tries = 25)
    void fileToJsonDumpToMergedFileKeepsEveryRecord(@ForAll("profile") List<RegionRecord> profile,
            @ForAll boolean jsonExtension) throws Exception {
        Path dir = Files.createTempDirectory("json-profile");
        try {
            Path original = dir.resolve("a.hints");
            try (HintStore store = HintStore.open(original, HintStoreOptions.defaults().capacity(16).hotThresholdNs(777))) {
                profile.forEach(store::add);
            }
            // Without the extension the content tells: its first byte is '{'.
            Path json = dir.resolve(jsonExtension ? "a.json" : "a.profile");
            Files.writeString(json, Cli.run("dump", "--format", "json", original.toString()).expect(0).out());
            Path merged = dir.resolve("b.hints");
            Cli.run("merge", json.toString(), "-o", merged.toString(), "-q").expect(0);

            Map<String, RegionRecord> want = new HashMap<>();
            profile.forEach(r -> want.put(r.name(), r));
            Map<String, RegionRecord> got = new HashMap<>();
            try (HintStore store = HintStore.open(merged, HintStoreOptions.defaults().readOnly(true))) {
                store.snapshot().regions().forEach(r -> got.put(r.name(), r));
                assertEquals(16, store.capacity(), "capacity taken from the dump");
                assertEquals(777, store.info().hotThresholdNs(), "hot threshold taken from the dump");
            }
            assertEquals(want, got);
        } finally {
            try (var files = Files.list(dir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
            Files.delete(dir);
        }
    }
}
