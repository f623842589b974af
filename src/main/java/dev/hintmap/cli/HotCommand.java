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

/** {@code hintmap hot FILE --coverage C}: the hot set by coverage, with its cut line (docs/GUIDE.md). */
@Command(name = "hot", versionProvider = HintmapCli.Version.class,
        footerHeading = CliReference.EXAMPLES_HEADING,
        footer = {
            "  hintmap hot --coverage 0.9 app.hints",
        },
        description = {
            "Show the hot set: the fewest regions that make up a share of the kernel time.",
            "Prints the regions, hottest by total kernel time first, that together cover at least --coverage of the"
                    + " kernel time of every region in the file (as PGO systems define hot: LLVM's profile summary,"
                    + " Go's PGO), then the cut line with the share covered. Regions with fewer than --min-dispatches"
                    + " dispatches never count; their time stays in the whole, so the cut line says when they hold"
                    + " too much for the coverage to be reached. Equal totals are ordered by name (UTF-8 bytes)."
                    + " The regions are read in one cut of the file (no region counted twice or missed while writers"
                    + " insert and evict); when writers kept changing it through every attempt, a warning on standard"
                    + " error says the set is a hint. The same answer as HintStore.hotSet (Java) and hm_hot_set (C)."
                    + " Read-only.",
            "The table fits the terminal as top's does (its width, else the COLUMNS environment variable, else 100"
                    + " columns; --width sets it): every number is shown whole, and a long kernel name is shortened"
                    + " where it says least (--name-style; a name stored shortened keeps its ~hash tag); where the"
                    + " numbers leave too little room, each region takes two lines, its name on the first. -w prints"
                    + " names whole."})
final class HotCommand implements Callable<Integer> {
    /** {@code --coverage}'s default, the hot set {@code top} marks too. */
    static final String DEFAULT_COVERAGE = "0.95";
    /** {@code --min-dispatches}'s default: every region counts. */
    static final String DEFAULT_MIN_DISPATCHES = "1";

    @Mixin
    HelpOption help;

    @Spec
    CommandSpec spec;

    @Mixin
    FileArgs files;

    @Parameters(index = "0", paramLabel = "FILE", description = "the hint file")
    Path file;

    @Option(names = "--coverage", paramLabel = "C", defaultValue = DEFAULT_COVERAGE,
            description = "the fraction of kernel time to cover, in [0, 1] (default: ${DEFAULT-VALUE})")
    double coverage;

    @Option(names = "--min-dispatches", paramLabel = "N", defaultValue = DEFAULT_MIN_DISPATCHES,
            description = "regions with fewer dispatches never count as hot (default: ${DEFAULT-VALUE}: all count)")
    long minDispatches;

    @Mixin
    TableOptions table;

    @Override
    public Integer call() throws Exception {
        try {
            HotSet.requireValid(coverage, minDispatches); // the library's check, before the file is opened
        } catch (IllegalArgumentException e) {
            // The message begins with the parameter's name (HotSet.requireValid): say the option instead.
            throw new ParameterException(spec.commandLine(),
                    "--" + e.getMessage().replaceFirst("^minDispatches", "min-dispatches"), e);
        }
        TableLayout layout = table.layout(); // usage errors before the file is opened
        HotSet set;
        int maxNameBytes;
        try (HintStore store = files.openReadOnly(file)) {
            set = store.hotSet(coverage, minDispatches);
            maxNameBytes = store.maxNameBytes();
        }
        PrintWriter out = spec.commandLine().getOut();
        for (String line : render(file, set, maxNameBytes, layout)) {
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

    /**
     * The report: the file, the figures of the set, one row per region of the set, the cut line;
     * every line within {@code layout}'s width (the figures and the cut line broken between their
     * clauses, the table as {@link Table} fits it), the file's path alone cut where it is wider.
     */
    static List<String> render(Path file, HotSet set, int maxNameBytes, TableLayout layout) {
        List<String> lines = new ArrayList<>();
        lines.add(Table.cut(Table.printable("hot set of " + file), layout.width()));
        String whole = set.totalNs() == Long.MAX_VALUE ? ">= " + Units.duration(set.totalNs()) // the sum clamped
                : Units.duration(set.totalNs());
        lines.addAll(Table.wrap(String.format(Locale.ROOT, "%s of %s regions cover %s of %s kernel time (asked %s%s)",
                Units.count(set.regions().size()), Units.count(set.regionsRead()), Units.percent(set.coveredShare()),
                whole, Units.percent(set.coverage()),
                set.minDispatches() > 1 ? ", regions with >= " + Units.count(set.minDispatches()) + " dispatches" : ""),
                layout.width()));
        if (!set.regions().isEmpty()) {
            Table rows = new Table(">#", "*REGION", ">DISPATCHES", ">TOTAL", ">SHARE", ">CUMULATIVE", ">MEAN");
            int i = 1;
            for (HotRegion r : set.regions()) {
                rows.row(i++, RegionName.of(r.name(), maxNameBytes), Units.count(r.record().dispatchCount()),
                        Units.duration(r.record().kernelNsTotal()), Units.percent(r.share()),
                        Units.percent(r.cumulativeShare()), Units.duration(r.record().meanKernelNs()));
            }
            lines.addAll(rows.lines(layout));
        }
        lines.addAll(Table.wrap(cutLine(set), layout.width()));
        return lines;
    }

    private static String cutLine(HotSet set) {
        int below = set.regionsRead() - set.regions().size() - set.thinRegions();
        String thin = set.thinRegions() == 0 ? ""
                : String.format(Locale.ROOT, "; %s thin (< %s dispatches) hold %s", Units.count(set.thinRegions()),
                        Units.count(set.minDispatches()), Units.percent(set.thinShare()));
        if (set.reached()) {
            return String.format(Locale.ROOT, "---- cut: %s covered >= %s asked; below the cut %s region(s)%s",
                    Units.percent(set.coveredShare()), Units.percent(set.coverage()), Units.count(below), thin);
        }
        return String.format(Locale.ROOT, "---- cut: only %s covered < %s asked: every region with enough dispatches"
                + " is in the set%s", Units.percent(set.coveredShare()), Units.percent(set.coverage()), thin);
    }
}
