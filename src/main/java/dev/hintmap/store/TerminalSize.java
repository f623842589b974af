package dev.hintmap.store;

/**
 * The width of the terminal a descriptor writes to, for the command line tool's tables (which
 * fit it): {@code ioctl(TIOCGWINSZ)} through the library's one {@code syscall} downcall
 * ({@link PosixFiles}). Public for {@code dev.hintmap.cli} only; this package is not exported.
 */
public final class TerminalSize {
    private TerminalSize() {}

    /**
     * The columns of the terminal {@code fd} is open on; 0 when it is not a terminal, its size is
     * unset, or this JVM may not make the call (another architecture, native access denied): the
     * caller then falls back on {@code COLUMNS} or a default. Never throws.
     */
    public static int columns(int fd) {
        if (!SyscallNumbers.SUPPORTED || !NativeAccess.allowed()) {
            return 0;
        }
        try {
            return PosixFiles.terminalColumns(fd);
        } catch (RuntimeException | LinkageError unavailable) {
            return 0; // no syscall() in this C library: the width is then unknown, not an error
        }
    }
}
