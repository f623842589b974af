/*
 * test_recovery.c - recovery: crashed structural changes repaired, unsound slots freed (FORMAT §8;
 * Java: CrashRecoveryTest, IndexRebuildTest).
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

/* §8 step 2c (issue 32 finding 12): the rebuild reads each record lock-free, as readers do; a read
 * that gives up because writers republished the record under every attempt keeps the slot (its
 * record is not known to be unsound). The probe publishes into the region's slot between the loads
 * and the re-check of every attempt, as a writer hammering it would (seq + 2: the same copy stays
 * current, so the record is unchanged): before the fix, recovery freed the live region. */
typedef struct republisher {
    hm_slot *slot;
    uint64_t calls;
} republisher;

static void republish(void *arg) {
    republisher *rp = arg;
    atomic_fetch_add(&rp->slot->seq, 2);
    rp->calls++;
}

/* §8 step 2c: recovery keeps only sound slots. A slot whose name is well formed (hash matching)
 * but not UTF-8, and one whose current record breaks §7.2.1, are freed like malformed ones, so
 * that the repaired file passes the verify rules (index_consistent) with live_count equal to the
 * LIVE slots. */
static void test_recovery_frees_unsound_slots(void) {
    hm_options o = opts_cap(8);
    hm_store *s;
    OPEN_OK(s, tpath("sound.hm"), &o);
    const char *names[] = {"r0", "r1", "r2", "r3", "r4"};
    for (int i = 0; i < 5; i++)
        for (int j = 0; j <= i; j++) CHECK_EQ(t_rec(s, names[i], 10, 1), HM_OK);
    uint32_t k1, k3;
    CHECK_EQ(hm_test_slot_of(s, "r1", 2, &k1), HM_OK);
    CHECK_EQ(hm_test_slot_of(s, "r3", 2, &k3), HM_OK);
    hm_file_header *h = hm_test_mapping(s);
    /* r1: its name becomes the bytes ff fe, with a matching hash (well formed, not UTF-8) */
    hm_slot *s1 = hm_test_slot(s, k1);
    const unsigned char bad[2] = {0xff, 0xfe};
    uint64_t w = (uint64_t)bad[0] | (uint64_t)bad[1] << 8;
    atomic_store(&s1->name[0], w);
    atomic_store(&s1->hash, hm_hash64(bad, 2));
    /* r3: its current record has kernel_ns_max above kernel_ns_total */
    hm_slot *s3 = hm_test_slot(s, k3);
    uint64_t seq = atomic_load(&s3->seq);
    atomic_store(&s3->copies[seq & 1].kernel_ns_max, atomic_load(&s3->copies[seq & 1].kernel_ns_total) + 1);
    hm_region_record r;
    CHECK_EQ(t_look(s, "r3", &r), HM_ENOTFOUND); /* readers already treat it as absent */
    CHECK(!index_consistent(s));
    /* a crashed change (index_seq odd): the next insertion recovers */
    atomic_store(&h->index_seq, atomic_load(&h->index_seq) | 1);
    CHECK_EQ(t_rec(s, "new", 7, 7), HM_OK);
    hm_stats st;
    CHECK_EQ(hm_stats_get(s, &st), HM_OK);
    CHECK_EQ(st.recoveries, 1);
    CHECK_EQ(st.live_count, 4); /* r0, r2, r4, new */
    uint64_t n;
    CHECK_EQ(hm_size(s, &n), HM_OK);
    CHECK_EQ(n, 4);
    CHECK_EQ(atomic_load(&s1->name_len), 0);
    CHECK_EQ(atomic_load(&s3->name_len), 0);
    CHECK_EQ(atomic_load(&s1->gen) & 1, 0);
    CHECK_EQ(atomic_load(&s3->gen) & 1, 0);
    for (int i = 0; i < 5; i++) {
        int rc = t_look(s, names[i], &r);
        CHECK_EQ(rc, i == 1 || i == 3 ? HM_ENOTFOUND : HM_OK);
        if (rc == HM_OK) CHECK_EQ(r.dispatch_count, (uint64_t)i + 1);
    }
    CHECK_EQ(t_look(s, "new", &r), HM_OK);
    CHECK(index_consistent(s)); /* what verify checks: clean after the repair */
    CHECK_EQ(hm_check(s), HM_OK);
    /* the hand points at the last slot freed (§8 step 2c): once the unused slots are taken, the
     * next insertion reuses it instead of evicting a live region */
    CHECK_EQ(atomic_load(&h->clock_hand), k3);
    CHECK_EQ(t_rec(s, "n2", 1, 1), HM_OK);
    CHECK_EQ(t_rec(s, "n3", 1, 1), HM_OK);
    CHECK_EQ(t_rec(s, "n4", 1, 1), HM_OK);
    uint32_t k4;
    CHECK_EQ(hm_test_slot_of(s, "n4", 2, &k4), HM_OK);
    CHECK_EQ(k4, k3);
    CHECK_EQ(hm_stats_get(s, &st), HM_OK);
    CHECK_EQ(st.evictions, 0);
    CHECK_EQ(st.live_count, 7);
    CHECK(index_consistent(s));
    CHECK_EQ(hm_close(s), HM_OK);
}

