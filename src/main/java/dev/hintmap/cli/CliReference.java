package dev.hintmap.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * The command reference of {@code hintmap}, read once from the picocli model that {@code --help}
 * prints, for the two documents made from it: the troff man pages ({@link ManPages}) and the one
 * Markdown page {@code docs/CLI.md} ({@link CliMarkdown}). Neither renderer looks at picocli: what a
 * page says is what this walker found, so the two cannot disagree with each other or with the help.
 *
 * <p>Run by the build (pom.xml, execution {@code man-pages}): arguments OUTPUT_DIRECTORY DATE
 * [MARKDOWN], the man pages into OUTPUT_DIRECTORY, dated DATE (the build's reproducible time stamp),
 * and, when given, the Markdown page to MARKDOWN. {@code docs/CLI.md} is regenerated with
 * <pre>  ./mvnw -q process-classes -Dhintmap.cli.md=docs/CLI.md</pre>
 * and {@code CliReferenceTest} fails while the committed page differs from what the model gives.
 *
 * <p>What a command's annotation holds, as read here: the description's first line is the summary
 * (unless a header is set); in the description, an empty line or picocli's {@code %n} separates
 * paragraphs and a line that starts with two spaces is a command, kept as written; the examples are
 * the footer of a command whose {@code footerHeading} is {@link #EXAMPLES_HEADING}, one command line
 * each, so that {@code --help} prints them too.
 */
final class CliReference {
    private CliReference() {}

    /** The footer heading of a command whose footer lines are its examples. */
    static final String EXAMPLES_HEADING = "%nExamples:%n";

    /** One command: {@code hintmap} itself or one of its commands. */
    record Command(String name, String qualifiedName, String summary, String synopsis, List<Block> description,
            List<Option> options, List<Argument> arguments, List<String> examples, boolean writesAFile,
            List<Command> subcommands) {
        /** The page's name: {@code hintmap}, {@code hintmap-stat}. */
        String pageName() {
            return qualifiedName.replace(' ', '-');
        }
    }

    /** An option: its names, the label of its value ({@code null}: a flag) and its description in one line. */
    record Option(List<String> names, String label, String description) {
        /** How the option is written: {@code -n, --lines=N}. */
        String usage() {
            return String.join(", ", names) + (label == null ? "" : "=" + label);
        }
    }

    /** A positional argument: its label, whether it may be repeated, and its description in one line. */
    record Argument(String label, boolean repeated, String description) {}

    /** A paragraph of text, or a block of command lines (kept as written). */
    record Block(boolean commands, List<String> lines) {}

    /** An exit status: its number and what it means. */
    record ExitStatus(String status, String meaning) {}

    public static void main(String[] args) throws IOException {
        if (args.length != 2 && args.length != 3) {
            throw new IllegalArgumentException("usage: CliReference OUTPUT_DIRECTORY DATE [MARKDOWN]");
        }
        Path dir = Files.createDirectories(Path.of(args[0]));
        String date = args[1].length() >= 10 ? args[1].substring(0, 10) : args[1]; // 2026-12-03T00:00:00Z -> the day
        Command root = root();
        write(dir.resolve("hintmap.1"), ManPages.page(root, date));
        for (Command sub : root.subcommands()) {
            write(dir.resolve(sub.pageName() + ".1"), ManPages.page(sub, date));
        }
        if (args.length == 3) {
            Path markdown = Path.of(args[2]).toAbsolutePath();
            Files.createDirectories(markdown.getParent());
            write(markdown, CliMarkdown.page(root));
        }
    }

    private static void write(Path file, String text) throws IOException {
        Files.writeString(file, text, StandardCharsets.UTF_8);
    }

    /** {@code hintmap} with all its commands. */
    static Command root() {
        return command(HintmapCli.commandLine());
    }

    /** The exit statuses, one rule for every command ({@link ExitCode}). */
    static List<ExitStatus> exitStatuses() {
        List<ExitStatus> statuses = new ArrayList<>();
        for (String line : ExitCode.helpLines()) {
            String status = line.strip();
            int space = status.indexOf(' ');
            statuses.add(new ExitStatus(status.substring(0, space), status.substring(space).strip()));
        }
        return statuses;
    }

    /** The output rules of every command that writes a file ({@link OutputFile#RULES}), without their heading. */
    static String outputRules() {
        String rules = OutputFile.RULES;
        return rules.substring(rules.indexOf("): ") + 3);
    }

    static Command command(CommandLine cli) {
        CommandSpec spec = cli.getCommandSpec();
        List<String> lines = List.of(spec.usageMessage().description());
        boolean writes = lines.contains(OutputFile.RULES);
        List<Block> description = blocks(lines.stream().filter(l -> !l.equals(OutputFile.RULES)).toList());

        List<OptionSpec> optionSpecs = new ArrayList<>(spec.options().stream().filter(o -> !o.hidden()).toList());
        optionSpecs.sort(CommandLine.Help.createShortOptionNameComparator());
        List<Option> options = new ArrayList<>();
        for (OptionSpec o : optionSpecs) {
            String label = o.arity().max() > 0 ? o.paramLabel() : null;
            options.add(new Option(List.of(o.names()), label, oneLine(o.description())));
        }
        List<Argument> arguments = new ArrayList<>();
        for (PositionalParamSpec p : spec.positionalParameters()) {
            if (!p.hidden()) {
                arguments.add(new Argument(p.paramLabel(), p.arity().max() > 1, oneLine(p.description())));
            }
        }
        List<String> examples = new ArrayList<>();
        if (EXAMPLES_HEADING.equals(spec.usageMessage().footerHeading())) {
            for (String line : spec.usageMessage().footer()) {
                if (!line.isBlank()) {
                    examples.add(line.strip());
                }
            }
        }
        List<Command> subcommands = new ArrayList<>();
        for (Map.Entry<String, CommandLine> sub : cli.getSubcommands().entrySet()) {
            subcommands.add(command(sub.getValue()));
        }
        return new Command(spec.name(), spec.qualifiedName(" "), summary(spec), synopsis(cli), description, options,
                arguments, examples, writes, subcommands);
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

    /** The synopsis as {@code --help} prints it, on one line. */
    private static String synopsis(CommandLine cli) {
        CommandLine.Help help = new CommandLine.Help(cli.getCommandSpec(),
                CommandLine.Help.defaultColorScheme(CommandLine.Help.Ansi.OFF));
        return String.join(" ", help.synopsis(0).strip().split("\\s*\\n\\s*"));
    }

    /** Description lines as one line of text ({@code %n} a space). */
    private static String oneLine(String[] lines) {
        return String.join(" ", lines).replace("%%", "\u0000").replace("%n", " ").replace('\u0000', '%')
                .replaceAll(" {2,}", " ").strip();
    }

    /**
     * Description lines as picocli keeps them, as blocks: an empty line or picocli's {@code %n}
     * separates paragraphs, and consecutive lines that start with two spaces are one block of
     * command lines.
     */
    static List<Block> blocks(List<String> lines) {
        List<Block> blocks = new ArrayList<>();
        List<String> commands = new ArrayList<>();
        for (String given : lines) {
            for (String line : given.replace("%%", "\u0000").split("%n", -1)) {
                line = line.replace('\u0000', '%');
                if (line.isBlank()) {
                    continue;
                }
                if (line.startsWith("  ")) {
                    commands.add(line.strip());
                    continue;
                }
                if (!commands.isEmpty()) {
                    blocks.add(new Block(true, List.copyOf(commands)));
                    commands.clear();
                }
                blocks.add(new Block(false, List.of(line)));
            }
        }
        if (!commands.isEmpty()) {
            blocks.add(new Block(true, List.copyOf(commands)));
        }
        return blocks;
    }
}
