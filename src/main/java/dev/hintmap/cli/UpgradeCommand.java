package dev.hintmap.cli;

import dev.hintmap.HintFiles;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import dev.hintmap.format.FileGeometry;
import dev.hintmap.store.OldVersionProfile;
import dev.hintmap.store.OldVersionReader;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
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
 * are usage errors, so that no message advises an option the command would then refuse.
 * {@code -o} naming FILE itself ({@link SameFile}: another spelling, a hard link, a followed link)
 * is the in-place conversion, backup, owner, group and mode included; {@code --force} is then
 * accepted, since it is what an existing NEW needs.
 *
 * <p>An in-place conversion links FILE to {@code FILE.vN} at publication, just before the rename
 * (FORMAT.md §12 step 4), so a conversion interrupted before that leaves FILE as it was and no
 * backup; one interrupted between the link and the rename leaves {@code FILE.vN} a second name of
 * FILE, which the next run takes as its own backup and finishes; one interrupted after it leaves a
 * converted FILE, which the next run says is converted.
 */
@Command(name = "upgrade", versionProvider = HintmapCli.Version.class,
        footerHeading = CliReference.EXAMPLES_HEADING,
        footer = {
            "  hintmap upgrade app.hints",
            "  hintmap upgrade -o new.hints old.hints",
        },
        description = {
            "Convert a hint file of format version 1 or 2 to the current version (" + HintFiles.FORMAT_VERSION + "),"
                    + " keeping every region and record.",
            "In place (no -o, or -o naming FILE itself: the same file, or the same path), FILE is kept beside the new"
                    + " file as FILE.v1 or FILE.v2, linked there when the new file replaces it (an interrupted upgrade"
                    + " leaves FILE as it was, and running it again finishes it); with -o NEW, FILE is left alone."
                    + " Capacity, maximum name length and hot threshold are FILE's (a name limit below "
                    + HintStoreOptions.MIN_NAME_BYTES + " becomes " + HintStoreOptions.MIN_NAME_BYTES + "); in place,"
                    + " so are its owner, group and mode. FILE is opened under the rules of every command (no symbolic"
                    + " link, no other user's file, a regular file without holes; the options below relax the first"
                    + " two). Refused while writers are attached to FILE (exit 1), checked again just before FILE is"
                    + " replaced: stop them first. --force and --replace-live are about -o NEW only.",
            "A region whose name version 2 had shortened (a prefix, '~' and 16 hex digits) keeps that name: the"
                    + " whole name is not in FILE, and version 3 shortens it differently, so its next records start a"
                    + " new region. A file already of version " + HintFiles.FORMAT_VERSION + " is left as it is (exit 0).",
            "Regions are inserted in the order of their place in the new index, so every region the old index held"
                    + " finds room in the new one; a region that still finds none (a damaged old file) is not carried"
                    + " over, and upgrade names the count, says that the old file still holds it and exits 1.",
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
        boolean inPlace = output == null || SameFile.of(output, file);
        if (inPlace && (output == null ? replace.mayReplace() : replace.replaceLive)) {
            throw new ParameterException(spec.commandLine(), (replace.replaceLive ? "--replace-live" : "--force")
                    + " is about -o NEW: an in-place upgrade" + (output == null ? "" : " (-o " + output + " is " + file + ")")
                    + " always replaces FILE (keeping its old bytes as FILE.v1 or FILE.v2), and never while writers are"
                    + " attached to it: stop them first");
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
        List<RegionRecord> regions = ConversionOrder.byHome(old.regions(), new FileGeometry(old.capacity(), maxNameBytes));
        Path target = output != null ? output : file;
        Path kept = null;
        long dropped;
        if (!inPlace) {
            OutputFile newFile = new OutputFile("upgrade", output, OutputFile.Content.HINT_FILE, replace, files);
            newFile.check(spec.commandLine());
            dropped = newFile.publish(regions, options, progress);
        } else {
            ReplaceOptions inPlaceOptions = ReplaceOptions.neverLive("stop them, then run upgrade again (an in-place"
                    + " upgrade never replaces a file that writers are attached to)"); // the old file's bytes stay at kept
            OutputFile newFile = new OutputFile("upgrade", target, OutputFile.Content.HINT_FILE, inPlaceOptions, files)
                    .keepingReplacedFileAs(".v" + old.formatVersion());
            newFile.check(spec.commandLine());
            kept = newFile.backup();
            if (Files.exists(kept, LinkOption.NOFOLLOW_LINKS)) {
                if (!SameFile.sameRegularFile(kept, newFile.destination())) {
                    throw new DataLossRefused(newFile.backupRefusal()); // refused before any work (exit 1, ExitCode)
                }
                progress.step("upgrade: " + kept + " is already a second name of " + newFile.destination() + " (an"
                        + " interrupted upgrade linked it): finishing that upgrade");
            }
            // The new file keeps FILE's owner, group and mode: its writers (another user's GPU runtime,
            // when root converts) must still be able to open it.
            dropped = newFile.publish(regions, options, newFile.destination(), progress);
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
            // Only a damaged old file gets here (ConversionOrder): more regions in one stretch of the index than
            // any index of this size holds within max_probe. Never silent: counted, named, exit 1 (FORMAT.md §12).
            spec.commandLine().getErr().println("upgrade: " + dropped + " sound region(s) were not carried over: no"
                    + " index entry within max_probe of their home was free in " + target + " (the old file held more"
                    + " regions in one stretch of its index than an index of this size can); "
                    + (kept == null ? file : kept) + " still holds them");
            return ExitCode.PROBLEMS;
        }
        return ExitCode.OK;
    }
}
