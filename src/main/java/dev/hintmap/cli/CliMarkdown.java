package dev.hintmap.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code docs/CLI.md}: the command reference of {@code hintmap} on one Markdown page, rendered from
 * {@link CliReference} as the man pages are ({@link ManPages}). Per command: its summary, synopsis,
 * arguments and options in one table, and its examples; then the exit statuses and the output rules,
 * which hold for every command. A reference, not the manual: the full description of a command is
 * in its {@code --help} and man page, which the page says once.
 *
 * <p>An option that three or more commands share with the same words (the file-opening options,
 * {@code --help}, the table options) is described once under "Common options" and only named in
 * each command's table, which keeps the page short enough to read.
 */
final class CliMarkdown {
    private CliMarkdown() {}

    /** Options that at least this many commands share, word for word, are described once. */
    private static final int COMMON = 3;

    static String page(CliReference.Command root) {
        List<CliReference.Command> commands = root.subcommands();
        Map<CliReference.Option, Integer> uses = new LinkedHashMap<>();
        for (CliReference.Command c : commands) {
            for (CliReference.Option o : c.options()) {
                uses.merge(o, 1, Integer::sum);
            }
        }
        List<CliReference.Option> common = uses.entrySet().stream().filter(e -> e.getValue() >= COMMON)
                .map(Map.Entry::getKey).toList();

        StringBuilder m = new StringBuilder();
        m.append("<!-- Generated from the picocli model by dev.hintmap.cli.CliReference; do not edit. Regenerate:\n")
                .append("     ./mvnw -q process-classes -Dhintmap.cli.md=docs/CLI.md -->\n");
        m.append("# hintmap command reference\n\n");
        m.append(text(root.summary())).append(" Each command's `--help` and man page (`man hintmap-COMMAND`) add")
                .append(" its full description; [README](../README.md) shows the tool at work, [FORMAT.md](FORMAT.md)")
                .append(" the file it reads.\n\n");
        m.append("```text\n").append(wrap(root.synopsis())).append("\n```\n\n");
        if (!root.options().isEmpty()) {
            m.append("| Option | Meaning |\n|---|---|\n");
            for (CliReference.Option o : root.options()) {
                m.append("| `").append(o.usage()).append("` | ").append(text(o.description())).append(" |\n");
            }
            m.append('\n');
        }
        m.append("| Command | Summary |\n|---|---|\n");
        for (CliReference.Command c : commands) {
            m.append("| [").append(c.name()).append("](#").append(anchor(c.qualifiedName())).append(") | ")
                    .append(text(c.summary())).append(" |\n");
        }
        m.append("\nSee also [exit status](#exit-status), [output rules](#output-rules) and")
                .append(" [common options](#common-options).\n");

        for (CliReference.Command c : commands) {
            section(m, c.qualifiedName());
            m.append(text(c.summary())).append("\n\n");
            m.append("```text\n").append(wrap(c.synopsis())).append("\n```\n\n");
            List<String[]> rows = new ArrayList<>();
            for (CliReference.Argument a : c.arguments()) {
                rows.add(new String[] {"`" + a.label() + (a.repeated() ? "...`" : "`"), text(a.description())});
            }
            List<String> shared = new ArrayList<>();
            for (CliReference.Option o : c.options()) {
                if (common.contains(o)) {
                    shared.add("`" + o.names().getLast() + "`");
                } else {
                    rows.add(new String[] {"`" + o.usage() + "`", text(o.description())});
                }
            }
            if (!rows.isEmpty()) {
                m.append("| Argument, option | Meaning |\n|---|---|\n");
                for (String[] row : rows) {
                    m.append("| ").append(row[0]).append(" | ").append(row[1]).append(" |\n");
                }
                m.append('\n');
            }
            List<String> notes = new ArrayList<>();
            if (!shared.isEmpty()) {
                notes.add("[Common options](#common-options): " + String.join(", ", shared) + ".");
            }
            if (c.writesAFile()) {
                notes.add("The [output rules](#output-rules) apply.");
            }
            if (!notes.isEmpty()) {
                m.append(String.join(" ", notes)).append("\n\n");
            }
            if (!c.examples().isEmpty()) {
                m.append("```sh\n");
                for (String example : c.examples()) {
                    m.append(example).append('\n');
                }
                m.append("```\n");
            }
        }

        section(m, "Common options");
        m.append("| Option | Meaning |\n|---|---|\n");
        for (CliReference.Option o : common) {
            m.append("| `").append(o.usage()).append("` | ").append(text(o.description())).append(" |\n");
        }
        section(m, "Exit status");
        m.append("One rule for every command:\n\n| Status | Meaning |\n|---|---|\n");
        for (CliReference.ExitStatus s : CliReference.exitStatuses()) {
            m.append("| ").append(s.status()).append(" | ").append(text(s.meaning())).append(" |\n");
        }
        section(m, "Output rules");
        List<String> writers = commands.stream().filter(CliReference.Command::writesAFile)
                .map(c -> "`" + c.name() + "`").toList();
        m.append("For every command that writes a file OUT (").append(String.join(", ", writers)).append("): ")
                .append(text(CliReference.outputRules())).append('\n');
        return m.toString();
    }

    /** A heading of the second level, after one blank line. */
    private static void section(StringBuilder m, String title) {
        while (m.length() >= 2 && m.charAt(m.length() - 1) == '\n' && m.charAt(m.length() - 2) == '\n') {
            m.setLength(m.length() - 1);
        }
        m.append("\n## ").append(title).append("\n\n");
    }

    /** The anchor GitHub gives a heading: lower case, spaces as hyphens, punctuation dropped. */
    static String anchor(String heading) {
        return heading.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9 _-]", "").replace(' ', '-');
    }

    /**
     * Plain text as Markdown that shows it as written: the characters that would start emphasis,
     * code, a link, HTML or a table cell are escaped ({@code _} only where it is not inside a word,
     * where GitHub's Markdown never reads it as emphasis).
     */
    static String text(String plain) {
        return plain.replace("\\", "\\\\").replace("`", "\\`").replace("*", "\\*").replace("[", "\\[")
                .replace("]", "\\]").replace("<", "&lt;").replace("|", "\\|")
                .replaceAll("(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])", "\\\\_");
    }

    /** A synopsis wrapped at 80 columns between options (never inside brackets), continued under the first option. */
    static String wrap(String synopsis) {
        int width = 80;
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        int depth = 0;
        for (char ch : synopsis.toCharArray()) {
            if (ch == ' ' && depth == 0) {
                words.add(word.toString());
                word.setLength(0);
                continue;
            }
            depth += ch == '[' ? 1 : ch == ']' ? -1 : 0;
            word.append(ch);
        }
        words.add(word.toString());
        int commandWords = 0;
        while (commandWords < words.size() && words.get(commandWords).matches("[a-z]+")) {
            commandWords++;
        }
        String indent = " ".repeat(String.join(" ", words.subList(0, commandWords)).length() + 1);
        StringBuilder out = new StringBuilder(String.join(" ", words.subList(0, commandWords)));
        int lineStart = 0;
        for (String w : words.subList(commandWords, words.size())) {
            if (out.length() - lineStart + 1 + w.length() > width) {
                out.append('\n');
                lineStart = out.length();
                out.append(indent).append(w);
            } else {
                out.append(' ').append(w);
            }
        }
        return out.toString();
    }
}
