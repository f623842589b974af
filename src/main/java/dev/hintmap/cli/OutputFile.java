package dev.hintmap.cli;

import dev.hintmap.HintFileException;
import dev.hintmap.HintFiles;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/**
 * The new file that a command writes — {@code merge}, {@code copy}, {@code upgrade} and
 * {@code create} a hint file, {@code export -o} a metrics text — and the one routine that writes
 * every such file: filled under a temporary name in the output's directory and published in one
 * step, {@code rename(2)} over an existing file ({@code --force}; {@code export} always) or
 * {@code link(2)}, which fails rather than replace a file created meanwhile. Readers of the path
 * see the old file or the complete new one.
 *
 * <p>The temporary file is created the way the library creates a hint file (docs/SECURITY.md,
 * "The {@code hintmap} command"): at a name with 64 random bits ({@link SecureRandom}), exclusively
 * ({@code O_CREAT|O_EXCL|O_NOFOLLOW}: nothing planted at the name is opened, written or followed),
 * mode 0600, or 0660 with {@code --group-shared}, set on the descriptor. Whoever can write the
 * directory — a textfile-collector directory, a shared profile directory — can make the command
 * fail, never make it write into another file. An in-place {@code upgrade} gives the new file the
 * owner, group and mode of the file it replaces.
 *
 * <p>An existing output with live writers attached is not replaced without
 * {@code --replace-live}: a writer maps the file it opened, so after the rename it keeps writing
 * the old, unlinked inode, and everything it records from then on is lost to the path. Writers of
 * a version-1 or version-2 file count too (its own writer table, read by the old-version reader).
 */
final class OutputFile {
    private static final int PROGRESS_EVERY = 1 << 16;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String command;
    private final Path path;
    private final ReplaceOptions replace;
    private final FileArgs files;

    OutputFile(String command, Path path, ReplaceOptions replace, FileArgs files) {
        this.command = command;
        this.path = path;
        this.replace = replace;
        this.files = files;
    }

    /**
     * Before any work: refuses an existing output without {@code --force} (a usage error) and one
     * that live writers are attached to without {@code --replace-live} ({@link DataLossRefused}),
     * so nothing is read or written in vain. {@link #publish} checks the writers again.
     */
    void checkReplaceable(CommandLine cli) throws IOException {
        checkWritablePath(path);
        if (Files.exists(path, LinkOption.NOFOLLOW_LINKS) && !replace.mayReplace()) {
            throw new ParameterException(cli, path + " exists: use --force to replace it");
        }
        List<Long> live = liveWriters();
        if (!live.isEmpty() && !replace.replaceLive) {
            throw new DataLossRefused(path + " has " + live.size() + " live writer(s) attached (pid "
                    + join(live) + "): replacing it would lose what they record from now on, since they keep writing"
                    + " the replaced file; stop them first, or " + replace.liveAdvice);
        }
    }

