/*
 * test_damaged_words.c - damaged words: counters, record copies and coordination words a buggy or
 * hostile writer leaves (FORMAT §1, §5 step 5; Java: DamagedWordsTest, HostileWriterTest).
 * Registered by the runner, test_unit.c; run under ASan+UBSan (build/test_unit_asan).
 */
#define _GNU_SOURCE 1
#include "test_cases.h"
#include "test_support.h"

#include "hintmap.h"
#include "hintmap_format.h"
#include "hm_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

/* Words a buggy or hostile writer can leave in the mapping are never trusted as offsets,
 * lengths or owners: every call stays in bounds, returns, and repairs what it owns. */
static void test_hostile_words_are_bounded(void) {
    hm_options o = opts(8, 0, 0);
    hm_options_set_max_name_bytes(&o, 64); /* the bounds below (a name_len of 65) are this layout's */
    hm_store *s;
    OPEN_OK(s, tpath("hostile.hm"), &o);
    hm_test_set_lock_wait_limit_ns(s, LIMIT_MS * 1000000ull);
    const char *names[] = {"a", "b", "c", "d", "e"};
    for (int i = 0; i < 5; i++) CHECK_EQ(t_rec(s, names[i], 10, 1), HM_OK);
    hm_file_header *h = hm_test_mapping(s);
    _Atomic uint64_t *index = (_Atomic uint64_t *)((unsigned char *)h + h->index_offset);
    hm_region_record r;
    char nb[128];
    size_t nl;
    uint32_t k[5];
    for (int i = 0; i < 5; i++) CHECK_EQ(hm_test_slot_of(s, names[i], 1, &k[i]), HM_OK);

    /* name_len beyond max_name_bytes, and 2^32-1: read as absent, never as a length */
    atomic_store(&hm_test_slot(s, k[0])->name_len, 65);
    atomic_store(&hm_test_slot(s, k[1])->name_len, UINT32_MAX);
    CHECK_EQ(t_look(s, "a", &r), HM_ENOTFOUND);
    CHECK_EQ(t_look(s, "b", &r), HM_ENOTFOUND);
    CHECK_EQ(hm_region_at(s, k[0], nb, sizeof nb, &nl, &r), HM_ENOTFOUND);
    CHECK_EQ(hm_region_at(s, k[1], nb, sizeof nb, &nl, &r), HM_ENOTFOUND);
    /* owner words naming no writer entry (index >= writer_entries, or 0): dead, stolen */
    atomic_store(&hm_test_slot(s, k[2])->lock, UINT64_C(7) << 32 | (HM_WRITER_ENTRIES + 1));
    atomic_store(&hm_test_slot(s, k[3])->lock, UINT64_C(7) << 32);
    CHECK_EQ(t_rec(s, "c", 10, 1), HM_OK);
    CHECK_EQ(t_rec(s, "d", 10, 1), HM_OK);
    hm_stats st;
    CHECK_EQ(hm_stats_get(s, &st), HM_OK);
    CHECK_EQ(st.stolen_locks, 2);
    /* a record copy no writer could have produced: absent */
    hm_slot *se = hm_test_slot(s, k[4]);
    uint64_t seq = atomic_load(&se->seq);
    atomic_store(&se->copies[seq & 1].kernel_ns_total, UINT64_MAX);
    CHECK_EQ(t_look(s, "e", &r), HM_ENOTFOUND);
    atomic_store(&se->copies[seq & 1].kernel_ns_total, 10);
    /* coordination words out of range: clamped for readers, repaired by the next insertion; a
     * live_count above capacity reads as capacity, one with the top bit set as 0 (§7.5, §9.1) */
    uint64_t n;
    atomic_store(&h->live_count, 11);
    CHECK_EQ(hm_size(s, &n), HM_OK);
    CHECK_EQ(n, 8);
    atomic_store(&h->live_count, UINT64_MAX);
    atomic_store(&h->high_water, UINT64_MAX);
    atomic_store(&h->clock_hand, UINT64_MAX);
    CHECK_EQ(hm_size(s, &n), HM_OK);
    CHECK_EQ(n, 0);
    CHECK_EQ(hm_high_water(s), 8);
    CHECK_EQ(hm_region_at(s, 7, nb, sizeof nb, &nl, &r), HM_ENOTFOUND); /* FREE slot, in bounds */
    CHECK_EQ(hm_region_at(s, 8, nb, sizeof nb, &nl, &r), HM_ENOTFOUND);
    /* index entries naming slot 2^27-2 and slot -1 (0) with the tag and the dist of the name
     * looked up, so that the lookup takes them for its own */
    uint64_t hz = hm_hash64("z", 1);
    uint32_t j = (uint32_t)hz & (h->index_entries - 1);
    while (atomic_load(&index[j]) != 0) j = (j + 1) & (h->index_entries - 1);
    uint32_t dz = (j - (uint32_t)hz) & (h->index_entries - 1);
    atomic_store(&index[j], hm_index_entry(hz, dz, (uint32_t)HM_INDEX_SLOT_MASK - 1));
    atomic_store(&index[(j + 1) & (h->index_entries - 1)], hm_index_entry(hz, dz + 1, UINT32_MAX)); /* slot field 0 */
    CHECK_EQ(t_look(s, "z", &r), HM_ENOTFOUND);
    /* the next insertion repairs all of it (§8): malformed slots freed, words back in range */
    CHECK_EQ(t_rec(s, "z", 10, 1), HM_OK);
    CHECK_EQ(t_look(s, "z", &r), HM_OK);
    CHECK_EQ(hm_stats_get(s, &st), HM_OK);
    CHECK(st.recoveries >= 1);
    CHECK(atomic_load(&h->clock_hand) < 8);
    CHECK(atomic_load(&h->high_water) <= 8);
    CHECK_EQ(hm_size(s, &n), HM_OK);
    CHECK_EQ(n, 4); /* c, d, e, z: a and b had malformed names */
    CHECK_EQ(t_look(s, "e", &r), HM_OK);
    CHECK_EQ(t_look(s, "c", &r), HM_OK);
    CHECK_EQ(r.dispatch_count, 2);
    /* a full index of foreign entries: lookups end within max_probe, inserts are dropped */
    for (uint32_t i = 0; i < h->index_entries; i++)
        if (atomic_load(&index[i]) == 0) atomic_store(&index[i], UINT64_C(0xDEAD) << 32 | 1);
    CHECK_EQ(t_look(s, "nothere", &r), HM_ENOTFOUND);
    int rc = t_rec(s, "nothere", 10, 1);
    CHECK(rc == HM_DROPPED || rc == HM_OK);
    CHECK_EQ(hm_check(s), HM_OK);
    CHECK_EQ(hm_close(s), HM_OK);
}

