package dev.hintmap;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;

/**
 * A hint file could not be created or opened: it is not a hint file, is damaged, was written by
 * another version or layout, contradicts the options it was opened with, is not safe to open
 * (a symbolic link, another user's file), or changed under the mapping. The message names the
 * file, the field or check and, where there is one, the expected value or range. A file that
 * fails to open is never modified.
 *
 * <p>Problems found after the store was opened ({@link HintStore#checkFile()}, or a file
 * truncated while mapped) come as this exception too; methods that declare no checked exception
 * wrap it in an {@link java.io.UncheckedIOException}.
 */
public final class HintFileException extends IOException {
    private static final long serialVersionUID = 1L;

    /** What is wrong with the file, one value per distinct problem. */
    public enum Problem {
        /**
         * No file at the path: opened read-only (an optimizer before any run has recorded), or
         * the parent directory is missing. "No hints yet", not an I/O error; the cause is the
         * {@link java.nio.file.NoSuchFileException}.
         */
        MISSING,
        /** Shorter than its header, or than the size its header declares. */
        TRUNCATED,
        /** The creator has not finished initialising it (magic is still zero). */
        UNFINISHED,
        /** The magic number is not hintmap's. */
        NOT_A_HINT_FILE,
        /** Written with a format version this library does not read. */
        UNSUPPORTED_VERSION,
        /** The header checksum does not match its contents. */
        CORRUPT_HEADER,
        /** Written by a build whose binary layout differs from this one. */
        LAYOUT_MISMATCH,
        /** A header field is out of range or inconsistent with the others or the file size. */
        INCONSISTENT,
        /** The options passed to open contradict the file's own layout. */
        OPTIONS_MISMATCH,
        /** Every writer-table entry is held by a live process. */
        WRITER_TABLE_FULL,
        /**
         * The final component of the path is a symbolic link, and the options do not allow
         * following it ({@link HintStoreOptions#followSymlinks(boolean)}).
         */
        SYMLINK,
        /**
         * The file belongs to another user, and the options accept neither foreign owners
         * ({@link HintStoreOptions#allowForeignOwner(boolean)}) nor this file's group
         * ({@link HintStoreOptions#groupShared(boolean)}).
         */
        FOREIGN_OWNER,
        /**
         * No space for the file: disk full, quota exceeded or file-size limit, when creating it,
         * or when a writer allocates the unallocated ranges of an existing (sparse) file.
         */
        NO_SPACE,
        /**
         * A read-only open found unallocated ranges in the file (a sparse copy, a punched
         * hole): reading them could fault on a full filesystem. A writer's open allocates them.
         */
        SPARSE,
        /** Another file (or none) is at the path now: the store maps a file others no longer open. */
        REPLACED,
        /** The file grew under the mapping (it shrank: {@link #TRUNCATED}). */
        RESIZED,
        /**
         * The operating system refused an operation on the file, or an access to the mapping
         * faulted although the file kept its size (a page that could not be allocated on a full
         * filesystem, an I/O error).
         */
        IO,
        /**
         * The JVM denies this library native access ({@code --illegal-native-access=deny}
         * without {@code --enable-native-access=ALL-UNNAMED} on the class path, or
         * {@code --enable-native-access=dev.hintmap} on the module path): no file was touched.
         * The message names the flag to add.
         */
        NATIVE_ACCESS
    }

    private final transient Path file; // Path is not Serializable: the message keeps the name
    /** What is wrong, never null. */
    private final Problem problem;
    /** The FORMAT.md field name concerned, or null. */
    private final String field;

    /**
     * A problem with no underlying exception.
     *
     * @param file the file concerned; the message starts with it
     * @param problem what is wrong, never null
     * @param field the field concerned, by its FORMAT.md §3 name ({@code magic},
     *     {@code file_bytes}, ...), or {@code null} when the problem is not about one field
     * @param detail what was found and, where there is one, the expected value or range
     * @throws NullPointerException if {@code problem} is null
     */
    public HintFileException(Path file, Problem problem, String field, String detail) {
        this(file, problem, field, detail, null);
    }

    /**
     * A problem that an underlying exception revealed, such as an {@link IOException} of the
     * file system for {@link Problem#IO}.
     *
     * @param file the file concerned; the message starts with it
     * @param problem what is wrong, never null
     * @param field the field concerned, by its FORMAT.md §3 name, or {@code null}
     * @param detail what was found and, where there is one, the expected value or range
     * @param cause the underlying exception, or {@code null}
     * @throws NullPointerException if {@code problem} is null
     */
    public HintFileException(Path file, Problem problem, String field, String detail, Throwable cause) {
        super(file + ": " + detail + (field == null ? "" : " [field " + field + "]"), cause);
        this.file = file;
        this.problem = Objects.requireNonNull(problem);
        this.field = field;
    }

    /**
     * The file concerned.
     *
     * @return the path given to the constructor; {@code null} in an exception that was
     *     deserialized, since a {@link Path} is not serializable ({@link #getMessage()} still
     *     names it)
     */
    public Path file() {
        return file;
    }

    /**
     * The kind of problem, for a caller that reacts to some of them (an optimizer treats
     * {@link Problem#MISSING} as "no hints yet").
     *
     * @return the problem, never null
     */
    public Problem problem() {
        return problem;
    }

    /**
     * The field concerned, by its FORMAT.md §3 name.
     *
     * @return the field's name ({@code magic}, {@code format_version}, {@code file_bytes}, ...),
     *     or {@code null} when the problem is not about one field
     */
    public String field() {
        return field;
    }
}
