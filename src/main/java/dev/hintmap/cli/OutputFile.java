package dev.hintmap.cli;

import dev.hintmap.HintFileException;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import dev.hintmap.format.Layouts;
import dev.hintmap.os.FileKind;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/**
 * The output of every command that writes one — {@code merge -o}, {@code copy DST},
 * {@code upgrade}, {@code create} a hint file, {@code export -o} a metrics text — and the one place
 * of the rules about what may be at the output path ({@link #RULES}, which each command's help
 * states) and of the routine that writes it.
 *
 * <p><b>What is at OUT decides how it is written</b>, looked at without following a link
 * ({@link FileKind}): nothing or a regular file — a new file is filled under a temporary name in
 * OUT's directory, synced, and published in one step, {@code rename(2)} over an existing file or
 * {@code link(2)}, which fails rather than replace a file created meanwhile; then the directory is
 * synced ({@link Durability}). Readers of the path see the old file or the complete new one, also
 * after a power loss. A character device or FIFO ({@code /dev/null}, a named pipe) is never
 * replaced: a text output is written into it as a stream ({@link StreamOutput}: no temporary, no
 * rename), a hint file is refused, since one is only of use as a file that processes map.
 * {@code -o -} is standard output, for text (a write that fails there is the command's output error,
 * whatever the command: {@link StandardOutput}). A directory, a block device or a socket is refused;
 * so is a symbolic link unless {@code --follow-symlinks}: replacing it would replace the link
 * ({@code /dev/stdout} as root), writing through it would follow a link someone planted.
 *
 * <p><b>What may be replaced:</b> an existing output only with {@code --force} (hint-file outputs;
 * {@code create} never replaces), and a text output replaces a file that is not a hint file
 * without it (a metrics file is rewritten every run) but a hint file only with {@code --force}.
 * A hint file that live writers are attached to is not replaced without {@code --replace-live},
 * whatever replaces it: a writer maps the file it opened, so after the rename it keeps writing the
 * old, unlinked inode, and everything it records from then on is lost to the path. Writers of a
 * version-1 or version-2 file count too. A refusal to lose data is exit 1 ({@link DataLossRefused}); an output
 * that cannot be written where it is asked, exit 4.
 *
 * <p>A name ending in {@code .json} is refused for a hint-file output: {@code merge} and
 * {@code diff} read such a name as a JSON profile, so a hint file there would be refused by the
 * very commands that read profiles (the format follows the name; {@code dump --format json}
 * writes JSON). The rule holds for the output path and for the file actually written, the file
 * a followed link leads to.
 *
 * <p>The temporary file is created the way the library creates a hint file (docs/SECURITY.md,
 * "Paths a process opens or creates"): at a name with 64 random bits, the writer's pid and start time
 * ({@link Temporaries}, which also removes it when the command is interrupted, and removes those
 * of killed commands), exclusively ({@code O_CREAT|O_EXCL|O_NOFOLLOW}: nothing planted at the name
 * is opened, written or followed), mode 0600, or 0660 with {@code --group-shared}, set on the
 * descriptor. An in-place {@code upgrade} gives the new file the owner, group and mode of the file
 * it replaces, and keeps that file under a second name linked at publication
 * ({@link #keepingReplacedFileAs}).
 */
final class OutputFile {
    /** The output rules as every writing command's help and man page state them. */
    static final String RULES = "Output rules (every command that writes a file OUT): an OUT of - is standard output (text only)."
            + " A character device or FIFO at OUT is written into as a stream (text) or refused (a hint file), never"
            + " replaced; a directory, block device or socket is refused, and so is a symbolic link unless"
            + " --follow-symlinks. Otherwise OUT is written to a temporary file beside it, synced, and renamed into"
            + " place, then its directory is synced. An existing OUT is replaced only with --force (a text output"
            + " replaces a file that is not a hint file without it), and a hint file that live writers are"
            + " attached to only with --replace-live (exit 1 otherwise). A hint file is not written under a name"
            + " ending in .json, which merge and diff read as a JSON profile.";