/* Counters at 2^63-1 saturate instead of wrapping into the top bit (§1): a steal with
 * stolen_locks at the maximum, and an eviction with evictions at the maximum, leave both there. */
static void test_statistics_counters_saturate_at_max(void) {
    hm_options o = opts(2, 0, 0);
    hm_store *s;
    OPEN_OK(s, tpath("saturate.hm"), &o);
    CHECK_EQ(t_rec(s, "a", 10, 1), HM_OK);
    CHECK_EQ(t_rec(s, "b", 10, 1), HM_OK);
    hm_file_header *h = hm_test_mapping(s);
    atomic_store(&h->stolen_locks, HM_VALUE_MAX);
    atomic_store(&h->evictions, HM_VALUE_MAX);
    uint32_t ka;
    CHECK_EQ(hm_test_slot_of(s, "a", 1, &ka), HM_OK);
    atomic_store(&hm_test_slot(s, ka)->lock, UINT64_C(7) << 32 | (HM_WRITER_ENTRIES + 1)); /* dead: stolen */
    CHECK_EQ(t_rec(s, "a", 10, 1), HM_OK);
    CHECK_EQ(t_rec(s, "c", 10, 1), HM_OK); /* full: evicts */
    hm_stats st;
    CHECK_EQ(hm_stats_get(s, &st), HM_OK);
    CHECK_EQ_U64(st.stolen_locks, HM_VALUE_MAX);
    CHECK_EQ_U64(st.evictions, HM_VALUE_MAX);
    CHECK_EQ(hm_close(s), HM_OK);
}

/* §5 step 5, §7.5, §9.1: a statistics counter whose top bit a damaged file set reads as 0 from
 * hm_stats_get, and its next increment stores 2^63-1 (§1); a live_count with the top bit set
 * reads as 0 from hm_size. */
