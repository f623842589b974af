/*
 * test_records.c - records: what recording and reading answer, capacity 0, handles (FORMAT §7.1,
 * §7.2; Java: QueryApiTest, HintStoreBehaviourTest, HandleReadTest).
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

static void test_records_accumulate_count_total_max_and_bytes(void) {
    hm_options o = opts_cap(16);
    hm_options_set_hot_threshold_ns(&o, 150);
    hm_options_set_max_name_bytes(&o, 64);
    hm_store *s;
    OPEN_OK(s, tpath("r.hm"), &o);
    CHECK_EQ(t_rec(s, "k", 100, 10), HM_OK);
    CHECK_EQ(t_rec(s, "k", 300, 20), HM_OK);
    CHECK_EQ(t_rec(s, "k", 200, 30), HM_OK);
    hm_region_record r;
    CHECK_EQ(t_look(s, "k", &r), HM_OK);
    CHECK_EQ(r.dispatch_count, 3);
    CHECK_EQ(r.kernel_ns_total, 600);
    CHECK_EQ(r.kernel_ns_max, 300);
    CHECK_EQ(r.bytes_total, 60);
    CHECK_EQ(hm_is_hot(s, "k", 1), 1); /* mean 200 >= 150 */
    CHECK_EQ(t_rec(s, "cold", 149, 0), HM_OK);
    CHECK_EQ(hm_is_hot(s, "cold", 4), 0);
    CHECK_EQ(t_rec(s, "edge", 150, 0), HM_OK);
    CHECK_EQ(hm_is_hot(s, "edge", 4), 1);
    CHECK_EQ(hm_is_hot(s, "absent", 6), 0); /* an unknown region is never hot */
    uint64_t n;
    CHECK_EQ(hm_size(s, &n), HM_OK);
    CHECK_EQ(n, 3);

    /* saturation at 2^63-1 */
    const uint64_t MAX = HM_VALUE_MAX;
    CHECK_EQ(t_rec(s, "sat", MAX - 10, MAX - 5), HM_OK);
    CHECK_EQ(t_rec(s, "sat", 100, 100), HM_OK);
    CHECK_EQ(t_look(s, "sat", &r), HM_OK);
    CHECK_EQ(r.dispatch_count, 2);
    CHECK_EQ_U64(r.kernel_ns_total, MAX);
    CHECK_EQ_U64(r.kernel_ns_max, MAX - 10);
    CHECK_EQ_U64(r.bytes_total, MAX);
    /* uint64 inputs above 2^63-1 are clamped */
    CHECK_EQ(t_rec(s, "clamp", UINT64_MAX, UINT64_MAX), HM_OK);
    CHECK_EQ(t_look(s, "clamp", &r), HM_OK);
    CHECK_EQ_U64(r.kernel_ns_total, MAX);
    CHECK_EQ_U64(r.kernel_ns_max, MAX);
    CHECK_EQ_U64(r.bytes_total, MAX);
    CHECK_EQ(t_rec(s, "clamp", UINT64_MAX, 1), HM_OK);
    CHECK_EQ(t_look(s, "clamp", &r), HM_OK);
    CHECK_EQ(r.dispatch_count, 2);
    CHECK_EQ_U64(r.kernel_ns_total, MAX);
    CHECK(r.kernel_ns_total / r.dispatch_count <= r.kernel_ns_max);
    /* no file word ever has the top bit set */
    for (uint32_t k = 0; k < hm_high_water(s); k++) {
        hm_slot *sl = hm_test_slot(s, k);
        for (int c = 0; c < 2; c++) {
            CHECK((atomic_load(&sl->copies[c].kernel_ns_total) >> 63) == 0);
            CHECK((atomic_load(&sl->copies[c].bytes_total) >> 63) == 0);
            CHECK((atomic_load(&sl->copies[c].kernel_ns_max) >> 63) == 0);
        }
    }

    /* names */
    CHECK_EQ(hm_record(s, "", 0, 1, 1), HM_EEMPTYNAME);
    CHECK(strstr(hm_last_error(s), "empty") != NULL);
    CHECK_EQ(hm_record(s, NULL, 3, 1, 1), HM_EINVAL);
    char longname[65];
    memset(longname, 'x', sizeof longname);
    CHECK_EQ(hm_record(s, longname, 65, 1, 1), HM_OK); /* over the limit: its stored form (§1.1) */
    CHECK_EQ(hm_lookup(s, longname, 65, &r), HM_OK);
    CHECK_EQ(r.dispatch_count, 1);
    {
        hm_options strict = o; /* the same file, by a process that refuses long names */
        strict.flags = HM_OPEN_REJECT_LONG_NAMES;
        hm_store *st;
        OPEN_OK(st, tpath("r.hm"), &strict);
        CHECK_EQ(hm_record(st, longname, 65, 1, 1), HM_ENAMETOOLONG);
        CHECK(strstr(hm_last_error(st), "65 bytes") != NULL);
        CHECK_EQ(hm_lookup(st, longname, 65, &r), HM_ENAMETOOLONG);
        CHECK_EQ(hm_record(st, longname, 64, 1, 1), HM_OK);
        CHECK_EQ(hm_close(st), HM_OK);
    }
    CHECK_EQ(hm_record(s, longname, 64, 1, 1), HM_OK); /* exactly max_name_bytes */
    CHECK_EQ(hm_lookup(s, longname, 64, &r), HM_OK);
    CHECK_EQ(hm_lookup(s, longname, 63, &r), HM_ENOTFOUND);
    CHECK_EQ(hm_record(s, "\xff", 1, 1, 1), HM_EBADNAME);
    CHECK_EQ(hm_record(s, "\xc0\x80", 2, 1, 1), HM_EBADNAME);      /* overlong NUL */
    CHECK_EQ(hm_record(s, "\xed\xa0\x80", 3, 1, 1), HM_EBADNAME);  /* surrogate */
    CHECK_EQ(hm_record(s, "\xe2\x82", 2, 1, 1), HM_EBADNAME);      /* truncated sequence */
    CHECK_EQ(hm_record(s, "\xf4\x90\x80\x80", 4, 1, 1), HM_EBADNAME); /* > U+10FFFF */
    CHECK_EQ(hm_record(s, "tail\0nul", 8, 5, 5), HM_OK);            /* NUL is a character */
    CHECK_EQ(hm_lookup(s, "tail\0nul", 8, &r), HM_OK);
    CHECK_EQ(hm_lookup(s, "tail", 4, &r), HM_ENOTFOUND);
    CHECK_EQ(hm_record(s, "\xf0\x9f\x9a\x80", 4, 5, 5), HM_OK);    /* 4-byte sequence */
    CHECK_EQ(hm_lookup(s, "k", 1, NULL), HM_EINVAL);

    /* iteration */
    int seen = 0;
    for (uint32_t k = 0; k < hm_high_water(s); k++) {
        char nb[80];
        size_t nl;
        if (hm_region_at(s, k, nb, sizeof nb, &nl, &r) == HM_OK) {
            seen++;
            hm_region_record r2;
            CHECK_EQ(hm_lookup(s, nb, nl, &r2), HM_OK);
            CHECK_EQ(r2.dispatch_count, r.dispatch_count);
        }
    }
    CHECK_EQ(hm_size(s, &n), HM_OK);
    CHECK_EQ(seen, (int)n);
    char tiny[2];
    size_t nl;
    CHECK_EQ(hm_region_at(s, 0, tiny, sizeof tiny, &nl, &r), HM_OK); /* "k": fits */
    CHECK_EQ(hm_region_at(s, 9999, tiny, sizeof tiny, &nl, &r), HM_ENOTFOUND);

    /* error strings */
    for (int c = 1; c >= HM_EMISSING; c--) CHECK(strcmp(hm_strerror(c), "unknown error") != 0);
    CHECK(strcmp(hm_strerror(HM_EMISSING - 1), "unknown error") == 0); /* HM_EMISSING is the last code */
    CHECK(strcmp(hm_strerror(-99), "unknown error") == 0);
    char buf[8];
    CHECK(hm_last_error_copy(s, buf, sizeof buf) > 0);
    CHECK_EQ(strlen(buf), 7);
    CHECK_EQ(hm_flush(s), HM_OK);
    hm_stats st;
    CHECK_EQ(hm_stats_get(s, &st), HM_OK);
    CHECK_EQ(st.evictions, 0);
    CHECK_EQ(hm_close(s), HM_OK);
}

