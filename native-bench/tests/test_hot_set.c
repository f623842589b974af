/*
 * test_hot_set.c - hm_hot_set (docs/GUIDE.md "The hot set by coverage"; FORMAT §7.5 "Every region
 * in one cut"): the shared vectors (src/test/resources/vectors/hot-set.txt, which Java's
 * HotSetVectorsTest answers too), one cut under insertion and eviction, names read twice, buffers.
 */
#define _GNU_SOURCE 1
#include "hintmap.h"
#include "hintmap_format.h"
#include "hm_internal.h"
#include "hm_test.h"
#include "test_cases.h"
#include "test_support.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static const char *g_hot_vectors;

static const char *const GEMM =
    "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)";
static const char *const FLASH = "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
                                 "cutlass::bfloat16_t>, true, false>(Flash_fwd_params)";
static const char *const GELU = "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl("
                                "at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}, std::array<char*, 2> >(int, ...)";
static const char *const NORM = "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, "
                                "float>(int, float, c10::BFloat16 const*, ...)";
static const char *const NEW_GEMM =
    "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_bf16_256x128_32x3_tn_align8>(Params)";

/* Buffers of capacity entries for one store: what hm_hot_set's documentation says always suffices. */
typedef struct hot_buffers {
    hm_hot_region *regions;
    char *names;
    uint32_t room;
    size_t names_len;
} hot_buffers;

static int buffers_for(hm_store *s, hot_buffers *b) {
    b->room = hm_capacity(s);
    b->names_len = (size_t)b->room * hm_max_name_bytes(s);
    b->regions = b->room ? calloc(b->room, sizeof *b->regions) : NULL;
    b->names = b->room ? malloc(b->names_len) : NULL;
    return b->room == 0 || (b->regions != NULL && b->names != NULL);
}

static void buffers_free(hot_buffers *b) {
    free(b->regions);
    free(b->names);
}

static int ask(hm_store *s, hot_buffers *b, double coverage, uint64_t min, hm_hot_set_info *info) {
    return hm_hot_set(s, coverage, min, b->regions, b->room, b->names, b->names_len, info);
}

static int region_is(const hm_hot_region *r, const char *name) {
    return r->name_len == strlen(name) && memcmp(r->name, name, r->name_len) == 0;
}

/* ------------------------------------------------------------------ the shared vectors */

/* The vectors' sums are exact and may pass 2^64: read them as unsigned __int128 (GCC and Clang on
 * 64-bit targets, where the tests build), an oracle independent of the library's two-word sums. */
#if !defined(__SIZEOF_INT128__)
#error "test_hot_set.c reads the vectors' exact sums as unsigned __int128 (GCC or Clang on a 64-bit target)"
#endif
__extension__ typedef unsigned __int128 u128;

static u128 wide(const char *line, size_t ll, int i) {
    const char *f;
    size_t fl;
    u128 v = 0;
    if (!vector_field(line, ll, i, &f, &fl)) return 0;
    for (size_t k = 0; k < fl && f[k] >= '0' && f[k] <= '9'; k++) v = v * 10 + (u128)(f[k] - '0');
    return v;
}

/* A sum as hm_hot_set_info reports it: clamped to 2^63-1. */
static uint64_t clamped(u128 v) { return v > HM_VALUE_MAX ? HM_VALUE_MAX : (uint64_t)v; }

/* part / whole as the rule computes a share: each exact integer rounded to the nearest double (the
 * compiler's conversion of unsigned __int128), then divided; 0 when whole is 0. */
static double exact_share(u128 part, u128 whole) { return whole == 0 ? 0 : (double)part / (double)whole; }

/* A region of COUNT dispatches and TOTAL ns as the vectors define it: COUNT-1 samples of
 * floor(TOTAL/COUNT) ns, then one of the rest (Java adds the same record whole). */
