package dev.hintmap.cli;

import dev.hintmap.HintFileException;
import dev.hintmap.HintSnapshot;
import dev.hintmap.HintStore;
import dev.hintmap.RegionOrder;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code hintmap top FILE}: the hottest regions, once or as a live view (like {@code perf top}). */
@Command(name = "top", versionProvider = HintmapCli.Version.class, description = {
            "Show the hottest regions, once or live (--watch).",
            "Prints the hottest regions of a hint file. With --watch, a live full-screen view that refreshes in"
                    + " place while other processes record into the file, with each region's rates since the last"
                    + " refresh. Keys: t, m, c, x sort by total, mean, count, max; p or space pauses and resumes; q or"
                    + " Ctrl-C leaves. When standard output is not a terminal, --watch prints one table per refresh"
                    + " instead. A FILE that does not exist yet is waited for (\"waiting for FILE\" on standard"
                    + " error).",
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

    @Option(names = "--watch", description = "refresh in place until q, Ctrl-C or --iterations")
    boolean watch;

    @Option(names = "--interval", paramLabel = "MS", defaultValue = "1000",
            description = "refresh period of --watch in milliseconds (default: ${DEFAULT-VALUE})")
    long intervalMs;

    @Option(names = "--iterations", paramLabel = "N", defaultValue = "0",
            description = "with --watch, stop after N refreshes (0: run until q or Ctrl-C)")
    int iterations;

    /**
     * A snapshot of the file now at the path: when another file was renamed onto it (a
     * {@code merge --force}, a restored profile), the view reopens and follows it.
     */
    private HintSnapshot snapshotFollowingReplacement(HintStore[] store) throws java.io.IOException {
        try {
            return store[0].snapshot();
        } catch (java.io.UncheckedIOException e) {
            if (!(e.getCause() instanceof dev.hintmap.HintFileException h)
                    || h.problem() != dev.hintmap.HintFileException.Problem.REPLACED) {
                throw e;
            }
            HintStore reopened = files.openReadOnly(file);
            store[0].close();
            store[0] = reopened;
            return reopened.snapshot();
        }
    }

    /**
     * Opens the file for the live view, waiting for it when it does not exist yet: {@code top --watch}
     * is often started before the runtime that creates the file. Says so once on standard error;
     * any other problem (not a hint file, damaged) ends the command as usual.
     */
    private HintStore openWhenPresent(PrintWriter err) throws java.io.IOException {
        boolean said = false;
        while (true) {
            try {
                return files.openReadOnly(file);
            } catch (HintFileException e) {
                if (e.problem() != HintFileException.Problem.MISSING) {
                    throw e;
                }
                if (!said) {
                    err.println("waiting for " + file);
                    err.flush();
                    said = true;
                }
                LockSupport.parkNanos(intervalMs * 1_000_000);
            }
        }
    }

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
        PrintWriter out = spec.commandLine().getOut();
        if (!watch) {
            try (HintStore store = files.openReadOnly(file)) {
                for (String line : TopView.render(store.snapshot(), null, limit, by.order, 0, filter::test)) {
                    out.println(line);
                }
            }
            out.flush();
            return ExitCode.OK;
        }
        HintStore[] store = {openWhenPresent(spec.commandLine().getErr())};
        try {
            WatchScreen.run(out, intervalMs, iterations, by.order, () -> snapshotFollowingReplacement(store),
                    TopView.screen(limit, filter::test));
        } finally {
            store[0].close();
        }
        return ExitCode.OK;
    }
}
