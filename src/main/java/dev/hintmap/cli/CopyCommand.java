package dev.hintmap.cli;

import dev.hintmap.HintFileInfo;
import dev.hintmap.HintSnapshot;
import dev.hintmap.HintStore;
import dev.hintmap.RegionRecord;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code hintmap copy SRC DST}: a backup of a hint file that may be in use. A byte copy
 * ({@code cp}) of a live file copies its slot locks and writer table too, so the copy names
 * writers that never opened it and may hold a lock in the middle of an update; this writes a new
 * file instead, as a merge of the one input with SRC's layout.
 */
@Command(name = "copy", versionProvider = HintmapCli.Version.class,
        footerHeading = CliReference.EXAMPLES_HEADING,
        footer = {
            "  hintmap copy /dev/shm/app.hints backup.hints",
        },
        description = {
            "Copy a hint file safely, also while writers record into it.",
            "Writes a new file at DST with SRC's capacity, maximum name length and hot threshold, holding every"
                    + " region of SRC (each record consistent: one update of it, never a mix), no lock held and no"
                    + " writer attached. SRC is read in place (read-only); DST is published like merge's output"
                    + " (temporary file, then rename), and a DST that live writers are attached to is not replaced"
                    + " (exit 1) without --replace-live.",
            "Do not cp a live file: the copy would carry its slot locks and writer table. A file no process has"
                    + " open may be copied with cp.",
            OutputFile.RULES,
        })
final class CopyCommand implements Callable<Integer> {
    @Mixin
    HelpOption help;

    @Spec
    CommandSpec spec;

    @Mixin
    FileArgs files;

    @Parameters(index = "0", paramLabel = "SRC", description = "the hint file to copy")
    Path source;

    @Parameters(index = "1", paramLabel = "DST", description = "the new hint file")
    Path destination;

    @Mixin
    ReplaceOptions replace;

    @Option(names = {"-q", "--quiet"}, description = "no progress on standard error")
    boolean quiet;

    @Override
    public Integer call() throws Exception {
        OutputFile target = new OutputFile("copy", destination, OutputFile.Content.HINT_FILE, replace, files);
        target.check(spec.commandLine());
        Progress progress = new Progress(spec.commandLine().getErr(), quiet);
        HintFileInfo info;
        List<RegionRecord> regions;
        try (HintStore store = files.openReadOnly(source)) {
            info = store.info();
            HintSnapshot snapshot = store.snapshot();
            regions = RegionsOnce.of(snapshot.regions(), source, "copy", spec.commandLine().getErr());
        }
        progress.step("copy: read " + source + ": " + Units.count(regions.size()) + " regions");
        long dropped = target.publish(regions, files.options().capacity(info.capacity())
                .maxNameBytes(info.maxNameBytes()).hotThresholdNs(info.hotThresholdNs()), progress);
        PrintWriter out = spec.commandLine().getOut();
        out.println("copied " + source + " to " + destination + ": " + Units.count(regions.size() - dropped)
                + " regions, capacity " + Units.count(info.capacity()));
        out.flush();
        if (dropped > 0) {
            // Same layout, same names: only a different insertion order can leave a name without an index
            // entry within the probe bound. Rare, but then the copy is not the whole file: say so.
            spec.commandLine().getErr().println("copy: " + dropped + " region(s) could not be indexed within the probe"
                    + " bound of " + destination + " and are missing from it");
            return ExitCode.PROBLEMS;
        }
        return ExitCode.OK;
    }
}
