package dev.hintmap.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintFiles;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The in-place {@code upgrade} (FORMAT.md §12), however FILE is named: {@code -o} naming FILE
 * itself converts in place, keeping {@code FILE.v2} and FILE's owner, group and mode; the backup is
 * linked at publication, so an interrupted conversion does not block its rerun, and the rerun
 * finishes it; another file at the backup's name is a refusal (exit 1, the exit rule of an
 * existing output); a hint file is not written under a {@code .json} name in place either.
 */
class UpgradeInPlaceTest {
    private static final Path GOLDEN_V2 = Path.of("src", "test", "resources", "vectors", "golden-v2.hints");
    private static final int OTHER_UID = 1234;
    private static final int OTHER_GID = 2345;

    @TempDir
    Path dir;

    @AfterEach
    void noHold() {
        TestSeams.halfWritten = null;
    }

    private static boolean root() {
        return System.getProperty("user.name").equals("root");
    }

    /** A copy of the version-2 golden file at {@code name}, mode 0640, and as root owned by another user and group. */
    private Path ownedV2(String name) throws IOException {
        Path file = dir.resolve(name);
        Files.copy(GOLDEN_V2, file);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));
        if (root()) {
            Files.setAttribute(file, "unix:uid", OTHER_UID, LinkOption.NOFOLLOW_LINKS);
            Files.setAttribute(file, "unix:gid", OTHER_GID, LinkOption.NOFOLLOW_LINKS);
        }
        return file;
    }

    private static int formatVersion(Path file) throws IOException {
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().readOnly(true).allowForeignOwner(true))) {
            return store.info().formatVersion();
        }
    }

    private static String ownerGroupMode(Path file) throws IOException {
        return Files.getAttribute(file, "unix:uid", LinkOption.NOFOLLOW_LINKS) + ":"
                + Files.getAttribute(file, "unix:gid", LinkOption.NOFOLLOW_LINKS) + " "
                + PosixFilePermissions.toString(Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS));
    }

    private TreeSet<String> entries() throws IOException {
        try (Stream<Path> list = Files.list(dir)) {
            return new TreeSet<>(list.map(p -> p.getFileName().toString()).toList());
        }
    }

    /** The checks every in-place conversion of {@code file} passes: converted, its old bytes kept, its owner, group and mode. */
    private void assertConvertedInPlace(Path file, byte[] v2Bytes, String ownerGroupMode) throws IOException {
        Path kept = file.resolveSibling(file.getFileName() + ".v2");
        assertEquals(HintFiles.FORMAT_VERSION, formatVersion(file));
        assertArrayEquals(v2Bytes, Files.readAllBytes(kept), "the version-2 bytes are kept as FILE.v2");
        assertEquals(ownerGroupMode, ownerGroupMode(file), "the new file takes FILE's owner, group and mode");
        assertTrue(HintFiles.verify(file, HintStoreOptions.defaults().allowForeignOwner(true)).ok());
    }

    @ParameterizedTest
    @ValueSource(strings = {"f.hints", "./f.hints", "d/../f.hints"})
    void anOutputNamingFileItselfIsTheInPlaceUpgradeWithItsBackupOwnerAndMode(String spelling) throws IOException {
        Path file = ownedV2("f.hints");
        Files.createDirectory(dir.resolve("d"));
        byte[] v2Bytes = Files.readAllBytes(file);
        String before = ownerGroupMode(file);
        assertEquals(root() ? OTHER_UID + ":" + OTHER_GID + " rw-r-----" : before, before);
        Path output = dir.resolve(spelling);
        Cli.Result r = Cli.run("upgrade", "-q", "--allow-foreign-owner", file.toString(), "-o", output.toString(), "--force")
                .expect(ExitCode.OK);
        assertTrue(r.out().contains("the version-2 file is kept as"), r.out());
        assertConvertedInPlace(file, v2Bytes, before);
        assertEquals(new TreeSet<>(List.of("d", "f.hints", "f.hints.v2")), entries());
    }

    @Test
    void anOutputThatIsAHardLinkOfFileIsConvertedInPlaceAtThatName() throws IOException {
        Path file = ownedV2("f.hints");
        Path link = Files.createLink(dir.resolve("same.hints"), file);
        byte[] v2Bytes = Files.readAllBytes(file);
        String before = ownerGroupMode(file);
        Cli.run("upgrade", "-q", "--allow-foreign-owner", file.toString(), "-o", link.toString(), "--force")
                .expect(ExitCode.OK);
        assertConvertedInPlace(link, v2Bytes, before);
        assertArrayEquals(v2Bytes, Files.readAllBytes(file), "FILE's own name still holds the old file");
    }

    @Test
    void anOutputNamingFileItselfRefusesReplaceLiveAsTheInPlaceUpgradeDoes() throws IOException {
        Path file = ownedV2("f.hints");
        byte[] v2Bytes = Files.readAllBytes(file);
        Cli.Result r = Cli.run("upgrade", "--allow-foreign-owner", file.toString(), "-o", dir.resolve("./f.hints").toString(), "--replace-live");
        r.expect(ExitCode.USAGE);
        assertTrue(r.err().contains("--replace-live is about -o NEW"), r.err());
        assertArrayEquals(v2Bytes, Files.readAllBytes(file));
        assertEquals(new TreeSet<>(List.of("f.hints")), entries());
    }

    /** In place through a followed link, the file it leads to is converted and kept beside it; the link stays. */
    @Test
    void anInPlaceUpgradeThroughAFollowedLinkConvertsItsTargetAndKeepsTheLink() throws IOException {
        Path file = ownedV2("f.hints");
        byte[] v2Bytes = Files.readAllBytes(file);
        String before = ownerGroupMode(file);
        Path link = Files.createSymbolicLink(dir.resolve("current.hints"), file.getFileName());
        Cli.run("upgrade", "-q", "--allow-foreign-owner", "--follow-symlinks", link.toString()).expect(ExitCode.OK);
        assertTrue(Files.isSymbolicLink(link));
        assertEquals(file.getFileName(), Files.readSymbolicLink(link));
        assertConvertedInPlace(file.toRealPath(), v2Bytes, before);
        assertEquals(new TreeSet<>(List.of("current.hints", "f.hints", "f.hints.v2")), entries());
    }

    /** FORMAT.md §12 step 4: the backup is linked at publication, so while the new file is written there is none. */
    @Test
    void theBackupIsLinkedWhenTheNewFileIsPublishedNotBeforeConverting() throws IOException {
        Path file = ownedV2("f.hints");
        byte[] v2Bytes = Files.readAllBytes(file);
        List<Boolean> backupWhileWriting = new ArrayList<>();
        TestSeams.halfWritten = tmp -> backupWhileWriting.add(Files.exists(dir.resolve("f.hints.v2")));
        Cli.run("upgrade", "-q", "--allow-foreign-owner", file.toString()).expect(ExitCode.OK);
        assertEquals(List.of(false), backupWhileWriting);
        assertConvertedInPlace(file, v2Bytes, ownerGroupMode(file));
    }

    /**
     * A conversion killed between the backup's link and the rename leaves FILE (version 2), FILE.v2
     * (the same file) and its temporary; the rerun takes FILE.v2 as its own backup, finishes, and
     * removes the temporary (its writer is dead).
     */
    @Test
    void aRerunFinishesAnUpgradeKilledBetweenTheBackupLinkAndTheRename() throws IOException {
        Path file = ownedV2("f.hints");
        byte[] v2Bytes = Files.readAllBytes(file);
        String before = ownerGroupMode(file);
        Files.createLink(dir.resolve("f.hints.v2"), file);
        Path stale = Files.write(dir.resolve(".f.hints.upgrade." + deadPid() + ".4711.0123456789abcdef.tmp"), v2Bytes);
        Cli.Result r = Cli.run("upgrade", "--allow-foreign-owner", file.toString()).expect(ExitCode.OK);
        assertTrue(r.err().contains("an interrupted upgrade linked it"), r.err());
        assertTrue(r.err().contains("removed 1 temporary file(s)"), r.err());
        assertFalse(Files.exists(stale));
        assertConvertedInPlace(file, v2Bytes, before);
        assertEquals(new TreeSet<>(List.of("f.hints", "f.hints.v2")), entries());
        Cli.Result again = Cli.run("upgrade", "--allow-foreign-owner", file.toString()).expect(ExitCode.OK);
        assertTrue(again.out().contains("is already version " + HintFiles.FORMAT_VERSION), again.out());
    }

    /** Another file at FILE.v2 is an existing output: a refusal, exit 1 (ExitCode), and nothing changes. */
    @Test
    void anotherFileAtTheBackupNameIsARefusalWithExitOneAndNothingChanges() throws IOException {
        Path file = ownedV2("f.hints");
        byte[] v2Bytes = Files.readAllBytes(file);
        Path kept = Files.writeString(dir.resolve("f.hints.v2"), "someone else's file");
        Cli.Result r = Cli.run("upgrade", "--allow-foreign-owner", file.toString()).expect(ExitCode.PROBLEMS);
        assertTrue(r.err().contains(kept + " exists"), r.err());
        assertArrayEquals(v2Bytes, Files.readAllBytes(file));
        assertEquals("someone else's file", Files.readString(kept, StandardCharsets.UTF_8));
        assertEquals(new TreeSet<>(List.of("f.hints", "f.hints.v2")), entries());
    }

    /** The .json rule (OutputFile) holds in place: the file written would be a hint file under a .json name. */
    @Test
    void anInPlaceUpgradeOfAFileNamedJsonIsRefusedAndNothingIsWritten() throws IOException {
        Path file = ownedV2("v2.json");
        byte[] v2Bytes = Files.readAllBytes(file);
        Cli.Result r = Cli.run("upgrade", "--allow-foreign-owner", file.toString()).expect(ExitCode.USAGE);
        assertTrue(r.err().contains("read a name ending in .json as a JSON profile") && r.err().contains("-o NEW"), r.err());
        assertArrayEquals(v2Bytes, Files.readAllBytes(file));
        assertEquals(new TreeSet<>(List.of("v2.json")), entries());
        Cli.run("upgrade", "-q", "--allow-foreign-owner", file.toString(), "-o", dir.resolve("v3.hints").toString())
                .expect(ExitCode.OK);
    }

    /** A pid no process has now: the highest one below {@code pid_max} with no {@code /proc} entry. */
    static long deadPid() throws IOException {
        long max = Long.parseLong(Files.readAllLines(Path.of("/proc/sys/kernel/pid_max")).get(0).trim());
        for (long pid = max - 1; pid > 1; pid--) {
            if (!Files.exists(Path.of("/proc", Long.toString(pid)))) {
                return pid;
            }
        }
        throw new IllegalStateException("every pid is taken");
    }
}
