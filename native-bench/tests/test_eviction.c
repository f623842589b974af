/*
 * test_eviction.c - eviction: CLOCK, the index with its distances, backward-shift deletion, the
 * probe bound (FORMAT §3.8, §3.9, §7.3, §7.4; Java: EvictionIndexDeleteTest, IndexDistanceTest,
 * ClockHandTest).
 * Registered by the runner, test_unit.c; run under ASan+UBSan (build/test_unit_asan).
 */
#define _GNU_SOURCE 1
#include "test_cases.h"
#include "test_support.h"

#include "hintmap.h"
#include "hintmap_format.h"
#include "hm_internal.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The first name "<prefix><i>" (i counting from *next) whose home in an index of `entries` is
 * `home`; *next moves past it. */
static void name_with_home(const char *prefix, uint32_t home, uint32_t entries, int *next, char *out, size_t len) {
    for (;; (*next)++) {
        snprintf(out, len, "%s%d", prefix, *next);
        if ((hm_hash64(out, strlen(out)) & (entries - 1)) == home) {
            (*next)++;
            return;
        }
    }
}

static uint64_t index_at(hm_store *s, uint32_t j) {
    hm_file_header *h = hm_test_mapping(s);
    return atomic_load(&((_Atomic uint64_t *)((unsigned char *)h + h->index_offset))[j]);
}

static void test_clock_evicts_unreferenced_region_and_spares_referenced_one(void) {
    hm_options o = opts_cap(4);
    hm_store *s;
    OPEN_OK(s, tpath("clk.hm"), &o);
    const char *names[] = {"a", "b", "c", "d"};
    for (int i = 0; i < 4; i++) CHECK_EQ(t_rec(s, names[i], 10, 1), HM_OK);
    hm_stats st;
    CHECK_EQ(hm_stats_get(s, &st), HM_OK);
    CHECK_EQ(st.high_water, 4);
    CHECK_EQ(st.evictions, 0);
    /* e: the hand clears all four bits in one turn, then takes slot 0 (a) */
    CHECK_EQ(t_rec(s, "e", 10, 1), HM_OK);
    hm_region_record r;
    CHECK_EQ(t_look(s, "a", &r), HM_ENOTFOUND);
    CHECK_EQ(t_look(s, "e", &r), HM_OK);
    /* b is used again: second chance */
    CHECK_EQ(t_rec(s, "b", 10, 1), HM_OK);
    CHECK_EQ(t_rec(s, "f", 10, 1), HM_OK);
    CHECK_EQ(t_look(s, "b", &r), HM_OK);
    CHECK_EQ(r.dispatch_count, 2);
    CHECK_EQ(t_look(s, "c", &r), HM_ENOTFOUND);
    CHECK_EQ(t_look(s, "d", &r), HM_OK);
    CHECK_EQ(t_look(s, "f", &r), HM_OK);
    CHECK_EQ(r.dispatch_count, 1);
    CHECK_EQ(hm_stats_get(s, &st), HM_OK);
    CHECK_EQ(st.evictions, 2);
    CHECK_EQ(st.live_count, 4);
    hm_file_header *h = hm_test_mapping(s);
    CHECK_EQ(atomic_load(&h->clock_hand), 3);
    CHECK_EQ(atomic_load(&h->index_seq) & 1, 0);
    CHECK_EQ(atomic_load(&h->journal_slot), 0);
    CHECK_EQ(hm_close(s), HM_OK);
}

