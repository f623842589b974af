/*
 * test_seed.c - the seed contract (docs/DESIGN.md §5): the reference design's behaviours, asked through
 * its six questions (hm_is_hot, hm_dispatch_count, hm_mean_kernel_ns, hm_lookup, hm_size, hm_is_empty)
 * and the reader's own threshold (hm_is_hot_at; a read-only store opened with a threshold), on the
 * shared vectors src/test/resources/vectors/seed.txt that Java's SeedContractTest and Python's
 * test_seed.py replay too. Then what a vector cannot say: one thread records while another asks.
 */
#define _GNU_SOURCE 1
#include "hintmap.h"
#include "hm_test.h"
#include "test_cases.h"
#include "test_support.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static const char *const GEMM =
    "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)";

/* The hot|cold field i of a vector line: 1 hot, 0 cold, -1 neither. */
static int vector_hot(const char *line, size_t ll, int i) {
    const char *f;
    size_t fl;
    if (!vector_field(line, ll, i, &f, &fl)) return -1;
    if (fl == 3 && memcmp(f, "hot", 3) == 0) return 1;
    if (fl == 4 && memcmp(f, "cold", 4) == 0) return 0;
    return -1;
}

/* The seed's questions about one name against a line of the vectors; 1 when every answer is the line's. */
static int answers_match(hm_store *s, const char *line, size_t ll) {
    int expect = vector_is(line, ll, "expect");
    size_t nl;
    const char *name = vector_rest(line, ll, expect ? 7 : 1, &nl);
    if (name == NULL) return 0;
    hm_region_record r;
    int found = hm_lookup(s, name, nl, &r);
    uint64_t count = UINT64_MAX, mean = UINT64_MAX;
    int hot = hm_is_hot(s, name, nl);
    if (hm_dispatch_count(s, name, nl, &count) != HM_OK || hm_mean_kernel_ns(s, name, nl, &mean) != HM_OK) return 0;
    if (!expect) return found == HM_ENOTFOUND && count == 0 && mean == 0 && hot == 0;
    return found == HM_OK && r.dispatch_count == vector_u64(line, ll, 1) && r.kernel_ns_total == vector_u64(line, ll, 2) &&
           r.kernel_ns_max == vector_u64(line, ll, 3) && r.bytes_total == vector_u64(line, ll, 4) &&
           count == r.dispatch_count && mean == vector_u64(line, ll, 5) && hot == vector_hot(line, ll, 6);
}

/* One line of a case, asked of s; 1 when it holds (records always do: their result is checked by later lines). */
static int step_holds(hm_store *s, const char *line, size_t ll) {
    size_t nl;
    if (vector_is(line, ll, "record")) {
        const char *name = vector_rest(line, ll, 3, &nl);
        int rc = hm_record(s, name, nl, vector_u64(line, ll, 1), vector_u64(line, ll, 2));
        return rc == HM_OK || (rc == HM_DROPPED && hm_capacity(s) == 0);
    }
    if (vector_is(line, ll, "expect") || vector_is(line, ll, "absent")) return answers_match(s, line, ll);
    if (vector_is(line, ll, "size")) {
        uint64_t n = UINT64_MAX;
        return hm_size(s, &n) == HM_OK && n == vector_u64(line, ll, 1) && hm_is_empty(s) == (n == 0);
    }
    if (vector_is(line, ll, "evictions")) {
        hm_stats st;
        return hm_stats_get(s, &st) == HM_OK && st.evictions == vector_u64(line, ll, 1);
    }
    if (vector_is(line, ll, "hot_at")) {
        const char *name = vector_rest(line, ll, 3, &nl);
        return hm_is_hot_at(s, name, nl, vector_u64(line, ll, 1)) == vector_hot(line, ll, 2);
    }
    return 0;
}

