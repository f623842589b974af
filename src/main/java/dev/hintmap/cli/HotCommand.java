package dev.hintmap.cli;

import dev.hintmap.HintStore;
import dev.hintmap.HotRegion;
import dev.hintmap.HotSet;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code hintmap hot FILE --coverage C}: the hot set by coverage, with its cut line (docs/OPTIMIZER.md). */
@Command(name = "hot", versionProvider = HintmapCli.Version.class, description = {
            "Show the hot set: the fewest regions that make up a share of the kernel time.",
            "Prints the regions, hottest by total kernel time first, that together cover at least --coverage of the"
                    + " kernel time of every region in the file (as PGO systems define hot: LLVM's profile summary,"
                    + " Go's PGO), then the cut line with the share covered. Regions with fewer than --min-dispatches"
                    + " dispatches never count; their time stays in the whole, so the cut line says when they hold"
                    + " too much for the coverage to be reached. Equal totals are ordered by name (UTF-8 bytes)."
                    + " The regions are read in one cut of the file (no region counted twice or missed while writers"
                    + " insert and evict); when writers kept changing it through every attempt, a warning on standard"
                    + " error says the set is a hint. The same answer as HintStore.hotSet (Java) and hm_hot_set (C)."
                    + " Read-only."})
final class HotCommand implements Callable<Integer> {
    @Mixin
    HelpOption help;

    @Spec
    CommandSpec spec;

    @Mixin
    FileArgs files;

    @Parameters(index = "0", paramLabel = "FILE", description = "the hint file")
    Path file;

    @Option(names = "--coverage", paramLabel = "C", defaultValue = "0.95",
            description = "the fraction of kernel time to cover, in [0, 1] (default: ${DEFAULT-VALUE})")
    double coverage;

    @Option(names = "--min-dispatches", paramLabel = "N", defaultValue = "1",
            description = "regions with fewer dispatches never count as hot (default: ${DEFAULT-VALUE}: all count)")
    long minDispatches;

    @Override
    public Integer call() throws Exception {
        if (!(coverage >= 0 && coverage <= 1)) {
            throw new ParameterException(spec.commandLine(), "--coverage " + coverage + " is not a fraction in [0, 1]"
                    + " (0.95: the regions that make up 95% of the kernel time)");
        }
        if (minDispatches < 0) {
            throw new ParameterException(spec.commandLine(), "--min-dispatches must be >= 0, not " + minDispatches);
        }
        HotSet set;
        try (HintStore store = files.openReadOnly(file)) {
            set = store.hotSet(coverage, minDispatches);
        }
        PrintWriter out = spec.commandLine().getOut();
        for (String line : render(file, set)) {
            out.println(line);
        }
        out.flush();
        if (!set.consistent()) {
            PrintWriter err = spec.commandLine().getErr();
            err.println("hot: writers kept inserting or evicting regions of " + Table.printable(file.toString())
                    + " through every read: the set is a hint (each region counted once)");
            err.flush();
        }
        return ExitCode.OK;
    }

    /** The report: a heading, one row per region of the set, the cut line. */
    static List<String> render(Path file, HotSet set) {
        List<String> lines = new ArrayList<>();
        lines.add(String.format(Locale.ROOT, "hot set of %s: %s of %s regions cover %s of %s kernel time (asked %s%s)",
                Table.printable(file.toString()), Units.count(set.regions().size()), Units.count(set.regionsRead()),
                Units.percent(set.coveredShare()), Units.duration(set.totalNs()), Units.percent(set.coverage()),
                set.minDispatches() > 1 ? ", regions with >= " + Units.count(set.minDispatches()) + " dispatches" : ""));
        if (!set.regions().isEmpty()) {
            lines.add(String.format(Locale.ROOT, "%4s  %12s  %11s  %6s  %10s  %10s  %s", "#", "DISPATCHES", "TOTAL",
                    "SHARE", "CUMULATIVE", "MEAN", "REGION"));
            int i = 1;
            for (HotRegion r : set.regions()) {
                lines.add(String.format(Locale.ROOT, "%4d  %12s  %11s  %6s  %10s  %10s  %s", i++,
                        Units.count(r.record().dispatchCount()), Units.duration(r.record().kernelNsTotal()),
                        Units.percent(r.share()), Units.percent(r.cumulativeShare()),
                        Units.duration(r.record().meanKernelNs()), Table.printable(r.name())));
            }
        }
        lines.add(cutLine(set));
        return lines;
    }

    private static String cutLine(HotSet set) {
        int below = set.regionsRead() - set.regions().size() - set.thinRegions();
        String thin = set.thinRegions() == 0 ? ""
                : String.format(Locale.ROOT, "; %s thin (< %s dispatches) hold %s", Units.count(set.thinRegions()),
                        Units.count(set.minDispatches()), Units.percent(share(set.thinNs(), set.totalNs())));
        if (set.reached()) {
            return String.format(Locale.ROOT, "---- cut: %s covered >= %s asked; below the cut %s region(s)%s",
                    Units.percent(set.coveredShare()), Units.percent(set.coverage()), Units.count(below), thin);
        }
        return String.format(Locale.ROOT, "---- cut: only %s covered < %s asked: every region with enough dispatches"
                + " is in the set%s", Units.percent(set.coveredShare()), Units.percent(set.coverage()), thin);
    }

    /** A share of the file's kernel time, as the hot set computes its own. */
    private static double share(long part, long total) {
        return total == 0 ? 0 : (double) part / (double) total;
    }
}
