package dev.hintmap.cli;

import dev.hintmap.DecayResult;
import dev.hintmap.HintStore;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code hintmap decay FILE --factor F}: age a profile between runs, in place. */
@Command(name = "decay", versionProvider = HintmapCli.Version.class,
        footerHeading = CliReference.EXAMPLES_HEADING,
        footer = {
            "  hintmap decay --factor 0.5 app.hints",
        },
        description = {"Age a profile in place between runs (means kept).", "Every region's dispatch count becomes"
                + " max(1, round(count * F)) and its totals shrink by the same ratio, so means are kept while old"
                + " data weighs less against new samples. Safe while writers record: each region is rewritten"
                + " under its slot lock.", "A region whose slot lock a live process keeps past the lock wait limit"
                + " (5 s: a writer stopped while recording) is not aged; each such region is named on standard"
                + " error and the exit status is 1."})
final class DecayCommand implements Callable<Integer> {
    @Mixin
    HelpOption help;

    @Spec
    CommandSpec spec;

    @Mixin
    FileArgs files;

    @Parameters(index = "0", paramLabel = "FILE", description = "the hint file (modified in place)")
    Path file;

    @Option(names = "--factor", paramLabel = "F", required = true,
            description = "what counts and totals are multiplied by, in (0, 1]: 0.5 halves the weight of what was"
                    + " recorded so far")
    double factor;

    @Override
    public Integer call() throws Exception {
        if (!(factor > 0 && factor <= 1)) {
            throw new ParameterException(spec.commandLine(), "--factor " + factor + " is outside (0, 1]");
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        DecayResult result;
        try (HintStore store = files.openExistingForWriting(file)) {
            result = store.decay(factor);
            store.flush();
        }
        out.println(String.format(Locale.ROOT, "decayed %s region(s) of %s by %s", Units.count(result.aged()), file,
                factor));
        out.flush();
        for (String name : result.skipped()) {
            err.println("decay: skipped " + Table.printable(name)
                    + ": its slot lock is held by a live process (stopped?)");
        }
        err.flush();
        // Not aged is data left as it was, not lost; but the profile is not what the user asked for, so say so.
        return result.skipped().isEmpty() ? ExitCode.OK : ExitCode.PROBLEMS;
    }
}
