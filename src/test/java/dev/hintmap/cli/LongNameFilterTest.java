package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.hintmap.format.StoredName;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 34 §2 and issue 32 #8: {@code --filter} matches stored names, one implementation for
 * {@code dump}, {@code top} and {@code export} ({@link RegionFilter}). A whole kernel name pasted as
 * the filter selects its region as {@code --name} does, stored shortened or not, whatever
 * regular-expression characters it holds; a filter that leaves out names stored shortened, whose
 * tails it could not search, says so on one line of standard error instead of dropping them
 * silently (from a listing, or from the Prometheus output).
 */
class LongNameFilterTest {
    private static final String NOTE = "2 names are stored shortened; their tails are not searchable;"
            + " `create --max-name-bytes 1024` keeps longer ones (--name NAME finds a region by its whole name)";

    @TempDir
    Path dir;

    private static Set<String> dumped(Cli.Result r) throws Exception {
        JsonNode json = new ObjectMapper().readTree(r.out());
        Set<String> names = new TreeSet<>();
        json.get("regions").forEach(region -> names.add(region.get("name").asText()));
        return names;
    }

    private static Set<String> exported(Cli.Result r) {
        Set<String> names = new TreeSet<>();
        PrometheusTextParser.Family family = PrometheusTextParser.parse(r.out()).get("hintmap_region_dispatches");
        if (family != null) {
            family.samples().forEach(s -> names.add(s.labels().get("region")));
        }
        return names;
    }

    @ParameterizedTest(name = "names up to {0} bytes")
    @ValueSource(ints = {256, 1024})
    void theExactNameOfAKernelAsTheFilterSelectsItInDumpTopAndExport(int limit) throws Exception {
        Path file = KernelNames.file(dir.resolve("k.hints"), limit);
        for (String name : List.of(KernelNames.LAYER_NORM, KernelNames.SOFTMAX, KernelNames.CUTLASS)) {
            String stored = StoredName.of(name, limit);
            Cli.Result dump = Cli.run("dump", "--format", "json", "--filter", name, file.toString()).expect(0);
            assertEquals(Set.of(stored), dumped(dump), "the name, read as a literal too: " + name);
            assertEquals("", dump.err(), "nothing left out that could have matched");
            Cli.Result export = Cli.run("export", "--prometheus", "--filter", name, file.toString()).expect(0);
            assertEquals(Set.of(stored), exported(export), name);
            String top = Cli.run("top", "--wide", "--filter", name, file.toString()).expect(0).out();
            assertTrue(top.contains(Table.printable(stored)) && !top.contains(KernelNames.TRITON), top);
        }
    }

    @Test
    void aFilterThatCannotReachTheTailsOfShortenedNamesSaysSoOnOneLine() throws Exception {
        Path file = KernelNames.file(dir.resolve("k.hints"), 256);
        Cli.Result dump = Cli.run("dump", "--format", "json", "--filter", "BFloat16", file.toString()).expect(0);
        assertEquals(Set.of(), dumped(dump), "BFloat16 is only in the tails the file does not keep");
        assertEquals(List.of("dump: note: " + NOTE), dump.err().lines().toList());
        Cli.Result export = Cli.run("export", "--prometheus", "--filter", "BFloat16", file.toString()).expect(0);
        assertEquals(Set.of(), exported(export));
        assertEquals(List.of("export: note: " + NOTE), export.err().lines().toList(),
                "the long kernels do not drop out of the Prometheus output silently");
        Cli.Result top = Cli.run("top", "--filter", "BFloat16", file.toString()).expect(0);
        assertTrue(top.out().contains("(no region matches the filter)"), top.out());
        assertEquals(List.of("top: note: " + NOTE), top.err().lines().toList());
        Cli.Result some = Cli.run("export", "--prometheus", "--filter", "Kernel2", file.toString()).expect(0);
        assertEquals(Set.of(KernelNames.CUTLASS), exported(some));
        assertEquals(List.of("export: note: " + NOTE), some.err().lines().toList(), "the two long ones were left out");
    }

    @Test
    void noNoteWhereNothingStoredShortenedWasLeftOut() throws Exception {
        Path shortened = KernelNames.file(dir.resolve("short.hints"), 256);
        Cli.Result prefix = Cli.run("dump", "--format", "json", "--filter", "layer_norm_grad", shortened.toString()).expect(0);
        assertEquals(2, dumped(prefix).size(), "a match in the kept prefix");
        assertEquals("", prefix.err(), "every shortened name selected: nothing unsearched was left out");
        assertEquals("", Cli.run("dump", "--name", KernelNames.LAYER_NORM, shortened.toString()).expect(0).err(),
                "--name finds a whole name: nothing to say");
        Path whole = KernelNames.file(dir.resolve("whole.hints"), 1024);
        Cli.Result all = Cli.run("dump", "--format", "json", "--filter", "BFloat16", whole.toString()).expect(0);
        assertEquals(Set.of(KernelNames.LAYER_NORM, KernelNames.LAYER_NORM_FP16), dumped(all), "names stored whole");
        assertEquals("", all.err());
    }

    @Test
    void theLiveViewShowsTheNoteInItsFrameNotOnStandardError() throws Exception {
        Path file = KernelNames.file(dir.resolve("k.hints"), 256);
        Cli.Result watch = Cli.run("top", "--watch", "--interval", "10", "--iterations", "2", "--filter", "BFloat16",
                file.toString()).expect(0);
        assertEquals("", watch.err(), "standard error would write over a full-screen view");
        String joined = watch.out().replace("\n  ", " "); // its lines wrapped at 100 columns, joined back
        assertEquals(2, joined.split(Pattern.quote("note: " + NOTE), -1).length - 1, "once per frame:\n" + watch.out());
        assertTrue(watch.out().lines().allMatch(l -> l.length() <= 100), watch.out());
    }

    @Test
    void aFilterThatIsNoRegularExpressionPointsAtName() throws Exception {
        Path file = KernelNames.file(dir.resolve("k.hints"), 256);
        String name = "void at::native::unrolled_elementwise_kernel<at::native::FillFunctor<float>>(int, float**)";
        Cli.Result r = Cli.run("dump", "--filter", name, file.toString()).expect(ExitCode.USAGE);
        assertTrue(r.err().lines().findFirst().orElseThrow().endsWith("(for an exact region name, use --name NAME)"),
                r.err());
    }
}