    /**
     * Refuses an output path that no file can be published at (a directory; a directory that
     * does not exist) before any work, with an error that names that path: found only at the
     * rename, it would name the temporary file and come after reading every input.
     */
    static void checkWritablePath(Path path) throws IOException {
        if (Files.isDirectory(path)) {
            throw new FileSystemException(path.toString(), null, "is a directory: name the file to write");
        }
        Path parent = path.toAbsolutePath().getParent();
        if (!Files.isDirectory(parent)) {
            throw new NoSuchFileException(parent.toString(), null,
                    "no such directory (the output " + path.getFileName() + " would go there)");
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
        return publish(tmp -> {
            HintStore created;
            try {
                created = HintFiles.createNew(tmp, options, like);
            } catch (HintFileException e) {
                // Say which output failed first: the temporary name alone would puzzle (permission, full disk).
                throw new IOException("cannot write " + path + ": " + HintFileErrors.message(e), e);
            }
            try (HintStore store = created) {
                int written = 0;
                for (RegionRecord r : regions) {
                    store.add(r);
                    if (++written % PROGRESS_EVERY == 0) {
                        progress.update(command + ": writing " + Units.count(written) + " of "
                                + Units.count(regions.size()) + " regions");
                    }
                }
                store.flush();
                if (replace.mayReplace() && Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
                    progress.step(command + ": wrote " + Units.count(regions.size()) + " regions to a new file;"
                            + " checking " + path + " for writers before replacing it");
                }
                return store.info().droppedInserts();
            }
        }, progress);
    }

    /**
     * Writes {@code text} into a new plain file and renames it over the output path, whatever is
     * there ({@code export -o}: the node exporter's textfile collector reads complete files only).
     */
    void publishText(byte[] text) throws IOException {
        Path tmp = temporaryName();
        try {
            try (FileChannel channel = HintFiles.createNewFile(tmp, files.options())) {
                ByteBuffer buffer = ByteBuffer.wrap(text);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
            }
            Files.move(tmp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (HintFileException e) {
            throw new IOException("cannot write " + path + ": " + HintFileErrors.message(e), e);
        } catch (IOException e) {
            // Name the output first: the error alone names the temporary file.
            throw new IOException("cannot write " + path + ": " + HintmapCli.describe(e), e);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** Fills the new hint file created at a temporary name; returns what the command reports. */
    @FunctionalInterface
    private interface Filler {
        long fill(Path tmp) throws IOException;
    }

    private long publish(Filler filler, Progress progress) throws IOException {
        Path tmp = temporaryName();
        try {
            long result = filler.fill(tmp);
            if (replace.mayReplace()) {
                // Checked again here, and not only at the start: reading large inputs takes a while, and a
                // writer that attached meanwhile would be lost just the same. A writer can still attach
                // between this check and the rename; no lock that every writer takes at open exists to
                // close that window (FORMAT.md has none), so it is documented instead (README, "Backups").
                List<Long> live = liveWriters();
                if (!live.isEmpty()) {
                    if (!replace.replaceLive) {
                        throw new DataLossRefused(path + " had " + live.size() + " live writer(s) attach while "
                                + command + " ran (pid " + join(live) + "): nothing replaced; " + replace.liveAdvice);
                    }
                    progress.warn(command + ": warning: replacing " + path + " while " + live.size()
                            + " writer(s) are attached to it (pid " + join(live) + "): they keep writing the replaced"
                            + " file, and what they record from now on is not in " + path);
                }
                Files.move(tmp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } else {
                try {
                    Files.createLink(path, tmp); // fails rather than replace a file created meanwhile
                } catch (FileAlreadyExistsException e) {
                    throw new IOException(path + " appeared while " + command + " ran; nothing replaced (use --force)",
                            e);
                }
            }
            progress.step(command + ": wrote " + path + " (" + Units.bytes(Files.size(path)) + ")");
            return result;
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /**
     * A temporary name beside the output that nobody can plant a file at in advance:
     * {@code .OUT.COMMAND.<16 random hex digits>.tmp}, starting with a dot so that collectors
     * that read {@code *.prom} never see it.
     */
    private Path temporaryName() {
        return path.toAbsolutePath().resolveSibling("." + path.getFileName() + "." + command + "."
                + HexFormat.of().toHexDigits(RANDOM.nextLong()) + ".tmp");
    }

    /**
     * The live writers attached to the hint file at the output path, of the current format or of
     * version 1 or 2 ({@link HintFiles#liveWriters}: read-only, nothing is claimed; a writer must map
     * this very file, FORMAT.md §6.3). None when nothing is there, when a symbolic link is (the
     * rename replaces the link, not the file its writers mapped), or when it is no hint file at
     * all (no writer of ours can have it open either, unless it was damaged under them: then
     * there is no table to name them by). A file that cannot be read for another reason (holes,
     * an I/O error, a format version this build does not know) may have writers: that is refused.
     */
    private List<Long> liveWriters() throws IOException {
        if (!Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)) {
            return List.of();
        }
        // Another user's file is only read here, to refuse replacing it: the foreign-owner rule
        // (SECURITY.md) guards what a command trusts, and a refusal trusts nothing.
        HintStoreOptions options = files.options().followSymlinks(false).allowForeignOwner(true);
        try {
            return HintFiles.liveWriters(path, options);
        } catch (HintFileException e) {
            return switch (e.problem()) {
                case NOT_A_HINT_FILE, UNFINISHED, CORRUPT_HEADER, LAYOUT_MISMATCH, INCONSISTENT, TRUNCATED ->
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
