package dev.hintmap.cli;

import dev.hintmap.HintFiles;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The troff man pages of the {@code hintmap} command, {@code hintmap.1} and {@code hintmap-COMMAND.1}
 * for every command, rendered from the command reference {@link CliReference} reads from the same
 * picocli model as {@code --help} (so a page never lists an option the command does not have);
 * written by the build (pom.xml, execution {@code man-pages}) into {@code target/man}.
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

    /** The man page of one command ({@code hintmap} itself, or one of its commands). */
    static String page(CliReference.Command command, String date) {
        String name = command.pageName(); // hintmap-stat
        StringBuilder t = new StringBuilder();
        String source = "hintmap " + HintFiles.version() + ", file format version " + HintFiles.FORMAT_VERSION;
        t.append(".\\\" ").append(source).append(": written by dev.hintmap.cli.ManPages from the command's picocli")
                .append(" model; do not edit.\n");
        t.append(".TH \"").append(escape(name.toUpperCase(Locale.ROOT))).append("\" \"1\" \"").append(date)
                .append("\" \"").append(escape(source)).append("\" \"hintmap manual\"\n");
        t.append(".nh\n.ad l\n"); // no hyphenation, ragged right: option names and paths stay whole
        t.append(".SH NAME\n").append(escape(name)).append(" \\- ").append(escape(command.summary())).append('\n');

        t.append(".SH SYNOPSIS\n").append(escape(command.synopsis())).append('\n');

        List<CliReference.Block> description = new ArrayList<>(command.description());
        if (command.writesAFile()) {
            description.add(new CliReference.Block(false, List.of(OutputFile.RULES)));
        }
        if (!description.isEmpty()) {
            t.append(".SH DESCRIPTION\n");
            blocks(t, description);
        }
        if (!command.options().isEmpty()) {
            t.append(".SH OPTIONS\n");
            for (CliReference.Option o : command.options()) {
                StringBuilder tag = new StringBuilder();
                for (String n : o.names()) {
                    tag.append(tag.isEmpty() ? "" : ", ").append("\\fB").append(escape(n)).append("\\fR");
                }
                if (o.label() != null) {
                    tag.append("=\\fI").append(escape(o.label())).append("\\fR");
                }
                tagged(t, tag.toString(), o.description());
            }
        }
        if (!command.arguments().isEmpty()) {
            t.append(".SH ARGUMENTS\n");
            for (CliReference.Argument a : command.arguments()) {
                tagged(t, "\\fI" + escape(a.label()) + "\\fR" + (a.repeated() ? "..." : ""), a.description());
            }
        }
        boolean isRoot = !command.qualifiedName().contains(" ");
        if (isRoot) {
            t.append(".SH COMMANDS\n");
            for (CliReference.Command sub : command.subcommands()) {
                tagged(t, "\\fB" + escape(sub.name()) + "\\fR", sub.summary() + " See " + sub.pageName() + "(1).");
            }
        }
        if (!command.examples().isEmpty()) {
            t.append(".SH EXAMPLES\n");
            blocks(t, List.of(new CliReference.Block(true, command.examples())));
        }
        t.append(".SH \"EXIT STATUS\"\n");
        for (CliReference.ExitStatus status : CliReference.exitStatuses()) {
            tagged(t, "\\fB" + status.status() + "\\fR", status.meaning());
        }
        t.append(".SH \"SEE ALSO\"\n");
        if (isRoot) {
            StringBuilder pages = new StringBuilder();
            for (CliReference.Command sub : command.subcommands()) {
                pages.append(pages.isEmpty() ? "" : ",\n").append(".BR ").append(escape(sub.pageName())).append(" (1)");
            }
            t.append(pages).append('\n');
        } else {
            t.append(".BR hintmap (1)\n");
        }
        t.append(".PP\n").append(escape("Every command on one page in docs/CLI.md, README.md and docs/, the file format"
                + " in docs/FORMAT.md, in share/doc/hintmap/ of the installation (and in the sources).")).append('\n');
        return t.toString();
    }

    /** A tagged paragraph ({@code .TP}): an option, an argument, a command, an exit status. */
    private static void tagged(StringBuilder t, String tag, String text) {
        t.append(".TP\n").append(tag).append('\n').append(escape(text)).append('\n');
    }

    /** Paragraphs filled, command lines kept as written (no fill) and indented; blocks set apart by a blank line. */
    private static void blocks(StringBuilder t, List<CliReference.Block> blocks) {
        boolean first = true;
        for (CliReference.Block block : blocks) {
            if (!first) {
                t.append(".sp\n");
            }
            first = false;
            if (block.commands()) {
                t.append(".RS 4\n.nf\n");
            }
            for (String line : block.lines()) {
                t.append(escape(line)).append('\n');
            }
            if (block.commands()) {
                t.append(".fi\n.RE\n");
            }
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