    /** What a command writes. */
    enum Content {
        /** A hint file, which processes map where it lies. */
        HINT_FILE,
        /** A text (export's metrics), which may also be streamed. */
        TEXT
    }

    /** How the output is written, decided by {@link #check}. */
    private enum Mode { FILE, STREAM, STANDARD_OUTPUT }

    private static final int PROGRESS_EVERY = 1 << 16;
    /** The magic every format version starts with, as the file's first 8 bytes hold it (FORMAT.md §3.1). */
    private static final long MAGIC = Layouts.MAGIC_VALUE;

    private final String command;
    private final Path path;
    private final Content content;
    private final ReplaceOptions replace;
    private final FileArgs files;
    /** Where the file is published: the output path, or the file a followed link leads to. */
    private Path destination;
    private Mode mode = Mode.FILE;
    /** An in-place conversion's suffix ({@code .v2}): the replaced file is kept at its name plus this; null: none kept. */
    private String backupSuffix;

    /**
     * @param replace the command's {@code --force}/{@code --replace-live}; null for a command that never
     *     replaces a file ({@code create})
     */
    OutputFile(String command, Path path, Content content, ReplaceOptions replace, FileArgs files) {
        this.command = command;
        this.path = path;
        this.content = content;
        this.replace = replace;
        this.files = files;
        this.destination = path;
    }

    /**
     * Makes this output an in-place conversion of the file at the output path: at publication, the
     * file replaced is first linked to its own name plus {@code suffix} ({@code FILE.v2}) and kept
     * there (FORMAT.md §12 step 4), then replaced.
     */
    OutputFile keepingReplacedFileAs(String suffix) {
        this.backupSuffix = suffix;
        return this;
    }

    /** Where the file is published: the output path, or the file a link there leads to ({@link #check} decides). */
    Path destination() {
        return destination;
    }

    /** Where an in-place conversion keeps the file it replaces ({@link #keepingReplacedFileAs}). */
    Path backup() {
        return destination.resolveSibling(destination.getFileName() + backupSuffix);
    }

    /** Whether {@code path} names standard output ({@code -o -}). */
    static boolean isStandardOutput(Path path) {
        return path.toString().equals("-");
    }

    /**
     * Before any work, the output rules ({@link #RULES}): refuses what cannot be written at the
     * output path, an existing output without {@code --force} (a usage error), an existing hint file
     * that a text would replace without {@code --force}, and one that live writers are attached to
     * without {@code --replace-live} ({@link DataLossRefused}), so that nothing is read or written in
     * vain. {@link #publish} and {@link #publishText} check again just before they replace anything.
     */
    void check(CommandLine cli) throws IOException {
        if (isStandardOutput(path)) {
            if (content == Content.HINT_FILE) {
                throw new ParameterException(cli, "-o -: " + command + " writes a hint file, which processes map where it"
                        + " lies, not a stream: name a file (standard output takes text outputs, such as export's)");
            }
            mode = Mode.STANDARD_OUTPUT;
            return;
        }
        if (content == Content.HINT_FILE && isJsonName(path)) {
            throw new ParameterException(cli, path + ": " + command + " writes a hint file, and merge and diff read a"
                    + " name ending in .json as a JSON profile: " + jsonAdvice());
        }
        if (replace == null && FileKind.of(path, false) != FileKind.MISSING) {
            throw new DataLossRefused(path + " exists: " + command + " never replaces a file (merge or copy with"
                    + " --force do, with their checks for live writers)");
        }
        FileKind kind = inspect();
        if (content == Content.HINT_FILE && isJsonName(destination)) {
            // the rule is about the file written: a link's target is read by that name too
            throw new FileSystemException(path.toString(), null, "leads to " + destination + ": " + command + " writes a"
                    + " hint file, and merge and diff read a name ending in .json as a JSON profile: " + jsonAdvice());
        }
        switch (kind) {
            case MISSING -> checkDirectory(destination);
            case REGULAR_FILE -> checkReplaceable(cli);
            case CHARACTER_DEVICE, FIFO -> {
                if (content == Content.HINT_FILE) {
                    throw new FileSystemException(path.toString(), null, "is " + kind.words() + ": " + command
                            + " writes a hint file, which is published by rename and never replaces a device or FIFO;"
                            + " name a regular file");
                }
                mode = Mode.STREAM;
            }
            default -> throw notWritable(kind);
        }
    }