static int record_region(hm_store *s, uint64_t count, uint64_t total, const char *name, size_t len) {
    uint64_t each = total / count;
    for (uint64_t i = 0; i + 1 < count; i++)
        if (hm_record(s, name, len, each, 0) != HM_OK) return 0;
    return hm_record(s, name, len, total - (count - 1) * each, 0) == HM_OK;
}

static void test_hot_set_answers_every_question_of_the_shared_vectors(void) {
    char path[1024];
    snprintf(path, sizeof path, "%s/hot-set.txt", g_hot_vectors);
    size_t len;
    unsigned char *txt = t_read_file(path, &len);
    if (!txt) fprintf(stderr, "  cannot read %s\n", path);
    CHECK(txt != NULL);
    hm_store *s = NULL;
    hot_buffers b = {0};
    hm_hot_set_info info;
    int questions = 0, cases = 0, hot_row = -1, failed = 0;
    u128 want_total = 0, covered_so_far = 0; /* the exact whole of the current question, and its set so far */
    char qname[160] = "";
    size_t at = 0;
    const char *line;
    size_t ll;
    while (!failed && vector_line(txt, len, &at, &line, &ll)) {
        if (vector_is(line, ll, "case")) {
            if (s != NULL) {
                CHECK(hot_row == -1 || (uint32_t)hot_row == info.count);
                buffers_free(&b);
                CHECK_EQ(hm_close(s), HM_OK);
            }
            hm_options o;
            hm_options_init(&o);
            hm_options_set_capacity(&o, (uint32_t)vector_u64(line, ll, 2));
            hm_options_set_max_name_bytes(&o, (uint32_t)vector_u64(line, ll, 3));
            char file[32];
            snprintf(file, sizeof file, "hot-vector-%d.hm", cases++);
            OPEN_OK(s, tpath(file), &o);
            CHECK(buffers_for(s, &b));
            hot_row = -1;
        } else if (vector_is(line, ll, "region")) {
            size_t nl;
            const char *name = vector_rest(line, ll, 3, &nl);
            CHECK(name != NULL && record_region(s, vector_u64(line, ll, 1), vector_u64(line, ll, 2), name, nl));
        } else if (vector_is(line, ll, "ask")) {
            CHECK(hot_row == -1 || (uint32_t)hot_row == info.count);
            snprintf(qname, sizeof qname, "case %d, ask %.*s", cases - 1, (int)(ll - 4), line + 4);
            int rc = ask(s, &b, vector_real(line, ll, 1), vector_u64(line, ll, 2), &info);
            if (rc != HM_OK) fprintf(stderr, "  %s: %d %s\n", qname, rc, hm_last_error(s));
            CHECK_EQ(rc, HM_OK);
            CHECK(info.consistent);
            questions++;
            hot_row = 0;
        } else if (vector_is(line, ll, "expect")) {
            want_total = wide(line, ll, 1);
            covered_so_far = 0;
            uint64_t want[] = {clamped(want_total), clamped(wide(line, ll, 2)), clamped(wide(line, ll, 3)),
                               vector_u64(line, ll, 4), vector_u64(line, ll, 5), vector_u64(line, ll, 6), clamped(wide(line, ll, 7))};
            uint64_t got[] = {info.total_ns, info.needed_ns, info.covered_ns, info.count,
                              info.regions_read, info.thin_regions, info.thin_ns};
            for (int i = 0; i < 7; i++) {
                if (got[i] != want[i]) {
                    fprintf(stderr, "  %s: expect field %d: got %" PRIu64 " want %" PRIu64 "\n", qname, i + 1, got[i],
                            want[i]);
                    failed = 1;
                }
            }
            const char *f;
            size_t fl;
            CHECK(vector_field(line, ll, 8, &f, &fl));
            CHECK_EQ(info.reached, fl == 7 && memcmp(f, "reached", 7) == 0);
            CHECK(info.covered_share == exact_share(wide(line, ll, 3), want_total)); /* of the exact sums, exactly */
        } else if (vector_is(line, ll, "hot")) {
            CHECK(hot_row >= 0 && (uint32_t)hot_row < info.count);
            const hm_hot_region *r = &b.regions[hot_row++];
            size_t nl;
            const char *name = vector_rest(line, ll, 4, &nl);
            if (name == NULL || r->name_len != nl || memcmp(r->name, name, nl) != 0) {
                fprintf(stderr, "  %s: row %d is '%.*s', want '%.*s'\n", qname, hot_row, (int)r->name_len, r->name,
                        (int)nl, name ? name : "");
                failed = 1;
            }
            CHECK_EQ_U64(r->record.kernel_ns_total, vector_u64(line, ll, 1));
            CHECK(fabs(r->share - vector_real(line, ll, 2)) <= 1e-9);
            CHECK(fabs(r->cumulative_share - vector_real(line, ll, 3)) <= 1e-9);
            covered_so_far += r->record.kernel_ns_total;
            CHECK(r->share == exact_share(r->record.kernel_ns_total, want_total)); /* the share rule, exactly */
            CHECK(r->cumulative_share == exact_share(covered_so_far, want_total));
        } else if (vector_is(line, ll, "refuse")) {
            int rc = ask(s, &b, vector_real(line, ll, 1), vector_u64(line, ll, 2), &info);
            if (vector_u64(line, ll, 2) == UINT64_MAX) { /* "-1": no negative count in C; strtoull wraps it */
                CHECK_EQ(rc, HM_OK);
            } else {
                CHECK_EQ(rc, HM_EINVAL);
                CHECK(strstr(hm_last_error(s), "coverage") != NULL);
            }
            questions++;
        } else {
            fprintf(stderr, "  unknown line in hot-set.txt: %.*s\n", (int)ll, line);
            failed = 1;
        }
    }
    free(txt);
    if (s != NULL) {
        buffers_free(&b);
        CHECK_EQ(hm_close(s), HM_OK);
    }
    CHECK(!failed);
    CHECK_EQ(cases, 14);
    CHECK_EQ(questions, 55);
}

