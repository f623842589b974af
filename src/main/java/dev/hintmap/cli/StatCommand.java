package dev.hintmap.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.hintmap.HintFileInfo;
import dev.hintmap.HintSnapshot;
import dev.hintmap.HintStore;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code hintmap stat FILE}: the header, layout and counters of a hint file, like {@code mdb_stat}. */
@Command(name = "stat", versionProvider = HintmapCli.Version.class,
        footerHeading = CliReference.EXAMPLES_HEADING,
        footer = {
            "  hintmap stat /dev/shm/app.hints",
            "  hintmap stat --json app.hints",
        },
        description = {"Show a hint file's header, layout and counters.",
            "Prints the format version, layout, capacity, used slots, slow regions (mean kernel time at or above the"
                    + " hot threshold, as top's SLOW), generation (structural changes),"
                    + " creation time and the writer processes attached. Read-only."})
final class StatCommand implements Callable<Integer> {
    @Mixin
    HelpOption help;

    @Spec
    CommandSpec spec;

    @Mixin
    FileArgs files;

    @Parameters(index = "0", paramLabel = "FILE", description = "the hint file")
    Path file;

    @Option(names = "--json", description = "print a JSON object instead of text")
    boolean json;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        try (HintStore store = files.openReadOnly(file)) {
            HintFileInfo info = store.info();
            HintSnapshot snapshot = store.snapshot();
            if (json) {
                out.println(toJson(info, snapshot.hotCount()));
            } else {
                print(out, info, snapshot.hotCount(), Instant.now());
            }
        }
        out.flush();
        return ExitCode.OK;
    }

    static void print(PrintWriter out, HintFileInfo info, int hot, Instant now) {
        line(out, "file", String.valueOf(info.file()));
        line(out, "format", String.format(Locale.ROOT, "hintmap version %d, layout fingerprint 0x%016x",
                info.formatVersion(), info.layoutFingerprint()));
        line(out, "size", Units.bytes(info.fileBytes()) + " (" + Units.count(info.fileBytes()) + " bytes)");
        line(out, "created", info.created() + " (" + age(Duration.between(info.created(), now)) + " ago)");
        line(out, "capacity", Units.count(info.capacity()) + " regions, names up to " + info.maxNameBytes() + " bytes");
        line(out, "layout", "slots of " + info.slotBytes() + " B, index of " + Units.count(info.indexEntries())
                + " entries, probes up to " + info.maxProbe());
        line(out, "hot threshold", Units.duration(info.hotThresholdNs()) + " mean kernel time ("
                + Units.count(info.hotThresholdNs()) + " ns)");
        line(out, "regions", Units.count(info.regions()) + " used (" + Units.percent(info.capacity() == 0 ? Double.NaN
                : (double) info.regions() / info.capacity()) + " of capacity), " + Units.count(hot) + " slow (mean >= hot threshold), "
                + Units.count(info.highWater()) + " slots ever used");
        line(out, "generation", Units.count(info.structuralChanges())
                + " structural changes (insertions, evictions, repairs)" + (info.changeInterrupted()
                        ? "; a change is under way or was interrupted by a crashed writer" : ""));
        line(out, "evictions", Units.count(info.evictions()));
        line(out, "recoveries", Units.count(info.recoveries()));
        line(out, "dropped inserts", Units.count(info.droppedInserts()));
        line(out, "stolen locks", Units.count(info.stolenLocks()));
        // Only running processes count as attached: a writer killed with SIGKILL leaves its entry in the
        // table until the next writer reclaims it, and it is listed below as no longer running.
        long live = liveWriters(info);
        long dead = info.writers().size() - live;
        line(out, "writers", live + " attached now, " + Units.count(info.writerAttachments())
                + " attachments since creation" + (dead == 0 ? ""
                        : ", " + dead + " entr" + (dead == 1 ? "y" : "ies") + " left by processes no longer running"));
        for (HintFileInfo.Writer w : info.writers()) {
            out.printf(Locale.ROOT, "  pid %-8d entry %-5d %s, %s%n", w.pid(), w.entry(),
                    w.alive() ? "running" : "no longer running (entry reclaimed by the next writer)",
                    Units.count(w.attachments()) + " attachment(s) of this entry");
        }
    }

    /** The writers attached now: entries of running processes only. */
    static long liveWriters(HintFileInfo info) {
        return info.writers().stream().filter(HintFileInfo.Writer::alive).count();
    }

    private static void line(PrintWriter out, String key, String value) {
        out.printf(Locale.ROOT, "%-16s %s%n", key, value);
    }

    static String age(Duration d) {
        long s = Math.max(0, d.toSeconds());
        if (s < 120) {
            return s + " s";
        }
        if (s < 7_200) {
            return s / 60 + " min";
        }
        if (s < 172_800) {
            return s / 3_600 + " h";
        }
        return s / 86_400 + " days";
    }

    static String toJson(HintFileInfo info, int hot) throws Exception {
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode o = mapper.createObjectNode();
        o.put("file", String.valueOf(info.file()));
        o.put("format_version", info.formatVersion());
        o.put("layout_fingerprint", String.format(Locale.ROOT, "0x%016x", info.layoutFingerprint()));
        o.put("file_bytes", info.fileBytes());
        o.put("created", info.created().toString());
        o.put("capacity", info.capacity());
        o.put("max_name_bytes", info.maxNameBytes());
        o.put("slot_bytes", info.slotBytes());
        o.put("index_entries", info.indexEntries());
        o.put("max_probe", info.maxProbe());
        o.put("hot_threshold_ns", info.hotThresholdNs());
        o.put("regions", info.regions());
        o.put("hot_regions", hot);
        o.put("high_water", info.highWater());
        o.put("generation", info.structuralChanges());
        o.put("change_interrupted", info.changeInterrupted());
        o.put("evictions", info.evictions());
        o.put("recoveries", info.recoveries());
        o.put("dropped_inserts", info.droppedInserts());
        o.put("stolen_locks", info.stolenLocks());
        o.put("writer_attachments", info.writerAttachments());
        o.put("writers_attached", liveWriters(info)); // running ones; "writers" also lists the entries of dead ones
        ArrayNode writers = o.putArray("writers");
        for (HintFileInfo.Writer w : info.writers()) {
            writers.addObject().put("pid", w.pid()).put("entry", w.entry()).put("alive", w.alive())
                    .put("attachments", w.attachments());
        }
        return mapper.writeValueAsString(o);
    }
}
