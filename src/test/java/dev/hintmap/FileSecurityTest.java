package dev.hintmap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintFileException.Problem;
import dev.hintmap.testkit.ChildJvm;
import dev.hintmap.testkit.FileChild;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Security of a shared file (issue 7 item 5, FORMAT.md §5 step 0, docs/SECURITY.md): symbolic
 * links, foreign owners, group sharing, exact modes whatever the umask, and paths that are not
 * regular files. The ownership tests chown files to uid 65534 and so run as root (the project's
 * machines and CI); {@code store.OwnerRuleTest} covers the same rule with injected ids.
 */
class FileSecurityTest {
    private static final int NOBODY = 65534;

    @TempDir
    Path dir;

    @BeforeAll
    static void requireRoot() throws IOException {
        assertEquals(0, (int) Files.getAttribute(Path.of("/proc/self"), "unix:uid"),
                "these tests chown files to another user and must run as root (as the project's machines and CI do)");
    }

    private Path validFile(String name) throws IOException {
        Path file = dir.resolve(name);
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(8))) {
            store.record("gemm", 100, 10);
        }
        return file;
    }

    private static HintFileException refused(Path file, HintStoreOptions options) {
        return assertThrows(HintFileException.class, () -> HintStore.open(file, options).close());
    }

    private static void opens(Path file, HintStoreOptions options) throws IOException {
        try (HintStore store = HintStore.open(file, options)) {
            assertEquals(1, store.dispatchCount("gemm"));
        }
    }

    @Test
    void symbolicLinkAtTheFinalComponentIsRefusedUnlessAllowed() throws IOException {
        Path target = validFile("target.hints");
        Path link = Files.createSymbolicLink(dir.resolve("link.hints"), target);
        byte[] before = Files.readAllBytes(target);
        for (HintStoreOptions options : List.of(HintStoreOptions.defaults(), HintStoreOptions.defaults().readOnly(true))) {
            HintFileException e = refused(link, options);
            assertEquals(Problem.SYMLINK, e.problem(), e.getMessage());
            assertEquals(link, e.file());
            assertTrue(e.getMessage().contains("symbolic link") && e.getMessage().contains("followSymlinks"), e.getMessage());
        }
        assertArrayEquals(before, Files.readAllBytes(target), "a refused open does not touch the target");
        opens(link, HintStoreOptions.defaults().followSymlinks(true));
        opens(link, HintStoreOptions.defaults().followSymlinks(true).readOnly(true));
        try (HintStore store = HintStore.open(link, HintStoreOptions.defaults().followSymlinks(true))) {
            store.checkFile(); // a followed link is checked as the file it names, not as a replacement
        }
    }

    @Test
    void danglingSymbolicLinkIsRefusedAndNothingIsCreatedThroughIt() {
        Path link = dir.resolve("dangling.hints");
        Path target = dir.resolve("elsewhere.hints");
        assertEquals(Problem.SYMLINK, refused(createLink(link, target), HintStoreOptions.defaults()).problem());
        assertFalse(Files.exists(target), "creating never follows a link at the path");
    }

    private static Path createLink(Path link, Path target) {
        try {
            return Files.createSymbolicLink(link, target);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void fileOfAnotherUserIsRefusedUnlessForeignOwnersAreAllowed() throws IOException {
        Path file = validFile("foreign.hints");
        Files.setAttribute(file, "unix:uid", NOBODY);
        byte[] before = Files.readAllBytes(file);
        for (HintStoreOptions options : List.of(HintStoreOptions.defaults(), HintStoreOptions.defaults().readOnly(true))) {
            HintFileException e = refused(file, options);
            assertEquals(Problem.FOREIGN_OWNER, e.problem(), e.getMessage());
            assertTrue(e.getMessage().contains("uid 65534") && e.getMessage().contains("uid 0"), e.getMessage());
        }
        assertArrayEquals(before, Files.readAllBytes(file));
        opens(file, HintStoreOptions.defaults().allowForeignOwner(true));
        opens(file, HintStoreOptions.defaults().allowForeignOwner(true).readOnly(true));
    }

    @Test
    void groupSharedAcceptsAnotherUsersFileOfOurGroupThatOthersCannotWrite() throws IOException {
        Path file = validFile("group.hints");
        Files.setAttribute(file, "unix:uid", NOBODY);
        Files.setAttribute(file, "unix:gid", 0); // one of our groups (root's)
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw----"));
        HintStoreOptions group = HintStoreOptions.defaults().groupShared(true);
        opens(file, group);
        opens(file, group.readOnly(true));
        assertEquals(Problem.FOREIGN_OWNER, refused(file, HintStoreOptions.defaults()).problem(), "only with groupShared");

        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw-rw-"));
        HintFileException writable = refused(file, group);
        assertEquals(Problem.FOREIGN_OWNER, writable.problem());
        assertTrue(writable.getMessage().contains("writable by others"), writable.getMessage());

        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw----"));
        Files.setAttribute(file, "unix:gid", NOBODY); // a group we are not in
        HintFileException otherGroup = refused(file, group);
        assertEquals(Problem.FOREIGN_OWNER, otherGroup.problem());
        assertTrue(otherGroup.getMessage().contains("not one of this process's groups"), otherGroup.getMessage());
        opens(file, group.allowForeignOwner(true));
    }

    @Test
    void newFilesGetExactlyMode0600Or0660WhateverTheUmask() throws Exception {
        for (String umask : List.of("077", "000", "022")) {
            Path own = dir.resolve("own-" + umask + ".hints");
            Path shared = dir.resolve("shared-" + umask + ".hints");
            assertEquals("ok", runUnderShell("umask " + umask, "create", own.toString()));
            assertEquals("ok", runUnderShell("umask " + umask, "create", shared.toString(), "group"));
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(own)), "umask " + umask);
            assertEquals("rw-rw----", PosixFilePermissions.toString(Files.getPosixFilePermissions(shared)), "umask " + umask);
        }
        try (var files = Files.list(dir)) {
            assertEquals(List.of(), files.filter(p -> p.toString().endsWith(".tmp")).toList(), "no temporary file left");
        }
    }

    @Test
    void fifoAtThePathIsRefusedWithoutBlocking() throws Exception {
        Path fifo = dir.resolve("fifo.hints");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assertEquals(0, mkfifo.waitFor());
        for (HintStoreOptions options : List.of(HintStoreOptions.defaults(), HintStoreOptions.defaults().readOnly(true))) {
            HintFileException e = refused(fifo, options); // O_NONBLOCK: no writer needed for the open to return
            assertEquals(Problem.NOT_A_HINT_FILE, e.problem(), e.getMessage());
            assertTrue(e.getMessage().contains("not a regular file"), e.getMessage());
        }
    }

    @Test
    void directoryAtThePathIsRefused() throws IOException {
        Path sub = Files.createDirectory(dir.resolve("dir.hints"));
        for (HintStoreOptions options : List.of(HintStoreOptions.defaults(), HintStoreOptions.defaults().readOnly(true))) {
            HintFileException e = refused(sub, options);
            assertEquals(Problem.NOT_A_HINT_FILE, e.problem(), e.getMessage());
        }
        assertTrue(Files.isDirectory(sub, LinkOption.NOFOLLOW_LINKS));
    }

    /** Runs {@link FileChild} under {@code sh -c '<setup>; exec java ...'} and returns its one line of output. */
    static String runUnderShell(String setup, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("sh", "-c", setup + "; exec \"$@\"", "sh"));
        command.addAll(ChildJvm.builder(FileChild.class, args).command());
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes()).trim();
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), "child finished");
        assertEquals(0, process.exitValue(), out);
        return out.substring(out.lastIndexOf('\n') + 1); // the child's one line (after any JVM warning)
    }
}