static void test_recovery_keeps_a_region_whose_record_writers_keep_republishing(void) {
    hm_options o = opts_cap(4);
    hm_store *s;
    OPEN_OK(s, tpath("hammered.hm"), &o);
    const char *hot = "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)";
    for (uint64_t i = 0; i < 5; i++) CHECK_EQ(hm_record(s, hot, strlen(hot), 1000 + i, 64), HM_OK);
    CHECK_EQ(t_rec(s, "other", 7, 7), HM_OK);
    uint32_t k;
    CHECK_EQ(hm_test_slot_of(s, hot, strlen(hot), &k), HM_OK);
    republisher rp = {hm_test_slot(s, k), 0};
    hm_test_set_rebuild_read_probe(s, republish, &rp);
    hm_file_header *h = hm_test_mapping(s);
    atomic_store(&h->index_seq, atomic_load(&h->index_seq) | 1); /* a crashed change: the next insertion recovers */
    CHECK_EQ(t_rec(s, "new", 9, 9), HM_OK);
    hm_test_set_rebuild_read_probe(s, NULL, NULL);
    CHECK(rp.calls >= 65536); /* the rebuild's read of the hammered slot gave up */
    hm_stats st;
    CHECK_EQ(hm_stats_get(s, &st), HM_OK);
    CHECK_EQ_U64(st.recoveries, 1);
    CHECK_EQ_U64(st.live_count, 3);
    hm_region_record r;
    CHECK_EQ(hm_lookup(s, hot, strlen(hot), &r), HM_OK);
    CHECK_EQ_U64(r.dispatch_count, 5);
    CHECK_EQ_U64(r.kernel_ns_total, 5010);
    CHECK_EQ_U64(r.kernel_ns_max, 1004);
    CHECK_EQ_U64(r.bytes_total, 320);
    CHECK(index_consistent(s));
    CHECK_EQ(hm_close(s), HM_OK);
}

static void test_dead_struct_lock_holder_is_repaired_by_next_insert(void) {
    const char *p = tpath("deadstruct.hm");
    hm_options o = opts_cap(8);
    hm_store *s;
    OPEN_OK(s, p, &o);
    const char *names[] = {"r0", "r1", "r2", "r3", "r4"};
    for (int i = 0; i < 5; i++)
        for (int j = 0; j <= i; j++) CHECK_EQ(t_rec(s, names[i], 10, 1), HM_OK);
    int fds[2];
    CHECK(pipe(fds) == 0);
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        child_hold_and_wait(p, fds[1], 2, "r2");
    }
    close(fds[1]);
    char c;
    CHECK(read(fds[0], &c, 1) == 1);
    close(fds[0]);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    hm_region_record r;
    /* readers: r2 is BUSY (absent), the others still readable */
    CHECK_EQ(t_look(s, "r2", &r), HM_ENOTFOUND);
    CHECK_EQ(t_look(s, "r3", &r), HM_OK);
    /* a writer inserting takes over struct_lock and repairs */
    CHECK_EQ(t_rec(s, "new", 7, 7), HM_OK);
    hm_stats st;
    CHECK_EQ(hm_stats_get(s, &st), HM_OK);
    CHECK_EQ(st.recoveries, 1);
    CHECK_EQ(st.stolen_locks, 2); /* struct_lock + the journaled slot's lock */
    CHECK_EQ(st.live_count, 5);
    CHECK_EQ(t_look(s, "r2", &r), HM_ENOTFOUND);
    for (int i = 0; i < 5; i++) {
        if (i == 2) continue;
        CHECK_EQ(t_look(s, names[i], &r), HM_OK);
        CHECK_EQ(r.dispatch_count, (uint64_t)i + 1);
    }
    CHECK_EQ(t_look(s, "new", &r), HM_OK);
    hm_file_header *h = hm_test_mapping(s);
    CHECK_EQ(atomic_load(&h->journal_slot), 0);
    CHECK_EQ(atomic_load(&h->index_seq) & 1, 0);
    CHECK_EQ(atomic_load(&h->struct_lock), 0);
    CHECK(index_consistent(s));
    CHECK_EQ(t_rec(s, "r2", 1, 1), HM_OK); /* re-inserted as a new region */
    CHECK_EQ(t_look(s, "r2", &r), HM_OK);
    CHECK_EQ(r.dispatch_count, 1);
    CHECK_EQ(hm_close(s), HM_OK);
}

