package dev.hintmap.cli;

import dev.hintmap.HintFileException;
import dev.hintmap.HintFiles;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code hintmap}: create, record into, inspect, watch, merge, copy, age, verify, compare and export hint files. Every command
 * prints its result on standard output and problems on standard error, and exits with one of the
 * {@link ExitCode} values; a result that standard output did not take changes that status as
 * {@link StandardOutput} says.
 */
@Command(name = "hintmap",
        mixinStandardHelpOptions = true,
        versionProvider = HintmapCli.Version.class,
        description = {"Create, record into, inspect, watch, merge, copy, age, verify, compare and export hint files.",
            "Documents: every command on one page in docs/CLI.md, README.md and docs/, the file format in"
                    + " docs/FORMAT.md, in share/doc/hintmap/ of the installation (and in the sources)."},
        subcommands = {
            StatCommand.class, TopCommand.class, HotCommand.class, DumpCommand.class, MergeCommand.class, CopyCommand.class,
            CreateCommand.class, RecordCommand.class, UpgradeCommand.class,
            DecayCommand.class, VerifyCommand.class, ExportCommand.class, DiffCommand.class, DemoCommand.class,
            CompletionCommand.class, CommandLine.HelpCommand.class,
        },
        footerHeading = "%nExit status:%n",
        footer = {ExitCode.HELP_OK, ExitCode.HELP_PROBLEMS, ExitCode.HELP_USAGE, ExitCode.HELP_BAD_FILE,
            ExitCode.HELP_IO_ERROR},
        usageHelpAutoWidth = true)
public final class HintmapCli implements Runnable {
    @picocli.CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /**
     * The commands a command line may start with, for {@link #commandLine(String[])}: each as the
     * {@code subcommands} of the annotation above list it (a test holds the two equal), except
     * {@code completion} and {@code help}, which describe all the others and so need them all.
     */
    private static final Map<String, Supplier<Object>> LEAN = Map.ofEntries(
            Map.entry("stat", StatCommand::new), Map.entry("top", TopCommand::new), Map.entry("hot", HotCommand::new),
            Map.entry("dump", DumpCommand::new), Map.entry("merge", MergeCommand::new),
            Map.entry("copy", CopyCommand::new), Map.entry("create", CreateCommand::new),
            Map.entry("record", RecordCommand::new),
            Map.entry("upgrade", UpgradeCommand::new), Map.entry("decay", DecayCommand::new),
            Map.entry("verify", VerifyCommand::new), Map.entry("export", ExportCommand::new),
            Map.entry("diff", DiffCommand::new), Map.entry("demo", DemoCommand::new));

    /**
     * Runs the command line and returns its exit status (the process exits with it in {@link #main}).
     * {@code out} is not a terminal: tables fit 100 columns unless
     * {@code --width} or {@code --wide} says otherwise. A write that failed on {@code out} is an
     * output error ({@link StandardOutput}).
     */
    public static int run(String[] args, PrintWriter out, PrintWriter err) {
        CommandLine cli = commandLine(args);
        cli.setErr(err);
        return execute(cli, args, StandardOutput.of(out));
    }

    /** Runs {@code args} on {@code cli} with {@code out} as standard output; the status by {@link StandardOutput}'s rule. */
    private static int execute(CommandLine cli, String[] args, StandardOutput out) {
        cli.setOut(out.writer());
        int exit = cli.execute(args);
        return out.exitStatus(exit, commandName(cli), cli.getErr());
    }

    /** The command that ran, as its messages name it ({@code hintmap dump}); {@code hintmap} when none was parsed. */
    private static String commandName(CommandLine cli) {
        String name = cli.getCommandSpec().qualifiedName();
        for (CommandLine.ParseResult parsed = cli.getParseResult(); parsed != null; parsed = parsed.subcommand()) {
            name = parsed.commandSpec().qualifiedName();
        }
        return name;
    }

    /**
     * Tells the commands that print tables where standard output goes ({@link TableOptions}): the
     * commands of {@link #run} print to a writer, those of {@link #main} to the process's output.
     */
    static CommandLine onScreen(CommandLine cli, Screen screen) {
        for (CommandLine command : cli.getSubcommands().values()) {
            for (CommandLine.Model.CommandSpec mixin : command.getCommandSpec().mixins().values()) {
                if (mixin.userObject() instanceof TableOptions table) {
                    table.screen = screen;
                }
            }
            onScreen(command, screen);
        }
        return cli;
    }

    /** Every command: for the help, the completion script, the man pages and what names no command. */
    static CommandLine commandLine() {
        return configure(new CommandLine(new HintmapCli()));
    }

    /**
     * The command line that runs {@code args}: when they start with a command of {@link #LEAN},
     * {@code hintmap} with that one command under it, else {@link #commandLine()}. Building
     * picocli's model of a command (reflection over its annotations, interpolated descriptions)
     * is most of this tool's start-up: building one instead of fourteen is what {@code hintmap
     * stat FILE} gains (src/jmh/resources/dev/hintmap/bench/startup.md). What the user sees is the same: the
     * command's help, errors and suggestions come from its own model.
     */
    static CommandLine commandLine(String[] args) {
        Supplier<Object> only = args.length > 0 ? LEAN.get(args[0]) : null;
        if (only == null) {
            return commandLine();
        }
        CommandLine root = new CommandLine(CommandLine.Model.CommandSpec.create().name("hintmap"));
        root.addSubcommand(args[0], only.get());
        return configure(root);
    }

