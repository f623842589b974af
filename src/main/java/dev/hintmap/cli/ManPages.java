package dev.hintmap.cli;

import dev.hintmap.HintFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * The troff man pages of the {@code hintmap} command, written by the build (pom.xml, execution
 * {@code man-pages}: {@code target/man/hintmap.1} and {@code hintmap-COMMAND.1} for every command)
 * from the same picocli model as {@code --help}, so a page never lists an option the command does
 * not have. Arguments: OUTPUT_DIRECTORY DATE (the page date, the build's reproducible time stamp).
 *
 * <p>Design notes. The pages used to be AsciiDoc from picocli-codegen turned into troff by
 * Asciidoctor, which runs on JRuby: 672 artifacts (158 MB) fetched into an empty Maven repository,
 * and a minute of every build, paid by a user who only wants the library jar. The pages need a
 * small part of {@code man(7)}: a title, sections, tagged paragraphs for options and exit
 * statuses, no-fill blocks for example commands. That part is written here with the JDK alone.
 * Text goes through {@link #escape}: a backslash, a leading dot or quote (a control line to troff)
 * and {@code -} (a hyphen in troff; a command line needs the minus sign) are escaped.
 */
final class ManPages {
    private ManPages() {}

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: ManPages OUTPUT_DIRECTORY DATE");
        }
        Path dir = Files.createDirectories(Path.of(args[0]));
        String date = args[1].length() >= 10 ? args[1].substring(0, 10) : args[1]; // 2026-12-03T00:00:00Z -> the day
        CommandLine root = HintmapCli.commandLine();
        write(dir, "hintmap", page(root, date));
        for (Map.Entry<String, CommandLine> sub : root.getSubcommands().entrySet()) {
            write(dir, "hintmap-" + sub.getKey(), page(sub.getValue(), date));
        }
    }

    private static void write(Path dir, String name, String troff) throws IOException {
        Files.writeString(dir.resolve(name + ".1"), troff, StandardCharsets.UTF_8);
    }

    /** The man page of one command ({@code hintmap} itself, or one of its commands). */
    static String page(CommandLine cli, String date) {
        CommandSpec spec = cli.getCommandSpec();
        String name = spec.qualifiedName("-"); // hintmap-stat
        String[] description = spec.usageMessage().description();
        StringBuilder t = new StringBuilder();
        String source = "hintmap " + HintFiles.version() + ", file format version " + HintFiles.FORMAT_VERSION;
        t.append(".\\\" ").append(source).append(": written by dev.hintmap.cli.ManPages from the command's picocli")
                .append(" model; do not edit.\n");
        t.append(".TH \"").append(escape(name.toUpperCase(Locale.ROOT))).append("\" \"1\" \"").append(date)
                .append("\" \"").append(escape(source)).append("\" \"hintmap manual\"\n");
        t.append(".nh\n.ad l\n"); // no hyphenation, ragged right: option names and paths stay whole
        t.append(".SH NAME\n").append(escape(name)).append(" \\- ")
                .append(escape(summary(spec))).append('\n');

        t.append(".SH SYNOPSIS\n").append(escape(synopsis(cli))).append('\n');

        if (description.length > 0) {
            t.append(".SH DESCRIPTION\n");
            paragraphs(t, List.of(description));
        }
        List<OptionSpec> options = new ArrayList<>(spec.options().stream().filter(o -> !o.hidden()).toList());
        options.sort(CommandLine.Help.createShortOptionNameComparator());
        if (!options.isEmpty()) {
            t.append(".SH OPTIONS\n");
            for (OptionSpec o : options) {
                StringBuilder tag = new StringBuilder();
                for (String n : o.names()) {
                    tag.append(tag.isEmpty() ? "" : ", ").append("\\fB").append(escape(n)).append("\\fR");
                }
                if (o.arity().max() > 0) {
                    tag.append("=\\fI").append(escape(o.paramLabel())).append("\\fR");
                }
                tagged(t, tag.toString(), o.description());
            }
        }
        List<PositionalParamSpec> arguments = spec.positionalParameters().stream().filter(p -> !p.hidden()).toList();
        if (!arguments.isEmpty()) {
            t.append(".SH ARGUMENTS\n");
            for (PositionalParamSpec p : arguments) {
                tagged(t, "\\fI" + escape(p.paramLabel()) + "\\fR" + (p.arity().max() > 1 ? "..." : ""), p.description());
            }
        }
        boolean isRoot = spec.parent() == null;
        if (isRoot) {
            t.append(".SH COMMANDS\n");
            for (Map.Entry<String, CommandLine> sub : cli.getSubcommands().entrySet()) {
                tagged(t, "\\fB" + escape(sub.getKey()) + "\\fR", new String[] {
                    summary(sub.getValue().getCommandSpec()) + " See hintmap-" + sub.getKey() + "(1)."});
            }
        }
        t.append(".SH \"EXIT STATUS\"\n");
        for (String line : ExitCode.helpLines()) {
            String status = line.strip();
            int space = status.indexOf(' ');
            tagged(t, "\\fB" + status.substring(0, space) + "\\fR", new String[] {status.substring(space).strip()});
        }
        t.append(".SH \"SEE ALSO\"\n");
        if (isRoot) {
            StringBuilder pages = new StringBuilder();
            for (String sub : cli.getSubcommands().keySet()) {
                pages.append(pages.isEmpty() ? "" : ",\n").append(".BR hintmap\\-").append(escape(sub)).append(" (1)");
            }
            t.append(pages).append('\n');
        } else {
            t.append(".BR hintmap (1)\n");
        }
        t.append(".PP\n").append(escape("README.md and docs/, the file format in docs/FORMAT.md, in share/doc/hintmap/"
                + " of the installation (and in the sources).")).append('\n');
        return t.toString();
    }

    /** A command in one line, as {@code --help} lists the commands: its header, else its description's first line. */
    private static String summary(CommandSpec spec) {
        String[] header = spec.usageMessage().header();
        String[] lines = header.length > 0 ? header : spec.usageMessage().description();
        for (String line : lines) {
            String text = line.replace("%n", " ").strip();
            if (!text.isEmpty()) {
                return text;
            }
        }
        return "";
    }

    /** The synopsis as {@code --help} prints it, on one line (troff fills it to the page's width). */
    private static String synopsis(CommandLine cli) {
        CommandLine.Help help = new CommandLine.Help(cli.getCommandSpec(),
                CommandLine.Help.defaultColorScheme(CommandLine.Help.Ansi.OFF));
        return String.join(" ", help.synopsis(0).strip().split("\\s*\\n\\s*"));
    }

    /** A tagged paragraph ({@code .TP}): an option, an argument, a command, an exit status. */
    private static void tagged(StringBuilder t, String tag, String[] text) {
        t.append(".TP\n").append(tag).append('\n');
        paragraphs(t, List.of(text));
    }

    /**
     * Description lines as picocli keeps them: an empty line or picocli's {@code %n} separates
     * paragraphs, a line that starts with two spaces is an example command, kept as written (no
     * fill) and indented; paragraphs and examples are set apart by a blank line.
     */
    private static void paragraphs(StringBuilder t, List<String> lines) {
        boolean example = false;
        boolean first = true;
        for (String given : lines) {
            for (String line : given.replace("%%", "\u0000").split("%n", -1)) {
                line = line.replace('\u0000', '%');
                if (line.isBlank()) {
                    continue;
                }
                boolean isExample = line.startsWith("  ");
                if (example && !isExample) {
                    t.append(".fi\n.RE\n");
                }
                if (!first && !(example && isExample)) { // the lines of one example stay together
                    t.append(".sp\n");
                }
                if (isExample && !example) {
                    t.append(".RS 4\n.nf\n");
                }
                example = isExample;
                t.append(escape(isExample ? line.strip() : line)).append('\n');
                first = false;
            }
        }
        if (example) {
            t.append(".fi\n.RE\n");
        }
    }

    /**
     * Plain text (one line) as troff input: backslashes and minus signs escaped, and a line that
     * starts with a dot or a quote (a request to troff) started with the zero-width {@code \&}.
     */
    static String escape(String text) {
        String escaped = text.replace("\\", "\\e").replace("-", "\\-");
        return escaped.startsWith(".") || escaped.startsWith("'") ? "\\&" + escaped : escaped;
    }
}
