package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.hintmap.HintFileException;
import dev.hintmap.HintFileException.Problem;
import dev.hintmap.HintFileInfo;
import dev.hintmap.HintFiles;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exclusive creation and safe input: {@link HintFiles#createNew} and
 * {@link CommandFiles#createNewFile} create a file exclusively (nothing already at the path is
 * opened, a symbolic link or a FIFO included), with an exact mode; {@link CommandFiles#openInput}
 * opens a file a tool reads under the rules of a hint file, never blocking on a FIFO.
 */
class ExclusiveCreationTest {
    private static final String PRECIOUS = "not to be written\n";

    @TempDir
    Path dir;

    /** Things that may already be at a path: each must make an exclusive creation fail, untouched. */
    private List<Path> occupied() throws Exception {
        Path victim = Files.writeString(dir.resolve("victim"), PRECIOUS);
        Path fifo = dir.resolve("fifo");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        return List.of(Files.writeString(dir.resolve("file"), PRECIOUS),
                Files.createSymbolicLink(dir.resolve("link"), victim),
                Files.createSymbolicLink(dir.resolve("dangling"), dir.resolve("nothing-here")),
                fifo);
    }

    private void assertNothingWritten() throws Exception {
        assertEquals(PRECIOUS, Files.readString(dir.resolve("victim")));
        assertEquals(PRECIOUS, Files.readString(dir.resolve("file")));
        assertFalse(Files.exists(dir.resolve("nothing-here"), LinkOption.NOFOLLOW_LINKS), "nothing created through the link");
        try (Stream<Path> list = Files.list(dir)) {
            assertEquals(List.of(), list.filter(p -> p.toString().endsWith(".tmp")).toList(), "no temporary file left");
        }
    }

    @Test
    void createNewOpensNothingThatIsAlreadyAtThePath() throws Exception {
        for (Path path : occupied()) {
            assertThrows(FileAlreadyExistsException.class,
                    () -> HintFiles.createNew(path, HintStoreOptions.defaults().capacity(4)).close(), path.toString());
            assertThrows(FileAlreadyExistsException.class, () -> CommandFiles.createNewFile(path, HintStoreOptions.defaults()).close(),
                    path.toString());
        }
        assertNothingWritten();
    }

    @Test
    void createNewMakesAFileOfExactlyTheModeAsked() throws Exception {
        Path own = dir.resolve("own.hints");
        try (HintStore store = HintFiles.createNew(own, HintStoreOptions.defaults().capacity(4))) {
            store.record("void gemm<128, 128>(float const*, float*)", 1_000, 8);
        }
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(own)));
        try (FileChannel text = CommandFiles.createNewFile(dir.resolve("shared.prom"), HintStoreOptions.defaults().groupShared(true))) {
            text.write(ByteBuffer.wrap("x 1\n".getBytes(StandardCharsets.UTF_8)));
        }
        assertEquals("rw-rw----", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("shared.prom"))));
        assertEquals("x 1\n", Files.readString(dir.resolve("shared.prom")));
        try (HintStore reader = HintStore.open(own, HintStoreOptions.defaults().readOnly(true))) {
            assertEquals(1, reader.dispatchCount("void gemm<128, 128>(float const*, float*)"));
            assertEquals(List.of(), reader.info().writers().stream().filter(HintFileInfo.Writer::alive).toList(),
                    "the creator's writer entry is released at close");
        }
    }

    @Test
    void openInputRefusesAFifoWithoutBlockingALinkUnlessFollowedAndReadsAFile() throws Exception {
        occupied();
        HintFileException fifo = assertThrows(HintFileException.class,
                () -> CommandFiles.openInput(dir.resolve("fifo"), HintStoreOptions.defaults()).close());
        assertEquals(Problem.NOT_A_HINT_FILE, fifo.problem());
        assertTrue(fifo.getMessage().contains("a FIFO"), fifo.getMessage());
        HintFileException link = assertThrows(HintFileException.class,
                () -> CommandFiles.openInput(dir.resolve("link"), HintStoreOptions.defaults()).close());
        assertEquals(Problem.SYMLINK, link.problem());
        try (InputStream in = CommandFiles.openInput(dir.resolve("link"), HintStoreOptions.defaults().followSymlinks(true))) {
            assertEquals(PRECIOUS, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
        HintFileException missing = assertThrows(HintFileException.class,
                () -> CommandFiles.openInput(dir.resolve("absent.json"), HintStoreOptions.defaults()).close());
        assertEquals(Problem.MISSING, missing.problem());
    }

    @Test
    void openInputAppliesTheOwnerRule() throws Exception {
        boolean root = (int) Files.getAttribute(Path.of("/proc/self"), "unix:uid") == 0;
        if (!root) {
            System.out.println("SKIP openInputAppliesTheOwnerRule: need root to chown a file to another user");
        }
        assumeTrue(root, "root");
        Path theirs = Files.writeString(dir.resolve("theirs.json"), "{}");
        Files.setAttribute(theirs, "unix:uid", 65534);
        HintFileException e = assertThrows(HintFileException.class,
                () -> CommandFiles.openInput(theirs, HintStoreOptions.defaults()).close());
        assertEquals(Problem.FOREIGN_OWNER, e.problem());
        try (InputStream in = CommandFiles.openInput(theirs, HintStoreOptions.defaults().allowForeignOwner(true))) {
            assertEquals("{}", new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
    }
}
