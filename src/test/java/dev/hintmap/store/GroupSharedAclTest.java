package dev.hintmap.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.hintmap.HintFileException;
import dev.hintmap.HintFileException.Problem;
import dev.hintmap.HintStore;
import dev.hintmap.HintStoreOptions;
import dev.hintmap.TestStores;
import dev.hintmap.os.PosixAcl;
import dev.hintmap.os.PosixFiles;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reliability round 2, finding 3: {@code groupShared} accepted a 0660 file of another user whose
 * POSIX ACL let a user outside the group write it, while the same grant as mode 0662 was refused.
 * An access ACL entry for a named user or group with effective write permission is now refused
 * the same way (FORMAT.md §5 step 0).
 */
class GroupSharedAclTest {
    private static final int ACL_USER_OBJ = 0x01;
    private static final int ACL_USER = 0x02;
    private static final int ACL_GROUP_OBJ = 0x04;
    private static final int ACL_GROUP = 0x08;
    private static final int ACL_MASK = 0x10;
    private static final int ACL_OTHER = 0x20;
    private static final int RW = 6;
    private static final int R = 4;
    private static final int OTHER_UID = 12345;

    @TempDir
    Path dir;

    private static byte[] acl(int[]... entries) {
        ByteBuffer b = ByteBuffer.allocate(4 + 8 * entries.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(2);
        for (int[] e : entries) {
            b.putShort((short) e[0]).putShort((short) e[1]).putInt(e.length > 2 ? e[2] : -1);
        }
        return b.array();
    }

    @Test
    void theAclParserFindsEffectiveWriteGrantsOnly() {
        assertNull(PosixAcl.writerBeyondOwnerAndGroup(null), "no ACL");
        assertNull(PosixAcl.writerBeyondOwnerAndGroup(acl(new int[] {ACL_USER_OBJ, RW}, new int[] {ACL_GROUP_OBJ, RW},
                new int[] {ACL_OTHER, 0})), "a minimal ACL is the mode bits");
        assertEquals("user 23456", PosixAcl.writerBeyondOwnerAndGroup(acl(new int[] {ACL_USER_OBJ, RW},
                new int[] {ACL_USER, RW, 23456}, new int[] {ACL_GROUP_OBJ, RW}, new int[] {ACL_MASK, RW}, new int[] {ACL_OTHER, 0})));
        assertEquals("group 77", PosixAcl.writerBeyondOwnerAndGroup(acl(new int[] {ACL_USER_OBJ, RW},
                new int[] {ACL_GROUP_OBJ, R}, new int[] {ACL_GROUP, RW, 77}, new int[] {ACL_MASK, RW}, new int[] {ACL_OTHER, 0})));
        assertNull(PosixAcl.writerBeyondOwnerAndGroup(acl(new int[] {ACL_USER_OBJ, RW}, new int[] {ACL_USER, RW, 23456},
                new int[] {ACL_GROUP_OBJ, R}, new int[] {ACL_MASK, R}, new int[] {ACL_OTHER, 0})), "the mask takes write away");
        assertNull(PosixAcl.writerBeyondOwnerAndGroup(acl(new int[] {ACL_USER_OBJ, RW}, new int[] {ACL_USER, R, 23456},
                new int[] {ACL_GROUP_OBJ, R}, new int[] {ACL_MASK, R}, new int[] {ACL_OTHER, 0})), "read only");
        assertTrue(PosixAcl.writerBeyondOwnerAndGroup(new byte[] {1, 0, 0, 0, 9}).contains("cannot read"),
                "a malformed ACL is not vouched for");
    }

    @Test
    void aGroupSharedOpenRefusesAnotherUsersFileWhoseAclLetsAnOutsiderWrite() throws Throwable {
        assumeTrue(PosixFiles.geteuid() == 0, "root, to give a file to another user");
        Path file = dir.resolve("shared.hints");
        try (HintStore store = HintStore.open(file, HintStoreOptions.defaults().groupShared(true))) {
            store.record("a", 1, 1);
        }
        Files.setAttribute(file, "unix:uid", OTHER_UID);
        Files.setAttribute(file, "unix:gid", 0); // root's own group: the group-shared rule applies
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw----"));
        HintStoreOptions shared = HintStoreOptions.defaults().groupShared(true);
        try (HintStore ok = HintStore.open(file, shared)) {
            assertEquals(1, ok.dispatchCount("a"), "no ACL: the group rule accepts it");
        }
        int[] owner = {ACL_USER_OBJ, RW};
        int[] group = {ACL_GROUP_OBJ, RW};
        int[] other = {ACL_OTHER, 0};
        int rc = setAccessAcl(file, acl(owner, new int[] {ACL_USER, RW, 23456}, group, new int[] {ACL_MASK, RW}, other));
        assumeTrue(rc == 0, "this filesystem takes POSIX ACLs (setxattr returned " + rc + ")");
        HintFileException refused = assertThrows(HintFileException.class, () -> HintStore.open(file, shared));
        assertEquals(Problem.FOREIGN_OWNER, refused.problem());
        assertTrue(refused.getMessage().contains("ACL lets user 23456 write"), refused.getMessage());

        assertEquals(0, setAccessAcl(file, acl(owner, new int[] {ACL_USER, RW, 23456}, new int[] {ACL_GROUP_OBJ, R},
                new int[] {ACL_MASK, R}, other)));
        try (HintStore masked = HintStore.open(file, shared.readOnly(true))) {
            assertEquals(1, masked.dispatchCount("a"), "a grant the mask takes away is no grant");
        }
    }

    /** {@code setxattr(path, "system.posix_acl_access", value)}: 0, or -1 (EOPNOTSUPP: no ACLs here). */
    @SuppressWarnings("restricted")
    private static int setAccessAcl(Path file, byte[] value) throws Throwable {
        Linker linker = Linker.nativeLinker();
        MethodHandle setxattr = linker.downcallHandle(linker.defaultLookup().find("setxattr").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS,
                        ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment v = arena.allocate(value.length);
            v.copyFrom(MemorySegment.ofArray(value));
            return (int) setxattr.invokeExact(arena.allocateFrom(file.toString()), arena.allocateFrom(PosixAcl.ACCESS_XATTR),
                    v, (long) value.length, 0);
        }
    }
}
