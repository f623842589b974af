package dev.hintmap.cli;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.hintmap.RegionRecord;
import java.io.PrintWriter;
import java.nio.file.Path;
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

/** {@code hintmap diff A B}: what changed between two profiles, and how much they overlap. */
@Command(name = "diff", versionProvider = HintmapCli.Version.class,
        footerHeading = CliReference.EXAMPLES_HEADING,
        footer = {
            "  hintmap diff before.hints after.hints",
            "  hintmap diff --json before.json after.hints",
        },
        description = {
            "Compare two profiles region by region, with their overlap.",
            "A and B are hint files or JSON written by dump --format json. Per region: dispatch count, total and"
                    + " mean kernel time in A and in B and the change B - A; regions only in A or only in B are marked"
                    + " so. Regions are listed by the size of the change of total kernel time, largest first.",
            "Overlap, as llvm-profdata overlap reports it: with share_A(r) = total kernel ns of region r in A"
                    + " / total kernel ns of all regions of A (0 where r is not in A), overlap = the sum over the"
                    + " regions of A and B of min(share_A(r), share_B(r)). 1.0: the same distribution of kernel time"
                    + " over the regions (absolute times may differ, e.g. after decay); 0.0: no region has kernel"
                    + " time in both. Two profiles without any kernel time overlap 1.0; one without, 0.0.",
            "The table fits the terminal (its width, else the COLUMNS environment variable, else 100 columns;"
                    + " --width sets it): every number is shown whole, and a long kernel name is shortened where it"
                    + " says least (--name-style; a name stored shortened keeps its ~hash tag); where the numbers leave"
                    + " too little room, each region takes two lines, its name on the first. -w prints names whole.",
        })
final class DiffCommand implements Callable<Integer> {
    @Mixin
    HelpOption help;

    private static final int DEFAULT_ROWS = 20;

    @Spec
    CommandSpec spec;

    @Mixin
    FileArgs files;

    @Parameters(index = "0", paramLabel = "A", description = "the first profile (hint file or JSON dump)")
    Path a;

    @Parameters(index = "1", paramLabel = "B", description = "the second profile (hint file or JSON dump)")
    Path b;

    @Option(names = "--json", description = "print JSON instead of a table")
    boolean json;

    @Mixin
    TableOptions tableOptions;

    @Option(names = {"-n", "--lines"}, paramLabel = "N",
            description = "regions to list, largest change first (default: " + DEFAULT_ROWS + " in the table, all in"
                    + " JSON; 0: none)")
    Integer lines;

