package dev.hintmap.os;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Reads a POSIX access ACL as Linux stores it in the extended attribute
 * {@code system.posix_acl_access}: a little-endian {@code u32} version (2), then 8-byte entries
 * {@code {u16 tag, u16 perm, u32 id}} (acl(5), {@code <linux/posix_acl_xattr.h>}).
 *
 * <p>Why hintmap reads it: the group-shared rule of FORMAT.md §5 step 0 accepts another user's
 * file when its group is one of ours and the mode bits deny writing to others. An ACL entry for a
 * named user or group grants writing beyond owner and group although the mode bits say nothing of
 * it (they show the mask), so such a file is refused like a world-writable one.
 */
public final class PosixAcl {
    public static final String ACCESS_XATTR = "system.posix_acl_access";
    private static final int VERSION = 2;
    private static final int ENTRY_BYTES = 8;
    private static final int ACL_USER = 0x02;
    private static final int ACL_GROUP = 0x08;
    private static final int ACL_MASK = 0x10;
    private static final int WRITE = 0x2;

    private PosixAcl() {}

    /**
     * Which named user or group the ACL {@code xattr} lets write (the first one), or null when
     * none can; entries whose write bit the mask clears grant nothing. A malformed value is
     * treated as granting write (it cannot be vouched for).
     */
    public static String writerBeyondOwnerAndGroup(byte[] xattr) {
        if (xattr == null) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(xattr).order(ByteOrder.LITTLE_ENDIAN);
        if (xattr.length < 4 || (xattr.length - 4) % ENTRY_BYTES != 0 || b.getInt(0) != VERSION) {
            return "an access ACL this library cannot read (" + xattr.length + " bytes)";
        }
        boolean maskAllowsWrite = true;
        for (int at = 4; at < xattr.length; at += ENTRY_BYTES) {
            if (Short.toUnsignedInt(b.getShort(at)) == ACL_MASK) {
                maskAllowsWrite = (b.getShort(at + 2) & WRITE) != 0;
            }
        }
        if (!maskAllowsWrite) {
            return null;
        }
        for (int at = 4; at < xattr.length; at += ENTRY_BYTES) {
            int tag = Short.toUnsignedInt(b.getShort(at));
            boolean writes = (b.getShort(at + 2) & WRITE) != 0;
            String id = Integer.toUnsignedString(b.getInt(at + 4));
            if (writes && tag == ACL_USER) {
                return "user " + id;
            }
            if (writes && tag == ACL_GROUP) {
                return "group " + id;
            }
        }
        return null;
    }
}