static void test_capacity_zero_file_drops_every_record(void) {
    hm_options o = opts_cap(0);
    hm_store *s;
    OPEN_OK(s, tpath("z.hm"), &o);
    struct stat st;
    CHECK(stat(tpath("z.hm"), &st) == 0);
    CHECK_EQ(st.st_size, 24576); /* 16 index entries, no slots */
    CHECK_EQ(hm_capacity(s), 0);
    CHECK_EQ(t_rec(s, "a", 1, 1), HM_DROPPED);
    hm_region_record r;
    CHECK_EQ(t_look(s, "a", &r), HM_ENOTFOUND);
    hm_region *h;
    CHECK_EQ(hm_region_resolve(s, "a", 1, &h), HM_OK);
    CHECK_EQ(hm_region_add(h, 1, 1), HM_DROPPED);
    CHECK_EQ(hm_region_lookup(h, &r), HM_ENOTFOUND);
    hm_region_free(h);
    uint64_t n;
    CHECK_EQ(hm_size(s, &n), HM_OK);
    CHECK_EQ(n, 0);
    CHECK_EQ(hm_high_water(s), 0);
    CHECK_EQ(hm_close(s), HM_OK);
    hm_options ro;
    hm_options_init(&ro);
    ro.read_only = 1;
    OPEN_OK(s, tpath("z.hm"), &ro);
    CHECK_EQ(t_look(s, "a", &r), HM_ENOTFOUND);
    CHECK_EQ(hm_close(s), HM_OK);
}