    @Override
    public Integer call() throws Exception {
        if (lines != null && lines < 0) {
            throw new ParameterException(spec.commandLine(), "--lines must be >= 0, not " + lines);
        }
        if (json) {
            tableOptions.refuseWithoutTable(spec.commandLine(), "--json");
        }
        TableLayout layout = json ? TableLayout.UNLIMITED : tableOptions.layout();
        PrintWriter err = spec.commandLine().getErr();
        ProfileInput profileA = ProfileInput.read(a, files, "diff", err, n -> {});
        ProfileInput profileB = ProfileInput.read(b, files, "diff", err, n -> {});
        int nameLimit = Math.min(profileA.maxNameBytes(), profileB.maxNameBytes()); // FORMAT.md §1.1
        List<RegionRecord> inA = profileA.regionsAtNameLimit(nameLimit);
        List<RegionRecord> inB = profileB.regionsAtNameLimit(nameLimit);
        List<ProfileDiff.Change> changes = ProfileDiff.changes(inA, inB);
        double overlap = ProfileDiff.overlap(inA, inB);
        int rows = lines != null ? lines : json ? changes.size() : DEFAULT_ROWS;
        List<ProfileDiff.Change> shown = changes.subList(0, Math.min(rows, changes.size()));
        long both = changes.stream().filter(c -> c.a() != null && c.b() != null).count();
        long onlyA = changes.stream().filter(c -> c.b() == null).count();
        long onlyB = changes.stream().filter(c -> c.a() == null).count();
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            Report report = new Report(side(a, inA), side(b, inB), overlap, both, onlyA, onlyB,
                    shown.stream().map(DiffCommand::region).toList());
            out.println(new ObjectMapper().setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
                    .enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(report));
        } else {
            table(out, inA, inB, overlap, both, onlyA, onlyB, changes.size(), shown, nameLimit, layout);
        }
        out.flush();
        return ExitCode.OK;
    }

    private void table(PrintWriter out, List<RegionRecord> inA, List<RegionRecord> inB, double overlap, long both,
            long onlyA, long onlyB, int all, List<ProfileDiff.Change> shown, int nameLimit, TableLayout layout) {
        int width = layout.width(); // the heading's lines fit as the table's do, their figures whole
        Table.wrap("A: " + a + "  " + Units.count(inA.size()) + " regions, " + Units.duration(ProfileDiff.sum(inA))
                + " kernel time", width).forEach(out::println);
        Table.wrap("B: " + b + "  " + Units.count(inB.size()) + " regions, " + Units.duration(ProfileDiff.sum(inB))
                + " kernel time", width).forEach(out::println);
        Table.wrap(String.format(Locale.ROOT, "overlap %.4f (of the kernel time distributions: 1 identical, 0 disjoint)",
                overlap), width).forEach(out::println);
        Table.wrap("regions: " + Units.count(both) + " in both, " + Units.count(onlyA) + " only in A, "
                + Units.count(onlyB) + " only in B", width).forEach(out::println);
        if (shown.isEmpty()) {
            return;
        }
        out.println();
        Table table = new Table("*REGION", "IN", ">DISPATCHES A", ">DISPATCHES B", ">TOTAL A", ">TOTAL B", ">CHANGE",
                ">MEAN A", ">MEAN B", ">CHANGE");
        for (ProfileDiff.Change c : shown) {
            table.row(RegionName.of(c.name(), nameLimit), c.in(), c.a() == null ? "-" : Units.count(c.a().dispatchCount()),
                    c.b() == null ? "-" : Units.count(c.b().dispatchCount()),
                    c.a() == null ? "-" : Units.duration(c.a().kernelNsTotal()),
                    c.b() == null ? "-" : Units.duration(c.b().kernelNsTotal()), signed(c.totalDelta()),
                    c.a() == null ? "-" : Units.duration(c.a().meanKernelNs()),
                    c.b() == null ? "-" : Units.duration(c.b().meanKernelNs()),
                    c.a() == null || c.b() == null ? "" : signed(c.meanDelta()));
        }
        table.lines(layout).forEach(out::println);
        if (shown.size() < all) {
            out.println("(" + Units.count(all - shown.size()) + " more; -n " + all + " lists all)");
        }
    }

    private static String signed(long ns) {
        return (ns > 0 ? "+" : ns < 0 ? "-" : "") + Units.duration(Math.abs((double) ns));
    }

    private static Side side(Path path, List<RegionRecord> regions) {
        long total = 0;
        for (RegionRecord r : regions) {
            total = total + r.kernelNsTotal() < 0 ? Long.MAX_VALUE : total + r.kernelNsTotal(); // saturating, as files
        }
        return new Side(path.toString(), regions.size(), total);
    }

    private static Region region(ProfileDiff.Change c) {
        return new Region(c.name(), switch (c.in()) {
            case "A" -> "a";
            case "B" -> "b";
            default -> "both";
        }, values(c.a()), values(c.b()), c.dispatchDelta(), c.totalDelta(), c.meanDelta());
    }

    private static Values values(RegionRecord r) {
        return r == null ? null : new Values(r.dispatchCount(), r.kernelNsTotal(), r.meanKernelNs());
    }

    /** The JSON document; its keys snake_case, as dump --format json spells them (inBoth: in_both). */
    @JsonPropertyOrder({"a", "b", "overlap", "inBoth", "onlyInA", "onlyInB", "regions"})
    record Report(Side a, Side b, double overlap, long inBoth, long onlyInA, long onlyInB, List<Region> regions) {}

    /** One input: its path, regions and kernel time (saturating at 2^63-1). */
    @JsonPropertyOrder({"file", "regions", "kernelNsTotal"})
    record Side(String file, int regions, long kernelNsTotal) {}

    /** One region: {@code in} is "both", "a" or "b"; the absent side is null; the changes are B - A, absent = 0. */
    @JsonPropertyOrder({"name", "in", "a", "b", "dispatchCountChange", "kernelNsTotalChange", "meanKernelNsChange"})
    record Region(String name, String in, Values a, Values b, long dispatchCountChange, long kernelNsTotalChange,
            long meanKernelNsChange) {}

    /** A region's figures in one profile. */
    @JsonPropertyOrder({"dispatchCount", "kernelNsTotal", "meanKernelNs"})
    record Values(long dispatchCount, long kernelNsTotal, long meanKernelNs) {}
}