static void test_random_churn_matches_model_counts_and_index_invariant(void) {
    hm_options o = opts_cap(8);
    hm_store *s;
    OPEN_OK(s, tpath("churn.hm"), &o);
    enum { NAMES = 40, OPS = 4000 };
    uint64_t expect[NAMES];
    hm_region *handles[NAMES];
    char names[NAMES][16];
    for (int i = 0; i < NAMES; i++) {
        snprintf(names[i], sizeof names[i], "n%d", i);
        expect[i] = 0;
        CHECK_EQ(hm_region_resolve(s, names[i], strlen(names[i]), &handles[i]), HM_OK);
    }
    uint64_t x = 0x9E3779B97F4A7C15u;
    for (int op = 0; op < OPS; op++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        int i = (int)(x % NAMES);
        if (i >= 20) i = (int)(x / NAMES % 6); /* skew: a few hot names */
        hm_region_record r;
        int present = t_look(s, names[i], &r) == HM_OK;
        if (present) CHECK_EQ(r.dispatch_count, expect[i]);
        int rc = (x >> 40) & 1 ? hm_region_add(handles[i], (uint64_t)op, 1) : t_rec(s, names[i], (uint64_t)op, 1);
        CHECK_EQ(rc, HM_OK);
        expect[i] = present ? expect[i] + 1 : 1;
        if (op % 50 == 0) {
            int found = 0;
            for (int j = 0; j < NAMES; j++) {
                if (t_look(s, names[j], &r) == HM_OK) {
                    found++;
                    CHECK_EQ(r.dispatch_count, expect[j]);
                    CHECK(r.kernel_ns_max <= r.kernel_ns_total);
                }
            }
            uint64_t n;
            CHECK_EQ(hm_size(s, &n), HM_OK);
            CHECK_EQ(found, (int)n);
            CHECK(n <= 8);
            CHECK(index_consistent(s));
        }
    }
    hm_stats st;
    CHECK_EQ(hm_stats_get(s, &st), HM_OK);
    CHECK(st.evictions > 100);
    CHECK_EQ(st.recoveries, 0);
    for (int i = 0; i < NAMES; i++) hm_region_free(handles[i]);
    CHECK_EQ(hm_close(s), HM_OK);
}

static void test_insert_beyond_probe_bound_is_dropped(void) {
    hm_options o = opts_cap(256); /* 512 index entries, max_probe 128 */
    hm_store *s;
    OPEN_OK(s, tpath("probe.hm"), &o);
    char names[129][24];
    int n = 0;
    for (int i = 0; n < 129; i++) {
        char nb[24];
        snprintf(nb, sizeof nb, "p-%d", i);
        if ((hm_hash64(nb, strlen(nb)) & 511) == 0) memcpy(names[n++], nb, sizeof nb);
    }
    for (int i = 0; i < 128; i++) CHECK_EQ(t_rec(s, names[i], 1, 1), HM_OK);
    CHECK_EQ(t_rec(s, names[128], 1, 1), HM_DROPPED);
    hm_region_record r;
    CHECK_EQ(t_look(s, names[128], &r), HM_ENOTFOUND);
    hm_stats st;
    CHECK_EQ(hm_stats_get(s, &st), HM_OK);
    CHECK_EQ(st.dropped_inserts, 1);
    CHECK_EQ(st.live_count, 128);
    CHECK_EQ(st.high_water, 128); /* dropped before any slot was taken or region evicted */
    CHECK_EQ(st.evictions, 0);
    CHECK_EQ(t_rec(s, "other", 1, 1), HM_OK);
    CHECK(index_consistent(s));
    for (int i = 0; i < 128; i++) CHECK_EQ(t_look(s, names[i], &r), HM_OK);
    CHECK_EQ(hm_close(s), HM_OK);
}

/* §3.8, §7.4 step 8: a cluster of colliding homes; evicting the region in its middle moves the
 * entries behind it back by their own dist -- an entry at its home stays, the others move and
 * their dist shrinks by what they moved -- without reading any slot (the moved entries' slots
 * have their hash scribbled over during the eviction), and every name still resolves. */
