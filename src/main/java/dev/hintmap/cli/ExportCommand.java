package dev.hintmap.cli;

import dev.hintmap.HintFileInfo;
import dev.hintmap.HintSnapshot;
import dev.hintmap.HintStore;
import dev.hintmap.RegionOrder;
import dev.hintmap.RegionRecord;
import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.ToDoubleFunction;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code hintmap export FILE}: the file's regions and counters in the Prometheus text exposition
 * format (version 0.0.4), written by the Prometheus Java client's own writer, for the node
 * exporter's textfile collector. Times are in seconds, Prometheus's base unit. Prometheus is the
 * only format, so it is the default; {@code --prometheus} stays accepted (scripts written when it
 * was required keep working, and a second format would be a second such flag).
 */
@Command(name = "export", versionProvider = HintmapCli.Version.class,
        footerHeading = CliReference.EXAMPLES_HEADING,
        footer = {
            "  hintmap export --top 50 -o /var/lib/node_exporter/hintmap.prom app.hints",
        },
        description = {
            "Export regions and counters for Prometheus.",
            "Writes the Prometheus text exposition format (0.0.4), the only format and so the default, e.g. for the node"
                    + " exporter's textfile collector (-o DIR/hintmap.prom: written to a new temporary file and renamed"
                    + " into place, as the collector requires; created 0600, 0660 with --group-shared: give the"
                    + " collector's user the file's group). Metrics per region carry the labels file and region.",
            "Per-region dispatches, kernel seconds and bytes are gauges, not counters: decay (and eviction) lower"
                    + " them, which Prometheus would read as a counter reset; use delta() or deriv() on them. The"
                    + " per-file event counters (evictions, ...) only grow during the file's life and carry a"
                    + " _created series, the file's creation time, which changes when the file is replaced"
                    + " (merge, copy).",
            "--filter and --top bound the label cardinality: only the regions named by the filter, of those the"
                    + " N hottest by total kernel time, are exported; per-file metrics cover the whole file. --filter"
                    + " matches the stored names, as in dump (see dump --help): a long kernel whose cut-off tail alone"
                    + " would have matched is not exported, and one line on standard error says so.",
            OutputFile.RULES,
        })
final class ExportCommand implements Callable<Integer> {
    @Mixin
    HelpOption help;

    @Spec
    CommandSpec spec;

    @Mixin
    FileArgs files;

    @Parameters(index = "0", paramLabel = "FILE", description = "the hint file")
    Path file;

    @Option(names = "--prometheus",
            description = "the Prometheus text format: the default, and the only format so far (accepted for scripts)")
    boolean prometheus;

    @Option(names = {"-o", "--output"}, paramLabel = "OUT",
            description = "write to OUT instead of standard output: a file atomically (temporary file, rename), a"
                    + " device or FIFO as a stream; - is standard output")
    Path output;

    @Mixin
    ReplaceOptions replace;

    @Mixin
    RegionFilter filter;

    @Option(names = "--top", paramLabel = "N",
            description = "export only the N hottest regions by total kernel time (after --filter; default: all)")
    Integer top;

    @Override
    public Integer call() throws Exception {
        if (top != null && top < 0) {
            throw new ParameterException(spec.commandLine(), "--top must be >= 0, not " + top);
        }
        OutputFile target = new OutputFile("export", output != null ? output : Path.of("-"), OutputFile.Content.TEXT,
                replace, files);
        target.check(spec.commandLine());
        MetricSnapshots metrics;
        try (HintStore store = files.openReadOnly(file)) {
            HintSnapshot snapshot = store.snapshot();
            List<RegionRecord> all = RegionsOnce.of(snapshot.regions(), file, "export", spec.commandLine().getErr());
            List<RegionRecord> regions = filter.apply(all, snapshot.maxNameBytes());
            filter.note(all.stream().map(RegionRecord::name).toList(), snapshot.maxNameBytes())
                    .ifPresent(note -> spec.commandLine().getErr().println("export: note: " + note));
            if (top != null && top < regions.size()) {
                regions = regions.stream().sorted(RegionOrder.TOTAL_NS.comparator()).limit(top).toList();
            }
            metrics = metrics(file.toString(), store.info(), snapshot, regions);
        }
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        write(text, metrics);
        target.publishText(text.toByteArray(), spec.commandLine().getOut(), new Progress(spec.commandLine().getErr(), false));
        return ExitCode.OK;
    }

