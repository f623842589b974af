package dev.hintmap.cli;

import dev.hintmap.HintFileException;
import dev.hintmap.HintFileInfo;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.os.NewFiles;
import dev.hintmap.store.HintFileOpener;
import dev.hintmap.store.HintStoreAccess;
import dev.hintmap.store.OldVersionReader;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * The files the {@code hintmap} command reads and writes beside hint files, under the rules of a
 * hint file (docs/SECURITY.md): a JSON profile it reads, a new file it writes under a name of its
 * own before renaming it into place, and the writers of a file it is about to replace. Not API:
 * the library's {@code HintFiles} holds what a program needs.
 */
final class CommandFiles {
    private CommandFiles() {}

    /**
     * The processes attached now, as writers, to the hint file at {@code file}, of the current
     * format or of version 1 or 2: running, and mapping this very file (FORMAT.md §6.3), so that a
     * byte copy of a live file names none. What a command that is about to replace or convert the
     * file would take the later records of. Read-only: nothing is claimed in the file.
     *
     * @param file a hint file
     * @param options how to open it ({@link HintStoreOptions#readOnly} is implied)
     * @return their pids, in writer-table order
     * @throws IOException a {@link HintFileException} when the file cannot be opened as a hint
     *     file of either version (missing, refused, damaged, another version...), or another I/O
     *     failure
     */
    static List<Long> liveWriters(Path file, HintStoreOptions options) throws IOException {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(options, "options");
        try (HintStore store = HintStore.open(file, options.readOnly(true))) {
            return store.info().writers().stream().filter(HintFileInfo.Writer::alive).map(HintFileInfo.Writer::pid).toList();
        } catch (HintFileException e) {
            if (e.problem() != HintFileException.Problem.UNSUPPORTED_VERSION) {
                throw e;
            }
            return OldVersionReader.liveWriters(file, options); // UNSUPPORTED_VERSION again unless it is version 1 or 2
        }
    }

    /**
     * Opens a plain file that a command reads along with hint files (a JSON profile) under the
     * rules of every hint file, relaxed by {@code options} as for {@link HintStore#open}: no
     * symbolic link at the path, no file of another user, and nothing but a regular file — the
     * open does not block on a FIFO, which is refused as {@code NOT_A_HINT_FILE} naming what it is.
     *
     * @param file the file to read
     * @param options the safety rules to apply (the layout and mode options are ignored)
     * @return a stream of the very file checked, which the caller closes
     * @throws IOException a {@link HintFileException} naming the file and the problem
     *     ({@code MISSING}, {@code SYMLINK}, {@code FOREIGN_OWNER}, {@code NOT_A_HINT_FILE},
     *     {@code IO}), or another I/O failure
     */
    static InputStream openInput(Path file, HintStoreOptions options) throws IOException {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(options, "options");
        try (HintFileOpener.Opened opened = HintFileOpener.openForReading(file, options, false)) {
            return Channels.newInputStream(opened.channel());
        }
    }

    /**
     * Creates a new plain file for a command's output (a metrics text written beside its final
     * name, then renamed into place), as a hint file is created: exclusively
     * ({@code O_CREAT|O_EXCL|O_NOFOLLOW}, so nothing already at the path is opened, a symbolic
     * link included) and with mode 0600, or 0660 with {@link HintStoreOptions#groupShared},
     * exactly, whatever the umask.
     *
     * @param file the new file's path, which should be unpredictable to others (a random part)
     * @param options its mode ({@code groupShared}); the other options are ignored
     * @return a channel open for writing on the file created, which the caller closes
     * @throws java.nio.file.FileAlreadyExistsException when anything is at {@code file}
     * @throws IOException a {@link HintFileException} ({@code NO_SPACE}, {@code MISSING}
     *     directory, {@code IO}), or another I/O failure
     */
    static FileChannel createNewFile(Path file, HintStoreOptions options) throws IOException {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(options, "options");
        return NewFiles.createFile(file, options.groupShared());
    }

    /**
     * {@code HintFiles.createNew(file, options)}, the new file taking the owner, group and
     * permission bits of {@code like}, set on its descriptor before it is linked into place:
     * what an in-place conversion keeps of the file it replaces (a process that may change a
     * file's owner: root, in practice, for another user's file).
     *
     * @param file the new file's path; its parent directory must exist
     * @param options its layout ({@code readOnly} is ignored; {@code followSymlinks} applies to
     *     {@code like})
     * @param like a regular file whose owner, group and rwx bits the new file gets; null: this
     *     process's, and the mode {@code options} ask for
     * @return the open store, which the caller closes
     * @throws IOException as {@code HintFiles.createNew}; also when the owner cannot be given
     *     ({@code IO}, {@code EPERM})
     */
    static HintStore createNew(Path file, HintStoreOptions options, Path like) throws IOException {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(options, "options");
        return HintStoreAccess.createNew(HintStore.class, file, options, like);
    }
}