static void test_damaged_counters_and_live_count_read_as_zero(void) {
    hm_options o = opts(2, 0, 0);
    hm_store *s;
    OPEN_OK(s, tpath("topbit.hm"), &o);
    CHECK_EQ(t_rec(s, "a", 10, 1), HM_OK);
    CHECK_EQ(t_rec(s, "b", 10, 1), HM_OK);
    hm_file_header *h = hm_test_mapping(s);
    const uint64_t TOP = UINT64_C(1) << 63;
    atomic_store(&h->evictions, TOP | 5);
    atomic_store(&h->recoveries, UINT64_MAX);
    atomic_store(&h->dropped_inserts, TOP);
    atomic_store(&h->stolen_locks, TOP | 1);
    hm_stats st;
    CHECK_EQ(hm_stats_get(s, &st), HM_OK);
    CHECK_EQ_U64(st.evictions, 0);
    CHECK_EQ_U64(st.recoveries, 0);
    CHECK_EQ_U64(st.dropped_inserts, 0);
    CHECK_EQ_U64(st.stolen_locks, 0);
    CHECK_EQ(st.live_count, 2);
    /* the next increment saturates: an eviction, a stolen lock */
    uint32_t ka;
    CHECK_EQ(hm_test_slot_of(s, "a", 1, &ka), HM_OK);
    atomic_store(&hm_test_slot(s, ka)->lock, UINT64_C(7) << 32 | (HM_WRITER_ENTRIES + 1)); /* dead: stolen */
    CHECK_EQ(t_rec(s, "a", 10, 1), HM_OK);
    CHECK_EQ(t_rec(s, "c", 10, 1), HM_OK); /* full: evicts */
    CHECK_EQ_U64(atomic_load(&h->evictions), HM_VALUE_MAX);
    CHECK_EQ_U64(atomic_load(&h->stolen_locks), HM_VALUE_MAX);
    CHECK_EQ(hm_stats_get(s, &st), HM_OK);
    CHECK_EQ_U64(st.evictions, HM_VALUE_MAX);
    CHECK_EQ_U64(st.stolen_locks, HM_VALUE_MAX);
    CHECK_EQ_U64(st.recoveries, 0);
    /* live_count: the top bit reads as 0, a value above capacity as capacity */
    uint64_t n;
    CHECK_EQ(hm_size(s, &n), HM_OK);
    CHECK_EQ(n, 2);
    atomic_store(&h->live_count, TOP | 1);
    CHECK_EQ(hm_size(s, &n), HM_OK);
    CHECK_EQ(n, 0);
    atomic_store(&h->live_count, 3);
    CHECK_EQ(hm_size(s, &n), HM_OK);
    CHECK_EQ(n, 2);
    atomic_store(&h->live_count, 2);
    CHECK_EQ(hm_close(s), HM_OK);
}

/* A record into a copy a damaged file left with the top bit set (count and bytes) stores
 * 2^63-1 there, never a wrapped or top-bit value: the region reads as a hint again. */
static void test_record_onto_damaged_copy_saturates(void) {
    hm_options o = opts(4, 0, 0);
    hm_store *s;
    OPEN_OK(s, tpath("damaged-copy.hm"), &o);
    hm_region *r;
    CHECK_EQ(hm_region_resolve(s, "a", 1, &r), HM_OK);
    CHECK_EQ(hm_region_add(r, 10, 1), HM_OK);
    uint32_t k;
    CHECK_EQ(hm_test_slot_of(s, "a", 1, &k), HM_OK);
    hm_slot *sl = hm_test_slot(s, k);
    hm_record_copy *cur = &sl->copies[atomic_load(&sl->seq) & 1];
    atomic_store(&cur->dispatch_count, (UINT64_C(1) << 63) + 5);
    atomic_store(&cur->bytes_total, UINT64_MAX);
    CHECK_EQ(hm_region_add(r, 10, 1), HM_OK); /* the handle is still resolved: straight to §7.1 */
    hm_region_record rec;
    CHECK_EQ(hm_region_lookup(r, &rec), HM_OK);
    CHECK_EQ_U64(rec.dispatch_count, HM_VALUE_MAX);
    CHECK_EQ_U64(rec.kernel_ns_total, 20);
    CHECK_EQ_U64(rec.kernel_ns_max, 10);
    CHECK_EQ_U64(rec.bytes_total, HM_VALUE_MAX);
    hm_region_free(r);
    CHECK_EQ(hm_close(s), HM_OK);
}

const hm_test_case *hm_t_damaged_words_cases(size_t *n) {
    static const hm_test_case cases[] = {
        {"hostile_words_are_bounded", test_hostile_words_are_bounded},
        {"statistics_counters_saturate_at_max", test_statistics_counters_saturate_at_max},
        {"damaged_counters_and_live_count_read_as_zero", test_damaged_counters_and_live_count_read_as_zero},
        {"record_onto_damaged_copy_saturates", test_record_onto_damaged_copy_saturates},
    };
    *n = sizeof cases / sizeof cases[0];
    return cases;
}
