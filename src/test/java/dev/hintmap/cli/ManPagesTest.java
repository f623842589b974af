package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The man pages {@link ManPages} writes (the build's, without Asciidoctor): every page has every
 * option of its command, its examples, the exit statuses of {@link ExitCode} and nothing troff would
 * take for a request it does not know.
 */
class ManPagesTest {
    /** The requests the pages use; a text line starting with a dot or a quote would be read as one. */
    private static final Set<String> REQUESTS = Set.of(".\\\"", ".TH", ".SH", ".TP", ".sp", ".RS", ".RE", ".nf", ".fi",
            ".nh", ".ad", ".BR", ".PP");

    private static Map<String, CommandLine> pages() {
        Map<String, CommandLine> pages = new java.util.LinkedHashMap<>();
        CommandLine root = HintmapCli.commandLine();
        pages.put("hintmap", root);
        root.getSubcommands().forEach((name, sub) -> pages.put("hintmap-" + name, sub));
        return pages;
    }

    @Test
    void everyPageListsEveryOptionOfItsCommandAndTheExitStatuses() {
        pages().forEach((name, cli) -> {
            String page = ManPages.page(CliReference.command(cli), "2026-12-03");
            assertTrue(page.contains(".TH \"" + ManPages.escape(name.toUpperCase(java.util.Locale.ROOT)) + "\" \"1\""), name);
            for (OptionSpec o : cli.getCommandSpec().options()) {
                for (String option : o.names()) {
                    assertTrue(page.contains("\\fB" + ManPages.escape(option) + "\\fR"), name + " documents " + option);
                }
            }
            assertTrue(page.contains(".SH \"EXIT STATUS\"\n"), name);
            for (String line : ExitCode.helpLines()) {
                String text = line.strip().substring(1).strip();
                assertTrue(page.contains(ManPages.escape(text)), name + " says exit status " + line.strip().charAt(0));
            }
            assertTrue(page.contains("share/doc/hintmap/"), name + " names where the documents are installed");
            for (String example : CliReference.command(cli).examples()) {
                assertTrue(page.contains(".SH EXAMPLES\n") && page.contains("\n" + ManPages.escape(example) + "\n"),
                        name + " shows the example " + example);
            }
        });
    }

    @Test
    void noTextLineIsReadAsATroffRequest() {
        pages().forEach((name, cli) -> {
            for (String line : ManPages.page(CliReference.command(cli), "2026-12-03").split("\n")) {
                if (line.startsWith(".") || line.startsWith("'")) {
                    String request = line.startsWith(".\\\"") ? ".\\\"" : line.split(" ", 2)[0];
                    assertTrue(REQUESTS.contains(request), name + ": a line troff would read as a request: " + line);
                }
            }
        });
    }

    @Test
    void textIsEscapedForTroff() {
        assertEquals("\\-\\-follow\\-symlinks", ManPages.escape("--follow-symlinks"));
        assertEquals("C:\\eTemp", ManPages.escape("C:\\Temp"));
        assertEquals("\\&.hints files", ManPages.escape(".hints files"));
        assertEquals("\\&'quoted'", ManPages.escape("'quoted'"));
    }
}
