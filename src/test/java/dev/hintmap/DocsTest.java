package dev.hintmap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The documents a user reads stay readable: together at most 200 KiB, the README at most 12 KiB,
 * no issue numbers, and every relative link leads to a file that exists.
 *
 * <p>"The documents a user reads" are the {@code *.md} files found on disk under the project root,
 * except the archive of measurement logs and findings ({@code docs/archive/}), the benchmark notes
 * the performance report reads ({@code src/jmh/resources}), the fuzzer's corpus notes
 * ({@code native-bench/fuzz}) and build or tool output ({@code target}, {@code build},
 * {@code node_modules}, {@code __pycache__}, and every directory whose name starts with a dot, such
 * as {@code .git} and {@code .pytest_cache}).
 *
 * <p>Design notes: an issue number is either the word "issue" (or "issues") followed by a number,
 * after spaces or a hyphen, with or without {@code #}, anywhere in the text; or {@code #} followed by one to four digits that
 * end a word, outside code (fenced blocks and inline code spans, where {@code #include} and shell
 * comments live), not preceded by a letter, digit, {@code #}, {@code &} (an HTML entity), {@code /}
 * or {@code ](} (a link's in-page anchor), and not followed by {@code -} or {@code .} and a letter or
 * digit (an anchor such as {@code #3-header}). So {@code §7.1}, markdown headings ({@code ## 1.}),
 * colour codes ({@code #1e90ff}, whose digits do not end a word) and anchors pass, while
 * {@code (#12)} and {@code #3–#7} are flagged.
 */
class DocsTest {
    private static final long DOCUMENTS_LIMIT = 200 * 1024;
    private static final long README_LIMIT = 12 * 1024;

    /** Directories that hold no document a user reads, relative to the project root. */
    private static final List<String> NOT_READ_BY_USERS = List.of(
            "docs/archive", "src/jmh/resources", "native-bench/fuzz");

    /** Build and tool output, skipped wherever it is. */
    private static final Set<String> OUTPUT_DIRECTORIES = Set.of("target", "build", "node_modules", "__pycache__");

    static final Pattern ISSUE_WORD = Pattern.compile("(?i)\\bissues?(?:\\s+|-)#?\\d+");
    static final Pattern ISSUE_HASH = Pattern.compile("(?<![\\p{Alnum}#&/_\\]])(?<!\\]\\()#\\d{1,4}\\b(?![-.]\\p{Alnum})");
    private static final Pattern INLINE_CODE = Pattern.compile("`[^`\n]*`");
    private static final Pattern INLINE_LINK = Pattern.compile("\\[[^\\]\n]*\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
    private static final Pattern REFERENCE_LINK = Pattern.compile("(?m)^ {0,3}\\[[^\\]\n]+\\]:\\s*<?(\\S+?)>?(?:\\s|$)");

    static Path projectRoot() {
        try {
            Path classes = Path.of(HintStore.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            for (Path p = classes; p != null; p = p.getParent()) {
                if (Files.isRegularFile(p.resolve("pom.xml")) && Files.isDirectory(p.resolve("docs"))) {
                    return p;
                }
            }
        } catch (URISyntaxException | SecurityException e) {
            // fall back to the working directory, which surefire sets to the project root
        }
        return Path.of(System.getProperty("user.dir")).toAbsolutePath();
    }

    /** Every document a user reads, relative to the project root, in path order. */
    static List<Path> userDocuments(Path root) {
        try (Stream<Path> all = Files.walk(root)) {
            return all.filter(p -> p.getFileName().toString().endsWith(".md"))
                    .filter(Files::isRegularFile)
                    .map(root::relativize)
                    .filter(DocsTest::readByUsers)
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean readByUsers(Path relative) {
        String unix = relative.toString().replace('\\', '/');
        for (String excluded : NOT_READ_BY_USERS) {
            if (unix.startsWith(excluded + "/")) {
                return false;
            }
        }
        for (int i = 0; i < relative.getNameCount() - 1; i++) {
            String dir = relative.getName(i).toString();
            if (dir.startsWith(".") || OUTPUT_DIRECTORIES.contains(dir)) {
                return false;
            }
        }
        return true;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long size(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The text with fenced code blocks blanked out (line count kept), inline code spans too when asked. */
    static String prose(String text, boolean blankInlineCode) {
        StringBuilder out = new StringBuilder(text.length());
        boolean fenced = false;
        String fence = null;
        for (String line : text.split("\n", -1)) {
            String trimmed = line.stripLeading();
            if (!fenced && (trimmed.startsWith("```") || trimmed.startsWith("~~~"))) {
                fenced = true;
                fence = trimmed.substring(0, 3);
                out.append('\n');
                continue;
            }
            if (fenced) {
                if (trimmed.startsWith(fence)) {
                    fenced = false;
                }
                out.append('\n');
                continue;
            }
            out.append(blankInlineCode ? INLINE_CODE.matcher(line).replaceAll("``") : line).append('\n');
        }
        return out.toString();
    }

    /** Each issue number in the text, as "line N: what", in order. */
    static List<String> issueNumbers(String text) {
        List<String> found = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        String[] proseLines = prose(text, true).split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            Matcher word = ISSUE_WORD.matcher(lines[i]);
            while (word.find()) {
                found.add("line " + (i + 1) + ": " + word.group());
            }
            if (i < proseLines.length) {
                // an "issue #N" already found above is not counted again as "#N"
                String rest = ISSUE_WORD.matcher(proseLines[i]).replaceAll(m -> " ".repeat(m.group().length()));
                Matcher hash = ISSUE_HASH.matcher(rest);
                while (hash.find()) {
                    found.add("line " + (i + 1) + ": " + hash.group());
                }
            }
        }
        return found;
    }

    /** The relative link targets of the text (no scheme, not an in-page anchor), outside code. */
    static List<String> relativeLinks(String text) {
        String prose = prose(text, true);
        List<String> targets = new ArrayList<>();
        for (Pattern p : List.of(INLINE_LINK, REFERENCE_LINK)) {
            Matcher m = p.matcher(prose);
            while (m.find()) {
                String target = m.group(1);
                if (target.startsWith("#") || target.matches("(?i)[a-z][a-z0-9+.-]*:.*")) {
                    continue;
                }
                targets.add(target);
            }
        }
        return targets;
    }

    @Test
    void theDocumentsAUserReadsTogetherFitIn200KiB() {
        Path root = projectRoot();
        List<Path> docs = userDocuments(root);
        assertTrue(docs.contains(Path.of("README.md")), "the README is found under " + root);
        long total = 0;
        StringBuilder sizes = new StringBuilder();
        for (Path doc : docs) {
            long bytes = size(root.resolve(doc));
            total += bytes;
            sizes.append(String.format("%n  %8d  %s", bytes, doc));
        }
        assertTrue(total <= DOCUMENTS_LIMIT, "the documents a user reads hold " + total + " bytes together, over the limit of "
                + DOCUMENTS_LIMIT + " by " + (total - DOCUMENTS_LIMIT) + ":" + sizes);
    }

    @Test
    void theReadmeFitsIn12KiB() {
        long bytes = size(projectRoot().resolve("README.md"));
        assertTrue(bytes <= README_LIMIT, "README.md holds " + bytes + " bytes, over the limit of " + README_LIMIT);
    }

    @Test
    void noDocumentAUserReadsQuotesAnIssueNumber() {
        Path root = projectRoot();
        StringBuilder offenders = new StringBuilder();
        for (Path doc : userDocuments(root)) {
            List<String> found = issueNumbers(read(root.resolve(doc)));
            if (!found.isEmpty()) {
                offenders.append(String.format("%n  %s: %d, first %s", doc, found.size(),
                        String.join("; ", found.subList(0, Math.min(3, found.size())))));
            }
        }
        assertTrue(offenders.isEmpty(), "documents quoting issue numbers:" + offenders);
    }

    @Test
    void everyRelativeLinkOfADocumentAUserReadsLeadsToAFileThatExists() {
        Path root = projectRoot();
        StringBuilder broken = new StringBuilder();
        for (Path doc : userDocuments(root)) {
            Path dir = root.resolve(doc).getParent();
            for (String target : relativeLinks(read(root.resolve(doc)))) {
                String file = target.contains("#") ? target.substring(0, target.indexOf('#')) : target;
                if (file.contains("?")) {
                    file = file.substring(0, file.indexOf('?'));
                }
                if (!Files.exists(dir.resolve(java.net.URLDecoder.decode(file, StandardCharsets.UTF_8)).normalize())) {
                    broken.append(String.format("%n  %s -> %s", doc, target));
                }
            }
        }
        assertTrue(broken.isEmpty(), "relative links to files that do not exist:" + broken);
    }

    @Test
    void theIssuePatternsFlagIssueReferencesAndPassSectionsCodeHeadingsColoursAndAnchors() {
        assertEquals(List.of("line 1: issue 32"), issueNumbers("as issue 32 found"));
        assertEquals(List.of("line 1: Issue #6"), issueNumbers("Issue #6 says"));
        assertEquals(List.of("line 1: issues 12"), issueNumbers("see issues 12 and 14"));
        assertEquals(List.of("line 1: issue-14"), issueNumbers("the issue-14 targets"));
        assertEquals(List.of("line 2: #12"), issueNumbers("text\nfixed in #12, then"));
        assertEquals(List.of("line 1: #3", "line 1: #7", "line 1: #13"), issueNumbers("findings #3–#7, #13"));
        assertEquals(List.of("line 1: #9"), issueNumbers("Fix the sweep (#9)"));
        assertEquals(List.of("line 1: #5"), issueNumbers("the fix (PR #5)"));
        for (String clean : List.of(
                "FORMAT §7.1 and §12 step 4",
                "## 1. General rules",
                "# hintmap",
                "`#include <hintmap.h>` and `#define HM_OK 0`",
                "```c\n#include <stdio.h>\n# 1 thread\n#12\n```",
                "colour #1e90ff and #ff0000",
                "see [the header](#3-header-offset-0-4096-bytes) and [FORMAT](FORMAT.md#31-lines-01)",
                "an entity &#123; and a path a/#12",
                "C# and F# code",
                "no issue here, a tissue 3 mm")) {
            assertEquals(List.of(), issueNumbers(clean), clean);
        }
    }

    @Test
    void theLinkParserFindsRelativeTargetsOutsideCodeOnly() {
        String text = "[a](docs/A.md) [b](https://x.org/y) [c](#anchor) [d](B.md#part \"title\")\n"
                + "`[e](inline.md)`\n```\n[f](fenced.md)\n```\n[g]: ref/G.md\n[h](mailto:a@b.c)";
        assertEquals(List.of("docs/A.md", "B.md#part", "ref/G.md"), relativeLinks(text));
    }

    @Test
    void theUserDocumentsLeaveOutTheArchiveBenchmarkNotesFuzzNotesAndBuildOutput() {
        assertTrue(readByUsers(Path.of("docs/FORMAT.md")));
        assertTrue(readByUsers(Path.of("README.md")));
        assertTrue(readByUsers(Path.of("native-bench/README.md")));
        assertTrue(!readByUsers(Path.of("docs/archive/RELIABILITY.md")));
        assertTrue(!readByUsers(Path.of("src/jmh/resources/dev/hintmap/bench/startup.md")));
        assertTrue(!readByUsers(Path.of("native-bench/fuzz/corpus/README.md")));
        assertTrue(!readByUsers(Path.of("target/site/x.md")));
        assertTrue(!readByUsers(Path.of("python/.pytest_cache/README.md")));
    }
}
