package dev.hintmap.cli;

import dev.hintmap.HintFileException;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.RegionRecord;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/**
 * The new hint file that {@code merge} and {@code copy} write: filled under a temporary name in
 * the output's directory and published in one step, {@code rename(2)} over an existing file
 * ({@code --force}) or {@code link(2)}, which fails rather than replace a file created meanwhile.
 * Readers of the path see the old file or the complete new one.
 *
 * <p>An existing output with live writers attached is not replaced without
 * {@code --replace-live}: a writer maps the file it opened, so after the rename it keeps writing
 * the old, unlinked inode, and everything it records from then on is lost to the path.
 */
final class OutputFile {
    private static final int PROGRESS_EVERY = 1 << 16;

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
                    + " the replaced file; stop them first, or use --replace-live to replace it anyway");
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
     * Writes {@code regions} into a new file with {@code options} and publishes it at the output
     * path; returns the regions dropped because the index had no room within its probe bound.
     */
    long publish(List<RegionRecord> regions, HintStoreOptions options, Progress progress) throws IOException {
        Path dir = path.toAbsolutePath().getParent();
        Path tmp = dir.resolve("." + path.getFileName() + "." + command + "-" + ProcessHandle.current().pid() + "-"
                + Long.toHexString(ThreadLocalRandom.current().nextLong()) + ".tmp");
        try {
            long dropped;
            HintStore created;
            try {
                created = HintStore.open(tmp, options);
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
                dropped = store.info().droppedInserts();
            }
            if (replace.mayReplace()) {
                // Checked again here, and not only at the start: reading large inputs takes a while, and a
                // writer that attached meanwhile would be lost just the same. A writer can still attach
                // between this check and the rename; no lock that every writer takes at open exists to
                // close that window (FORMAT.md has none), so it is documented instead (README, "Backups").
                List<Long> live = liveWriters();
                if (!live.isEmpty()) {
                    if (!replace.replaceLive) {
                        throw new DataLossRefused(path + " had " + live.size() + " live writer(s) attach while "
                                + command + " ran (pid " + join(live) + "): nothing replaced; use --replace-live to"
                                + " replace it anyway");
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
            return dropped;
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /**
     * The live writers attached to the hint file at the output path, read through the library
     * (read-only: nothing is claimed). None when nothing is there, when a symbolic link is (the
     * rename replaces the link, not the file its writers mapped), or when the library cannot
     * open it as a hint file at all (no writer of ours can have it open either, unless it was
     * damaged under them: then there is no table to name them by). A hint file that a reader
     * cannot open for another reason (holes, an I/O error) may have writers: that is refused.
     */
    private List<Long> liveWriters() throws IOException {
        if (!Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)) {
            return List.of();
        }
        // Another user's file is only read here, to refuse replacing it: the foreign-owner rule
        // (SECURITY.md) guards what a command trusts, and a refusal trusts nothing.
        HintStoreOptions options = files.options().followSymlinks(false).allowForeignOwner(true).readOnly(true);
        try (HintStore store = HintStore.open(path, options)) {
            return store.info().writers().stream().filter(w -> w.alive()).map(w -> w.pid()).toList();
        } catch (HintFileException e) {
            return switch (e.problem()) {
                case NOT_A_HINT_FILE, UNFINISHED, UNSUPPORTED_VERSION, CORRUPT_HEADER, LAYOUT_MISMATCH, INCONSISTENT,
                        TRUNCATED -> List.of(); // no table: no writer of this format can be using it
                default -> {
                    if (replace.replaceLive) {
                        yield List.of();
                    }
                    throw new DataLossRefused("cannot tell whether writers are attached to " + path + " ("
                            + e.getMessage() + "): use --replace-live to replace it anyway");
                }
            };
        }
    }

    private static String join(List<Long> pids) {
        return String.join(", ", pids.stream().map(String::valueOf).toList());
    }
}
