package dev.hintmap.cli;

import java.io.BufferedWriter;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where the commands print their results, and what a write that failed there makes of the exit
 * status. {@link PrintWriter} (and {@code System.out}) keep a failed write to themselves, so a
 * table written into a full disk ({@code hintmap dump FILE > /dev/full}) would exit 0 with nothing
 * said; {@link HintmapCli} asks here once the command has run, the same for every command:
 * <ul>
 *   <li>nothing failed: the command's status;</li>
 *   <li>a write failed and standard output is a pipe, FIFO or socket: its reader went away
 *       ({@code hintmap dump FILE | head -1}); it took what it wanted, and nothing can reach it any
 *       more. No message, status {@link ExitCode#CLOSED_PIPE}, as a tool that SIGPIPE ends;</li>
 *   <li>any other failed write (a full disk, an I/O error): one line naming standard output and the
 *       reason, status {@link ExitCode#IO_ERROR} — where the command succeeded or found problems;
 *       one that failed on its own has said so, and its status stands.</li>
 * </ul>
 * A writer handed in by a caller ({@link HintmapCli#run}: tests, the AOT training) tells whether a
 * write failed but not why, nor what it wrote to: a failure there is the last case.
 */
final class StandardOutput {
    private final PrintWriter writer;
    private final FailureKeeper descriptor; // null: a caller's writer

    private StandardOutput(PrintWriter writer, FailureKeeper descriptor) {
        this.writer = writer;
        this.descriptor = descriptor;
    }

    /** The process's standard output (descriptor 1), in {@code charset}; each line flushed, as {@code System.out}'s are. */
    static StandardOutput ofProcess(Charset charset) {
        FailureKeeper descriptor = new FailureKeeper(new FileOutputStream(FileDescriptor.out));
        return new StandardOutput(new PrintWriter(new BufferedWriter(new OutputStreamWriter(descriptor, charset)), true),
                descriptor);
    }

    /** A caller's writer standing for standard output. */
    static StandardOutput of(PrintWriter writer) {
        return new StandardOutput(writer, null);
    }

    /** What the commands print on. */
    PrintWriter writer() {
        return writer;
    }

    /**
     * The exit status of a command that returned {@code status}, after flushing what it printed, by
     * the rule of the class comment; the message goes to {@code err} as {@code command: ...}.
     */
    int exitStatus(int status, String command, PrintWriter err) {
        if (!writer.checkError()) { // flushes first
            return status;
        }
        if (descriptor != null && readerWentAway()) {
            return ExitCode.CLOSED_PIPE;
        }
        if (status != ExitCode.OK && status != ExitCode.PROBLEMS) {
            return status;
        }
        IOException failure = descriptor != null ? descriptor.failure : null;
        String reason = failure != null && failure.getMessage() != null ? failure.getMessage() : "the write failed";
        err.println(command + ": cannot write standard output: " + Table.printable(reason));
        err.flush();
        return ExitCode.IO_ERROR;
    }

    /**
     * Whether descriptor 1 is a pipe, a FIFO or a socket: a write into one fails only when its reader
     * has gone (EPIPE). Asked after a failure only, so no command pays for it.
     */
    private static boolean readerWentAway() {
        try {
            int type = (Integer) Files.getAttribute(Path.of("/proc/self/fd/1"), "unix:mode") & S_IFMT;
            return type == S_IFIFO || type == S_IFSOCK;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException | SecurityException e) {
            return false; // cannot tell: report the failure
        }
    }

    private static final int S_IFMT = 0170000;
    private static final int S_IFIFO = 0010000;
    private static final int S_IFSOCK = 0140000;

    /**
     * The descriptor's stream, keeping the first write error for the message (the writer above it
     * keeps only that there was one). Once a write failed, later ones fail at once: a reader that
     * went away does not come back, and a full disk gets no emptier between two lines of a table.
     */
    private static final class FailureKeeper extends OutputStream {
        private final FileOutputStream out;
        private volatile IOException failure;

        FailureKeeper(FileOutputStream out) {
            this.out = out;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
            IOException failed = failure;
            if (failed != null) {
                throw failed;
            }
            try {
                out.write(bytes, offset, length);
            } catch (IOException e) {
                failure = e;
                throw e;
            }
        }
    }
}
