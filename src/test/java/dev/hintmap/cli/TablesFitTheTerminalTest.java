package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintSnapshot;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionOrder;
import dev.hintmap.RegionRecord;
import dev.hintmap.format.StoredName;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Issue 34 §1: every table fits the terminal with real kernel names of up to 585 bytes — no line
 * longer than the width, every number of every row whole on one line, the tag of each name stored
 * shortened shown, and two kernels that differ only in their tails told apart — at 80 and 100
 * columns, in files that store the long names shortened (limit 256) and whole (1024). {@code --wide}
 * prints whole names; the width comes from the terminal, else {@code COLUMNS}, else 100.
 */
class TablesFitTheTerminalTest {
    @TempDir
    Path dir;

    /** The records of a file, by stored name. */
    private static Map<String, RegionRecord> records(Path file) throws Exception {
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true))) {
            return store.snapshot().regions().stream().collect(Collectors.toMap(RegionRecord::name, r -> r));
        }
    }

    /** Whether some line holds {@code cells} in this order, whole, with only spaces between them. */
    private static boolean hasRow(List<String> lines, List<String> cells) {
        Pattern row = Pattern.compile("(^|\\s)" + cells.stream().map(Pattern::quote).collect(Collectors.joining("\\s+"))
                + "(\\s|$)");
        return lines.stream().anyMatch(l -> row.matcher(l).find());
    }

    /** No line over {@code width} columns, every tag of a shortened name shown, the two long twins told apart. */
    private static void assertFits(String what, String out, int width, Map<String, RegionRecord> records, int limit) {
        List<String> lines = out.lines().toList();
        for (String line : lines) {
            assertTrue(Table.columns(line) <= width, what + ": a line of " + Table.columns(line) + " columns:\n" + out);
        }
        for (String stored : records.keySet()) {
            String tag = StoredName.tagOf(stored, limit);
            assertTrue(out.contains(tag), what + ": the tag " + tag + " of " + stored + ":\n" + out);
        }
        if (limit >= 585) {
            assertTrue(out.contains("int64_t") && out.contains("int32_t"),
                    what + ": the two names that differ only in their last bytes are told apart:\n" + out);
        }
    }

    @ParameterizedTest(name = "{0} columns, names up to {1} bytes")
    @CsvSource({"80, 256", "100, 256", "80, 1024", "100, 1024"})
    void dumpShowsEveryNumberOfEveryRegionWithinTheWidth(int width, int limit) throws Exception {
        Path file = KernelNames.file(dir.resolve("k.hints"), limit);
        Map<String, RegionRecord> records = records(file);
        String out = Cli.run("dump", "--width", Integer.toString(width), file.toString()).expect(0).out();
        assertFits("dump", out, width, records, limit);
        for (RegionRecord r : records.values()) {
            assertTrue(hasRow(out.lines().toList(), List.of("SLOW", Units.count(r.dispatchCount()),
                    Units.count(r.kernelNsTotal()), Units.count(r.meanKernelNs()), Units.count(r.kernelNsMax()),
                    Units.count(r.bytesTotal()), Units.count(r.meanBytes()))), "every number of " + r + ":\n" + out);
        }
    }

    @ParameterizedTest(name = "{0} columns, names up to {1} bytes")
    @CsvSource({"80, 256", "100, 256", "80, 1024", "100, 1024"})
    void topShowsEveryNumberOfEveryRegionWithinTheWidth(int width, int limit) throws Exception {
        Path file = KernelNames.file(dir.resolve("k.hints"), limit);
        Map<String, RegionRecord> records = records(file);
        String out = Cli.run("top", "--width", Integer.toString(width), file.toString()).expect(0).out();
        assertFits("top", out, width, records, limit);
        long total = records.values().stream().mapToLong(RegionRecord::kernelNsTotal).sum();
        List<RegionRecord> ranked = records.values().stream().sorted(RegionOrder.TOTAL_NS.comparator()).toList();
        long cumulative = 0;
        for (int i = 0; i < ranked.size(); i++) {
            RegionRecord r = ranked.get(i);
            cumulative += r.kernelNsTotal();
            boolean inHotSet = i < ranked.size() - 1; // 95% of the time: every region but the smallest (4.6%)
            List<String> cells = new ArrayList<>(inHotSet ? List.of("HOT") : List.of());
            cells.addAll(List.of("SLOW", Units.count(r.dispatchCount()), Units.duration(r.kernelNsTotal()),
                    Units.percent((double) r.kernelNsTotal() / total), Units.percent((double) cumulative / total),
                    Units.duration(r.meanKernelNs()), Units.duration(r.kernelNsMax()), Units.bytes(r.meanBytes())));
            assertTrue(hasRow(out.lines().toList(), cells), "every number of #" + (i + 1) + " " + r + ":\n" + out);
        }
        assertTrue(out.contains("21,000,063 dispatches") && out.contains("2670.38 s kernel time"),
                "the summary's figures whole, its line broken where it is too long:\n" + out);
    }

    @ParameterizedTest(name = "{0} columns, names up to {1} bytes")
    @CsvSource({"80, 256", "100, 256", "80, 1024", "100, 1024"})
    void diffShowsEveryNumberOfEveryRegionWithinTheWidth(int width, int limit) throws Exception {
        Path a = KernelNames.file(dir.resolve("a.hints"), limit);
        Path b = KernelNames.file(dir.resolve("b.hints"), limit);
        try (HintStore store = HintStore.open(b, HintStoreOptions.defaults())) {
            store.record(KernelNames.CUTLASS, 5_000_000, 64); // B - A: one region changes
        }
        Map<String, RegionRecord> inA = records(a);
        Map<String, RegionRecord> inB = records(b);
        String out = Cli.run("diff", "--width", Integer.toString(width), a.toString(), b.toString()).expect(0).out();
        assertFits("diff", out, width, inA, limit);
        for (String name : inA.keySet()) {
            RegionRecord ra = inA.get(name);
            RegionRecord rb = inB.get(name);
            long change = rb.kernelNsTotal() - ra.kernelNsTotal();
            assertTrue(hasRow(out.lines().toList(), List.of("both", Units.count(ra.dispatchCount()),
                    Units.count(rb.dispatchCount()), Units.duration(ra.kernelNsTotal()), Units.duration(rb.kernelNsTotal()),
                    (change > 0 ? "+" : "") + Units.duration(change), Units.duration(ra.meanKernelNs()),
                    Units.duration(rb.meanKernelNs()))), "every number of " + name + ":\n" + out);
        }
    }

    /** A frame of {@code top --watch}, rendered as the live view draws it, with the rates of a second refresh. */
    @ParameterizedTest(name = "{0} columns, names up to {1} bytes")
    @CsvSource({"80, 256", "100, 256", "80, 1024", "100, 1024"})
    void aLiveViewFrameShowsEveryNumberOfEveryRegionWithinTheWidth(int width, int limit) throws Exception {
        Path file = KernelNames.file(dir.resolve("k.hints"), limit);
        HintSnapshot before;
        HintSnapshot now;
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults())) {
            before = store.snapshot();
            for (String name : KernelNames.ALL) {
                store.record(name, 200_000, 4096);
            }
            now = store.snapshot();
        }
        Map<String, RegionRecord> records = now.regions().stream().collect(Collectors.toMap(RegionRecord::name, r -> r));
        WatchScreen.View view = TopView.screen(20, new RegionFilter(), file,
                new TableLayout(Screen.DEFAULT_COLUMNS, NameFitter.Style.SHORT, "…"));
        for (int height : new int[] {0, 60}) {
            String frame = String.join("\n", view.render(now, before, RegionOrder.TOTAL_NS, width, height)) + "\n";
            assertFits("top --watch", frame, width, records, limit);
            assertTrue(frame.contains("RATE") && frame.contains("GPU"), frame);
            String smallest = KernelNames.record(0).name(); // the one region outside the hot set
            for (RegionRecord r : records.values()) {
                String marks = r.name().equals(StoredName.of(smallest, limit)) ? "SLOW" : "HOT\\s+SLOW";
                Pattern row = Pattern.compile("(^|\\s)" + marks + "\\s+" + Pattern.quote(Units.count(r.dispatchCount()))
                        + "\\s+[\\d,.]+/s\\s+[\\d.]+%\\s+" + Pattern.quote(Units.duration(r.kernelNsTotal())) + "\\s+[\\d.]+%\\s+"
                        + Pattern.quote(Units.duration(r.meanKernelNs())) + "\\s+" + Pattern.quote(Units.duration(r.kernelNsMax()))
                        + "\\s+" + Pattern.quote(Units.bytes(r.meanBytes())) + "$", Pattern.MULTILINE);
                assertTrue(row.matcher(frame).find(), "every number of " + r + ", its rate included:\n" + frame);
            }
        }
        List<String> short24 = view.render(now, before, RegionOrder.TOTAL_NS, width, 24);
        assertTrue(short24.size() <= 23, "a 24-row terminal: the frame leaves the last row to the footer:\n"
                + String.join("\n", short24));
    }

    @Test
    void wideShowsEveryStoredNameWholeAndTheOneLineFormatsAlwaysDo() throws Exception {
        Path file = KernelNames.file(dir.resolve("k.hints"), 1024);
        String wide = Cli.run("dump", "-w", file.toString()).expect(0).out();
        String csv = Cli.run("dump", "--format", "csv", file.toString()).expect(0).out();
        for (String name : KernelNames.ALL) {
            assertTrue(wide.contains(name), "whole with -w: " + name + "\n" + wide);
            assertTrue(csv.contains(name), "whole in CSV: " + name);
        }
        assertTrue(wide.lines().anyMatch(l -> l.length() > 585), "a line as long as it needs");
        Cli.run("dump", "--format", "csv", "-w", file.toString()).expect(ExitCode.USAGE);
        Cli.run("diff", "--json", "--width", "80", file.toString(), file.toString()).expect(ExitCode.USAGE);
        Cli.run("top", "-w", "--width", "80", file.toString()).expect(ExitCode.USAGE);
        Cli.run("top", "--width", "0", file.toString()).expect(ExitCode.USAGE);
        Cli.run("top", "--name-style", "mangled", file.toString()).expect(ExitCode.USAGE);
        String stored = Cli.run("dump", "--width", "80", "--name-style", "stored", file.toString()).expect(0).out();
        assertTrue(stored.lines().anyMatch(l -> l.startsWith("void at::native::(anonymous namespace)::")
                && l.endsWith("Epilogue>(float*, float const*, int)")), "the stored style keeps the name's own start and end:\n"
                + stored);
    }

    @Test
    void aTableNotOnATerminalFitsOneHundredColumns() throws Exception {
        Path file = KernelNames.file(dir.resolve("k.hints"), 256);
        String out = Cli.run("dump", file.toString()).expect(0).out();
        int widest = out.lines().mapToInt(Table::columns).max().orElseThrow();
        assertTrue(widest <= 100 && widest > 90, "the default width, 100, used:\n" + out);
    }

    @Test
    void theWidthIsTheTerminalsThenColumnsThenOneHundred() {
        assertEquals(132, Screen.columns(132, "90"), "the terminal's own width first: an exported COLUMNS goes stale");
        assertEquals(90, Screen.columns(0, "90"), "not a terminal: COLUMNS");
        assertEquals(90, Screen.columns(0, " 90 "));
        assertEquals(100, Screen.columns(0, null));
        assertEquals(100, Screen.columns(0, "wide"), "a COLUMNS that is no number is ignored, as ls does");
        assertEquals(100, Screen.columns(0, "-5"));
        assertEquals("…", new Screen(() -> 0, null, StandardCharsets.UTF_8).ellipsis());
        assertEquals("...", new Screen(() -> 0, null, StandardCharsets.US_ASCII).ellipsis(),
                "a C locale prints ASCII: the cut is marked ...");
    }

    /** The command as a user runs it: a JVM whose standard output is a pseudo-terminal (util-linux script) of 76 columns. */
    @Test
    void onATerminalTheTableFitsTheTerminalsOwnWidth() throws Exception {
        Path file = KernelNames.file(dir.resolve("k.hints"), 256);
        String java = String.join(" ", List.of(ProcessHandle.current().info().command().orElseThrow(),
                "--enable-native-access=ALL-UNNAMED", "-cp", "'" + System.getProperty("java.class.path") + "'",
                HintmapCli.class.getName(), "dump", "'" + file + "'"));
        // COLUMNS set on the command itself: a shell updates an exported COLUMNS when the terminal's size changes
        List<String> onTerminal = run(List.of("script", "-q", "-e", "-c", "stty cols 76 rows 30; COLUMNS=200 " + java,
                "/dev/null"), "200");
        assertTrue(onTerminal.stream().anyMatch(l -> l.contains("SLOW")), String.join("\n", onTerminal));
        int widest = onTerminal.stream().mapToInt(Table::columns).max().orElseThrow();
        assertTrue(widest <= 76 && widest > 70, "the terminal's 76 columns, not COLUMNS=200:\n"
                + String.join("\n", onTerminal));
        List<String> piped = run(List.of("sh", "-c", java + " | cat"), "90");
        int pipedWidest = piped.stream().mapToInt(Table::columns).max().orElseThrow();
        assertTrue(pipedWidest <= 90 && pipedWidest > 80, "through a pipe, COLUMNS=90:\n" + String.join("\n", piped));
    }

    private static List<String> run(List<String> command, String columns) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("COLUMNS", columns);
        pb.environment().put("LC_ALL", "C.UTF-8");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "finished");
        assertEquals(0, p.exitValue(), out);
        List<String> lines = new ArrayList<>();
        out.lines().map(l -> l.replace("\r", "")).filter(l -> !l.isEmpty()).forEach(lines::add);
        assertFalse(lines.isEmpty(), "printed something");
        return lines;
    }
}