static void test_crashed_structural_change_is_repaired_from_journal(void) {
    const char *p = tpath("journal.hm");
    hm_options o = opts_cap(16);
    hm_store *s;
    OPEN_OK(s, p, &o);
    char nb[16];
    for (int i = 0; i < 6; i++) {
        snprintf(nb, sizeof nb, "j%d", i);
        for (int j = 0; j <= i; j++) CHECK_EQ(t_rec(s, nb, 3, 1), HM_OK);
    }
    uint32_t k2;
    CHECK_EQ(hm_test_slot_of(s, "j2", 2, &k2), HM_OK);
    hm_file_header *h = hm_test_mapping(s);
    _Atomic uint64_t *index = (_Atomic uint64_t *)((unsigned char *)h + h->index_offset);
    /* a crashed change: journal set, index half-edited (all entries lost), index_seq odd, the
     * slot BUSY (past §7.4 step 7) */
    atomic_store(&h->journal_slot, (uint64_t)k2 + 1);
    atomic_store(&h->index_seq, atomic_load(&h->index_seq) + 1);
    atomic_fetch_or(&hm_test_slot(s, k2)->gen, 1);
    for (uint32_t j = 0; j < h->index_entries; j++) atomic_store(&index[j], 0);
    hm_region_record r;
    CHECK_EQ(t_look(s, "j3", &r), HM_ENOTFOUND); /* a hint may be missing, never wrong */
    CHECK_EQ(t_rec(s, "fresh", 1, 1), HM_OK);
    hm_stats st;
    CHECK_EQ(hm_stats_get(s, &st), HM_OK);
    CHECK_EQ(st.recoveries, 1);
    CHECK_EQ(st.live_count, 6);
    CHECK_EQ(t_look(s, "j2", &r), HM_ENOTFOUND);
    for (int i = 0; i < 6; i++) {
        if (i == 2) continue;
        snprintf(nb, sizeof nb, "j%d", i);
        CHECK_EQ(t_look(s, nb, &r), HM_OK);
        CHECK_EQ(r.dispatch_count, (uint64_t)i + 1);
    }
    CHECK_EQ(atomic_load(&h->journal_slot), 0);
    CHECK_EQ(atomic_load(&h->index_seq) & 1, 0);
    CHECK(index_consistent(s));
    CHECK_EQ(atomic_load(&hm_test_slot(s, k2)->name_len), 0);
    CHECK_EQ(atomic_load(&hm_test_slot(s, k2)->gen) & 1, 0);

    /* journaled but gen even: a death before step 7 (or after step 11's gen): the region is whole
     * and is kept, its completed records with it (§8 step 1) */
    uint32_t k4;
    CHECK_EQ(hm_test_slot_of(s, "j4", 2, &k4), HM_OK);
    atomic_store(&h->journal_slot, (uint64_t)k4 + 1);
    atomic_store(&h->index_seq, atomic_load(&h->index_seq) + 1);
    CHECK_EQ(t_rec(s, "kept", 1, 1), HM_OK);
    CHECK_EQ(hm_stats_get(s, &st), HM_OK);
    CHECK_EQ(st.recoveries, 2);
    CHECK_EQ(t_look(s, "j4", &r), HM_OK);
    CHECK_EQ(r.dispatch_count, 5);
    CHECK_EQ(atomic_load(&h->journal_slot), 0);
    CHECK(index_consistent(s));

    /* out-of-range mutable words are repaired, never used as offsets (§5 step 5) */
    atomic_store(&h->clock_hand, 999999);
    atomic_store(&h->high_water, 1u << 30);
    CHECK_EQ(t_rec(s, "fresh2", 1, 1), HM_OK);
    CHECK(atomic_load(&h->clock_hand) < 16);
    CHECK(atomic_load(&h->high_water) <= 16);
    CHECK_EQ(hm_stats_get(s, &st), HM_OK);
    CHECK_EQ(st.recoveries, 3);
    CHECK(index_consistent(s));

    /* an index entry naming a slot >= capacity, with the tag of the name looked up */
    const char *q = "qq";
    uint64_t hq = hm_hash64(q, 2);
    uint32_t j = (uint32_t)hq & (h->index_entries - 1);
    while (atomic_load(&index[j]) != 0) j = (j + 1) & (h->index_entries - 1);
    atomic_store(&index[j], hm_index_entry(hq, (j - (uint32_t)hq) & (h->index_entries - 1), 998)); /* slot 998 */
    CHECK_EQ(t_look(s, q, &r), HM_ENOTFOUND);
    CHECK_EQ(t_rec(s, q, 1, 1), HM_OK);
    CHECK_EQ(t_look(s, q, &r), HM_OK);
    CHECK(index_consistent(s));
    /* a bad journal value is ignored as an offset */
    atomic_store(&h->journal_slot, 12345);
    CHECK_EQ(t_rec(s, "fresh3", 1, 1), HM_OK);
    CHECK_EQ(atomic_load(&h->journal_slot), 0);
    CHECK(index_consistent(s));
    CHECK_EQ(hm_close(s), HM_OK);
}

