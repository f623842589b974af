package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.RegionOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * What a terminal of 80 columns shows whole: the live view's footer (its state: paused, the refresh
 * count), {@code --help}'s exit statuses (each text under itself, the numbers alone at the left), and
 * the column names of {@code dump}'s table (never two names one space apart, where one could not
 * tell where a name of several words ends).
 */
class EightyColumnsTest {
    @TempDir Path dir;

    private static WatchKeys press(WatchKeys state, String keys) {
        for (char c : keys.toCharArray()) {
            state = state.onKey(c);
        }
        return state;
    }

    @Test
    void theLiveViewFooterKeepsPauseAndTheRefreshCountWholeAndSaysTheKeysShorter() {
        WatchKeys paused = press(WatchKeys.start(RegionOrder.TOTAL_NS), "mp");
        String footer = paused.footer(15, 15, 80);
        assertTrue(Table.columns(footer) <= 80, footer);
        assertTrue(footer.endsWith("   PAUSED   (refresh 15 of 15)"), footer);
        assertTrue(footer.startsWith("q quit  p pause  sort t/m/c/x (now mean)"), footer);
        assertEquals("q quit  p pause  sort: t total, m mean, c count, x max (now mean)   PAUSED   (refresh 15 of 15)",
                paused.footer(15, 15, 100), "the whole footer where it fits");
        for (int width = 31; width <= 120; width++) { // 31: "PAUSED   (refresh 1000 of 1000)"
            String f = paused.footer(1_000, 1_000, width);
            assertTrue(Table.columns(f) <= width, width + ": " + f);
            assertTrue(f.contains("(refresh 1000 of 1000)"), width + ": " + f);
        }
    }

    @Test
    void helpWrapsEachExitStatusUnderItsOwnTextNotToColumnZero() {
        CommandLine cli = HintmapCli.commandLine();
        cli.getCommandSpec().usageMessage().autoWidth(false).width(80);
        List<String> lines = cli.getUsageMessage(CommandLine.Help.Ansi.OFF).lines().toList();
        List<String> status = lines.subList(lines.indexOf("Exit status:") + 1, lines.size());
        assertEquals(5, status.stream().filter(l -> l.matches("  [0-4]  \\S.*")).count(), String.join("\n", status));
        StringBuilder text = new StringBuilder();
        for (String line : status) {
            assertTrue(line.length() <= 80, line);
            assertTrue(line.matches("  [0-4]  \\S.*") || line.matches(" {5}\\S.*"),
                    "a status's number, or its text's next line under its text: '" + line + "'");
            text.append(line.matches("  [0-4]  \\S.*") ? (text.isEmpty() ? "" : "\n") + line : " " + line.strip());
        }
        assertEquals(String.join("\n", ExitCode.helpLines()), text.toString(), "every word of every status, in order");
    }

    @Test
    void dumpColumnNamesOfSeveralWordsAreNeverOneSpaceFromTheNextAtEightyColumns() throws Exception {
        Path file = KernelNames.file(dir.resolve("kernels.hints"), 256);
        List<String> titles = List.of("SLOW", "DISPATCHES", "KERNEL NS TOTAL", "MEAN NS", "MAX NS", "BYTES TOTAL", "MEAN BYTES");
        for (String width : List.of("80", "100")) {
            List<String> out = Cli.run("dump", "--width", width, file.toString()).expect(0).out().lines().toList();
            assertEquals("REGION", out.get(0), "at " + width + " columns each region takes two lines");
            List<String> names = new ArrayList<>();
            for (int i = 1; i < out.size() && out.get(i).matches("[A-Z ]+"); i++) {
                names.add(out.get(i));
            }
            assertFalse(names.isEmpty(), String.join("\n", out));
            for (String line : names) {
                assertTrue(line.length() <= Integer.parseInt(width), line);
                for (String shown : Pattern.compile(" {2,}").split(line.strip())) {
                    assertTrue(titles.stream().anyMatch(t -> (" " + t + " ").contains(" " + shown + " ")),
                            "'" + shown + "' is (part of) one column's name, at " + width + " columns:\n"
                                    + String.join("\n", names));
                }
            }
        }
    }
}