    private static CommandLine configure(CommandLine cli) {
        cli.setExecutionExceptionHandler(HintmapCli::handle);
        cli.setParameterExceptionHandler(HintmapCli::usageError);
        cli.setCaseInsensitiveEnumValuesAllowed(true);
        if (cli.getCommandSpec().userObject() instanceof HintmapCli) {
            // The exit statuses, their text wrapped under itself at the help's width (not back to column 0).
            cli.getHelpSectionMap().put(CommandLine.Model.UsageMessageSpec.SECTION_KEY_FOOTER,
                    help -> ExitCode.helpText(help.commandSpec().usageMessage().width()));
        }
        return cli;
    }

    /** The names {@link #commandLine(String[])} builds alone, for the test that keeps them equal to the annotation's. */
    static Set<String> leanCommands() {
        return LEAN.keySet();
    }

    public static void main(String[] args) {
        CommandLine cli = onScreen(commandLine(args), Screen.standardOutput());
        // Descriptor 1 through a stream that keeps its write errors (picocli's own writer wraps System.out, which
        // keeps them to itself): a full disk is reported, a closed pipe ends quietly.
        System.exit(execute(cli, args, StandardOutput.ofProcess(System.out.charset())));
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a command is required");
    }

    /**
     * A usage error (unknown option, bad value, a value that changes nothing): one line naming
     * the command and the problem, then where the usage is, never the whole usage text, which
     * would bury the line that matters.
     */
    private static int usageError(CommandLine.ParameterException e, String[] args) {
        CommandLine cli = e.getCommandLine();
        PrintWriter err = cli.getErr();
        String command = cli.getCommandSpec().qualifiedName();
        err.println(command + ": " + Table.printable(String.valueOf(e.getMessage())));
        if (e instanceof CommandLine.UnmatchedArgumentException unmatched && !unmatched.getSuggestions().isEmpty()) {
            // picocli's nearest options or commands by spelling: "--jsn" -> "--json"
            err.println("did you mean " + String.join(" or ", unmatched.getSuggestions()) + "?");
        }
        err.println("try '" + command + " --help'");
        err.flush();
        return ExitCode.USAGE;
    }

    /**
     * Turns the exceptions commands throw into one line on stderr ({@code hintmap COMMAND: ...})
     * and an exit status: the one handler of every command, so that no command prints a raw
     * exception or a stack for an operational error. Every message goes through
     * {@link Table#printable}: a region name or a path in it (whoever writes the file or the
     * directory chooses them) cannot put an escape sequence on the terminal or a second line.
     */
    private static int handle(Exception e, CommandLine cli, CommandLine.ParseResult parsed) {
        PrintWriter err = cli.getErr();
        String command = cli.getCommandSpec().qualifiedName();
        Throwable cause = e instanceof UncheckedIOException u ? u.getCause() : e;
        int exit;
        if (cause instanceof HintFileException h) {
            err.println(command + ": " + Table.printable(HintFileErrors.message(h)));
            exit = HintFileErrors.exitCode(h);
        } else if (cause instanceof DataLossRefused refused) {
            err.println(command + ": " + Table.printable(refused.getMessage()));
            exit = ExitCode.PROBLEMS;
        } else if (cause instanceof IOException io) {
            err.println(command + ": " + Table.printable(describe(io)));
            exit = ExitCode.IO_ERROR;
        } else if (cause instanceof IllegalArgumentException bad) {
            err.println(command + ": " + Table.printable(String.valueOf(bad.getMessage())));
            err.println("try '" + command + " --help'");
            exit = ExitCode.USAGE;
        } else {
            // A bug: still one line by default; the stack on demand, for the report.
            boolean debug = System.getenv("HINTMAP_DEBUG") != null;
            err.println(command + ": internal error: " + Table.printable(e.toString())
                    + (debug ? "" : " (set HINTMAP_DEBUG=1 for the stack)"));
            if (debug) {
                e.printStackTrace(err);
            }
            exit = ExitCode.SOFTWARE;
        }
        err.flush();
        return exit;
    }

    /**
     * An I/O error as the user can act on it: the file concerned and the reason, without the JDK's
     * class name ({@code java.nio.file.NoSuchFileException: x} says less than {@code x: no such file
     * or directory}).
     */
    static String describe(IOException e) {
        if (e instanceof FileSystemException f && f.getFile() != null) {
            String reason = f.getReason() != null ? f.getReason() : switch (f) {
                case NoSuchFileException n -> "no such file or directory";
                case AccessDeniedException a -> "permission denied";
                case FileAlreadyExistsException x -> "already exists";
                case DirectoryNotEmptyException d -> "is a directory (not empty)";
                case NotDirectoryException d -> "not a directory";
                default -> "failed (" + f.getClass().getSimpleName() + ")";
            };
            return f.getFile() + (f.getOtherFile() == null ? "" : " -> " + f.getOtherFile()) + ": " + reason;
        }
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }

    /**
     * {@code hintmap --version}: the release (the pom's version, through {@link HintFiles#version()})
     * and the format version this build reads and writes ({@link HintFiles#FORMAT_VERSION}), then
     * the Java runtime it runs on.
     */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {
                "hintmap " + HintFiles.version() + ", file format version " + HintFiles.FORMAT_VERSION,
                "Java " + Runtime.version() + " (" + System.getProperty("java.vendor", "unknown vendor") + ")",
            };
        }
    }
}