static void test_backward_shift_deletion_keeps_dist_without_reading_slots(void) {
    hm_options o = opts_cap(5); /* 16 index entries, max_probe 16 */
    hm_store *s;
    OPEN_OK(s, tpath("dist.hm"), &o);
    hm_file_header *h = hm_test_mapping(s);
    CHECK_EQ(h->index_entries, 16);
    char a0[16], a1[16], c0[16], a2[16], b0[16], nw[16];
    int next = 0;
    name_with_home("a", 3, 16, &next, a0, sizeof a0);
    name_with_home("a", 3, 16, &next, a1, sizeof a1);
    name_with_home("c", 5, 16, &next, c0, sizeof c0);
    name_with_home("a", 3, 16, &next, a2, sizeof a2);
    name_with_home("b", 4, 16, &next, b0, sizeof b0);
    name_with_home("n", 12, 16, &next, nw, sizeof nw);
    const char *order[] = {a0, a1, c0, a2, b0}; /* slots 0..4 */
    for (int i = 0; i < 5; i++) CHECK_EQ(t_rec(s, order[i], 10, 1), HM_OK);
    /* a0@3 dist 0, a1@4 1, c0@5 0, a2@6 3, b0@7 3 */
    static const uint32_t want_slot[] = {0, 1, 2, 3, 4}, want_dist[] = {0, 1, 0, 3, 3};
    for (int i = 0; i < 5; i++) {
        uint64_t e = index_at(s, 3 + (uint32_t)i);
        CHECK_EQ(e & HM_INDEX_SLOT_MASK, want_slot[i] + 1);
        CHECK_EQ((e >> HM_INDEX_DIST_SHIFT) & HM_INDEX_DIST_MASK, want_dist[i]);
        CHECK_EQ_U64(e >> HM_INDEX_TAG_SHIFT, hm_hash64(order[i], strlen(order[i])) >> 34);
    }
    CHECK(index_consistent(s));
    /* all but a1 referenced again: the hand passes slot 0 and takes slot 1 (a1) */
    for (int i = 0; i < 5; i++)
        if (i != 1) CHECK_EQ(t_rec(s, order[i], 10, 1), HM_OK);
    uint64_t saved[5];
    for (uint32_t k = 2; k < 5; k++) { /* the slots whose entries the deletion moves or passes */
        saved[k] = atomic_load(&hm_test_slot(s, k)->hash);
        atomic_store(&hm_test_slot(s, k)->hash, ~saved[k]);
    }
    CHECK_EQ(t_rec(s, nw, 10, 1), HM_OK);
    for (uint32_t k = 2; k < 5; k++) atomic_store(&hm_test_slot(s, k)->hash, saved[k]);
    hm_stats st;
    CHECK_EQ(hm_stats_get(s, &st), HM_OK);
    CHECK_EQ(st.evictions, 1);
    CHECK_EQ(st.recoveries, 0); /* the deletion found its index consistent: no rebuild */
    uint32_t k;
    CHECK_EQ(hm_test_slot_of(s, nw, strlen(nw), &k), HM_OK);
    CHECK_EQ(k, 1);
    /* a0@3 0; a2 moved 6 -> 4, dist 1; c0 stays @5 0 (m > dist); b0 moved 7 -> 6, dist 2; 7 empty */
    static const uint32_t after_slot[] = {0, 3, 2, 4}, after_dist[] = {0, 1, 0, 2};
    for (int i = 0; i < 4; i++) {
        uint64_t e = index_at(s, 3 + (uint32_t)i);
        CHECK_EQ(e & HM_INDEX_SLOT_MASK, after_slot[i] + 1);
        CHECK_EQ((e >> HM_INDEX_DIST_SHIFT) & HM_INDEX_DIST_MASK, after_dist[i]);
    }
    CHECK_EQ_U64(index_at(s, 7), 0);
    CHECK_EQ(index_at(s, 12) & HM_INDEX_SLOT_MASK, 2); /* the new region at its home, slot 1 */
    hm_region_record r;
    for (int i = 0; i < 5; i++) CHECK_EQ(t_look(s, order[i], &r), i == 1 ? HM_ENOTFOUND : HM_OK);
    CHECK_EQ(t_look(s, nw, &r), HM_OK);
    CHECK(index_consistent(s));
    CHECK_EQ(hm_close(s), HM_OK);
}

/* §7.4 step 8 on a damaged index: a victim without an entry is evicted, the index rebuilt after
 * step 11 with no recovery counted, and index_seq odd from step 6 until the rebuild ends (2 in
 * all), so a death in between would leave §8's trigger. The twin of Java's EvictionIndexDeleteTest. */
