package dev.hintmap.cli;

import dev.hintmap.HintSnapshot;
import dev.hintmap.HintStore;
import dev.hintmap.RegionOrder;
import dev.hintmap.RegionRecord;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code hintmap top FILE}: the hottest regions, once or as a live view (like {@code perf top}). */
@Command(name = "top", versionProvider = HintmapCli.Version.class,
        footerHeading = CliReference.EXAMPLES_HEADING,
        footer = {
            "  hintmap top -n 10 --by mean app.hints",
            "  hintmap top --watch --interval 500 app.hints",
        },
        description = {
            "Show the hottest regions, once or live (--watch).",
            "Prints the hottest regions of a hint file. With --watch, a live full-screen view that refreshes in"
                    + " place while other processes record into the file, with each region's rates since the last"
                    + " refresh. Keys: t, m, c, x sort by total, mean, count, max; p or space pauses and resumes; q or"
                    + " Ctrl-C leaves. When standard output is not a terminal, --watch prints one table per refresh"
                    + " instead. It shows the file at FILE's path: one renamed onto it is followed, and a FILE that"
                    + " does not exist yet, or was removed, is waited for (\"waiting for FILE\" on standard error);"
                    + " each interval spent waiting counts as a refresh of --iterations, and when the last one"
                    + " found no file the exit status is 3.",
            "HOT SET marks the regions of the hot set by coverage, as hintmap hot lists it with its defaults: the"
                    + " fewest regions, hottest by total kernel time first, that make up 95% of the kernel time (where the"
                    + " time goes, what to tune first). CUM SHARE is a region's share of the kernel time plus that of"
                    + " every region before it in the hot set's order (more total kernel time first, whatever --by"
                    + " says; the live view leaves it out for its rates). SLOW marks the regions whose"
                    + " mean kernel time per dispatch is at least the file's hot threshold (is one launch expensive:"
                    + " isHot, hm_is_hot, is_hot).",
            "The table fits the terminal (its width, else the COLUMNS environment variable, else 100 columns;"
                    + " --width sets it): every number is shown whole, and a long kernel name is shortened where it"
                    + " says least (--name-style; a name stored shortened keeps its ~hash tag); where the numbers leave"
                    + " too little room, each region takes two lines, its name on the first. -w prints names whole.",
            "--filter matches the names as the file stores them (see dump --help); in the live view its note on"
                    + " names stored shortened is the frame's last line.",
        })
final class TopCommand implements Callable<Integer> {
    @Mixin
    HelpOption help;

    /** What {@code --by} accepts. */
    enum By {
        total(RegionOrder.TOTAL_NS), mean(RegionOrder.MEAN_NS), count(RegionOrder.COUNT), max(RegionOrder.MAX_NS);

        final RegionOrder order;

        By(RegionOrder order) {
            this.order = order;
        }
    }

    @Spec
    CommandSpec spec;

    @Mixin
    FileArgs files;

    @Parameters(index = "0", paramLabel = "FILE", description = "the hint file")
    Path file;

    @Option(names = {"-n", "--lines"}, paramLabel = "N", defaultValue = "20",
            description = "regions to show (default: ${DEFAULT-VALUE})")
    int limit;

    @Option(names = "--by", paramLabel = "ORDER", defaultValue = "total",
            description = "rank by total kernel time, mean kernel time, dispatch count or longest dispatch:"
                    + " ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE})")
    By by;

    @Mixin
    RegionFilter filter;

    @Mixin
    TableOptions table;

    @Option(names = "--watch", description = "refresh in place until q, Ctrl-C or --iterations")
    boolean watch;

    @Option(names = "--interval", paramLabel = "MS", defaultValue = "1000",
            description = "refresh period of --watch in milliseconds (default: ${DEFAULT-VALUE})")
    long intervalMs;

    @Option(names = "--iterations", paramLabel = "N", defaultValue = "0",
            description = "with --watch, stop after N refreshes (0: run until q or Ctrl-C)")
    int iterations;

    @Override
    public Integer call() throws Exception {
        if (limit < 0) {
            throw new ParameterException(spec.commandLine(), "--lines must be >= 0, not " + limit);
        }
        if (intervalMs < 10 || intervalMs > 3_600_000) {
            throw new ParameterException(spec.commandLine(), "--interval must be in [10, 3600000] ms, not " + intervalMs);
        }
        if (iterations < 0) {
            throw new ParameterException(spec.commandLine(), "--iterations must be >= 0, not " + iterations);
        }
        if (!watch) {
            // Accepted and ignored, they would make the user wait for refreshes that never come.
            for (String option : new String[] {"--interval", "--iterations"}) {
                if (spec.commandLine().getParseResult().hasMatchedOption(option)) {
                    throw new ParameterException(spec.commandLine(), option + " applies to --watch only");
                }
            }
        }
        TableLayout layout = table.layout();
        PrintWriter out = spec.commandLine().getOut();
        if (!watch) {
            try (HintStore store = files.openReadOnly(file)) {
                HintSnapshot snapshot = store.snapshot();
                for (String line : TopView.render(snapshot, null, limit, by.order, layout,
                        filter.selector(snapshot.maxNameBytes()))) {
                    out.println(line);
                }
                out.flush();
                filter.note(snapshot.regions().stream().map(RegionRecord::name).toList(), snapshot.maxNameBytes())
                        .ifPresent(note -> spec.commandLine().getErr().println("top: note: " + note));
            }
            out.flush();
            return ExitCode.OK;
        }
        try (FollowedFile followed = new FollowedFile(file, files, spec.commandLine().getErr())) {
            WatchScreen.run(out, intervalMs, iterations, by.order, followed, TopView.screen(limit, filter, file, layout));
            if (iterations > 0) {
                followed.requirePresent(); // N refreshes without a file: that file is missing (exit 3)
            }
        }
        return ExitCode.OK;
    }
}
