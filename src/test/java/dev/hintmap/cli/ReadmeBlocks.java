package dev.hintmap.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The code of the documents a user reads (README.md, docs/GUIDE.md, python/README.md) as
 * {@link ReadmeCodeBlocksTest} checks it: the fenced blocks, each with its language (the fence's tag)
 * and how it is checked (the {@code <!-- readme-check: KIND -->} comment on the line above the fence,
 * invisible where the document is shown), and the lines of the indented blocks (shell command lines).
 */
final class ReadmeBlocks {
    private ReadmeBlocks() {}

    /** The documents whose every block is checked, relative to the repository root. */
    static final List<String> DOCUMENTS = List.of("README.md", "docs/GUIDE.md", "python/README.md");

    /** The marker above a fence: {@code <!-- readme-check: KIND -->}. */
    static final Pattern MARKER = Pattern.compile("<!-- readme-check: ([a-z-]+) -->");

    /**
     * One fenced block.
     *
     * @param document the document's path relative to the repository root
     * @param line the fence's line, 1-based
     * @param language the fence's tag ({@code java}, {@code c}, ...), "" when it has none
     * @param check the marker's KIND, "" when there is no marker above the fence
     * @param text the lines between the fences
     */
    record Block(String document, int line, String language, String check, String text) {
        String where() {
            return document + ":" + line + " (```" + language + (check.isEmpty() ? "" : ", " + check) + ")";
        }
    }

    static List<String> lines(Path readme) throws IOException {
        return Files.readAllLines(readme, StandardCharsets.UTF_8);
    }

    /** The fenced blocks of {@code document} (a path relative to {@code home}). */
    static List<Block> fenced(Path home, String document) throws IOException {
        return fenced(document, lines(home.resolve(document)));
    }

    /** The fenced blocks of every one of {@link #DOCUMENTS}, in order. */
    static List<Block> fenced(Path home) throws IOException {
        List<Block> all = new ArrayList<>();
        for (String document : DOCUMENTS) {
            all.addAll(fenced(home, document));
        }
        return all;
    }

    static List<Block> fenced(String document, List<String> lines) {
        List<Block> blocks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (!lines.get(i).startsWith("```")) {
                continue;
            }
            int start = i;
            StringBuilder text = new StringBuilder();
            for (i++; i < lines.size() && !lines.get(i).startsWith("```"); i++) {
                text.append(lines.get(i)).append('\n');
            }
            Matcher marker = start > 0 ? MARKER.matcher(lines.get(start - 1).strip()) : MARKER.matcher("");
            blocks.add(new Block(document, start + 1, lines.get(start).substring(3).strip(), marker.matches() ? marker.group(1) : "",
                    text.toString()));
        }
        return blocks;
    }

    /** The lines of the indented (four-space) code blocks outside fences, without the indent, each with its line number. */
    static List<String> indented(List<String> lines) {
        List<String> out = new ArrayList<>();
        boolean fence = false;
        boolean inBlock = false;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.startsWith("```")) {
                fence = !fence;
                continue;
            }
            boolean starts = line.startsWith("    ") && (inBlock || i == 0 || lines.get(i - 1).isBlank());
            inBlock = !fence && starts;
            if (inBlock) {
                out.add((i + 1) + ": " + line.substring(4));
            }
        }
        return out;
    }
}
