package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code docs/CLI.md}, the command reference on one page ({@link CliMarkdown}), is what the
 * picocli model gives today, short enough to read, with links that lead somewhere and examples
 * that are command lines {@code hintmap} accepts.
 */
class CliReferenceTest {
    private static final Path PAGE = Path.of("docs/CLI.md");
    private static final String REGENERATE = "./mvnw -q process-classes -Dhintmap.cli.md=docs/CLI.md";

    private static String page() throws IOException {
        return Files.readString(PAGE, StandardCharsets.UTF_8);
    }

    @Test
    void theCommittedPageIsWhatTheModelGives() throws IOException {
        assertEquals(CliMarkdown.page(CliReference.root()), page(),
                "docs/CLI.md is out of date with the commands' annotations; regenerate it: " + REGENERATE);
    }

    @Test
    void thePageIsAReferenceOfAtMostTwentyKilobytes() throws IOException {
        long bytes = Files.size(PAGE);
        assertTrue(bytes <= 20 * 1024, "docs/CLI.md has " + bytes + " bytes: keep it a reference, not prose");
    }

    @Test
    void everyCommandHasItsSectionAndEveryOptionIsOnThePage() throws IOException {
        String page = page();
        for (CliReference.Command c : CliReference.root().subcommands()) {
            assertTrue(page.contains("\n## " + c.qualifiedName() + "\n"), c.qualifiedName());
            assertTrue(page.contains(CliMarkdown.wrap(c.synopsis())), c.qualifiedName() + "'s synopsis");
            for (CliReference.Option o : c.options()) {
                assertTrue(page.contains("`" + o.usage() + "`") || page.contains("`" + o.names().getLast() + "`"),
                        c.qualifiedName() + " " + o.usage());
            }
        }
        for (CliReference.Option o : CliReference.root().options()) {
            assertTrue(page.contains("| `" + o.usage() + "` | "), "hintmap " + o.usage());
        }
        for (CliReference.ExitStatus s : CliReference.exitStatuses()) {
            assertTrue(page.contains("| " + s.status() + " | "), "exit status " + s.status());
        }
    }

    @Test
    void everyCommandButHelpHasExamples() {
        for (CliReference.Command c : CliReference.root().subcommands()) {
            if (!c.name().equals("help")) {
                assertFalse(c.examples().isEmpty(), c.qualifiedName() + " has no examples (footer = {...})");
            }
        }
    }

    @Test
    void everyRelativeLinkResolves() throws IOException {
        String page = page();
        Set<String> anchors = anchors(page);
        Matcher link = Pattern.compile("\\]\\(([^)\\s]+)\\)").matcher(page);
        int links = 0;
        while (link.find()) {
            String target = link.group(1);
            links++;
            if (target.matches("[a-z]+:.*")) {
                continue; // not relative
            }
            int hash = target.indexOf('#');
            String file = hash < 0 ? target : target.substring(0, hash);
            String anchor = hash < 0 ? null : target.substring(hash + 1);
            Path resolved = file.isEmpty() ? PAGE : PAGE.resolveSibling(file).normalize();
            assertTrue(Files.exists(resolved), "a link to " + target + ": no " + resolved);
            if (anchor != null) {
                Set<String> in = file.isEmpty() ? anchors : anchors(Files.readString(resolved, StandardCharsets.UTF_8));
                assertTrue(in.contains(anchor), "a link to " + target + ": no heading with that anchor");
            }
        }
        assertTrue(links > 0, "the page links its sections");
    }

    @Test
    void everyExampleParsesAgainstTheCommandModel() throws IOException {
        List<String> examples = examples(page());
        assertTrue(examples.size() >= 10, "examples: " + examples);
        for (String example : examples) {
            List<String> words = words(example);
            assertEquals("hintmap", words.getFirst(), example);
            String[] args = words.subList(1, words.size()).toArray(String[]::new);
            try {
                CommandLine.ParseResult parsed = HintmapCli.commandLine().parseArgs(args);
                assertTrue(parsed.hasSubcommand(), example + " names a command");
            } catch (CommandLine.ParameterException e) {
                fail(example + ": " + e.getMessage());
            }
        }
    }

    @Test
    void anExampleIsReadAsAShellWouldUpToItsRedirection() {
        assertEquals(List.of("hintmap", "dump", "--filter", "^gemm x", "a.hints"),
                words("hintmap dump --filter '^gemm x' a.hints > out.json"));
        assertEquals(List.of("hintmap", "dump", "a b"), words("hintmap dump \"a b\" | head -1"));
    }

    @Test
    void markdownTextIsShownAsWritten() {
        assertEquals("max(1, round(count \\* F))", CliMarkdown.text("max(1, round(count * F))"));
        assertEquals("kernel_ns_total, a \\_created series", CliMarkdown.text("kernel_ns_total, a _created series"));
        assertEquals("cutlass::Kernel2&lt;...>(...) \\| \\[0, 1\\]",
                CliMarkdown.text("cutlass::Kernel2<...>(...) | [0, 1]"));
        assertEquals("hintmap-stat", CliMarkdown.anchor("hintmap stat"));
        assertEquals("exit-status", CliMarkdown.anchor("Exit status"));
    }

    /** The lines of the page's {@code sh} blocks: each one command line. */
    private static List<String> examples(String page) {
        List<String> examples = new ArrayList<>();
        boolean in = false;
        for (String line : page.split("\n")) {
            if (line.equals("```sh")) {
                in = true;
            } else if (line.equals("```")) {
                in = false;
            } else if (in && !line.isBlank() && !line.startsWith("#")) {
                examples.add(line);
            }
        }
        return examples;
    }

    /** The words of a command line as a shell splits them, up to a pipe, redirection or comment. */
    static List<String> words(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder word = null;
        char quote = 0;
        for (char ch : line.toCharArray()) {
            if (quote != 0) {
                if (ch == quote) {
                    quote = 0;
                } else {
                    word.append(ch);
                }
            } else if (ch == '\'' || ch == '"') {
                quote = ch;
                word = word == null ? new StringBuilder() : word;
            } else if (Character.isWhitespace(ch)) {
                if (word != null) {
                    words.add(word.toString());
                    word = null;
                }
            } else if ("|<>;&#".indexOf(ch) >= 0 && word == null) {
                break;
            } else {
                word = word == null ? new StringBuilder() : word;
                word.append(ch);
            }
        }
        if (word != null) {
            words.add(word.toString());
        }
        return words;
    }

    /** The anchors GitHub makes of a Markdown file's headings. */
    private static Set<String> anchors(String markdown) {
        Set<String> anchors = new HashSet<>();
        boolean code = false;
        for (String line : markdown.split("\n")) {
            if (line.startsWith("```")) {
                code = !code;
            } else if (!code && line.startsWith("#")) {
                String heading = line.replaceFirst("^#+\\s*", "").replace("`", "");
                String anchor = CliMarkdown.anchor(heading);
                String unique = anchor;
                for (int n = 1; !anchors.add(unique); n++) {
                    unique = anchor + "-" + n;
                }
            }
        }
        return anchors;
    }
}
