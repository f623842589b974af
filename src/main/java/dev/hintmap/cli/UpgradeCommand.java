package dev.hintmap.cli;

import dev.hintmap.HintStoreOptions;
import dev.hintmap.store.Version1Profile;
import dev.hintmap.store.Version1Reader;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code hintmap upgrade FILE [-o NEW]}: convert a format-version-1 hint file to the current version (FORMAT.md §12). */
@Command(name = "upgrade", versionProvider = HintmapCli.Version.class, description = {
            "Convert a hint file of format version 1 to the current version, keeping every region and record.",
            "In place (no -o), FILE is kept beside the new file as FILE.v1; with -o NEW, FILE is left alone."
                    + " Capacity, maximum name length and hot threshold are FILE's; in place, so are its owner, group"
                    + " and mode. FILE is opened under the rules of every command (no symbolic link, no other"
                    + " user's file, a regular file without holes; the options below relax the first two)."
                    + " Refused while writers are attached to FILE (exit 1), checked again just before FILE is"
                    + " replaced: stop them first.",
            OutputFile.RULES,
        })
final class UpgradeCommand implements Callable<Integer> {
    @Mixin
    HelpOption help;

    @Spec
    CommandSpec spec;

    @Mixin
    FileArgs files;

    @Parameters(index = "0", paramLabel = "FILE", description = "the version-1 hint file")
    Path file;

    @Option(names = {"-o", "--output"}, paramLabel = "NEW", description = "write the new file here instead of in place")
    Path output;

    @Mixin
    ReplaceOptions replace;

    @Option(names = {"-q", "--quiet"}, description = "no progress on standard error")
    boolean quiet;

    @Override
    public Integer call() throws Exception {
        Version1Profile v1 = Version1Reader.read(file, files.options()); // not API: the tool's own (DESIGN §1)
        if (!v1.liveWriterPids().isEmpty()) {
            throw new DataLossRefused(file + " has " + v1.liveWriterPids().size() + " live writer(s) attached (pid "
                    + String.join(", ", v1.liveWriterPids().stream().map(String::valueOf).toList())
                    + ": running, and mapping this file): what they record after the conversion would be lost;"
                    + " stop them first");
        }
        Progress progress = new Progress(spec.commandLine().getErr(), quiet);
        HintStoreOptions options = files.options().capacity(v1.capacity()).maxNameBytes(v1.maxNameBytes())
                .hotThresholdNs(v1.hotThresholdNs());
        Path target = output != null ? output : file;
        Path kept = null;
        long dropped;
        if (output != null) {
            OutputFile out = new OutputFile("upgrade", output, OutputFile.Content.HINT_FILE, replace, files);
            out.check(spec.commandLine());
            dropped = out.publish(v1.regions(), options, progress);
        } else {
            kept = file.resolveSibling(file.getFileName() + ".v1");
            try {
                Files.createLink(kept, file); // keeps the v1 bytes under a second name; fails rather than replace
            } catch (FileAlreadyExistsException e) {
                throw new IOException(kept + " exists: move it away, or convert with -o NEW", e);
            }
            ReplaceOptions inPlace = new ReplaceOptions();
            inPlace.force = true; // the v1 file at FILE: its bytes stay at FILE.v1
            boolean published = false;
            try {
                // The new file keeps FILE's owner, group and mode: its writers (another user's GPU runtime,
                // when root converts) must still be able to open it.
                dropped = new OutputFile("upgrade", file, OutputFile.Content.HINT_FILE, inPlace, files)
                        .publish(v1.regions(), options, file, progress);
                published = true;
            } finally {
                if (!published) {
                    Files.deleteIfExists(kept); // FILE is still the v1 file: nothing to keep twice
                }
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        out.println("upgraded " + file + " (format version 1, created " + Instant.ofEpochMilli(v1.createdEpochMs())
                + ") to " + target + ": " + Units.count(v1.regions().size() - dropped) + " regions, capacity "
                + Units.count(v1.capacity()) + (kept == null ? "" : "; the version-1 file is kept as " + kept));
        if (v1.unsoundSlots() > 0) {
            out.println("upgrade: " + v1.unsoundSlots() + " damaged or interrupted slot(s) held no sound region and were"
                    + " not carried over (recovery would have freed them)");
        }
        if (v1.evictions() + v1.recoveries() + v1.droppedInserts() + v1.stolenLocks() != 0) {
            out.println("upgrade: version-1 counters not carried over (the new file starts at 0): evictions "
                    + v1.evictions() + ", recoveries " + v1.recoveries() + ", dropped inserts " + v1.droppedInserts()
                    + ", stolen locks " + v1.stolenLocks());
        }
        out.flush();
        if (dropped > 0) {
            spec.commandLine().getErr().println("upgrade: " + dropped + " region(s) could not be indexed within the"
                    + " probe bound of " + target + " and are missing from it"
                    + (kept == null ? "" : "; " + kept + " still holds them"));
            return ExitCode.PROBLEMS;
        }
        return ExitCode.OK;
    }
}
