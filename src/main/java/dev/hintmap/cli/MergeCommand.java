package dev.hintmap.cli;

import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code hintmap merge IN... -o OUT}: combine the profiles of several runs or machines, like {@code llvm-profdata merge}. */
@Command(name = "merge", versionProvider = HintmapCli.Version.class,
        footerHeading = CliReference.EXAMPLES_HEADING,
        footer = {
            "  hintmap merge -o all.hints run1.hints run2.hints",
            "  hintmap merge -o all.hints --weight old.hints=0.5 old.hints new.json",
        },
        description = {
            "Combine hint files from several runs or machines.",
            "Writes a new file: per region, dispatch counts, kernel"
                    + " and byte totals add (saturating at 2^63-1) and the maximum is the largest. When there are"
                    + " more regions than the output's capacity, the hottest by total kernel time are kept.",
            "An input may be the JSON of dump --format json instead of a hint file (a text profile: edit, keep"
                    + " in version control, merge back); it is checked strictly, and a malformed one is not a usable"
                    + " profile (exit 3).",
            "The inputs are read in place (read-only) and may be in use; OUT is written to a temporary file and"
                    + " renamed into place, so readers see the old file or the complete new one. An OUT that live"
                    + " writers are attached to is not replaced (exit 1) without --replace-live: they would keep"
                    + " writing the replaced file.",
            OutputFile.RULES,
        })
final class MergeCommand implements Callable<Integer> {
    @Mixin
    HelpOption help;

    private static final int PROGRESS_EVERY = 1 << 16;

    @Spec
    CommandSpec spec;

    @Mixin
    FileArgs files;

    @Parameters(paramLabel = "IN", arity = "1..*",
            description = "input hint files, or JSON written by dump --format json (named *.json or starting with {)")
    List<Path> inputs;

    @Option(names = {"-o", "--output"}, paramLabel = "OUT", required = true, description = "the merged hint file to write")
    Path output;

    @Option(names = "--capacity", paramLabel = "N",
            description = "capacity of OUT (default: the largest capacity among the inputs)")
    Integer capacity;

    @Option(names = "--hot-threshold-ns", paramLabel = "NS",
            description = "hot threshold of OUT (default: the first input's)")
    Long hotThresholdNs;

    @Option(names = "--max-name-bytes", paramLabel = "B",
            description = "longest region name OUT stores whole (default: the largest among the inputs); at the"
                    + " smallest input's limit every kernel that inputs of different limits name differently is"
                    + " matched (FORMAT.md §1.1)")
    Integer maxNameBytes;

    @Option(names = "--weight", paramLabel = "IN=W",
            description = "weight of input IN (as named on the command line): its counts and totals are multiplied"
                    + " by W > 0 before merging, means kept; repeatable (default 1)")
    Map<String, String> weights = new LinkedHashMap<>();

    @Mixin
    ReplaceOptions replace;

    @Option(names = {"-q", "--quiet"}, description = "no progress on standard error")
    boolean quiet;