/* ------------------------------------------------------------------ one cut (§7.5) */

typedef struct insert_once {
    hm_store *s;
    int slots_seen;
} insert_once;

static void insert_after_two_slots(void *arg, uint32_t slot) {
    (void)slot;
    insert_once *io = arg;
    if (++io->slots_seen == 2) t_rec(io->s, NEW_GEMM, 90000000, 0); /* evicts one region of the full file */
}

static hm_store *full_store_of_four(const char *file) {
    hm_options o;
    hm_options_init(&o);
    hm_options_set_capacity(&o, 4);
    hm_store *s = NULL;
    if (hm_open(tpath(file), &o, &s) != HM_OK) return NULL;
    t_rec(s, GEMM, 50000000, 0);
    t_rec(s, FLASH, 30000000, 0);
    t_rec(s, GELU, 15000000, 0);
    t_rec(s, NORM, 5000000, 0);
    return s;
}

/* A region inserted (evicting another) after the scan read two slots: the answer is the file after the
 * change, read again, never the evicted region from the slots read before with the new one missed. */
static void test_hot_set_reads_a_region_inserted_during_the_scan_in_one_cut(void) {
    hm_store *s = full_store_of_four("cut.hm");
    CHECK(s != NULL);
    hot_buffers b;
    CHECK(buffers_for(s, &b));
    insert_once io = {s, 0};
    hm_hot_set_info info;
    CHECK_EQ(hm_test_hot_set_hooked(s, 1, 0, b.regions, b.room, b.names, b.names_len, &info, insert_after_two_slots, &io),
             HM_OK);
    CHECK(info.consistent);
    CHECK(io.slots_seen > 4); /* the scan the insertion overlapped was made again */
    CHECK_EQ(info.count, 4);
    CHECK_EQ(info.regions_read, 4);
    CHECK(region_is(&b.regions[0], NEW_GEMM));
    /* the file after the change, asked again without interference, gives the same answer */
    uint64_t total = info.total_ns;
    hm_region_record r;
    int absent = 0;
    const char *before[] = {GEMM, FLASH, GELU, NORM};
    for (int i = 0; i < 4; i++) absent += t_look(s, before[i], &r) == HM_ENOTFOUND;
    CHECK_EQ(absent, 1);
    CHECK_EQ(ask(s, &b, 1, 0, &info), HM_OK);
    CHECK_EQ_U64(info.total_ns, total);
    buffers_free(&b);
    CHECK_EQ(hm_close(s), HM_OK);
}

