package dev.hintmap.cli;

import dev.hintmap.HintFiles;
import dev.hintmap.HintStore;
import dev.hintmap.VerifyReport;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code hintmap verify FILE}: check every invariant of the format; exit 1 when something is wrong. */
@Command(name = "verify", versionProvider = HintmapCli.Version.class,
        footerHeading = CliReference.EXAMPLES_HEADING,
        footer = {
            "  hintmap verify app.hints",
        },
        description = {
            "Check every invariant of the file format; exit 1 on problems.",
            "Checks the hint file format (docs/FORMAT.md) without modifying the file: header,"
                    + " checksum and layout, coordination words, writer table, every slot (name, hash, padding,"
                    + " record invariants) and the index against the slots (probe bounds, reachability, one entry per"
                    + " region). Prints each problem with its slot or index entry; exits 1 if there is any. A file that"
                    + " cannot be opened as a hint file at all (not one, header checksum wrong, another version) is"
                    + " exit 3, as for every command.",
            "NOTE lines are legal states worth knowing (e.g. a lock left by a crashed writer, taken over on next use).",
        })
final class VerifyCommand implements Callable<Integer> {
    @Mixin
    HelpOption help;

    @Spec
    CommandSpec spec;

    @Mixin
    FileArgs files;

    @Parameters(index = "0", paramLabel = "FILE", description = "the hint file")
    Path file;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        // A file that does not open is not a hint file with problems but no usable hint file at all:
        // exit 3 with the reason, as every other command says it (HintFiles.verify(Path) would make it a finding).
        VerifyReport report;
        try (HintStore store = files.openReadOnly(file)) {
            report = HintFiles.verify(store);
        }
        for (VerifyReport.Finding f : report.findings()) {
            out.println(Table.printable(f.toString()));
        }
        if (!report.stable()) {
            out.println("WARNING writers kept changing the set of regions during every attempt: problems above may"
                    + " be states that were in flight");
        }
        int errors = report.errors().size();
        out.println((errors == 0 ? "OK " : "FAILED ") + file + ": " + Units.count(report.regions()) + " regions, "
                + Units.count(report.indexEntries()) + " index entries checked, " + errors + " problem(s)");
        out.flush();
        return errors == 0 ? ExitCode.OK : ExitCode.PROBLEMS;
    }
}
