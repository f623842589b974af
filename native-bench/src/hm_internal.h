/*
 * hm_internal.h - test hooks of libhintmap. Not part of the public API. They exist so that tests
 * can simulate crashed writers (a process that dies holding a lock or inside a structural
 * change) and live lock holders. The functions exist only in the test variant of the library
 * (compiled with -DHM_TEST_HOOKS: build/libhintmap-test.a and the sanitizer builds of tests/ and
 * fuzz/); build/libhintmap.a, what users link, has none (`make check-user-lib`). Without
 * HM_TEST_HOOKS only the creation-hook type is declared (the library's open path takes one).
 */
#ifndef HM_INTERNAL_H
#define HM_INTERNAL_H

#include "hintmap.h"
#include "hintmap_format.h"

#include <sys/types.h>

/** Hooks into creation (FORMAT §5), for crash tests. */
typedef struct hm_test_create_hooks {
    /** Called after step 3 (the temporary file is allocated, not yet initialised or linked). */
    void (*after_allocate)(void *arg, const char *tmp_path);
    void *arg;
} hm_test_create_hooks;

#ifdef HM_TEST_HOOKS
/** Base address of the store's mapping (the header), NULL for a closed store. */
void *hm_test_mapping(hm_store *s);
/** Size of the mapping in bytes. */
size_t hm_test_mapping_bytes(const hm_store *s);
/** This store's owner word (0 for read-only stores). */
uint64_t hm_test_owner(const hm_store *s);
/** Slot index of a LIVE region, or HM_ENOTFOUND / validation error. */
int hm_test_slot_of(hm_store *s, const char *name, size_t name_len, uint32_t *slot_out);
/** Acquires the slot lock of region `name` and returns without releasing it. */
int hm_test_hold_slot_lock(hm_store *s, const char *name, size_t name_len);
/** Acquires struct_lock and returns without releasing it. */
int hm_test_hold_struct_lock(hm_store *s);
/** Pointer to slot k (no bounds check beyond k < capacity; NULL otherwise). */
hm_slot *hm_test_slot(hm_store *s, uint32_t k);

/** Sets this store's lock_wait_limit (FORMAT §6.2 "give up", 5 s otherwise), so that tests of a
 *  lock held by a live process finish quickly. Not thread-safe: call right after opening. */
void hm_test_set_lock_wait_limit_ns(hm_store *s, uint64_t ns);

/** Owner liveness checks (FORMAT §6.3) this store has made so far: each is a /proc read unless the
 *  owner is this process or its word is dead without one. */
uint64_t hm_test_liveness_checks(hm_store *s);

/** Sets how long a remembered give-up (FORMAT §6.2) stays fresh, i.e. given up on at once without
 *  a liveness check (1 ms otherwise). Not thread-safe: call right after opening. */
void hm_test_set_giveup_recheck_ns(hm_store *s, uint64_t ns);

/** The ACL part of the group-shared rule (FORMAT §5 step 0) on a system.posix_acl_access value:
 *  1 it grants write to a named user, 2 to a named group (*id_out names it), 0 neither, -1 malformed. */
int hm_test_acl_rule(const void *acl_xattr, size_t len, uint32_t *id_out);

/** hm_open_ex() with creation hooks (NULL: none). */
int hm_test_open_hooked(const char *path, const hm_options *opts, hm_store **out, char *errbuf, size_t errlen,
                        const hm_test_create_hooks *hooks);

/** The owner rule of FORMAT §5 step 0 on injected ids: HM_OK (allowed) or HM_EOWNER. */
int hm_test_owner_rule(uid_t file_uid, gid_t file_gid, mode_t mode, uid_t euid, gid_t egid, const gid_t *groups,
                       int ngroups, uint32_t flags);

#endif /* HM_TEST_HOOKS */

#endif /* HM_INTERNAL_H */
