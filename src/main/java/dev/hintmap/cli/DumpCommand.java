package dev.hintmap.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SequenceWriter;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;
import com.fasterxml.jackson.dataformat.csv.CsvSchema;
import dev.hintmap.HintSnapshot;
import dev.hintmap.HintStore;
import dev.hintmap.RegionOrder;
import dev.hintmap.RegionRecord;
import java.io.FilterWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code hintmap dump FILE}: every region of a hint file, as a table, JSON or CSV. */
@Command(name = "dump", versionProvider = HintmapCli.Version.class,
        footerHeading = CliReference.EXAMPLES_HEADING,
        footer = {
            "  hintmap dump --sort total --filter '^gemm' app.hints",
            "  hintmap dump --format json app.hints > app.json",
        },
        description = {"Print every region as a table, JSON or CSV.",
            "Read-only; regions sorted by --sort. Each region once: a name found in two slots (a damaged index, which"
                    + " verify reports, or a region evicted and inserted again during the read) is reported once with its"
                    + " records combined as merge combines them, and a warning, so that the JSON is always an input merge"
                    + " accepts.",
            "The fields have one spelling in every output: snake_case, as FORMAT.md, the C library, the Python module"
                    + " and the CSV columns spell them (dispatch_count, kernel_ns_total, ...). The JSON is the profile"
                    + " that merge and diff read back; they also read the camelCase keys (dispatchCount, ...) that"
                    + " hintmap 0.1.0 wrote.",
            "SLOW marks the regions whose mean kernel time per dispatch is at least the file's hot threshold, as"
                    + " in top (isHot, hm_is_hot, is_hot; the field hot of the JSON and CSV).",
            "The table (--format table) fits the terminal (its width, else the COLUMNS environment variable, else 100 columns;"
                    + " --width sets it): every number is shown whole, and a long kernel name is shortened where it"
                    + " says least (--name-style; a name stored shortened keeps its ~hash tag); where the numbers leave"
                    + " too little room, each region takes two lines, its name on the first. -w prints names whole.",
            "--filter and --name match the names as the file stores them (FORMAT.md §1.1): a name longer than the"
                    + " file's max-name-bytes is stored as its first bytes, ~ and a hash of the whole name. A --filter"
                    + " that is a region's whole name selects it as --name does; no expression can match the tail"
                    + " that was cut off, and when a --filter leaves out names stored shortened, one line on standard"
                    + " error says how many the file holds (JSON, CSV and the Prometheus output always carry the"
                    + " stored names whole)."})
final class DumpCommand implements Callable<Integer> {
    @Mixin
    HelpOption help;

    enum Format { table, json, csv }

    enum Sort { name, total, mean, count, max }

    /** The CSV columns, also the JSON keys of a region, in order: one spelling for both. */
    static final List<String> COLUMNS = List.of("name", "dispatch_count", "kernel_ns_total", "kernel_ns_max",
            "bytes_total", "mean_kernel_ns", "mean_bytes", "hot");

    @Spec
    CommandSpec spec;

    @Mixin
    FileArgs files;

    @Parameters(index = "0", paramLabel = "FILE", description = "the hint file")
    Path file;

    @Mixin
    RegionFilter filter;

    @Mixin
    TableOptions table;

    @Option(names = "--format", paramLabel = "FORMAT", defaultValue = "table",
            description = "the output: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE})")
    Format format;

    @Option(names = "--sort", paramLabel = "KEY", defaultValue = "name",
            description = "order of the regions: ${COMPLETION-CANDIDATES}; numeric keys largest first, equal keys"
                    + " and names by their UTF-8 bytes (default: ${DEFAULT-VALUE})")
    Sort sort;

    @Override
    public Integer call() throws Exception {
        if (format != Format.table) {
            table.refuseWithoutTable(spec.commandLine(), "--format " + format);
        }
        TableLayout layout = table.layout(); // usage errors before the file is opened
        HintSnapshot snapshot;
        try (HintStore store = files.openReadOnly(file)) {
            snapshot = store.snapshot();
        }
        List<RegionRecord> all = RegionsOnce.of(snapshot.regions(), file, "dump", spec.commandLine().getErr());
        List<RegionRecord> regions = new ArrayList<>(filter.apply(all, snapshot.maxNameBytes()));
        regions.sort(comparator(sort));
        PrintWriter out = spec.commandLine().getOut();
        switch (format) {
            case table -> table(out, snapshot, regions, all.size(), filter.isActive(), layout);
            case json -> json(out, snapshot, regions);
            case csv -> csv(out, snapshot, regions);
        }
        out.flush();
        filter.note(all.stream().map(RegionRecord::name).toList(), snapshot.maxNameBytes())
                .ifPresent(note -> spec.commandLine().getErr().println("dump: note: " + note));
        return ExitCode.OK;
    }