/* Issue 35 §3: an index entry naming no slot (slot field above capacity, or 0) with the tag and the
 * distance of a name, so a lookup of that name would follow it. A lock-free lookup passes it as not
 * matching and records nothing, so an insertion whose lookups never meet it repairs nothing; the
 * writer whose lookup under struct_lock meets it recovers (§8) and resolves again before it
 * inserts, once. The Java twin: IndexEntryNamingNoSlotTest. */
static void test_entry_naming_no_slot_is_passed_by_readers_and_repaired_by_the_writer_that_meets_it(void) {
    hm_options o = opts(8, 0, 0);
    hm_options_set_max_name_bytes(&o, 256);
    hm_store *s;
    OPEN_OK(s, tpath("no-slot-entry.hm"), &o);
    const char *gemm = "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)";
    const char *norm = "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float,"
                       " float const*, float const*, float const*, float*, float*, float*)";
    const char *attn = "void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64, 64, 4, false, false, cutlass::half_t>,"
                       " true, false>(Flash_fwd_params)";
    CHECK_EQ(t_rec(s, gemm, 3000, 64), HM_OK);
    hm_file_header *h = hm_test_mapping(s);
    _Atomic uint64_t *index = (_Atomic uint64_t *)((unsigned char *)h + h->index_offset);
    const uint32_t mask = (uint32_t)h->index_entries - 1;
    uint64_t hn = hm_hash64(norm, strlen(norm));
    uint32_t j = (uint32_t)hn & mask;
    while (atomic_load(&index[j]) != 0) j = (j + 1) & mask;
    uint32_t d = (j - (uint32_t)hn) & mask;
    CHECK_EQ(atomic_load(&index[(j + 1) & mask]), 0);
    atomic_store(&index[j], hm_index_entry(hn, d, 8));                         /* slot field 9: above capacity */
    atomic_store(&index[(j + 1) & mask], hm_index_entry(hn, d + 1, UINT32_MAX)); /* slot field 0 */

    hm_region_record r;
    hm_stats st;
    uint64_t n;
    CHECK_EQ(t_look(s, norm, &r), HM_ENOTFOUND);
    CHECK_EQ(t_look(s, gemm, &r), HM_OK);
    CHECK_EQ(t_rec(s, attn, 500, 8), HM_OK); /* a new region whose lookups pass neither entry */
    CHECK_EQ(hm_stats_get(s, &st), HM_OK);
    CHECK_EQ(st.recoveries, 0); /* the lookup of norm remembered nothing */
    CHECK_EQ(t_rec(s, norm, 2000, 64), HM_OK);
    CHECK_EQ(hm_stats_get(s, &st), HM_OK);
    CHECK_EQ(st.recoveries, 1);
    CHECK_EQ(t_look(s, norm, &r), HM_OK);
    CHECK_EQ(r.dispatch_count, 1);
    CHECK_EQ(hm_size(s, &n), HM_OK);
    CHECK_EQ(n, 3);
    for (uint32_t i = 0; i <= mask; i++) {
        uint64_t e = atomic_load(&index[i]);
        CHECK(e == 0 || (hm_index_slot1(e) >= 1 && hm_index_slot1(e) <= 8)); /* the rebuild dropped both */
    }
    CHECK_EQ(hm_check(s), HM_OK);
    CHECK_EQ(hm_close(s), HM_OK);
}

const hm_test_case *hm_t_recovery_cases(size_t *n) {
    static const hm_test_case cases[] = {
        {"recovery_frees_unsound_slots", test_recovery_frees_unsound_slots},
        {"recovery_keeps_a_region_whose_record_writers_keep_republishing",
         test_recovery_keeps_a_region_whose_record_writers_keep_republishing},
        {"dead_struct_lock_holder_is_repaired_by_next_insert", test_dead_struct_lock_holder_is_repaired_by_next_insert},
        {"crashed_structural_change_is_repaired_from_journal", test_crashed_structural_change_is_repaired_from_journal},
        {"entry_naming_no_slot_is_passed_by_readers_and_repaired_by_the_writer_that_meets_it",
         test_entry_naming_no_slot_is_passed_by_readers_and_repaired_by_the_writer_that_meets_it},
    };
    *n = sizeof cases / sizeof cases[0];
    return cases;
}
