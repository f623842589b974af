package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.hintmap.testkit.ChildJvm;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.testkit.LiveUser;
import dev.hintmap.testkit.PrivateMountNamespace;
import dev.hintmap.testkit.SparseCopy;
import dev.hintmap.format.Layouts;
import java.io.FileOutputStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reliability round 3, findings 2 to 4 and the {@code cp} gap: every input a command reads — a
 * hint file, a version-1 file, a JSON profile — is opened under the rules of every hint file.
 * Before: a FIFO named {@code *.json} hung {@code merge} and {@code diff}, any FIFO hung
 * {@code upgrade}; {@code upgrade} converted another user's file (and replaced it, as root, with a
 * root-owned 0600 file its owner's writers could no longer open), gave a bare JDK message for a
 * symbolic link and ignored {@code --follow-symlinks}, called a directory a short file, and died
 * of a raw {@code InternalError} on a sparse file on a full filesystem.
 */
class InputOpenRulesTest {
    private static final Path GOLDEN_V1 = Path.of("src", "test", "resources", "vectors", "golden-v1.hints");
    private static final int NOBODY = 65534;
    private static final int USERS = 100;

    @TempDir
    Path dir;

    private Path v1(String name) throws Exception {
        Path file = dir.resolve(name);
        Files.copy(GOLDEN_V1, file);
        return file;
    }

    private Path fifo(String name) throws Exception {
        Path fifo = dir.resolve(name);
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        return fifo;
    }

    /**
     * Runs the command in this JVM; if it has not returned after 60 s it is blocked on the FIFO
     * (the correct refusal takes milliseconds): the FIFO is opened for writing and closed, which
     * ends the reader's open and read, and the test fails saying so.
     */
    private static Cli.Result runNotBlockingOn(Path fifo, String... args) throws Exception {
        FutureTask<Cli.Result> task = new FutureTask<>(() -> Cli.run(args));
        Thread thread = new Thread(task, "hintmap " + String.join(" ", args));
        thread.setDaemon(true);
        thread.start();
        try {
            return task.get(60, TimeUnit.SECONDS);
        } catch (TimeoutException blocked) {
            new FileOutputStream(fifo.toFile()).close(); // a writer end, closed at once: the blocked reader sees end of file
            task.get(60, TimeUnit.SECONDS);
            return fail("hintmap " + String.join(" ", args) + " blocked on the FIFO " + fifo);
        }
    }