static void test_seed_every_case_of_the_shared_vectors_holds(void) {
    char path[1024];
    snprintf(path, sizeof path, "%s/seed.txt", hm_t_vectors);
    size_t len;
    unsigned char *txt = t_read_file(path, &len);
    if (!txt) fprintf(stderr, "  cannot read %s\n", path);
    CHECK(txt != NULL);
    hm_store *s = NULL;
    int cases = 0, steps = 0, failed = 0;
    size_t at = 0;
    const char *line;
    size_t ll;
    while (vector_line(txt, len, &at, &line, &ll)) {
        if (vector_is(line, ll, "case")) {
            if (s != NULL && hm_close(s) != HM_OK) failed = 1;
            hm_options o;
            hm_options_init(&o);
            hm_options_set_capacity(&o, (uint32_t)vector_u64(line, ll, 2));
            hm_options_set_hot_threshold_ns(&o, vector_u64(line, ll, 3));
            char file[32];
            snprintf(file, sizeof file, "seed-%d.hm", cases++);
            char err[512];
            if (hm_open_ex(tpath(file), &o, &s, err, sizeof err) != HM_OK) {
                fprintf(stderr, "  open for %.*s: %s\n", (int)ll, line, err);
                s = NULL;
                failed = 1;
                break;
            }
            continue;
        }
        steps++;
        uint64_t n = UINT64_MAX;
        if (s == NULL || !step_holds(s, line, ll) || hm_size(s, &n) != HM_OK || n > hm_capacity(s)) {
            fprintf(stderr, "  case %d: does not hold: %.*s (size %" PRIu64 ")\n", cases, (int)ll, line, n);
            failed = 1;
        }
    }
    if (s != NULL) CHECK_EQ(hm_close(s), HM_OK);
    free(txt);
    CHECK(!failed);
    CHECK_EQ(cases, 8);
    CHECK_EQ(steps, 105);
}

/* hm64 of the file's bytes (0 when unreadable): whether a file changed, with nothing to free after a failed check. */
static uint64_t file_hash(const char *path) {
    size_t len;
    unsigned char *bytes = t_read_file(path, &len);
    uint64_t h = bytes != NULL ? hm_hash64(bytes, len) : 0;
    free(bytes);
    return h;
}

/* The reader's own threshold, the second form: a read-only store opened with a hot_threshold_ns answers
 * hm_is_hot by it and changes no byte of the file; a writer asking for it is refused. */
static void test_seed_a_read_only_store_answers_hot_by_its_own_threshold(void) {
    const char *p = tpath("own-threshold.hm");
    hm_options o;
    hm_options_init(&o);
    hm_store *w;
    OPEN_OK(w, p, &o);
    CHECK_EQ(t_rec(w, GEMM, 60000, 0), HM_OK); /* mean 60 µs: cold by the file's 100 µs */
    CHECK_EQ(hm_close(w), HM_OK);
    uint64_t before = file_hash(p);

    hm_options ro;
    hm_options_init(&ro);
    ro.read_only = 1;
    hm_options_set_hot_threshold_ns(&ro, 50000);
    hm_store *r, *plain;
    OPEN_OK(r, p, &ro);
    ro.set_mask = 0;
    ro.hot_threshold_ns = HM_DEFAULT_HOT_THRESHOLD_NS;
    OPEN_OK(plain, p, &ro);
    CHECK_EQ(hm_is_hot(r, GEMM, strlen(GEMM)), 1);
    CHECK_EQ_U64(hm_hot_threshold_ns(r), 50000);
    CHECK_EQ(hm_is_hot(plain, GEMM, strlen(GEMM)), 0);
    CHECK_EQ_U64(hm_hot_threshold_ns(plain), HM_DEFAULT_HOT_THRESHOLD_NS);
    CHECK_EQ(hm_is_hot_at(plain, GEMM, strlen(GEMM), 60000), 1);
    CHECK_EQ(hm_close(r), HM_OK);
    CHECK_EQ(hm_close(plain), HM_OK);

    hm_options_set_hot_threshold_ns(&o, 50000); /* a writer's threshold describes the file: refused */
    OPEN_FAILS(p, &o, HM_EOPTIONS, "read-only store takes a threshold of its own");
    CHECK_EQ_U64(file_hash(p), before);
}

static void test_seed_questions_refuse_bad_arguments(void) {
    hm_store *s;
    OPEN_OK(s, tpath("seed-args.hm"), NULL);
    uint64_t v = 7;
    CHECK_EQ(hm_dispatch_count(s, GEMM, strlen(GEMM), NULL), HM_EINVAL);
    CHECK_EQ(hm_mean_kernel_ns(s, GEMM, strlen(GEMM), NULL), HM_EINVAL);
    CHECK_EQ(hm_dispatch_count(s, "", 0, &v), HM_EEMPTYNAME);
    CHECK_EQ(hm_mean_kernel_ns(s, "\xff", 1, &v), HM_EBADNAME);
    CHECK_EQ_U64(v, 7); /* unchanged on an error */
    CHECK_EQ(hm_is_hot_at(s, GEMM, strlen(GEMM), UINT64_C(1) << 63), HM_EINVAL);
    CHECK(strstr(hm_last_error(s), "threshold_ns") != NULL);
    CHECK_EQ(hm_is_hot_at(s, "", 0, 10), HM_EEMPTYNAME);
    CHECK_EQ(hm_is_empty(NULL), HM_EINVAL);
    CHECK_EQ(hm_dispatch_count(NULL, GEMM, strlen(GEMM), &v), HM_EINVAL);
    CHECK_EQ(hm_close(s), HM_OK);
}