    @Override
    public Integer call() throws Exception {
        Map<Path, Double> weightOf = parseWeights();
        // Capacity 0 is a legal file, but a merge into it would keep none of the regions it read.
        if (capacity != null && (capacity < 1 || capacity > HintStoreOptions.MAX_CAPACITY)) {
            throw new ParameterException(spec.commandLine(),
                    "--capacity " + capacity + " is outside [1, " + HintStoreOptions.MAX_CAPACITY + "]");
        }
        refuseRepeatedInputs();
        if (maxNameBytes != null) {
            try {
                HintStoreOptions.defaults().maxNameBytes(maxNameBytes); // the library's range, one rule
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "--max-name-bytes: " + e.getMessage());
            }
        }
        if (hotThresholdNs != null && hotThresholdNs < 0) {
            throw new ParameterException(spec.commandLine(), "--hot-threshold-ns " + hotThresholdNs + " is negative");
        }
        OutputFile target = new OutputFile("merge", output, OutputFile.Content.HINT_FILE, replace, files);
        target.check(spec.commandLine());
        PrintWriter out = spec.commandLine().getOut();
        Progress progress = new Progress(spec.commandLine().getErr(), quiet);
        ProfileMerger merger = new ProfileMerger();
        int outCapacity = 0;
        int largestNameLimit = 1;
        Long threshold = hotThresholdNs;
        for (int i = 0; i < inputs.size(); i++) {
            Path in = inputs.get(i);
            String label = "[" + (i + 1) + "/" + inputs.size() + "] " + in;
            ProfileInput profile = ProfileInput.read(in, files, "merge", spec.commandLine().getErr(), n -> {
                if (n % PROGRESS_EVERY == 0) {
                    progress.update("merge: reading " + label + ": " + Units.count(n) + " regions");
                }
            });
            List<RegionRecord> regions = profile.regions();
            outCapacity = Math.max(outCapacity, profile.capacity());
            largestNameLimit = Math.max(largestNameLimit, profile.maxNameBytes());
            if (threshold == null) {
                threshold = profile.hotThresholdNs();
            } else if (hotThresholdNs == null && threshold != profile.hotThresholdNs()) {
                progress.step("merge: warning: " + in + " has hot threshold " + profile.hotThresholdNs()
                        + " ns; OUT keeps " + threshold + " ns (set it with --hot-threshold-ns)");
            }
            double weight = weightOf.getOrDefault(in, 1.0);
            merger.add(regions, weight, profile.maxNameBytes());
            progress.step("merge: read " + label + ": " + Units.count(regions.size()) + " regions"
                    + (weight == 1 ? "" : ", weight " + weight) + "; " + Units.count(merger.size()) + " distinct so far");
        }
        int cap = capacity != null ? capacity : outCapacity;
        int nameLimit = maxNameBytes != null ? maxNameBytes : largestNameLimit;
        ProfileMerger.Merged merged = merger.resolve(nameLimit);
        reportNameMatching(merged, nameLimit, progress);
        if (cap == 0 && merged.size() > 0) {
            // As --capacity 0 is refused: a capacity-0 file would keep none of the regions read. Only an input
            // can bring it (a JSON profile saying "capacity": 0, a capacity-0 hint file), and then every input has it.
            throw new DataLossRefused("every input has capacity 0 (" + String.join(", ",
                    inputs.stream().map(Path::toString).toList()) + "), so OUT would too and keep none of the "
                    + Units.count(merged.size()) + " regions read: give OUT a capacity with --capacity N");
        }
        List<RegionRecord> kept = merged.hottest(cap);
        if (kept.size() < merged.size()) {
            progress.step("merge: " + Units.count(merged.size()) + " regions exceed the capacity of " + Units.count(cap)
                    + ": keeping the " + Units.count(kept.size()) + " hottest by total kernel time");
        }
        long dropped = target.publish(kept, files.options().capacity(cap).maxNameBytes(nameLimit)
                .hotThresholdNs(threshold), progress);
        out.println("merged " + inputs.size() + " file(s), " + Units.count(merged.size()) + " regions, into " + output
                + ": " + Units.count(kept.size() - dropped) + " regions, capacity " + Units.count(cap));
        out.flush();
        if (dropped > 0) {
            // As copy and upgrade: regions read and meant to be kept are missing from OUT, a loss the summary
            // alone would let a script pass over (ExitCode.PROBLEMS).
            spec.commandLine().getErr().println("merge: " + dropped + " region(s) could not be indexed within the probe"
                    + " bound of " + output + " and are missing from it");
            return ExitCode.PROBLEMS;
        }
        return ExitCode.OK;
    }

    /**
     * Says how names of inputs with different limits were brought together (FORMAT.md §1.1, "Across
     * limits"): the regions matched by prefix and hash as a step, and — with {@code --quiet} too,
     * since a lookup by the kernel's name will miss them — those that stay under a shortened name.
     */
    private static void reportNameMatching(ProfileMerger.Merged merged, int nameLimit, Progress progress) {
        if (merged.matched() > 0) {
            progress.step("merge: " + Units.count(merged.matched()) + " region(s) named in a shortened form by inputs"
                    + " with a smaller max_name_bytes matched their kernels by prefix and hash");
        }
        if (merged.unmatched() > 0) {
            progress.warn("merge: warning: " + Units.count(merged.unmatched()) + " region(s) could not be matched:"
                    + " known only by names shortened in inputs with a smaller max_name_bytes than OUT's ("
                    + nameLimit + "), they keep those names, under which a lookup by the kernel's whole name does not"
                    + " find them; --max-name-bytes set to the smallest input's limit matches every one");
        }
    }

    /**
     * Refuses an input named twice (also as another spelling of the same path, or a link to the
     * same file): a merge adds counts, so it would count that file's profile twice, which is what
     * {@code --weight IN=2} says explicitly. Refused, not warned about, because the output would be
     * wrong without anything else to show it.
     */
    private void refuseRepeatedInputs() {
        for (int i = 0; i < inputs.size(); i++) {
            for (int j = 0; j < i; j++) {
                if (SameFile.of(inputs.get(j), inputs.get(i))) {
                    throw new ParameterException(spec.commandLine(), "input " + inputs.get(i) + " is given twice"
                            + (inputs.get(i).equals(inputs.get(j)) ? "" : " (as " + inputs.get(j) + ")")
                            + ": its counts would be added twice; to weigh a profile more, use --weight IN=W");
                }
            }
        }
    }

    private Map<Path, Double> parseWeights() {
        Map<Path, Double> result = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : weights.entrySet()) {
            Path in = Path.of(e.getKey());
            if (!inputs.contains(in)) {
                throw new ParameterException(spec.commandLine(), "--weight names " + e.getKey()
                        + ", which is not one of the inputs " + inputs);
            }
            double w;
            try {
                w = Double.parseDouble(e.getValue());
            } catch (NumberFormatException bad) {
                throw new ParameterException(spec.commandLine(), "--weight " + e.getKey() + "=" + e.getValue()
                        + ": the weight is not a number");
            }
            if (!(w > 0 && w < Double.POSITIVE_INFINITY)) {
                throw new ParameterException(spec.commandLine(), "--weight " + e.getKey() + "=" + e.getValue()
                        + ": the weight must be a positive finite number");
            }
            result.put(in, w);
        }
        return result;
    }
}
