package dev.hintmap.os;

import dev.hintmap.HintFileException;
import dev.hintmap.HintFileException.Problem;
import dev.hintmap.os.PosixFiles.PosixException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;

/**
 * The one way hintmap creates a file that it then writes: a hint file's temporary (FORMAT.md §5
 * creation step 2) and every output of the {@code hintmap} commands. Whoever can write the
 * directory must not be able to make such a write land in another file (docs/SECURITY.md):
 *
 * <ul>
 *   <li>the file is created with {@code O_CREAT|O_EXCL|O_NOFOLLOW}: nothing that is already at
 *       the path is opened, a symbolic link (a dangling one included) or a FIFO as little as a
 *       regular file, so nothing planted there is written, truncated or followed;</li>
 *   <li>its name carries 64 bits from {@link SecureRandom}, so a name cannot be planted in
 *       advance either (a pid and a clock can be guessed; a planted name would only make the
 *       creation fail, but an attacker could make every creation fail);</li>
 *   <li>its mode is set exactly with {@code fchmod} on the descriptor (0600, or 0660 for a
 *       group-shared file), never through the path and never left to the umask.</li>
 * </ul>
 */
public final class NewFiles {
    private NewFiles() {}

    private static final SecureRandom RANDOM = new SecureRandom();

    /** 16 hex digits nobody can predict, for a temporary name. */
    public static String unpredictable() {
        return String.format("%016x", RANDOM.nextLong());
    }

    /** 0660 for a file shared within a group, else 0600 (docs/SECURITY.md "Sharing a file between users"). */
    public static int mode(boolean groupShared) {
        return groupShared ? 0660 : 0600;
    }

    /**
     * Creates {@code path}, which must not exist, read-write with exactly {@code mode}.
     *
     * @return the descriptor, which the caller closes
     * @throws PosixException {@code EEXIST} when anything is at the path (a symbolic link included)
     */
    public static int createExclusive(Path path, int mode) throws PosixException {
        int fd = PosixFiles.open(path, PosixFiles.O_RDWR | PosixFiles.O_CREAT | PosixFiles.O_EXCL | PosixFiles.O_NOFOLLOW
                | PosixFiles.O_CLOEXEC, mode);
        try {
            PosixFiles.fchmod(fd, mode); // exactly, whatever the umask
            return fd;
        } catch (PosixException e) {
            PosixFiles.close(fd);
            throw e;
        }
    }

    /**
     * Creates {@code path}, a plain file a tool writes (not a hint file), by {@link #createExclusive}.
     *
     * @return a channel open for writing on the very file created
     * @throws FileAlreadyExistsException when anything is at the path (a symbolic link included)
     * @throws HintFileException {@code NO_SPACE}, {@code MISSING} (no such directory) or {@code IO}
     */
    public static FileChannel createFile(Path path, boolean groupShared) throws IOException {
        NativeAccess.require(path);
        int fd;
        try {
            fd = createExclusive(path, mode(groupShared));
        } catch (PosixException e) {
            throw switch (e.errno) {
                case PosixFiles.EEXIST -> new FileAlreadyExistsException(path.toString());
                case PosixFiles.ENOENT -> new HintFileException(path, Problem.MISSING, null, "cannot create: "
                        + noNewFileIn(path), new NoSuchFileException(path.toString()));
                case PosixFiles.ENOSPC, PosixFiles.EDQUOT -> new HintFileException(path, Problem.NO_SPACE, null,
                        "cannot create: " + e.getMessage(), e);
                default -> new HintFileException(path, Problem.IO, null, "cannot create: " + e.getMessage(), e);
            };
        }
        try {
            // /proc/self/fd/N: the file this descriptor has open, whatever is at the path by now
            return FileChannel.open(Path.of("/proc/self/fd", Integer.toString(fd)), StandardOpenOption.WRITE);
        } finally {
            PosixFiles.close(fd);
        }
    }

    /**
     * Makes a name just published in the directory of {@code file} durable: {@code fsync} of the
     * directory, so that a machine crash after the {@code link(2)} or {@code rename(2)} returned
     * cannot bring back the path without the new file, or with the file it replaced (FORMAT.md §5
     * creation step 5; every output of the {@code hintmap} commands too). Best effort: a
     * directory that cannot be synced (some network filesystems refuse it) costs durability, not
     * the creation.
     *
     * @param file the path just published (its directory is synced)
     */
    public static void syncDirectory(Path file) {
        Path dir = file.toAbsolutePath().getParent();
        if (dir == null) {
            return;
        }
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException | RuntimeException e) {
            // best effort (FORMAT.md §5 creation step 5, "Durability")
        }
    }

    /**
     * Why {@code open(O_CREAT)} of {@code path} failed with {@code ENOENT}: its directory is missing,
     * or it exists and takes no new files ({@code /proc}, {@code /sys}: their files can be written
     * in place, but nothing can be created beside them, so none of them can be replaced).
     */
    public static String noNewFileIn(Path path) {
        Path dir = path.toAbsolutePath().getParent();
        return dir != null && Files.isDirectory(dir)
                ? "no new file can be created in " + dir + " (it exists, but its file system takes no new files, as"
                        + " /proc and /sys do not: nothing there can be replaced by a new file)"
                : "no directory " + dir;
    }

    /**
     * Whether the file at {@code path} (a symbolic link itself, not followed) is a regular file
     * owned by this process's effective user: what a command may remove as its own leftover.
     */
    public static boolean isOwnRegularFile(Path path) {
        try {
            PosixFiles.Stat stat = PosixFiles.stat(path, false);
            return stat.isRegularFile() && stat.uid() == PosixFiles.geteuid();
        } catch (PosixException | RuntimeException e) {
            return false;
        }
    }

    /**
     * Gives the file open as {@code fd} the owner, group and permission bits (rwx for user, group
     * and others; no set-id or sticky bit) of {@code like}, on the descriptor: what an in-place
     * conversion keeps of the file it replaces.
     */
    public static void takeOwnership(int fd, PosixFiles.Stat like) throws PosixException {
        PosixFiles.Stat now = PosixFiles.fstat(fd);
        if (now.uid() != like.uid() || now.gid() != like.gid()) {
            PosixFiles.fchown(fd, like.uid(), like.gid());
        }
        PosixFiles.fchmod(fd, like.mode() & 0777); // after fchown, which may clear set-id bits
    }
}