typedef struct churn {
    hm_store *s;
    int next;
} churn;

static void insert_every_slot(void *arg, uint32_t slot) {
    (void)slot;
    churn *c = arg;
    char name[64];
    snprintf(name, sizeof name, "void churn_kernel<%d>(float*)", c->next++);
    t_rec(c->s, name, 1000, 0);
}

/* Writers that never stop inserting: 64 scans, then the last one as a hint, each name once. */
static void test_hot_set_under_endless_churn_is_a_hint_with_each_name_once(void) {
    hm_options o;
    hm_options_init(&o);
    hm_options_set_capacity(&o, 4);
    hm_store *s;
    OPEN_OK(s, tpath("churn-hot.hm"), &o);
    churn c = {s, 0};
    for (int i = 0; i < 4; i++) insert_every_slot(&c, 0);
    hot_buffers b;
    CHECK(buffers_for(s, &b));
    hm_hot_set_info info;
    CHECK_EQ(hm_test_hot_set_hooked(s, 1, 0, b.regions, b.room, b.names, b.names_len, &info, insert_every_slot, &c),
             HM_OK);
    CHECK(!info.consistent);
    CHECK_EQ(c.next, 64 * 4 + 4); /* every scan was made, and only those */
    CHECK(info.regions_read <= 4);
    for (uint32_t i = 0; i < info.count; i++)
        for (uint32_t j = i + 1; j < info.count; j++)
            CHECK(!(b.regions[i].name_len == b.regions[j].name_len &&
                    memcmp(b.regions[i].name, b.regions[j].name, b.regions[i].name_len) == 0));
    buffers_free(&b);
    CHECK_EQ(hm_close(s), HM_OK);
}

/* A damaged file with one name in two slots: one region, its records combined as merge does. */
static void test_hot_set_combines_a_name_found_in_two_slots(void) {
    hm_options o;
    hm_options_init(&o);
    hm_options_set_capacity(&o, 4);
    hm_store *s;
    OPEN_OK(s, tpath("twice.hm"), &o);
    CHECK_EQ(t_rec(s, GEMM, 60, 0), HM_OK);
    CHECK_EQ(t_rec(s, "gemv", 40, 0), HM_OK);
    CHECK_EQ(t_rec(s, FLASH, 70, 0), HM_OK);
    uint32_t a, k;
    CHECK_EQ(hm_test_slot_of(s, GEMM, strlen(GEMM), &a), HM_OK);
    CHECK_EQ(hm_test_slot_of(s, "gemv", 4, &k), HM_OK);
    hm_slot *from = hm_test_slot(s, a), *to = hm_test_slot(s, k); /* gemv's slot now names GEMM too */
    for (uint32_t w = 0; w < (strlen(GEMM) + 7) / 8; w++) atomic_store(&to->name[w], atomic_load(&from->name[w]));
    atomic_store(&to->hash, atomic_load(&from->hash));
    atomic_store(&to->name_len, atomic_load(&from->name_len));
    hot_buffers b;
    CHECK(buffers_for(s, &b));
    hm_hot_set_info info;
    CHECK_EQ(ask(s, &b, 0.5, 2, &info), HM_OK);
    CHECK_EQ(info.regions_read, 2);
    CHECK_EQ(info.count, 1);
    CHECK(region_is(&b.regions[0], GEMM)); /* 2 dispatches, 100 ns of 170: first, and counts with min 2 */
    CHECK_EQ_U64(b.regions[0].record.dispatch_count, 2);
    CHECK_EQ_U64(b.regions[0].record.kernel_ns_total, 100);
    CHECK_EQ_U64(b.regions[0].record.kernel_ns_max, 60);
    CHECK_EQ_U64(info.total_ns, 170);
    CHECK_EQ_U64(info.thin_ns, 70);
    buffers_free(&b);
    CHECK_EQ(hm_close(s), HM_OK);
}