static void test_stale_handle_reinserts_its_region_not_counting_into_another(void) {
    hm_options o = opts_cap(2);
    hm_store *s;
    OPEN_OK(s, tpath("h.hm"), &o);
    hm_region *ha;
    CHECK_EQ(hm_region_resolve(s, "a", 1, &ha), HM_OK);
    hm_region_record r;
    CHECK_EQ(hm_region_lookup(ha, &r), HM_ENOTFOUND);
    CHECK_EQ(hm_region_add(ha, 5, 1), HM_OK); /* inserts, with a clear reference bit */
    CHECK_EQ(hm_region_lookup(ha, &r), HM_OK);
    CHECK_EQ(r.dispatch_count, 1);
    uint32_t ka;
    CHECK_EQ(hm_test_slot_of(s, "a", 1, &ka), HM_OK);
    CHECK_EQ(t_rec(s, "b", 1, 1), HM_OK);
    CHECK_EQ(t_rec(s, "c", 1, 1), HM_OK); /* evicts a: c takes a's slot */
    uint32_t kc;
    CHECK_EQ(hm_test_slot_of(s, "c", 1, &kc), HM_OK);
    CHECK_EQ(kc, ka);
    CHECK_EQ(hm_region_lookup(ha, &r), HM_ENOTFOUND);
    /* the stale handle must not count into c: it re-inserts a */
    CHECK_EQ(hm_region_add(ha, 9, 1), HM_OK);
    CHECK_EQ(t_look(s, "c", &r), HM_OK);
    CHECK_EQ(r.dispatch_count, 1);
    CHECK_EQ(r.kernel_ns_total, 1);
    CHECK_EQ(hm_region_lookup(ha, &r), HM_OK);
    CHECK_EQ(r.dispatch_count, 1);
    CHECK_EQ(r.kernel_ns_total, 9);
    CHECK_EQ(t_look(s, "b", &r), HM_ENOTFOUND);
    CHECK_EQ(hm_region_add(ha, 1, 1), HM_OK);
    CHECK_EQ(hm_region_lookup(ha, &r), HM_OK);
    CHECK_EQ(r.dispatch_count, 2);
    /* a handle outliving its store */
    CHECK_EQ(hm_close(s), HM_OK);
    CHECK_EQ(hm_region_add(ha, 1, 1), HM_ECLOSED);
    CHECK_EQ(hm_region_lookup(ha, &r), HM_ECLOSED);
    hm_region_free(ha);
}

/* FORMAT §7.2.2: a handle reads its slot without a name compare while the slot's gen is the one it
 * resolved (names change only while gen is odd), so a name damaged in place does not hide the region
 * from it; a new handle, which must match the name, does not find it; a BUSY gen reads absent. */
static void test_handle_read_trusts_an_unchanged_generation_not_the_name(void) {
    hm_options o = opts_cap(2);
    hm_store *s;
    OPEN_OK(s, tpath("hg.hm"), &o);
    const char *gemm = "void cutlass::Kernel<cutlass::gemm::GemmUniversal<float, 128, 4>>(Params const&)";
    size_t n = strlen(gemm);
    CHECK_EQ(t_rec(s, gemm, 700, 64), HM_OK);
    hm_region *h;
    CHECK_EQ(hm_region_resolve(s, gemm, n, &h), HM_OK);
    hm_region_record r;
    CHECK_EQ(hm_region_lookup(h, &r), HM_OK);
    uint32_t k;
    CHECK_EQ(hm_test_slot_of(s, gemm, n, &k), HM_OK);
    hm_slot *sl = hm_test_slot(s, k);
    uint64_t word = atomic_load(&sl->name[0]);
    atomic_store(&sl->name[0], ~word); /* gen left as it was */
    CHECK_EQ(hm_region_lookup(h, &r), HM_OK);
    CHECK_EQ(r.kernel_ns_total, 700);
    hm_region *fresh;
    CHECK_EQ(hm_region_resolve(s, gemm, n, &fresh), HM_OK);
    CHECK_EQ(hm_region_lookup(fresh, &r), HM_ENOTFOUND);
    atomic_store(&sl->name[0], word);
    uint64_t g = atomic_load(&sl->gen);
    atomic_store(&sl->gen, g | 1); /* BUSY: stale for the handle, and absent by name */
    CHECK_EQ(hm_region_lookup(h, &r), HM_ENOTFOUND);
    atomic_store(&sl->gen, g);
    CHECK_EQ(hm_region_lookup(h, &r), HM_OK); /* found again by name, and remembered */
    CHECK_EQ(r.dispatch_count, 1);
    hm_region_free(fresh);
    hm_region_free(h);
    CHECK_EQ(hm_close(s), HM_OK);
}

const hm_test_case *hm_t_records_cases(size_t *n) {
    static const hm_test_case cases[] = {
        {"records_accumulate_count_total_max_and_bytes", test_records_accumulate_count_total_max_and_bytes},
        {"capacity_zero_file_drops_every_record", test_capacity_zero_file_drops_every_record},
        {"stale_handle_reinserts_its_region_not_counting_into_another",
         test_stale_handle_reinserts_its_region_not_counting_into_another},
        {"handle_read_trusts_an_unchanged_generation_not_the_name",
         test_handle_read_trusts_an_unchanged_generation_not_the_name},
    };
    *n = sizeof cases / sizeof cases[0];
    return cases;
}