    private static boolean isJsonName(Path file) {
        return file.getFileName() != null && file.getFileName().toString().endsWith(".json");
    }

    private String jsonAdvice() {
        return backupSuffix != null ? "convert it with -o NEW, to a name that does not end in .json"
                : "name it otherwise (dump --format json writes a JSON profile)";
    }

    /**
     * What is at the output: the path itself, or, with {@code --follow-symlinks}, what a link there
     * leads to (then {@link #destination} is that file). A link is refused otherwise: neither
     * replaced nor written through.
     */
    private FileKind inspect() throws IOException {
        FileKind kind = FileKind.of(path, false);
        if (kind != FileKind.SYMBOLIC_LINK) {
            return kind;
        }
        if (!files.followSymlinks) {
            throw new FileSystemException(path.toString(), null, "is a symbolic link: neither replaced nor written"
                    + " through; use --follow-symlinks to write to what it points to"
                    + (content == Content.TEXT ? " (-o - writes to standard output)" : ""));
        }
        FileKind target = FileKind.of(path, true);
        if (target == FileKind.MISSING) {
            throw new FileSystemException(path.toString(), null, "is a symbolic link to nothing: no file is created"
                    + " through a link");
        }
        if (target == FileKind.REGULAR_FILE) {
            destination = path.toRealPath(); // published beside the file the link leads to, the link kept
        }
        return target;
    }

    private FileSystemException notWritable(FileKind kind) {
        return new FileSystemException(path.toString(), null, "is " + kind.words() + ": "
                + (kind == FileKind.DIRECTORY ? "name the file to write" : "never written; name a file"));
    }

    /**
     * Refuses an output path in a directory that does not exist before any work, with an error that
     * names that path: found only at the rename, it would name the temporary file and come after
     * reading every input.
     */
    private static void checkDirectory(Path path) throws IOException {
        Path parent = path.toAbsolutePath().getParent();
        if (!Files.isDirectory(parent)) {
            throw new NoSuchFileException(parent.toString(), null,
                    "no such directory (the output " + path.getFileName() + " would go there)");
        }
    }

    /** The replacement rules for a regular file at the output. */
    private void checkReplaceable(CommandLine cli) throws IOException {
        if (!replace.mayReplace()) {
            if (content == Content.HINT_FILE) {
                // a refusal, not a usage error: the same command line succeeds once the file is gone (ExitCode)
                throw new DataLossRefused(path + " exists: use --force to replace it");
            }
            refuseHintFileForText("");
        }
        List<Long> live = liveWriters();
        if (!live.isEmpty() && !replace.replaceLive) {
            throw new DataLossRefused(path + " has " + live.size() + " live writer(s) attached (pid "
                    + join(live) + "): replacing it would lose what they record from now on, since they keep writing"
                    + " the replaced file; stop them first, or " + replace.liveAdvice);
        }
    }

    /** A text output replaces a hint file only with {@code --force}: its profile would be lost. */
    private void refuseHintFileForText(String when) throws IOException {
        if (content != Content.TEXT || replace.mayReplace()) {
            return;
        }
        String hint = hintFileOrWhyNot(destination);
        if (hint != null) {
            throw new DataLossRefused(path + (hint.isEmpty() ? " is a hint file" + when + ": " + command
                    + " would replace it with text, and its profile would be lost"
                    : ": cannot tell whether it is a hint file (" + hint + ")") + "; use --force to replace it");
        }
    }

