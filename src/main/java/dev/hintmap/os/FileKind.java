package dev.hintmap.os;

import dev.hintmap.os.PosixFiles.PosixException;
import java.nio.file.FileSystemException;
import java.nio.file.Path;

/**
 * What is at a path, by {@code statx}: the kinds a command's output rules tell apart (a FIFO from
 * a character device, a device from a regular file), which {@code java.nio}'s basic attributes
 * lump together as "other". Not API: the {@code hintmap} command's output rules use it.
 */
public enum FileKind {
    /** Nothing at the path (or a directory of it is missing). */
    MISSING("nothing"),
    /** A regular file. */
    REGULAR_FILE("a regular file"),
    /** A directory. */
    DIRECTORY("a directory"),
    /** A symbolic link (only when links are not followed). */
    SYMBOLIC_LINK("a symbolic link"),
    /** A character device ({@code /dev/null}, a terminal). */
    CHARACTER_DEVICE("a character device"),
    /** A named pipe. */
    FIFO("a FIFO"),
    /** A block device (a disk). */
    BLOCK_DEVICE("a block device"),
    /** A socket. */
    SOCKET("a socket");

    private final String words;

    FileKind(String words) {
        this.words = words;
    }

    /** The kind in words, for a message: "a character device". */
    public String words() {
        return words;
    }

    /** Whether an output is written to it as a stream: a device or a pipe, which no file can replace. */
    public boolean isStream() {
        return this == CHARACTER_DEVICE || this == FIFO;
    }

    /**
     * What is at {@code path}.
     *
     * @param follow true: what a symbolic link at the path leads to ({@code stat}; a dangling link
     *     is {@link #MISSING}); false: the link itself ({@code lstat})
     * @throws FileSystemException naming the path and the error, for anything but a missing file
     */
    public static FileKind of(Path path, boolean follow) throws FileSystemException {
        try {
            NativeAccess.require(path);
            return of(PosixFiles.stat(path, follow).mode());
        } catch (PosixException e) {
            if (e.errno == PosixFiles.ENOENT || e.errno == PosixFiles.ENOTDIR) {
                return MISSING;
            }
            throw new FileSystemException(path.toString(), null, PosixFiles.errnoName(e.errno));
        } catch (dev.hintmap.HintFileException e) {
            throw new FileSystemException(path.toString(), null, e.getMessage());
        }
    }

    public static FileKind of(int mode) {
        return switch (mode & PosixFiles.S_IFMT) {
            case PosixFiles.S_IFREG -> REGULAR_FILE;
            case PosixFiles.S_IFDIR -> DIRECTORY;
            case 0120000 -> SYMBOLIC_LINK;
            case 0020000 -> CHARACTER_DEVICE;
            case 0010000 -> FIFO;
            case 0060000 -> BLOCK_DEVICE;
            default -> SOCKET; // 0140000, the only type left
        };
    }
}
