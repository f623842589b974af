package dev.hintmap.cli;

import dev.hintmap.os.NativeAccess;
import dev.hintmap.os.PosixFiles;
import dev.hintmap.os.SyscallNumbers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The width of the terminal a descriptor writes to, for the command line tool's tables (which
 * fit it): {@code ioctl(TIOCGWINSZ)} through the library's one {@code syscall} downcall
 * ({@link PosixFiles}). Public for {@code dev.hintmap.cli} only; this package is not exported.
 *
 * <p>A descriptor that {@code /proc/self/fd} shows as a pipe, a socket or a file outside
 * {@code /dev} is no terminal, and is not asked: linking the downcall costs a JVM that has not
 * opened a hint file yet a few hundred milliseconds (src/jmh/resources/dev/hintmap/bench/startup.md), which a
 * {@code diff} of two JSON profiles into a pipe should not pay.
 */
final class TerminalSize {
    private TerminalSize() {}

    /**
     * The columns of the terminal {@code fd} is open on; 0 when it is not a terminal, its size is
     * unset, or this JVM may not make the call (another architecture, native access denied): the
     * caller then falls back on {@code COLUMNS} or a default. Never throws.
     */
    public static int columns(int fd) {
        if (!SyscallNumbers.SUPPORTED || !maybeTerminal(fd) || !NativeAccess.allowed()) {
            return 0;
        }
        try {
            return PosixFiles.terminalColumns(fd);
        } catch (RuntimeException | LinkageError unavailable) {
            return 0; // no syscall() in this C library: the width is then unknown, not an error
        }
    }

    /** False when {@code fd} is certainly no terminal: a pipe, a socket, or a file outside /dev. */
    static boolean maybeTerminal(int fd) {
        try {
            return Files.readSymbolicLink(Path.of("/proc/self/fd/" + fd)).toString().startsWith("/dev/");
        } catch (IOException | UnsupportedOperationException | SecurityException noProc) {
            return true; // cannot tell: ask the terminal
        }
    }
}