static void test_victim_without_an_index_entry_is_evicted_and_the_index_rebuilt(void) {
    hm_options o = opts_cap(2);
    hm_store *s;
    OPEN_OK(s, tpath("lost-entry.hm"), &o);
    CHECK_EQ(t_rec(s, "a", 100, 10), HM_OK);
    CHECK_EQ(t_rec(s, "b", 100, 10), HM_OK);
    hm_file_header *h = hm_test_mapping(s);
    for (uint32_t j = 0; j < h->index_entries; j++)
        atomic_store(&((_Atomic uint64_t *)((unsigned char *)h + h->index_offset))[j], 0); /* every entry lost */
    uint64_t seq_before = atomic_load(&h->index_seq);
    CHECK_EQ(t_rec(s, "c", 100, 10), HM_OK);
    hm_region_record r;
    CHECK_EQ(hm_lookup(s, "c", 1, &r), HM_OK);
    CHECK_EQ_U64(r.dispatch_count, 1);
    hm_stats st;
    CHECK_EQ(hm_stats_get(s, &st), HM_OK);
    CHECK_EQ(st.evictions, 1);
    CHECK_EQ(st.recoveries, 0); /* a rebuild after step 11 is no recovery */
    CHECK_EQ_U64(atomic_load(&h->index_seq), seq_before + 2);
    CHECK_EQ_U64(atomic_load(&h->journal_slot), 0);
    uint64_t size;
    CHECK_EQ(hm_size(s, &size), HM_OK);
    CHECK_EQ_U64(size, 2);
    CHECK(index_consistent(s));
    hm_close(s);
}

/* §7.3: a lookup takes an entry only when its tag AND its dist match the probe position: an
 * entry with the name's tag and slot but a wrong dist is not this name's (it would be a name of
 * another home with a colliding tag). */
static void test_lookup_compares_tag_and_dist(void) {
    hm_options o = opts_cap(8);
    hm_store *s;
    OPEN_OK(s, tpath("tagdist.hm"), &o);
    CHECK_EQ(t_rec(s, "x", 10, 1), HM_OK);
    hm_file_header *h = hm_test_mapping(s);
    _Atomic uint64_t *index = (_Atomic uint64_t *)((unsigned char *)h + h->index_offset);
    uint64_t hx = hm_hash64("x", 1);
    uint32_t j = (uint32_t)hx & (h->index_entries - 1);
    uint64_t e = atomic_load(&index[j]);
    CHECK_EQ((e >> HM_INDEX_DIST_SHIFT) & HM_INDEX_DIST_MASK, 0);
    hm_region_record r;
    CHECK_EQ(t_look(s, "x", &r), HM_OK);
    atomic_store(&index[j], hm_index_with_dist(e, 1)); /* damaged: dist 1 at its home */
    hm_test_forget_names(s); /* the probe, not the slot the name cache remembers for "x" */
    CHECK_EQ(t_look(s, "x", &r), HM_ENOTFOUND);
    atomic_store(&index[j], e);
    CHECK_EQ(t_look(s, "x", &r), HM_OK);
    CHECK_EQ(hm_close(s), HM_OK);
}

/* §3.9, §7.1, §7.4 steps 3-4: the reference bytes live in their own table; a record sets its
 * byte (test before set), an insertion clears it, the hand clears the bytes it passes, and a
 * step over a referenced slot decides by the byte alone: a referenced slot whose control line
 * looks FREE (name_len 0, as a v1 hand would have taken it) is passed, its byte cleared. */
