package dev.hintmap.cli;

import dev.hintmap.HintFiles;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.store.OldVersionProfile;
import dev.hintmap.store.OldVersionReader;
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
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code hintmap upgrade FILE [-o NEW]}: convert a hint file of format version 1 or 2 to the
 * current version (FORMAT.md §12).
 *
 * <p>A file with live writers is never converted: at the start, and again just before an in-place
 * conversion replaces FILE. {@code --replace-live} and {@code --force} are about {@code -o NEW}
 * only (an existing NEW, and its own writers, as for {@code merge} and {@code copy}); in place they
 * are usage errors, so that no message advises an option the command would then refuse
 * (issue 32, finding 9).
 */
@Command(name = "upgrade", versionProvider = HintmapCli.Version.class, description = {
            "Convert a hint file of format version 1 or 2 to the current version (" + HintFiles.FORMAT_VERSION + "),"
                    + " keeping every region and record.",
            "In place (no -o), FILE is kept beside the new file as FILE.v1 or FILE.v2; with -o NEW, FILE is left alone."
                    + " Capacity, maximum name length and hot threshold are FILE's (a name limit below "
                    + HintStoreOptions.MIN_NAME_BYTES + " becomes " + HintStoreOptions.MIN_NAME_BYTES + "); in place,"
                    + " so are its owner, group and mode. FILE is opened under the rules of every command (no symbolic"
                    + " link, no other user's file, a regular file without holes; the options below relax the first"
                    + " two). Refused while writers are attached to FILE (exit 1), checked again just before FILE is"
                    + " replaced: stop them first. --force and --replace-live are about -o NEW only.",
            "A region whose name version 2 had shortened (a prefix, '~' and 16 hex digits) keeps that name: the"
                    + " whole name is not in FILE, and version 3 shortens it differently, so its next records start a"
                    + " new region. A file already of version " + HintFiles.FORMAT_VERSION + " is left as it is (exit 0).",
            OutputFile.RULES,
        })
final class UpgradeCommand implements Callable<Integer> {
    @Mixin
    HelpOption help;

    @Spec
    CommandSpec spec;

    @Mixin
    FileArgs files;

    @Parameters(index = "0", paramLabel = "FILE", description = "the hint file of format version 1 or 2")
    Path file;

    @Option(names = {"-o", "--output"}, paramLabel = "NEW", description = "write the new file here instead of in place")
    Path output;

    @Mixin
    ReplaceOptions replace;

    @Option(names = {"-q", "--quiet"}, description = "no progress on standard error")
    boolean quiet;

    @Override
    public Integer call() throws Exception {
        if (output == null && replace.mayReplace()) {
            throw new ParameterException(spec.commandLine(), (replace.replaceLive ? "--replace-live" : "--force")
                    + " is about -o NEW: an in-place upgrade always replaces FILE (keeping its old bytes as FILE.v1"
                    + " or FILE.v2), and never while writers are attached to it: stop them first");
        }
        OldVersionProfile old = OldVersionReader.read(file, files.options()); // not API: the tool's own (DESIGN §1)
        PrintWriter out = spec.commandLine().getOut();
        if (old.formatVersion() == HintFiles.FORMAT_VERSION) {
            out.println(file + " is already version " + HintFiles.FORMAT_VERSION + ": nothing to convert");
            return ExitCode.OK;
        }
        if (!old.liveWriterPids().isEmpty()) {
            throw new DataLossRefused(file + " has " + old.liveWriterPids().size() + " live writer(s) attached (pid "
                    + String.join(", ", old.liveWriterPids().stream().map(String::valueOf).toList())
                    + ": running, and mapping this file): what they record after the conversion would be lost;"
                    + " stop them first");
        }
        Progress progress = new Progress(spec.commandLine().getErr(), quiet);
        int maxNameBytes = Math.max(old.maxNameBytes(), HintStoreOptions.MIN_NAME_BYTES);
        HintStoreOptions options = files.options().capacity(old.capacity()).maxNameBytes(maxNameBytes)
                .hotThresholdNs(old.hotThresholdNs());
        Path target = output != null ? output : file;
        Path kept = null;
        long dropped;
        if (output != null) {
            OutputFile newFile = new OutputFile("upgrade", output, OutputFile.Content.HINT_FILE, replace, files);
            newFile.check(spec.commandLine());
            dropped = newFile.publish(old.regions(), options, progress);
        } else {
            kept = file.resolveSibling(file.getFileName() + ".v" + old.formatVersion());
            try {
                Files.createLink(kept, file); // keeps the old bytes under a second name; fails rather than replace
            } catch (FileAlreadyExistsException e) {
                throw new IOException(kept + " exists: move it away, or convert with -o NEW", e);
            }
            ReplaceOptions inPlace = ReplaceOptions.neverLive("stop them, then run upgrade again (an in-place upgrade"
                    + " never replaces a file that writers are attached to)"); // the old file at FILE: its bytes stay at kept
            boolean published = false;
            try {
                // The new file keeps FILE's owner, group and mode: its writers (another user's GPU runtime,
                // when root converts) must still be able to open it.
                dropped = new OutputFile("upgrade", file, OutputFile.Content.HINT_FILE, inPlace, files)
                        .publish(old.regions(), options, file, progress);
                published = true;
            } finally {
                if (!published) {
                    Files.deleteIfExists(kept); // FILE is still the old file: nothing to keep twice
                }
            }
        }
        out.println("upgraded " + file + " (format version " + old.formatVersion() + ", created "
                + Instant.ofEpochMilli(old.createdEpochMs()) + ") to " + target + ": "
                + Units.count(old.regions().size() - dropped) + " regions, capacity " + Units.count(old.capacity())
                + (kept == null ? "" : "; the version-" + old.formatVersion() + " file is kept as " + kept));
        if (maxNameBytes != old.maxNameBytes()) {
            out.println("upgrade: max_name_bytes " + old.maxNameBytes() + " is below version " + HintFiles.FORMAT_VERSION
                    + "'s minimum: the new file has " + maxNameBytes + " (the same slot size; every name of " + file
                    + " fits whole)");
        }
        if (old.shortenedNames() > 0) {
            out.println("upgrade: " + old.shortenedNames() + " region(s) have a name that version 2 had shortened (a"
                    + " prefix, '~' and 16 hex digits of hm64; the whole kernel name is not in " + file + "): they keep"
                    + " that name, with their records. Version " + HintFiles.FORMAT_VERSION + " shortens a long name"
                    + " with SHA-256 instead, so the next records of such a kernel start a new region, as on a first"
                    + " run; the old one keeps its history until it is evicted or decayed");
        }
        if (old.unsoundSlots() > 0) {
            out.println("upgrade: " + old.unsoundSlots() + " damaged or interrupted slot(s) held no sound region and were"
                    + " not carried over (recovery would have freed them)");
        }
        if (old.evictions() + old.recoveries() + old.droppedInserts() + old.stolenLocks() != 0) {
            out.println("upgrade: version-" + old.formatVersion() + " counters not carried over (the new file starts at"
                    + " 0): evictions " + old.evictions() + ", recoveries " + old.recoveries() + ", dropped inserts "
                    + old.droppedInserts() + ", stolen locks " + old.stolenLocks());
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