    private static void oneLineNaming(Cli.Result r, Path file, String... words) {
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().contains(file.toString()), r.err());
        for (String w : words) {
            assertTrue(r.err().contains(w), "'" + w + "' in: " + r.err());
        }
    }

    private Path hints(String name) throws Exception {
        Path file = dir.resolve(name);
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().capacity(8).maxNameBytes(256))) {
            store.record("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int, at::native::FillFunctor<float>)",
                    1_000, 10);
        }
        return file;
    }

    // ------------------------------------------------------------------ finding 2: FIFOs

    @Test
    void mergeAndDiffRefuseAFifoNamedJsonWithoutBlocking() throws Exception {
        Path fifo = fifo("profile.json");
        Path in = hints("in.hints");
        Path out = dir.resolve("out.hints");
        oneLineNaming(runNotBlockingOn(fifo, "merge", "-q", fifo.toString(), "-o", out.toString())
                .expect(ExitCode.BAD_FILE), fifo, "FIFO");
        assertFalse(Files.exists(out));
        oneLineNaming(runNotBlockingOn(fifo, "diff", in.toString(), fifo.toString()).expect(ExitCode.BAD_FILE), fifo, "FIFO");
        oneLineNaming(runNotBlockingOn(fifo, "diff", fifo.toString(), in.toString()).expect(ExitCode.BAD_FILE), fifo, "FIFO");
    }

    /** A link to a FIFO, followed on request: the JSON probe of an input not named *.json read from it. */
    @Test
    void aFollowedLinkToAFifoIsRefusedWithoutBlocking() throws Exception {
        Path fifo = fifo("pipe");
        Path link = Files.createSymbolicLink(dir.resolve("profile"), fifo);
        Cli.Result r = runNotBlockingOn(fifo, "merge", "-q", "--follow-symlinks", link.toString(), "-o",
                dir.resolve("out.hints").toString()).expect(ExitCode.BAD_FILE);
        oneLineNaming(r, link, "FIFO");
    }

    @Test
    void upgradeRefusesAFifoWithoutBlocking() throws Exception {
        Path fifo = fifo("old.hints");
        oneLineNaming(runNotBlockingOn(fifo, "upgrade", fifo.toString()).expect(ExitCode.BAD_FILE), fifo, "FIFO");
        oneLineNaming(runNotBlockingOn(fifo, "upgrade", fifo.toString(), "-o", dir.resolve("new.hints").toString())
                .expect(ExitCode.BAD_FILE), fifo, "FIFO");
        assertFalse(Files.exists(dir.resolve("old.hints.v1")));
    }

    // ------------------------------------------------------------------ finding 3: upgrade's open rules

    @Test
    void upgradeRefusesASymbolicLinkNamingTheOptionAndFollowsItWhenAsked() throws Exception {
        Path target = v1("target.hints");
        Path link = Files.createSymbolicLink(dir.resolve("link.hints"), target);
        Path out = dir.resolve("new.hints");
        oneLineNaming(Cli.run("upgrade", link.toString(), "-o", out.toString()).expect(ExitCode.BAD_FILE), link,
                "symbolic link", "--follow-symlinks");
        assertFalse(Files.exists(out));
        Cli.run("upgrade", "-q", "--follow-symlinks", link.toString(), "-o", out.toString()).expect(ExitCode.OK);
        try (HintStore store = HintStore.open(out, HintStoreOptions.defaults().readOnly(true))) {
            assertEquals(4, store.size());
        }
    }

    @Test
    void upgradeRefusesAnotherUsersFileNamingTheOption() throws Exception {
        assumeRoot();
        Path file = v1("theirs.hints");
        Files.setAttribute(file, "unix:uid", NOBODY);
        byte[] before = Files.readAllBytes(file);
        oneLineNaming(Cli.run("upgrade", file.toString()).expect(ExitCode.BAD_FILE), file, "uid " + NOBODY,
                "--allow-foreign-owner");
        oneLineNaming(Cli.run("upgrade", file.toString(), "-o", dir.resolve("new.hints").toString())
                .expect(ExitCode.BAD_FILE), file, "--allow-foreign-owner");
        assertArrayEquals(before, Files.readAllBytes(file));
        assertFalse(Files.exists(dir.resolve("theirs.hints.v1")));
        assertFalse(Files.exists(dir.resolve("new.hints")));
    }

    @Test
    void upgradeRefusesADirectoryAsNotARegularFile() throws Exception {
        Path sub = Files.createDirectory(dir.resolve("dir.hints"));
        oneLineNaming(Cli.run("upgrade", sub.toString()).expect(ExitCode.BAD_FILE), sub, "directory");
        assertTrue(Files.isDirectory(sub, LinkOption.NOFOLLOW_LINKS));
    }

    /**
     * The finding's consequence: as root, an in-place upgrade replaced another user's file with a
     * root-owned 0600 file that the owner's own writers could no longer open.
     */
    @Test
    void anInPlaceUpgradeKeepsTheOwnerGroupAndModeOfTheFileItReplaces() throws Exception {
        assumeRoot();
        Path file = v1("gpu.hints");
        Files.setAttribute(file, "unix:uid", NOBODY);
        Files.setAttribute(file, "unix:gid", USERS);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));
        Cli.run("upgrade", "-q", "--allow-foreign-owner", file.toString()).expect(ExitCode.OK);
        for (Path p : List.of(file, dir.resolve("gpu.hints.v1"))) {
            assertEquals(NOBODY, Files.getAttribute(p, "unix:uid"), p.toString());
            assertEquals(USERS, Files.getAttribute(p, "unix:gid"), p.toString());
            assertEquals("rw-r-----", PosixFilePermissions.toString(Files.getPosixFilePermissions(p)), p.toString());
        }
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true).allowForeignOwner(true))) {
            assertEquals(Layouts.FORMAT_VERSION_VALUE, store.info().formatVersion());
            assertEquals(4, store.size());
        }
    }

    /** The new file of an in-place upgrade of our own file is ours, with the old file's mode (not 0600 regardless). */
    @Test
    void anInPlaceUpgradeOfOurOwnFileKeepsItsMode() throws Exception {
        Path file = v1("mine.hints");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw----"));
        Cli.run("upgrade", "-q", file.toString()).expect(ExitCode.OK);
        assertEquals("rw-rw----", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
    }

    // ------------------------------------------------------------------ finding 4: a sparse version-1 file

    @Test
    void upgradeRefusesASparseVersionOneFileAsReadOnlyOpensDo() throws Exception {
        Path sparse = SparseCopy.of(GOLDEN_V1, dir.resolve("sparse.hints"));
        Process stat = new ProcessBuilder("stat", "-c", "%b", sparse.toString()).start();
        long allocated = 512 * Long.parseLong(new String(stat.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip());
        if (allocated >= Files.size(sparse)) {
            System.out.println("SKIP sparse version-1 upgrade test: this filesystem keeps no holes");
        }
        assumeTrue(allocated < Files.size(sparse), "this filesystem keeps holes");
        Path out = dir.resolve("new.hints");
        oneLineNaming(Cli.run("upgrade", sparse.toString(), "-o", out.toString()).expect(ExitCode.BAD_FILE), sparse,
                "unallocated ranges", "cp --sparse=never");
        oneLineNaming(Cli.run("upgrade", sparse.toString()).expect(ExitCode.BAD_FILE), sparse, "unallocated ranges");
        assertFalse(Files.exists(out));
        assertFalse(Files.exists(dir.resolve("sparse.hints.v1")));
    }

    /**
     * The finding as reproduced: on a full tmpfs (a private mount namespace), reading the hole of
     * a sparse version-1 file faulted, and upgrade printed a raw InternalError and exited 1.
     */
    @Test
    void onAFullFilesystemUpgradeOfASparseVersionOneFileIsExit3NotACrash() throws Exception {
        Path mount = Files.createDirectory(dir.resolve("tmpfs"));
        Path target = mount.resolve("sparse.hints");
        List<String> cli = new ArrayList<>(ChildJvm.builder(HintmapCli.class).command());
        String java = String.join(" ", cli);
        String script = String.join("\n",
                "set -e",
                "mount -t tmpfs -o size=256k tmpfs " + mount,
                "cp --sparse=always " + GOLDEN_V1.toAbsolutePath() + " " + target,
                "dd if=/dev/zero of=" + mount + "/fill bs=4k 2>/dev/null || true",
                "set +e",
                java + " upgrade " + target + " -o " + dir.resolve("new.hints") + " 2>&1",
                "echo exit $?");
        List<String> lines = PrivateMountNamespace.run("full-filesystem upgrade test", script);
        String all = String.join("\n", lines);
        assertEquals("exit 3", lines.get(lines.size() - 1), all);
        assertFalse(all.contains("InternalError") || all.contains("\tat "), "no raw error, no stack: " + all);
        assertTrue(all.contains(target.toString()) && all.contains("unallocated ranges"), all);
    }

    // ------------------------------------------------------------------ gap: a cp of a live version-1 file

    /** FORMAT.md §6.3's maps rule, applied to version 1: the original's writer does not map the copy. */
    @Test
    void upgradeOfACopyOfALiveVersionOneFileIsNotRefusedForTheOriginalsWriter() throws Exception {
        Path live = v1("live.hints");
        try (LiveUser writer = LiveUser.mappingAnyFile(live)) {
            plantWriter(live, 0, writer.token());
            Path copy = dir.resolve("copy.hints");
            Files.copy(live, copy);
            Cli.Result refused = Cli.run("upgrade", live.toString(), "-o", dir.resolve("a.hints").toString())
                    .expect(ExitCode.PROBLEMS);
            assertTrue(refused.err().contains("pid " + writer.pid()) && refused.err().contains("mapping this file"),
                    refused.err());
            Cli.run("upgrade", "-q", copy.toString(), "-o", dir.resolve("b.hints").toString()).expect(ExitCode.OK);
            Cli.run("upgrade", "-q", copy.toString()).expect(ExitCode.OK);
        }
    }

    /** Writes {@code token} into writer entry {@code entry} of a version-1 file (same table offset as v2). */
    static void plantWriter(Path v1File, int entry, long token) throws Exception {
        try (RandomAccessFile raf = new RandomAccessFile(v1File.toFile(), "rw")) {
            raf.seek(Layouts.HDR_WRITER_TABLE_OFFSET);
            long table = Long.reverseBytes(raf.readLong());
            raf.seek(table + Layouts.WRITER_ENTRY.byteSize() * entry + Layouts.WRITER_TOKEN);
            raf.writeLong(Long.reverseBytes(token));
        }
    }

    private static void assumeRoot() throws Exception {
        boolean root = (int) Files.getAttribute(Path.of("/proc/self"), "unix:uid") == 0;
        if (!root) {
            System.out.println("SKIP ownership tests: need root to chown a file to another user");
        }
        assumeTrue(root, "root");
    }
}