/* Buffers and arguments: each mistake is HM_EINVAL with a message saying which, never a write past a buffer. */
static void test_hot_set_refuses_small_buffers_and_null_arguments(void) {
    hm_store *s = full_store_of_four("args.hm");
    CHECK(s != NULL);
    hot_buffers b;
    CHECK(buffers_for(s, &b));
    hm_hot_set_info info;
    CHECK_EQ(hm_hot_set(s, 0.9, 0, b.regions, b.room, b.names, b.names_len, NULL), HM_EINVAL);
    CHECK_EQ(hm_hot_set(s, 0.9, 0, NULL, b.room, b.names, b.names_len, &info), HM_EINVAL);
    CHECK_EQ(hm_hot_set(s, 0.9, 0, b.regions, b.room, b.names, b.names_len - 1, &info), HM_EINVAL);
    CHECK(strstr(hm_last_error(s), "names buffer") != NULL);
    CHECK_EQ(hm_hot_set(s, 0.9, 0, b.regions, 3, b.names, b.names_len, &info), HM_EINVAL); /* 4 regions, room for 3 */
    CHECK(strstr(hm_last_error(s), "room for 3 regions") != NULL);
    CHECK_EQ(hm_hot_set(s, NAN, 0, b.regions, b.room, b.names, b.names_len, &info), HM_EINVAL);
    CHECK_EQ(hm_hot_set(NULL, 0.9, 0, b.regions, b.room, b.names, b.names_len, &info), HM_EINVAL);
    CHECK_EQ(hm_hot_set(s, 0.9, 0, b.regions, b.room, b.names, b.names_len, &info), HM_OK);
    CHECK_EQ(info.count, 3); /* 50 + 30 of 100 ms: 80% < 90%; + 15: 95% */
    buffers_free(&b);
    CHECK_EQ(hm_close(s), HM_OK);
    /* capacity 0: no buffers needed */
    hm_options o;
    hm_options_init(&o);
    hm_options_set_capacity(&o, 0);
    OPEN_OK(s, tpath("zero-hot.hm"), &o);
    CHECK_EQ(hm_hot_set(s, 0.95, 10, NULL, 0, NULL, 0, &info), HM_OK);
    CHECK_EQ(info.count, 0);
    CHECK(info.reached && info.consistent);
    CHECK_EQ(hm_close(s), HM_OK);
}

const hm_test_case *hm_t_hot_set_cases(size_t *n, const char *vectors_dir) {
    static const hm_test_case cases[] = {
        {"hot_set_answers_every_question_of_the_shared_vectors", test_hot_set_answers_every_question_of_the_shared_vectors},
        {"hot_set_reads_a_region_inserted_during_the_scan_in_one_cut",
         test_hot_set_reads_a_region_inserted_during_the_scan_in_one_cut},
        {"hot_set_under_endless_churn_is_a_hint_with_each_name_once",
         test_hot_set_under_endless_churn_is_a_hint_with_each_name_once},
        {"hot_set_combines_a_name_found_in_two_slots", test_hot_set_combines_a_name_found_in_two_slots},
        {"hot_set_refuses_small_buffers_and_null_arguments", test_hot_set_refuses_small_buffers_and_null_arguments},
    };
    g_hot_vectors = vectors_dir;
    *n = sizeof cases / sizeof cases[0];
    return cases;
}