    @SuppressWarnings("deprecation") // setTimestampsInMs: deprecated as the millisecond default goes; false is what stays
    static void write(OutputStream out, MetricSnapshots metrics) throws IOException {
        // _created of the per-file counters: the file's creation time, so a replaced file reads as a new series start;
        // in seconds, as Prometheus reads _created (the writer's default, milliseconds, is the sample timestamps' unit).
        PrometheusTextFormatWriter.builder().setIncludeCreatedTimestamps(true).setTimestampsInMs(false).build()
                .write(out, metrics, EscapingScheme.UNDERSCORE_ESCAPING);
    }

    /**
     * The metric families: per-region series labelled {file, region} for {@code regions}, per-file series
     * labelled {file} for the whole file.
     *
     * <p>Why the per-region totals are gauges: they are the state of a profile, not a count of events
     * since a start. {@code decay} scales them down in place and an evicted region that comes back starts
     * again from one dispatch; typed as counters, every such drop would be taken for a reset and
     * {@code rate()} would count the whole remaining value as new increase. The per-file counters never
     * go down while the file exists; a new file (merge, copy) has a new creation time, their
     * {@code _created}.
     */
    static MetricSnapshots metrics(String file, HintFileInfo info, HintSnapshot snapshot, List<RegionRecord> regions) {
        long created = info.created().toEpochMilli();
        List<MetricSnapshot> families = new ArrayList<>();
        families.add(regionGauge("hintmap_region_dispatches",
                "Kernel dispatches recorded for the region (a gauge: decay and eviction lower it).",
                file, regions, RegionRecord::dispatchCount));
        families.add(regionGauge("hintmap_region_kernel_seconds",
                "Total kernel time recorded for the region (a gauge: decay and eviction lower it).",
                file, regions, r -> r.kernelNsTotal() / 1e9));
        families.add(regionGauge("hintmap_region_kernel_max_seconds", "Longest kernel time recorded for the region.",
                file, regions, r -> r.kernelNsMax() / 1e9));
        families.add(regionGauge("hintmap_region_kernel_mean_seconds", "Mean kernel time of the region.",
                file, regions, r -> r.meanKernelNs() / 1e9));
        families.add(regionGauge("hintmap_region_bytes",
                "Bytes touched by the region's dispatches (a gauge: decay and eviction lower it).",
                file, regions, RegionRecord::bytesTotal));
        families.add(regionGauge("hintmap_region_hot", "1 when the region's mean kernel time reaches the hot threshold.",
                file, regions, r -> r.isHot(snapshot.hotThresholdNs()) ? 1 : 0));
        families.add(fileGauge("hintmap_regions", "Regions held.", file, info.regions()));
        families.add(fileGauge("hintmap_capacity_regions", "Maximum number of regions.", file, info.capacity()));
        families.add(fileGauge("hintmap_hot_regions", "Regions whose mean kernel time reaches the hot threshold.", file,
                snapshot.hotCount()));
        families.add(fileGauge("hintmap_hot_threshold_seconds", "Mean kernel time at or above which a region is hot.",
                file, info.hotThresholdNs() / 1e9));
        families.add(fileGauge("hintmap_writers", "Writer processes attached to the file.", file,
                StatCommand.liveWriters(info))); // as stat counts them: running ones
        families.add(fileCounter("hintmap_evictions", "Regions evicted since the file was created.", file, info.evictions(),
                created));
        families.add(fileCounter("hintmap_dropped_inserts", "New regions dropped because the index had no room.", file,
                info.droppedInserts(), created));
        families.add(fileCounter("hintmap_recoveries", "Structural changes of crashed writers repaired.", file,
                info.recoveries(), created));
        families.add(fileCounter("hintmap_stolen_locks", "Locks taken over from crashed writers.", file, info.stolenLocks(),
                created));
        return new MetricSnapshots(families);
    }

    private static GaugeSnapshot regionGauge(String name, String help, String file, List<RegionRecord> regions,
            ToDoubleFunction<RegionRecord> value) {
        GaugeSnapshot.Builder b = GaugeSnapshot.builder().name(name).help(help);
        for (RegionRecord r : regions) {
            b.dataPoint(GaugeDataPointSnapshot.builder().labels(Labels.of("file", file, "region", r.name()))
                    .value(value.applyAsDouble(r)).build());
        }
        return b.build();
    }

    private static GaugeSnapshot fileGauge(String name, String help, String file, double value) {
        return GaugeSnapshot.builder().name(name).help(help)
                .dataPoint(GaugeDataPointSnapshot.builder().labels(Labels.of("file", file)).value(value).build()).build();
    }

    private static CounterSnapshot fileCounter(String name, String help, String file, double value, long createdMillis) {
        return CounterSnapshot.builder().name(name).help(help)
                .dataPoint(CounterDataPointSnapshot.builder().labels(Labels.of("file", file)).value(value)
                        .createdTimestampMillis(createdMillis).build()).build();
    }
}
