package dev.hintmap.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.hintmap.HintStoreOptions;
import dev.hintmap.os.PosixFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ownership rule of FORMAT.md §5 step 0 with injected ids (so it is tested whoever runs the
 * tests), and the POSIX calls it relies on.
 */
class OwnerRuleTest {
    private static final int ME = 1000;
    private static final int OTHER = 1001;
    private static final HintFileOpener.Identity SELF = new HintFileOpener.Identity(ME, 100, new int[] {100, 200});
    private static final HintStoreOptions DEFAULTS = HintStoreOptions.defaults();
    private static final HintStoreOptions GROUP = DEFAULTS.groupShared(true);

    /** The rule for a file with no access ACL. */
    private static String refusal(PosixFiles.Stat stat, HintFileOpener.Identity self, HintStoreOptions options) {
        return refusal(stat, self, options, null);
    }

    private static String refusal(PosixFiles.Stat stat, HintFileOpener.Identity self, HintStoreOptions options, byte[] acl) {
        try {
            return HintFileOpener.ownerRefusal(stat, self, options, () -> acl);
        } catch (PosixFiles.PosixException e) {
            throw new AssertionError(e);
        }
    }

    private static PosixFiles.Stat file(int uid, int gid, int mode) {
        return new PosixFiles.Stat(PosixFiles.S_IFREG | mode, uid, gid, 4096, 1, 2, 8);
    }

    @Test
    void ownFilesAreAlwaysAccepted() {
        assertNull(refusal(file(ME, 999, 0600), SELF, DEFAULTS));
        assertNull(refusal(file(ME, 999, 0666), SELF, DEFAULTS));
        assertNull(refusal(file(ME, 100, 0660), SELF, GROUP));
    }

    @Test
    void anotherUsersFileIsRefusedByDefault() {
        String why = refusal(file(OTHER, 100, 0660), SELF, DEFAULTS);
        assertNotNull(why);
        assertTrue(why.contains("uid 1001") && why.contains("uid 1000") && why.contains("groupShared"), why);
    }

    @Test
    void groupSharedAcceptsOurGroupsWhenOthersCannotWrite() {
        assertNull(refusal(file(OTHER, 100, 0660), SELF, GROUP), "primary group");
        assertNull(refusal(file(OTHER, 200, 0640), SELF, GROUP), "supplementary group");
        assertNull(refusal(file(OTHER, 200, 0664), SELF, GROUP), "others may read");
        String otherGroup = refusal(file(OTHER, 300, 0660), SELF, GROUP);
        assertTrue(otherGroup != null && otherGroup.contains("gid 300"), otherGroup);
        String worldWritable = refusal(file(OTHER, 100, 0662), SELF, GROUP);
        assertTrue(worldWritable != null && worldWritable.contains("0662"), worldWritable);
    }

    @Test
    void allowForeignOwnerAcceptsAnyOwner() {
        assertNull(refusal(file(OTHER, 300, 0666), SELF, DEFAULTS.allowForeignOwner(true)));
        assertNull(refusal(file(OTHER, 300, 0666), SELF, GROUP.allowForeignOwner(true)));
    }

    @Test
    void posixCallsDescribeTheFileTheDescriptorHasOpen(@TempDir Path dir) throws Exception {
        Path file = Files.write(dir.resolve("f"), new byte[12345]);
        Path link = Files.createSymbolicLink(dir.resolve("l"), file);
        int fd = PosixFiles.open(file, PosixFiles.O_RDONLY | PosixFiles.O_CLOEXEC, 0);
        try {
            PosixFiles.Stat stat = PosixFiles.fstat(fd);
            assertTrue(stat.isRegularFile());
            assertEquals(12345, stat.size());
            assertEquals(PosixFiles.geteuid(), stat.uid());
            assertTrue(stat.sameFile(PosixFiles.stat(file, false)));
            assertTrue(stat.sameFile(PosixFiles.stat(link, true)), "stat follows the link");
            assertFalse(stat.sameFile(PosixFiles.stat(link, false)), "lstat describes the link itself");
            assertFalse(PosixFiles.stat(link, false).isRegularFile());
        } finally {
            PosixFiles.close(fd);
        }
        PosixFiles.PosixException loop = assertThrows(PosixFiles.PosixException.class,
                () -> PosixFiles.open(link, PosixFiles.O_RDONLY | PosixFiles.O_NOFOLLOW, 0));
        assertEquals(PosixFiles.ELOOP, loop.errno);
        PosixFiles.PosixException missing = assertThrows(PosixFiles.PosixException.class,
                () -> PosixFiles.stat(dir.resolve("none"), false));
        assertEquals(PosixFiles.ENOENT, missing.errno);
        assertNotNull(PosixFiles.getgroups());
        assertEquals((int) Files.getAttribute(file, "unix:gid"), PosixFiles.getegid());
    }
}