    /**
     * Null when {@code file} is not a hint file; "" when it is one (it starts with the magic, of any
     * format version, damaged or not); else why that cannot be told. Read without following a link
     * and without blocking ({@link CommandFiles#openInput}); another user's file is read to refuse, as
     * the live-writer check reads it.
     */
    private String hintFileOrWhyNot(Path file) {
        HintStoreOptions options = files.options().followSymlinks(false).allowForeignOwner(true);
        try (InputStream in = CommandFiles.openInput(file, options)) {
            byte[] head = in.readNBytes(Long.BYTES);
            return head.length == Long.BYTES
                    && ByteBuffer.wrap(head).order(ByteOrder.LITTLE_ENDIAN).getLong() == MAGIC ? "" : null;
        } catch (HintFileException e) {
            return e.problem() == HintFileException.Problem.MISSING ? null : HintFileErrors.message(e);
        } catch (IOException e) {
            return HintmapCli.describe(e);
        }
    }

    /**
     * Writes {@code regions} into a new hint file with {@code options} and publishes it at the
     * output path; returns the regions dropped because the index had no room within its probe bound.
     */
    long publish(List<RegionRecord> regions, HintStoreOptions options, Progress progress) throws IOException {
        return publish(regions, options, null, progress);
    }

    /**
     * {@link #publish(List, HintStoreOptions, Progress)}, the new file taking the owner, group and
     * mode of {@code like} (an in-place conversion: the file it replaces); null: this process's.
     */
    long publish(List<RegionRecord> regions, HintStoreOptions options, Path like, Progress progress) throws IOException {
        reclaimStaleTemporaries(progress);
        Path tmp = Temporaries.nameBeside(destination, command);
        try {
            long dropped = fill(tmp, regions, options, like, progress);
            try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
                TestSeams.durability().syncFile(tmp, channel); // the store's msync wrote the pages; fsync makes the file whole
            }
            Temporaries.publish(tmp, () -> {
                if (replace != null && replace.mayReplace()) {
                    checkBeforeReplacing(progress);
                    replaceKeepingBackup(tmp);
                } else {
                    try {
                        Files.createLink(destination, tmp); // fails rather than replace a file created meanwhile
                    } catch (FileAlreadyExistsException e) {
                        throw new FileSystemException(path.toString(), null, "appeared while " + command + " ran;"
                                + " nothing replaced" + (replace == null ? "" : " (use --force)"));
                    }
                }
                return null;
            });
            TestSeams.durability().syncDirectory(destination);
            progress.step(command + ": wrote " + path + " (" + Units.bytes(Files.size(destination)) + ")");
            return dropped;
        } catch (IOException e) {
            throw namingTheOutput(e);
        } finally {
            Temporaries.discard(tmp);
        }
    }

    /**
     * Renames {@code tmp} over the destination; for an in-place conversion, first links the file
     * it replaces to {@link #backup()} (FORMAT.md §12 step 4), and unlinks that again when the
     * rename fails. A backup that is already this very file (hard-linked by a conversion that was
     * interrupted before its rename) is kept as it is; any other file there is refused.
     */
    private void replaceKeepingBackup(Path tmp) throws IOException {
        boolean linked = false;
        if (backupSuffix != null) {
            try {
                Files.createLink(backup(), destination); // fails rather than replace whatever is there
                linked = true;
            } catch (FileAlreadyExistsException e) {
                if (!SameFile.sameRegularFile(backup(), destination)) {
                    throw new DataLossRefused(backupRefusal());
                }
            }
        }
        boolean renamed = false;
        try {
            Files.move(tmp, destination, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            renamed = true;
        } finally {
            if (linked && !renamed) {
                Files.deleteIfExists(backup()); // the old file is still at the destination: nothing to keep twice
            }
        }
    }

    /** Why an in-place conversion does not start, or not publish: another file is where it keeps the old one. */
    String backupRefusal() {
        return backup() + " exists and is not " + destination + ": move it away, or convert with -o NEW";
    }

    /**
     * Removes the temporaries that interrupted commands left in the output's directory and says so
     * ({@link Temporaries#reclaimStale}).
     */
    private void reclaimStaleTemporaries(Progress progress) {
        Path directory = destination.toAbsolutePath().getParent();
        Temporaries.Reclaimed reclaimed = Temporaries.reclaimStale(directory);
        if (reclaimed.files() > 0) {
            progress.step(command + ": removed " + reclaimed.files() + " temporary file(s) of " + Units.bytes(reclaimed.bytes())
                    + " in " + directory + " that interrupted hintmap commands had left");
        }
    }

    private long fill(Path tmp, List<RegionRecord> regions, HintStoreOptions options, Path like, Progress progress)
            throws IOException {
        // An error here names the temporary: publish says which output failed first (permission, full disk).
        try (HintStore store = Temporaries.create(tmp, () -> CommandFiles.createNew(tmp, options, like))) {
            int written = 0;
            for (RegionRecord r : regions) {
                if (written == regions.size() / 2) {
                    TestSeams.holdHalfWritten(tmp); // nothing outside tests
                }
                store.add(r);
                if (++written % PROGRESS_EVERY == 0) {
                    progress.update(command + ": writing " + Units.count(written) + " of "
                            + Units.count(regions.size()) + " regions");
                }
            }
            store.flush();
            if (replace != null && replace.mayReplace() && Files.exists(destination, LinkOption.NOFOLLOW_LINKS)) {
                progress.step(command + ": wrote " + Units.count(regions.size()) + " regions to a new file;"
                        + " checking " + path + " for writers before replacing it");
            }
            return store.info().droppedInserts();
        }
    }

    /**
     * Writes {@code text} to the output as {@link #check} decided: into standard output
     * ({@code stdout}) or a device or FIFO as a stream, or into a new file renamed over the output
     * path (the node exporter's textfile collector reads complete files only).
     *
     * @param progress where a warning goes (replacing a file with live writers, {@code --replace-live})
     */
    void publishText(byte[] text, PrintWriter stdout, Progress progress) throws IOException {
        switch (mode) {
            case STANDARD_OUTPUT -> {
                // A failed write is reported once the command has run, as for every command's output (StandardOutput).
                stdout.print(new String(text, StandardCharsets.UTF_8));
                stdout.flush();
            }
            case STREAM -> {
                try (FileChannel stream = StreamOutput.open(path, files.followSymlinks)) {
                    writeAll(stream, text);
                } catch (IOException e) {
                    throw namingTheOutput(e); // "No space left on device" alone names nothing
                }
            }
            case FILE -> publishTextFile(text, progress);
        }
    }

    private void publishTextFile(byte[] text, Progress progress) throws IOException {
        reclaimStaleTemporaries(progress);
        Path tmp = Temporaries.nameBeside(destination, command);
        try {
            try (FileChannel channel = Temporaries.create(tmp, () -> CommandFiles.createNewFile(tmp, files.options()))) {
                writeAll(channel, text);
                TestSeams.holdHalfWritten(tmp); // nothing outside tests
                TestSeams.durability().syncFile(tmp, channel);
            }
            Temporaries.publish(tmp, () -> {
                checkBeforeReplacing(progress);
                Files.move(tmp, destination, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                return null;
            });
            TestSeams.durability().syncDirectory(destination);
        } catch (IOException e) {
            throw namingTheOutput(e);
        } finally {
            Temporaries.discard(tmp);
        }
    }

    /**
     * {@code e} as an error that names the output first ("cannot write OUT: ..."): a write, sync or
     * rename error alone names the temporary file, or nothing ({@code write}'s ENOSPC, {@code fsync}'s
     * EIO). One about the output path itself (the rules' refusals) is kept as it is.
     */
    private IOException namingTheOutput(IOException e) {
        if (e instanceof FileSystemException f && path.toString().equals(f.getFile())) {
            return e;
        }
        String why = e instanceof HintFileException h ? HintFileErrors.message(h) : HintmapCli.describe(e);
        return new IOException("cannot write " + path + ": " + why, e);
    }

    private static void writeAll(FileChannel channel, byte[] bytes) throws IOException {
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
    }

    /**
     * The rules again, just before the rename: inputs take a while to read, and what is at the output
     * may have changed meanwhile. A device, FIFO, directory or socket put there is never replaced; a
     * hint file that appeared is not replaced by a text without {@code --force}; and live writers are
     * checked again. A writer can still attach between this check and the rename; no lock that every
     * writer takes at open exists to close that window (FORMAT.md has none), so it is documented
     * instead (docs/GUIDE.md, "Backups and upgrade").
     *
     * @param progress where the warning of {@code --replace-live} goes
     */
    private void checkBeforeReplacing(Progress progress) throws IOException {
        FileKind kind = FileKind.of(destination, false);
        if (kind == FileKind.MISSING) {
            return;
        }
        if (kind != FileKind.REGULAR_FILE && kind != FileKind.SYMBOLIC_LINK) {
            throw new FileSystemException(path.toString(), null, "is " + kind.words() + " now (it changed while "
                    + command + " ran): nothing replaced");
        }
        refuseHintFileForText(" now (it appeared while " + command + " ran)");
        List<Long> live = liveWriters();
        if (live.isEmpty()) {
            return;
        }
        if (!replace.replaceLive) {
            throw new DataLossRefused(path + " had " + live.size() + " live writer(s) attach while "
                    + command + " ran (pid " + join(live) + "): nothing replaced; " + replace.liveAdvice);
        }
        progress.warn(command + ": warning: replacing " + path + " while " + live.size()
                + " writer(s) are attached to it (pid " + join(live) + "): they keep writing the replaced"
                + " file, and what they record from now on is not in " + path);
    }

    /**
     * The live writers attached to the hint file at the output path, of the current format or of
     * version 1 or 2 ({@link CommandFiles#liveWriters}: read-only, nothing is claimed; a writer must map
     * this very file, FORMAT.md §6.3). None when nothing is there, when a symbolic link is (the
     * rename replaces the link, not the file its writers mapped), or when it is no hint file at
     * all (no writer of ours can have it open either, unless it was damaged under them: then
     * there is no table to name them by). A file that cannot be read for another reason (holes,
     * an I/O error, a format version this build does not know) may have writers: that is refused.
     */
    private List<Long> liveWriters() throws IOException {
        if (!Files.isRegularFile(destination, LinkOption.NOFOLLOW_LINKS)) {
            return List.of();
        }
        // Another user's file is only read here, to refuse replacing it: the foreign-owner rule
        // (SECURITY.md) guards what a command trusts, and a refusal trusts nothing.
        HintStoreOptions options = files.options().followSymlinks(false).allowForeignOwner(true);
        try {
            return CommandFiles.liveWriters(destination, options);
        } catch (HintFileException e) {
            return switch (e.problem()) {
                case NOT_A_HINT_FILE, UNFINISHED, CORRUPT_HEADER, LAYOUT_MISMATCH, INCONSISTENT, TRUNCATED, MISSING ->
                        List.of(); // no table: no writer of this format can be using it
                default -> {
                    if (replace.replaceLive) {
                        yield List.of();
                    }
                    throw new DataLossRefused("cannot tell whether writers are attached to " + path + " ("
                            + e.getMessage() + "): " + replace.liveAdvice);
                }
            };
        }
    }

    private static String join(List<Long> pids) {
        return String.join(", ", pids.stream().map(String::valueOf).toList());
    }
}