    static Comparator<RegionRecord> comparator(Sort sort) {
        return switch (sort) {
            case name -> Comparator.comparing(RegionRecord::name, RegionOrder::compareNames);
            case total -> RegionOrder.TOTAL_NS.comparator();
            case mean -> RegionOrder.MEAN_NS.comparator();
            case count -> RegionOrder.COUNT.comparator();
            case max -> RegionOrder.MAX_NS.comparator();
        };
    }

    private static void table(PrintWriter out, HintSnapshot snapshot, List<RegionRecord> regions, int all, boolean filtered,
            TableLayout layout) {
        // SLOW, as top calls the by-mean flag: "hot" in a table would read as top's HOT SET (GUIDE.md,
        // "Which rule answers which question"). The JSON and CSV field stays "hot", the API's is_hot.
        Table table = new Table("*REGION", "SLOW", ">DISPATCHES", ">KERNEL NS TOTAL", ">MEAN NS", ">MAX NS", ">BYTES TOTAL",
                ">MEAN BYTES");
        for (RegionRecord r : regions) {
            table.row(RegionName.of(r.name(), snapshot.maxNameBytes()), hot(snapshot, r) ? "SLOW" : "", Units.count(r.dispatchCount()),
                    Units.count(r.kernelNsTotal()), Units.count(r.meanKernelNs()), Units.count(r.kernelNsMax()),
                    Units.count(r.bytesTotal()), Units.count(r.meanBytes()));
        }
        table.lines(layout).forEach(out::println);
        out.println(Units.count(regions.size()) + (filtered ? " of " + Units.count(all) + " regions match"
                : " regions"));
    }

    private static void json(PrintWriter out, HintSnapshot snapshot, List<RegionRecord> regions) throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        try (JsonGenerator g = mapper.getFactory().createGenerator(new NonClosingWriter(out))) {
            g.useDefaultPrettyPrinter();
            g.writeStartObject();
            g.writeStringField("file", snapshot.file().map(Object::toString).orElse(null));
            g.writeStringField("taken_at", snapshot.takenAt().toString());
            g.writeNumberField("capacity", snapshot.capacity());
            g.writeNumberField("hot_threshold_ns", snapshot.hotThresholdNs());
            g.writeNumberField("max_name_bytes", snapshot.maxNameBytes());
            g.writeArrayFieldStart("regions");
            for (RegionRecord r : regions) {
                g.writeStartObject();
                g.writeStringField("name", r.name());
                g.writeNumberField("dispatch_count", r.dispatchCount());
                g.writeNumberField("kernel_ns_total", r.kernelNsTotal());
                g.writeNumberField("kernel_ns_max", r.kernelNsMax());
                g.writeNumberField("bytes_total", r.bytesTotal());
                g.writeNumberField("mean_kernel_ns", r.meanKernelNs());
                g.writeNumberField("mean_bytes", r.meanBytes());
                g.writeBooleanField("hot", hot(snapshot, r));
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        out.println();
    }

    private static void csv(PrintWriter out, HintSnapshot snapshot, List<RegionRecord> regions) throws Exception {
        CsvSchema.Builder schema = CsvSchema.builder().setUseHeader(true);
        for (String column : COLUMNS) {
            schema.addColumn(column);
        }
        CsvMapper mapper = new CsvMapper();
        try (SequenceWriter rows = mapper.writer(schema.build()).writeValues(new NonClosingWriter(out))) {
            for (RegionRecord r : regions) {
                rows.write(List.of(r.name(), r.dispatchCount(), r.kernelNsTotal(), r.kernelNsMax(), r.bytesTotal(),
                        r.meanKernelNs(), r.meanBytes(), hot(snapshot, r)));
            }
        }
    }

    private static boolean hot(HintSnapshot snapshot, RegionRecord r) {
        return r.isHot(snapshot.hotThresholdNs());
    }

    /** Lets Jackson close its generator without closing the command's output. */
    static final class NonClosingWriter extends FilterWriter {
        NonClosingWriter(Writer out) {
            super(out);
        }

        @Override
        public void close() throws IOException {
            flush();
        }
    }
}
