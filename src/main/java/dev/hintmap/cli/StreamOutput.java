package dev.hintmap.cli;

import dev.hintmap.os.FileKind;
import dev.hintmap.os.NativeAccess;
import dev.hintmap.os.PosixFiles;
import dev.hintmap.os.PosixFiles.PosixException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Opens an existing character device or FIFO to write a command's output into it as a stream
 * ({@code hintmap export -o /dev/stderr}, a named pipe a collector reads): never created, never
 * truncated, never replaced. Not API: the {@code hintmap} command's output rules use it.
 *
 * <p>The path is opened {@code O_WRONLY|O_NOCTTY|O_CLOEXEC} — no {@code O_CREAT}, no
 * {@code O_TRUNC}, and {@code O_NOFOLLOW} unless links are followed — and what was opened is
 * checked on the descriptor ({@code fstat}), not on the path again: a regular file put at the path
 * after the caller looked (a hard link to someone's file, say) is closed unwritten. As a shell's
 * {@code >} does, opening a FIFO waits until a reader opens it.
 */
final class StreamOutput {
    private StreamOutput() {}

    /**
     * Opens {@code path}, which must be a character device or a FIFO, for writing.
     *
     * @param follow whether a symbolic link at the path is followed
     * @return a channel writing to the device or pipe, which the caller closes
     * @throws FileSystemException naming the path: missing, a link not followed, or not a device or FIFO
     */
    public static FileChannel open(Path path, boolean follow) throws IOException {
        NativeAccess.require(path);
        int fd;
        try {
            fd = PosixFiles.open(path, PosixFiles.O_WRONLY | PosixFiles.O_NOCTTY | PosixFiles.O_CLOEXEC
                    | (follow ? 0 : PosixFiles.O_NOFOLLOW), 0);
        } catch (PosixException e) {
            throw new FileSystemException(path.toString(), null, "cannot open for writing: "
                    + (e.errno == PosixFiles.ELOOP && !follow ? "a symbolic link" : PosixFiles.errnoName(e.errno)));
        }
        try {
            FileKind kind = FileKind.of(PosixFiles.fstat(fd).mode());
            if (!kind.isStream()) {
                throw new FileSystemException(path.toString(), null, "is " + kind.words()
                        + " now, no longer a device or FIFO: not written");
            }
            // /proc/self/fd/N: the device or pipe this descriptor has open (opening it again needs no reader wait:
            // this descriptor is one). WRITE alone: no create, no truncate.
            return FileChannel.open(Path.of("/proc/self/fd", Integer.toString(fd)), StandardOpenOption.WRITE);
        } catch (PosixException e) {
            throw new FileSystemException(path.toString(), null, "cannot check what was opened: "
                    + PosixFiles.errnoName(e.errno));
        } finally {
            PosixFiles.close(fd);
        }
    }
}
