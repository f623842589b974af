/*
 * test_hooks.c - the test hooks of hm_internal.h (hm_test_*): compiled only into
 * build/libhintmap-test.a and the test, fuzz and hm-bench builds, never into build/libhintmap.a.
 *
 * Section references (§n) are to docs/FORMAT.md. Every atomic access to the mapping names its
 * memory order; the one-line comment next to it says why. Decisions that FORMAT.md leaves open
 * are marked "DECISION:". The library's internal interface is src/hm_internal.h.
 */
#define _GNU_SOURCE 1
#define HM_LIBRARY_SOURCE 1 /* this file is part of the library: hm_internal.h declares its internals */

#include "hm_internal.h"

#include <string.h>

/* Only in the test variant (-DHM_TEST_HOOKS: build/libhintmap-test.a, the tests, the fuzz target,
 * hm-bench): a program linking build/libhintmap.a cannot hold a lock forever, plant an owner or
 * shorten the give-up limit through these, and `make check-user-lib` proves it has none. */
#ifdef HM_TEST_HOOKS

void *hm_test_mapping(hm_store *s) { return s && !atomic_load_explicit(&s->closed, RLX) ? s->base : NULL; }
size_t hm_test_mapping_bytes(const hm_store *s) { return s ? s->map_bytes : 0; }
uint64_t hm_test_owner(const hm_store *s) { return s ? s->owner : 0; }

hm_slot *hm_test_slot(hm_store *s, uint32_t k) {
    return s && k < s->capacity ? slot_at(s, k) : NULL;
}

void hm_test_forget_names(hm_store *s) {
    if (s == NULL) return;
    for (unsigned i = 0; i < HM_NAME_CACHE_ENTRIES; i++)
        atomic_store_explicit(&s->name_cache[i], 0, RLX); /* relaxed: a guess, as every name cache store */
}

int hm_test_slot_of(hm_store *s, const char *name, size_t name_len, uint32_t *slot_out) {
    CHECK_STORE(s);
    uint64_t words[HM_MAX_NAME_WORDS];
    hm_name nm;
    int rc = hmi_name_encode(s, name, name_len, words, &nm);
    if (rc < 0) return rc;
    uint64_t g;
    return hmi_resolve(s, &nm, slot_out, &g, NULL) ? HM_OK : HM_ENOTFOUND;
}

int hm_test_hold_slot_lock(hm_store *s, const char *name, size_t name_len) {
    uint32_t k;
    int rc = hm_test_slot_of(s, name, name_len, &k);
    if (rc < 0) return rc;
    if (s->read_only) return HM_EREADONLY;
    return lock_acquire(s, &slot_at(s, k)->lock, NULL) ? HM_OK : HM_DROPPED;
}

int hm_test_hold_struct_lock(hm_store *s) {
    CHECK_STORE(s);
    if (s->read_only) return HM_EREADONLY;
    return lock_acquire(s, &s->hdr->struct_lock, NULL) ? HM_OK : HM_DROPPED;
}

void hm_test_set_lock_wait_limit_ns(hm_store *s, uint64_t ns) {
    if (s) s->lock_wait_limit_ns = ns;
}

int hm_test_open_hooked(const char *path, const hm_options *opts, hm_store **out, char *errbuf, size_t errlen,
                        const hm_test_create_hooks *hooks) {
    return hmi_open_impl(path, opts, out, errbuf, errlen, hooks);
}

int hm_test_owner_rule(uid_t file_uid, gid_t file_gid, mode_t mode, uid_t euid, gid_t egid, const gid_t *groups,
                       int ngroups, uint32_t flags) {
    return hmi_owner_refusal(file_uid, file_gid, mode, euid, egid, groups, ngroups, flags) == 0 ? HM_OK : HM_EOWNER;
}

uint64_t hm_test_liveness_checks(hm_store *s) {
    return s ? atomic_load_explicit(&s->liveness_checks, RLX) : 0; /* relaxed: a statistic */
}

void hm_test_set_rebuild_read_probe(hm_store *s, void (*probe)(void *arg), void *arg) {
    if (s == NULL) return;
    s->rebuild_read_probe = probe;
    s->rebuild_read_probe_arg = arg;
}

void hm_test_set_giveup_recheck_ns(hm_store *s, uint64_t ns) {
    if (s) s->giveup_recheck_ns = ns;
}

int hm_test_acl_rule(const void *acl_xattr, size_t len, uint32_t *id_out) {
    uint32_t id = 0;
    int r = hmi_acl_write_grant(acl_xattr, len, &id);
    if (id_out) *id_out = id;
    return r;
}

void hm_test_sha256(const void *data, size_t len, unsigned char out[32]) { hmi_sha256(data, len, out); }

int hm_test_stat_parse(const char *text, size_t len, char *state, uint64_t *start_ticks) {
    char buf[1024];
    if (len >= sizeof buf) len = sizeof buf - 1;
    if (len > 0) memcpy(buf, text, len);
    buf[len] = '\0'; /* as proc_stat_read leaves its buffer */
    return hmi_stat_parse(buf, len, state, start_ticks);
}

int hm_test_hot_set_hooked(hm_store *s, double coverage, uint64_t min_dispatches, hm_hot_region *regions,
                           uint32_t max_regions, char *names, size_t names_len, hm_hot_set_info *info,
                           void (*hook)(void *arg, uint32_t slot), void *arg) {
    return hmi_hot_set(s, coverage, min_dispatches, regions, max_regions, names, names_len, info, hook, arg);
}

#endif /* HM_TEST_HOOKS */
