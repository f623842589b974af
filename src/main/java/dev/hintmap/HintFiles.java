package dev.hintmap;

import dev.hintmap.format.Layouts;
import dev.hintmap.format.ReleaseVersion;
import dev.hintmap.store.FileVerifier;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * Operations on hint files as files, for tools: checking one without recording anything into it,
 * and creating one exclusively (docs/SECURITY.md).
 */
public final class HintFiles {
    private HintFiles() {}

    /**
     * The format version this library reads and writes (docs/FORMAT.md §3); a file of version 1
     * or 2 is refused with {@code UNSUPPORTED_VERSION} and converted by {@code hintmap upgrade}.
     */
    public static final int FORMAT_VERSION = Layouts.FORMAT_VERSION_VALUE;

    /**
     * This library's release version, as the build wrote it (the project version of its
     * {@code pom.xml}, e.g. {@code 0.2.0}); {@code "unknown"} for classes that did not come from
     * the build (a copy without the build's resources).
     *
     * @return the release version
     */
    public static String version() {
        return ReleaseVersion.VALUE;
    }

    /**
     * Checks every invariant of the hint file at {@code file} (FORMAT.md): header checksum,
     * layout and ranges, coordination words, writer table, every slot (name, hash, padding,
     * record invariants) and the index against the slots (each entry names a LIVE slot with its
     * tag, within the probe bound and reachable from its home; each LIVE slot has exactly one
     * entry; no name twice). The file is mapped read-only and never modified; it may be in use
     * by writers, in which case the check is repeated until it sees a stable set of regions.
     *
     * <p>A file that cannot be opened at all (not a hint file, corrupt header, ...) gives a
     * report with that one problem.
     *
     * @param file the hint file to check
     * @param options how to open it ({@link HintStoreOptions#readOnly} is implied)
     * @return every finding, with the number of regions and index entries seen; a file that
     *     cannot be opened for its content gives one {@code header} error naming its problem
     * @throws IOException when the file cannot be read for a reason other than its content: a
     *     {@link HintFileException} with problem {@code MISSING}, {@code IO} or
     *     {@code NATIVE_ACCESS}, or another I/O failure
     */
    public static VerifyReport verify(Path file, HintStoreOptions options) throws IOException {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(options, "options");
        HintStore store;
        try {
            store = HintStore.open(file, options.readOnly(true));
        } catch (HintFileException e) {
            switch (e.problem()) {
                case IO, MISSING, NATIVE_ACCESS -> throw e; // about reaching the file, not its content
                default -> { }
            }
            String field = e.field() == null ? "file" : e.field();
            return new VerifyReport(file, List.of(new VerifyReport.Finding(VerifyReport.Severity.ERROR, "header", -1, -1,
                    field, e.problem() + ": " + e.getMessage())), 0, 0, true);
        }
        try (store) {
            return verify(store);
        }
    }

    /**
     * Checks every invariant of the file an open store maps, as {@link #verify(Path, HintStoreOptions)}
     * does after opening it: for a caller that has the store open already (one open, and no window
     * in which another file could be put at the path).
     *
     * @param store an open store, read-only or not
     * @return every finding, with the number of regions and index entries seen
     * @throws IllegalStateException if the store is closed
     */
    public static VerifyReport verify(HintStore store) {
        Objects.requireNonNull(store, "store");
        return FileVerifier.verify(store.mapped());
    }

    /**
     * Creates a new hint file at {@code file} and opens it for writing; never opens or replaces
     * an existing one. As {@link HintStore#open} creates a file (initialised under a temporary
     * name, mode 0600, or 0660 with {@link HintStoreOptions#groupShared}, exactly), but anything
     * at the path — a file published there first, a symbolic link, a dangling one included — is
     * a {@link java.nio.file.FileAlreadyExistsException}, and the store maps the very file this
     * call created. For tools that write a new file under a name of their own and rename it into
     * place.
     *
     * @param file the new file's path; its parent directory must exist
     * @param options its layout and mode ({@code readOnly} is ignored)
     * @return the open store, which the caller closes
     * @throws java.nio.file.FileAlreadyExistsException when anything is at {@code file}
     * @throws IOException a {@link HintFileException} when it cannot be created ({@code NO_SPACE},
     *     {@code MISSING} directory, {@code IO}), or another I/O failure
     */
    public static HintStore createNew(Path file, HintStoreOptions options) throws IOException {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(options, "options");
        return HintStore.createNew(file, options, null);
    }
}