/* ------------------------------------------------------------------ one thread records, another asks */

enum { SAMPLES = 200000, SAMPLE_NS = 150000, SAMPLE_BYTES = 4096 };

typedef struct asker {
    hm_store *s;
    atomic_int done;
    long asked;
    int failed;
} asker;

/* Every answer comes from one whole record: every sample is 150 µs and 4 KiB, so a record of n
 * dispatches is exactly (n, 150,000 n, 150,000, 4,096 n); counts never go back. */
static void *ask_while_recorded(void *arg) {
    asker *a = arg;
    size_t nl = strlen(GEMM);
    uint64_t last = 0;
    while (!atomic_load(&a->done) && !a->failed) {
        uint64_t count = 0, mean = 0, size = 0;
        hm_region_record r;
        if (hm_dispatch_count(a->s, GEMM, nl, &count) != HM_OK || count < last) a->failed = 1;
        last = count;
        int rc = hm_lookup(a->s, GEMM, nl, &r);
        if (rc == HM_OK) {
            uint64_t n = r.dispatch_count;
            if (n < count || r.kernel_ns_total != (uint64_t)SAMPLE_NS * n || r.kernel_ns_max != SAMPLE_NS ||
                r.bytes_total != (uint64_t)SAMPLE_BYTES * n)
                a->failed = 2;
            if (hm_is_hot(a->s, GEMM, nl) != 1 || hm_is_hot_at(a->s, GEMM, nl, SAMPLE_NS) != 1 ||
                hm_is_hot_at(a->s, GEMM, nl, SAMPLE_NS + 1) != 0)
                a->failed = 3;
            if (hm_mean_kernel_ns(a->s, GEMM, nl, &mean) != HM_OK || mean != SAMPLE_NS) a->failed = 4;
            if (hm_size(a->s, &size) != HM_OK || size != 1 || hm_is_empty(a->s) != 0) a->failed = 5;
        } else if (rc != HM_ENOTFOUND) {
            a->failed = 6;
        }
        a->asked++;
    }
    return NULL;
}

static void test_seed_one_thread_records_while_another_asks(void) {
    hm_options o = opts_cap(16);
    hm_store *s;
    OPEN_OK(s, tpath("seed-threads.hm"), &o);
    asker a = {.s = s};
    atomic_init(&a.done, 0);
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, ask_while_recorded, &a), 0);
    int recorded = 0;
    for (int i = 0; i < SAMPLES; i++) recorded += t_rec(s, GEMM, SAMPLE_NS, SAMPLE_BYTES) == HM_OK;
    atomic_store(&a.done, 1);
    CHECK_EQ(pthread_join(t, NULL), 0);
    if (a.failed) fprintf(stderr, "  the asker failed (check %d) after %ld questions\n", a.failed, a.asked);
    CHECK_EQ(a.failed, 0);
    CHECK(a.asked > 0);
    CHECK_EQ(recorded, SAMPLES);
    uint64_t count = 0;
    CHECK_EQ(hm_dispatch_count(s, GEMM, strlen(GEMM), &count), HM_OK);
    CHECK_EQ_U64(count, SAMPLES);
    CHECK_EQ(hm_close(s), HM_OK);
}

const hm_test_case *hm_t_seed_cases(size_t *n) {
    static const hm_test_case cases[] = {
        {"seed_every_case_of_the_shared_vectors_holds", test_seed_every_case_of_the_shared_vectors_holds},
        {"seed_a_read_only_store_answers_hot_by_its_own_threshold", test_seed_a_read_only_store_answers_hot_by_its_own_threshold},
        {"seed_questions_refuse_bad_arguments", test_seed_questions_refuse_bad_arguments},
        {"seed_one_thread_records_while_another_asks", test_seed_one_thread_records_while_another_asks},
    };
    *n = sizeof cases / sizeof cases[0];
    return cases;
}
