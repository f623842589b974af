/*
 * posix_acl.c - reading a system.posix_acl_access value for the group-shared rule of FORMAT §5 step
 * 0.
 * Twin of the Java class dev.hintmap.os.PosixAcl.
 *
 * Section references (§n) are to docs/FORMAT.md. Every atomic access to the mapping names its
 * memory order; the one-line comment next to it says why. Decisions that FORMAT.md leaves open
 * are marked "DECISION:". The library's internal interface is src/hm_internal.h.
 */
#define _GNU_SOURCE 1
#define HM_LIBRARY_SOURCE 1 /* this file is part of the library: hm_internal.h declares its internals */

#include "hm_internal.h"

static inline uint32_t le16_at(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static inline uint32_t le32_at(const unsigned char *p) { return le16_at(p) | le16_at(p + 2) << 16; }

#define HM_ACL_USER  0x02u
#define HM_ACL_GROUP 0x08u
#define HM_ACL_MASK  0x10u
#define HM_ACL_WRITE 0x02u

/* §5 step 0, group-shared: whether the access ACL `x` (the system.posix_acl_access xattr: u32
 * version 2, then 8-byte entries {u16 tag, u16 perm, u32 id}, little-endian) grants write to a
 * named user (returns 1) or a named group (2), *id naming it; 0 when it grants neither (a named
 * entry's write counts only if the mask entry, when there is one, has write too); -1 when it is
 * malformed. */
int hmi_acl_write_grant(const unsigned char *x, size_t len, uint32_t *id) {
    if (len < 4 || (len - 4) % 8 != 0 || le32_at(x) != 2) return -1;
    const size_t n = (len - 4) / 8;
    for (size_t i = 0; i < n; i++) {
        const unsigned char *e = x + 4 + 8 * i;
        if (le16_at(e) == HM_ACL_MASK && !(le16_at(e + 2) & HM_ACL_WRITE)) return 0; /* no named entry can write */
    }
    for (size_t i = 0; i < n; i++) {
        const unsigned char *e = x + 4 + 8 * i;
        uint32_t tag = le16_at(e);
        if ((tag == HM_ACL_USER || tag == HM_ACL_GROUP) && (le16_at(e + 2) & HM_ACL_WRITE)) {
            *id = le32_at(e + 4);
            return tag == HM_ACL_USER ? 1 : 2;
        }
    }
    return 0;
}
