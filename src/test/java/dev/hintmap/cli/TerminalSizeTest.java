package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link TerminalSize} on descriptors that are no terminal: a file is not even asked (no downcall for
 * a table written to a file or a pipe), a device that is no terminal answers 0. The terminal itself
 * is {@code cli.TablesFitTheTerminalTest}'s pseudo-terminal.
 */
class TerminalSizeTest {
    @TempDir
    Path dir;

    /** The descriptor of this process that {@code /proc/self/fd} shows open on {@code target}. */
    private static int descriptorOf(Path target) throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : fds.toList()) {
                try {
                    if (Files.readSymbolicLink(fd).equals(target)) {
                        return Integer.parseInt(fd.getFileName().toString());
                    }
                } catch (IOException closedSinceListed) {
                    // the listing's own descriptor
                }
            }
        }
        throw new AssertionError("no descriptor open on " + target);
    }

    @Test
    void aFileIsNoTerminalAndIsNotAsked() throws IOException {
        Path file = Files.writeString(dir.resolve("table.txt"), "");
        try (FileChannel open = FileChannel.open(file, StandardOpenOption.WRITE)) {
            assertTrue(open.isOpen());
            int fd = descriptorOf(file.toRealPath());
            assertFalse(TerminalSize.maybeTerminal(fd), "a regular file: no downcall");
            assertEquals(0, TerminalSize.columns(fd));
        }
    }

    @Test
    void aDeviceThatIsNoTerminalAnswersNoWidth() throws IOException {
        try (FileChannel open = FileChannel.open(Path.of("/dev/null"), StandardOpenOption.WRITE)) {
            assertTrue(open.isOpen());
            int fd = descriptorOf(Path.of("/dev/null"));
            assertTrue(TerminalSize.maybeTerminal(fd), "a device: asked");
            assertEquals(0, TerminalSize.columns(fd), "ENOTTY");
        }
        assertEquals(0, TerminalSize.columns(1_000_000), "a descriptor that is not open");
    }
}