static void test_reference_table_and_clock_hand_by_byte_alone(void) {
    hm_options o = opts_cap(4);
    hm_store *s;
    OPEN_OK(s, tpath("ref.hm"), &o);
    hm_file_header *h = hm_test_mapping(s);
    const unsigned char *ref = (const unsigned char *)h + h->ref_table_offset;
    const char *names[] = {"a", "b", "c", "d"};
    for (int i = 0; i < 4; i++) CHECK_EQ(t_rec(s, names[i], 10, 1), HM_OK);
    for (int k = 0; k < 4; k++) CHECK_EQ(ref[k], 0); /* inserted with a clear byte (§10) */
    for (int k = 0; k < 4; k++) CHECK_EQ(atomic_load(&hm_test_slot(s, (uint32_t)k)->name_len), 1);
    /* the reserved bytes 36..63 of every slot stay zero (v1 kept `referenced` at 36) */
    for (int k = 0; k < 4; k++)
        for (int b = 36; b < 64; b++) CHECK_EQ(((unsigned char *)hm_test_slot(s, (uint32_t)k))[b], 0);
    CHECK_EQ(t_rec(s, "a", 10, 1), HM_OK);
    CHECK_EQ(t_rec(s, "b", 10, 1), HM_OK);
    CHECK_EQ(t_rec(s, "d", 10, 1), HM_OK);
    CHECK_EQ(t_rec(s, "d", 10, 1), HM_OK); /* already set: stays 1 */
    CHECK_EQ(ref[0], 1);
    CHECK_EQ(ref[1], 1);
    CHECK_EQ(ref[2], 0);
    CHECK_EQ(ref[3], 1);
    /* the sweep: a and b survive (bytes cleared as the hand passes), c is taken, d untouched */
    CHECK_EQ(t_rec(s, "e", 10, 1), HM_OK);
    hm_region_record r;
    CHECK_EQ(t_look(s, "a", &r), HM_OK);
    CHECK_EQ(t_look(s, "b", &r), HM_OK);
    CHECK_EQ(t_look(s, "c", &r), HM_ENOTFOUND);
    CHECK_EQ(t_look(s, "d", &r), HM_OK);
    CHECK_EQ(ref[0], 0);
    CHECK_EQ(ref[1], 0);
    CHECK_EQ(ref[2], 0); /* e, just inserted */
    CHECK_EQ(ref[3], 1);
    CHECK_EQ(atomic_load(&h->clock_hand), 3);
    /* d referenced but its control line looking FREE: the hand still decides by the byte alone,
     * passes d (clearing its byte) and takes a (slot 0, byte 0) */
    hm_slot *sd = hm_test_slot(s, 3);
    atomic_store(&sd->name_len, 0);
    CHECK_EQ(t_rec(s, "f", 10, 1), HM_OK);
    atomic_store(&sd->name_len, 1);
    CHECK_EQ(ref[3], 0);
    CHECK_EQ(t_look(s, "a", &r), HM_ENOTFOUND);
    CHECK_EQ(t_look(s, "d", &r), HM_OK);
    CHECK_EQ(t_look(s, "f", &r), HM_OK);
    uint32_t k;
    CHECK_EQ(hm_test_slot_of(s, "f", 1, &k), HM_OK);
    CHECK_EQ(k, 0);
    CHECK_EQ(atomic_load(&h->clock_hand), 1);
    CHECK(index_consistent(s));
    CHECK_EQ(hm_close(s), HM_OK);
}

const hm_test_case *hm_t_eviction_cases(size_t *n) {
    static const hm_test_case cases[] = {
        {"clock_evicts_unreferenced_region_and_spares_referenced_one",
         test_clock_evicts_unreferenced_region_and_spares_referenced_one},
        {"random_churn_matches_model_counts_and_index_invariant",
         test_random_churn_matches_model_counts_and_index_invariant},
        {"insert_beyond_probe_bound_is_dropped", test_insert_beyond_probe_bound_is_dropped},
        {"backward_shift_deletion_keeps_dist_without_reading_slots",
         test_backward_shift_deletion_keeps_dist_without_reading_slots},
        {"victim_without_an_index_entry_is_evicted_and_the_index_rebuilt",
         test_victim_without_an_index_entry_is_evicted_and_the_index_rebuilt},
        {"lookup_compares_tag_and_dist", test_lookup_compares_tag_and_dist},
        {"reference_table_and_clock_hand_by_byte_alone", test_reference_table_and_clock_hand_by_byte_alone},
    };
    *n = sizeof cases / sizeof cases[0];
    return cases;
}
