package dev.hintmap.cli;

import dev.hintmap.HintFileException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code hintmap}: inspect, watch, merge, copy, age, verify and export hint files. Every command
 * prints its result on standard output and problems on standard error, and exits with one of the
 * {@link ExitCode} values.
 */
@Command(name = "hintmap",
        mixinStandardHelpOptions = true,
        versionProvider = HintmapCli.Version.class,
        description = "Inspect, watch, merge, copy, age, verify, compare and export hint files (see docs/FORMAT.md).",
        subcommands = {
            StatCommand.class, TopCommand.class, DumpCommand.class, MergeCommand.class, CopyCommand.class,
            DecayCommand.class, VerifyCommand.class, ExportCommand.class, DiffCommand.class, DemoCommand.class,
            CompletionCommand.class, CommandLine.HelpCommand.class,
        },
        footerHeading = "%nExit status:%n",
        footer = {
            "  0  success",
            "  1  problems found (verify: in the file; decay: regions left unaged) or a refusal to lose data"
                    + " (merge, copy: the output has live writers; use --replace-live)",
            "  2  bad usage: unknown option, bad value",
            "  3  not a usable hint file (missing, damaged, other version...)",
            "  4  another I/O error (disk full, permission...)",
        },
        usageHelpAutoWidth = true)
public final class HintmapCli implements Runnable {
    @picocli.CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Runs the command line and returns its exit status (the process exits with it in {@link #main}). */
    public static int run(String[] args, PrintWriter out, PrintWriter err) {
        CommandLine cli = commandLine();
        cli.setOut(out);
        cli.setErr(err);
        return cli.execute(args);
    }

    static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new HintmapCli());
        cli.setExecutionExceptionHandler(HintmapCli::handle);
        cli.setCaseInsensitiveEnumValuesAllowed(true);
        return cli;
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a command is required (see --help)");
    }

    /** Turns the exceptions commands throw into one line on stderr and an exit status. */
    private static int handle(Exception e, CommandLine cli, CommandLine.ParseResult parsed) {
        PrintWriter err = cli.getErr();
        String command = cli.getCommandSpec().qualifiedName();
        Throwable cause = e instanceof UncheckedIOException u ? u.getCause() : e;
        if (cause instanceof HintFileException h) {
            err.println(command + ": " + h.getMessage());
            boolean io = h.problem() == HintFileException.Problem.IO
                    || h.problem() == HintFileException.Problem.NO_SPACE
                    || h.problem() == HintFileException.Problem.NATIVE_ACCESS;
            return io ? ExitCode.IO_ERROR : ExitCode.BAD_FILE;
        }
        if (cause instanceof DataLossRefused refused) {
            err.println(command + ": " + refused.getMessage());
            return ExitCode.PROBLEMS;
        }
        if (cause instanceof IOException io) {
            err.println(command + ": " + io);
            return ExitCode.IO_ERROR;
        }
        if (cause instanceof IllegalArgumentException bad) {
            err.println(command + ": " + bad.getMessage());
            cli.usage(err);
            return ExitCode.USAGE;
        }
        err.println(command + ": internal error: " + e);
        e.printStackTrace(err);
        return ExitCode.SOFTWARE;
    }

    /** The version from the jar's manifest, or "development" when run from classes. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = HintmapCli.class.getPackage().getImplementationVersion();
            return new String[] {"hintmap " + (v == null ? "(development build)" : v) + ", file format version 1"};
        }
    }
}
