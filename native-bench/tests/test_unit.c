/*
 * test_unit.c - unit tests of libhintmap (run under -fsanitize=address,undefined).
 *
 * Usage: test_unit [VECTORS_DIR [FILTER]]
 * VECTORS_DIR defaults to HM_VECTORS_DIR (../src/test/resources/vectors).
 */
#define _GNU_SOURCE 1
#include "hintmap.h"
#include "hintmap_format.h"
#include "hm_internal.h"
#include "hm_layout.h"
#include "hm_test.h"
#include "test_concurrent.h"
#include "test_hardening.h"
#include "test_hot_set.h"
#include "test_rules.h"
#include "../bench/hm_name_print.h"

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

#ifndef HM_VECTORS_DIR
#define HM_VECTORS_DIR "../src/test/resources/vectors"
#endif

static const char *g_vectors = HM_VECTORS_DIR;

static hm_options opts_cap(uint32_t cap) {
    hm_options o;
    hm_options_init(&o);
    hm_options_set_capacity(&o, cap);
    return o;
}

/* ------------------------------------------------------------------ vectors */

static int unhex(const char *p, size_t n, uint64_t *out) {
    uint64_t v = 0;
    if (n == 0 || n > 16) return 0;
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0) return 0;
        v = v << 4 | (uint64_t)d;
    }
    *out = v;
    return 1;
}

/* The next line of a vector file that is neither blank nor a '#' comment: 1 with *line and *ll set, 0 at the end. */
static int vector_line(const unsigned char *txt, size_t len, size_t *at, const char **line, size_t *ll) {
    while (*at < len) {
        size_t e = *at;
        while (e < len && txt[e] != '\n') e++;
        *line = (const char *)txt + *at;
        *ll = e - *at;
        *at = e + 1;
        if (*ll != 0 && (*line)[0] != '#') return 1;
    }
    return 0;
}

static void test_hm64_matches_committed_vectors(void) {
    char path[1024];
    snprintf(path, sizeof path, "%s/hash.txt", g_vectors);
    size_t len;
    unsigned char *txt = t_read_file(path, &len);
    if (!txt) fprintf(stderr, "  cannot read %s\n", path);
    CHECK(txt != NULL);
    hm_options o = opts_cap(64);
    hm_options_set_max_name_bytes(&o, 128);
    hm_store *s;
    OPEN_OK(s, tpath("vec.hm"), &o);
    int n = 0;
    size_t i = 0;
    const char *line;
    size_t ll;
    while (txt != NULL && vector_line(txt, len, &i, &line, &ll)) {
        const char *tab = memchr(line, '\t', ll);
        CHECK(tab != NULL);
        uint64_t want;
        CHECK(unhex(line, (size_t)(tab - line), &want));
        const char *name = tab + 1;
        size_t nl = ll - (size_t)(tab - line) - 1;
        if (nl == 7 && memcmp(name, "<empty>", 7) == 0) nl = 0;
        uint64_t got = hm_hash64(name, nl);
        if (got != want) fprintf(stderr, "  vector '%.*s': got %016" PRIx64 " want %016" PRIx64 "\n", (int)nl, name, got, want);
        CHECK_EQ_U64(got, want);
        if (nl > 0) { /* the word-wise hash of the record path and the stored hash agree too */
            CHECK_EQ(hm_record(s, name, nl, 1, 1), HM_OK);
            uint32_t k;
            CHECK_EQ(hm_test_slot_of(s, name, nl, &k), HM_OK);
            CHECK_EQ_U64(atomic_load(&hm_test_slot(s, k)->hash), want);
        }
        n++;
    }
    free(txt);
    CHECK(n >= 20);
    CHECK_EQ(hm_close(s), HM_OK);
}

/* sha256.c against the examples of FIPS 180-4 (NIST's "Examples with intermediate values") and
 * against Python's hashlib for every message length 0..200 (vectors/sha256.txt, make_vectors.py):
 * every padding case (0..55 bytes left: one block; 56..63: two) and multi-block messages. */
static void sha256_hex(const void *data, size_t len, char hex[65]) {
    unsigned char d[32];
    hm_test_sha256(data, len, d);
    for (unsigned i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

static void test_sha256_matches_the_fips_examples_and_hashlib_for_lengths_0_to_200(void) {
    static const struct { const char *msg; const char *want; } fips[] = {
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", /* 448 bits */
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
        {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"}, /* 896 bits */
    };
    char hex[65];
    for (size_t i = 0; i < sizeof fips / sizeof fips[0]; i++) {
        sha256_hex(fips[i].msg, strlen(fips[i].msg), hex);
        if (strcmp(hex, fips[i].want) != 0) fprintf(stderr, "  sha256('%s') = %s\n", fips[i].msg, hex);
        CHECK(strcmp(hex, fips[i].want) == 0);
    }
    size_t million = 1000000;
    char *a = malloc(million);
    CHECK(a != NULL);
    if (a != NULL) {
        memset(a, 'a', million);
        sha256_hex(a, million, hex);
        CHECK(strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0") == 0);
        free(a);
    }

    char path[1024];
    snprintf(path, sizeof path, "%s/sha256.txt", g_vectors);
    size_t len;
    unsigned char *txt = t_read_file(path, &len);
    if (!txt) fprintf(stderr, "  cannot read %s\n", path);
    CHECK(txt != NULL);
    unsigned char msg[256];
    for (size_t j = 0; j < sizeof msg; j++) msg[j] = (unsigned char)(31 * j + 7); /* make_vectors.py's message */
    int rows = 0;
    size_t i = 0;
    const char *line;
    size_t ll;
    while (txt != NULL && vector_line(txt, len, &i, &line, &ll)) {
        const char *tab = memchr(line, '\t', ll);
        CHECK(tab != NULL && ll - (size_t)(tab + 1 - line) == 64);
        if (tab == NULL) break;
        size_t n = strtoul(line, NULL, 10);
        CHECK_EQ(n, (size_t)rows);
        sha256_hex(msg, n, hex);
        if (memcmp(hex, tab + 1, 64) != 0) fprintf(stderr, "  sha256 of %zu bytes: %s, want %.64s\n", n, hex, tab + 1);
        CHECK(memcmp(hex, tab + 1, 64) == 0);
        rows++;
    }
    free(txt);
    CHECK_EQ(rows, 201);
}

static void test_fingerprint_matches_committed_vector(void) {
    char path[1024];
    snprintf(path, sizeof path, "%s/layout.txt", g_vectors);
    size_t len;
    unsigned char *txt = t_read_file(path, &len);
    CHECK(txt != NULL);
    const char *key = strstr((const char *)txt, "layout_fingerprint\t");
    CHECK(key != NULL);
    const char *hex = key + strlen("layout_fingerprint\t");
    size_t hl = strspn(hex, "0123456789abcdefABCDEF");
    uint64_t want;
    int okhex = unhex(hex, hl, &want);
    free(txt);
    CHECK(okhex);
    CHECK_EQ_U64(hm_layout_fingerprint(), want);
    hm_store *s;
    OPEN_OK(s, tpath("fp.hm"), NULL);
    hm_file_header *h = hm_test_mapping(s);
    CHECK_EQ_U64(h->layout_fingerprint, want);
    CHECK_EQ(hm_close(s), HM_OK);
}

/* The description hm-layout prints (from the X-macro lists) is, line for line, the one committed
 * in layout.txt after "# layout description", which Java's Layouts.describe() must print too: a
 * field added to (or moved in) one language's layout only fails that language's test. */
static void test_layout_description_matches_committed_vector(void) {
    char path[1024];
    snprintf(path, sizeof path, "%s/layout.txt", g_vectors);
    size_t len;
    char *txt = (char *)t_read_file(path, &len);
    CHECK(txt != NULL);
    const char *marker = "# layout description:";
    char *p = strstr(txt, marker);
    if (p == NULL) free(txt);
    CHECK(p != NULL);
    p += strcspn(p, "\n");
    if (*p) p++;
    size_t need = hm_layout_describe(NULL, 0);
    char *mine = malloc(need + 1);
    if (mine == NULL) free(txt);
    CHECK(mine != NULL);
    CHECK_EQ(hm_layout_describe(mine, need + 1), need);
    /* Compare line by line, so that a failure names the first line that differs. */
    const char *a = mine, *b = p;
    int line = 1, same = 1;
    while (same && (*a || *b)) {
        size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
        if (la != lb || memcmp(a, b, la) != 0) {
            fprintf(stderr, "  description line %d: hm-layout \"%.*s\", layout.txt \"%.*s\"\n", line, (int)la, a,
                    (int)lb, b);
            same = 0;
            break;
        }
        a += la + (a[la] == '\n');
        b += lb + (b[lb] == '\n');
        line++;
    }
    free(mine);
    free(txt);
    CHECK(same);
    CHECK(line > 40); /* 4 structs, 40 named fields and size lines: not an empty match */
}

/* ------------------------------------------------------------------ create / open */

static int count_tmp_files(void) {
    int n = 0;
    char cmd[700];
    snprintf(cmd, sizeof cmd, "ls %s | grep -c '\\.tmp$'", hm_t_dir);
    FILE *p = popen(cmd, "r");
    if (p) {
        if (fscanf(p, "%d", &n) != 1) n = -1;
        pclose(p);
    }
    return n;
}

static void test_create_writes_documented_header_and_reopen_checks_options(void) {
    const char *p = tpath("c.hm");
    hm_options o;
    hm_options_init(&o);
    hm_options_set_capacity(&o, 100);
    hm_options_set_max_name_bytes(&o, 40);
    hm_options_set_hot_threshold_ns(&o, 5000);
    hm_store *s;
    struct timespec before, after; /* the creation time lies between them, however long the open took */
    clock_gettime(CLOCK_REALTIME, &before);
    OPEN_OK(s, p, &o);
    clock_gettime(CLOCK_REALTIME, &after);
    struct stat st;
    CHECK(stat(p, &st) == 0);
    CHECK_EQ(st.st_size, 49152); /* 128+64 slot bytes, 256 index entries, 100 reference bytes: §2 */
    CHECK_EQ(st.st_mode & 0777, 0600);
    CHECK_EQ(count_tmp_files(), 0);
    hm_file_header *h = hm_test_mapping(s);
    CHECK_EQ_U64(atomic_load(&h->magic), HM_MAGIC);
    CHECK_EQ(h->format_version, 3);
    CHECK_EQ(h->header_bytes, 4096);
    CHECK_EQ(h->capacity, 100);
    CHECK_EQ(h->max_name_bytes, 40);
    CHECK_EQ(h->slot_bytes, 192);
    CHECK_EQ(h->index_entries, 256);
    CHECK_EQ(h->max_probe, 128);
    CHECK_EQ(h->writer_entries, 1024);
    CHECK_EQ(h->hot_threshold_ns, 5000);
    CHECK_EQ(h->writer_table_offset, 4096);
    CHECK_EQ(h->index_offset, 20480);
    CHECK_EQ(h->ref_table_offset, 24576); /* roundup(20480 + 8 * 256, 4096) */
    CHECK_EQ(h->slots_offset, 28672);     /* roundup(24576 + 100, 4096) */
    CHECK_EQ(h->file_bytes, 49152);       /* roundup(28672 + 100 * 192, 4096) */
    CHECK_EQ_U64(h->header_checksum, hm_hash64((unsigned char *)h + 8, 112));
    CHECK(h->created_epoch_ms >= (uint64_t)before.tv_sec * 1000u + (uint64_t)before.tv_nsec / 1000000u);
    CHECK(h->created_epoch_ms <= (uint64_t)after.tv_sec * 1000u + (uint64_t)after.tv_nsec / 1000000u);
    for (int i = 104; i < 120; i++) CHECK_EQ(((unsigned char *)h)[i], 0); /* reserved */
    CHECK_EQ(hm_capacity(s), 100);
    CHECK_EQ(hm_max_name_bytes(s), 40);
    CHECK_EQ(hm_hot_threshold_ns(s), 5000);
    uint64_t owner = hm_test_owner(s);
    hm_writer_entry *w = (hm_writer_entry *)((unsigned char *)h + 4096) + ((owner & 0xFFFFFFFF) - 1);
    CHECK((atomic_load(&w->token) >> 42) == (uint64_t)getpid());
    CHECK_EQ(owner >> 32, atomic_load(&w->generation) & 0xFFFFFFFF);
    CHECK_EQ(t_rec(s, "alpha", 10, 1), HM_OK);
    CHECK_EQ(hm_close(s), HM_OK);

    /* reopen without options: the file's layout is used */
    OPEN_OK(s, p, NULL);
    CHECK_EQ(hm_capacity(s), 100);
    hm_region_record r;
    CHECK_EQ(t_look(s, "alpha", &r), HM_OK);
    CHECK_EQ(r.dispatch_count, 1);
    CHECK_EQ(hm_close(s), HM_OK);
    /* explicit and equal: fine */
    OPEN_OK(s, p, &o);
    CHECK_EQ(hm_close(s), HM_OK);
    /* explicit and different */
    char err[512];
    hm_options x = opts_cap(200);
    CHECK_EQ(hm_open_ex(p, &x, &s, err, sizeof err), HM_EOPTIONS);
    CHECK(s == NULL);
    CHECK(strstr(err, "capacity") != NULL);
    hm_options_init(&x);
    x.capacity = 7; /* no mask, but differs from the default: explicit */
    CHECK_EQ(hm_open(p, &x, &s), HM_EOPTIONS);
    hm_options_init(&x);
    hm_options_set_capacity(&x, HM_DEFAULT_CAPACITY); /* default value, but marked explicit */
    CHECK_EQ(hm_open(p, &x, &s), HM_EOPTIONS);
    hm_options_init(&x);
    hm_options_set_hot_threshold_ns(&x, 1);
    CHECK_EQ(hm_open(p, &x, &s), HM_EOPTIONS);
    hm_options_init(&x);
    hm_options_set_max_name_bytes(&x, 64);
    CHECK_EQ(hm_open_ex(p, &x, &s, err, sizeof err), HM_EOPTIONS);
    CHECK(strstr(err, "max_name_bytes") != NULL);
    /* out-of-range options */
    hm_options_init(&x);
    x.capacity = HM_MAX_CAPACITY + 1;
    CHECK_EQ(hm_open(tpath("never.hm"), &x, &s), HM_EINVAL);
    hm_options_init(&x);
    x.max_name_bytes = 0;
    CHECK_EQ(hm_open(tpath("never.hm"), &x, &s), HM_EINVAL);
    x.max_name_bytes = HM_MIN_NAME_BYTES - 1; /* 32 cannot hold a stored form's '~' and 32 hex digits */
    CHECK_EQ(hm_open_ex(tpath("never.hm"), &x, &s, err, sizeof err), HM_EINVAL);
    CHECK(strstr(err, "max_name_bytes 32 is outside [33, 1024]") != NULL);
    x.max_name_bytes = 1025;
    CHECK_EQ(hm_open(tpath("never.hm"), &x, &s), HM_EINVAL);
    hm_options_init(&x);
    x.hot_threshold_ns = UINT64_C(1) << 63;
    CHECK_EQ(hm_open(tpath("never.hm"), &x, &s), HM_EINVAL);
    CHECK(access(tpath("never.hm"), F_OK) != 0);
    CHECK_EQ(hm_open(NULL, NULL, &s), HM_EINVAL);
    CHECK_EQ(hm_open(p, NULL, NULL), HM_EINVAL);

    /* read-only */
    hm_options ro;
    hm_options_init(&ro);
    ro.read_only = 1;
    OPEN_OK(s, p, &ro);
    CHECK(hm_is_read_only(s));
    CHECK_EQ(t_look(s, "alpha", &r), HM_OK);
    CHECK_EQ(t_rec(s, "alpha", 1, 1), HM_EREADONLY);
    CHECK(strstr(hm_last_error(s), "read-only") != NULL);
    hm_region *hr;
    CHECK_EQ(hm_region_resolve(s, "alpha", 5, &hr), HM_OK);
    CHECK_EQ(hm_region_lookup(hr, &r), HM_OK);
    CHECK_EQ(hm_region_add(hr, 1, 1), HM_EREADONLY);
    hm_region_free(hr);
    CHECK_EQ(hm_close(s), HM_OK);
    CHECK_EQ(hm_open_ex(tpath("missing.hm"), &ro, &s, err, sizeof err), HM_EMISSING);
    CHECK(strstr(err, "No such file") != NULL);
    CHECK(access(tpath("missing.hm"), F_OK) != 0);

}

static void test_close_releases_writer_entry_and_readers_claim_none(void) {
    const char *p = tpath("w.hm");
    hm_store *s, *r;
    OPEN_OK(s, p, NULL);
    uint64_t owner = hm_test_owner(s);
    hm_options ro;
    hm_options_init(&ro);
    ro.read_only = 1;
    OPEN_OK(r, p, &ro);
    CHECK_EQ(hm_test_owner(r), 0);
    hm_writer_entry *w = (hm_writer_entry *)((unsigned char *)hm_test_mapping(r) + 4096) + ((owner & 0xFFFFFFFF) - 1);
    CHECK(atomic_load(&w->token) != 0);
    CHECK_EQ(hm_close(s), HM_OK);
    CHECK_EQ(atomic_load(&w->token), 0);
    CHECK_EQ(hm_close(r), HM_OK);
}

/* ------------------------------------------------------------------ record semantics */

/* hm_record's name hint is keyed by the caller's pointer: one buffer reused for many names, and a
 * slot evicted and reused under a remembered pointer, must still count every sample under the
 * name the bytes spell at the call. */
static void test_one_name_buffer_reused_for_many_names_and_evictions_counts_each_under_its_name(void) {
    hm_options o = opts_cap(4);
    hm_store *s;
    OPEN_OK(s, tpath("hint.hm"), &o);
    char buf[32];
    uint64_t expected[12] = {0};
    for (int round = 0; round < 300; round++) {
        int r = (round * 7) % 12; /* 12 names through one buffer into 4 slots: hint hits, misses, evictions */
        int n = snprintf(buf, sizeof buf, "region_%02d", r);
        CHECK_EQ(hm_record(s, buf, (size_t)n, 1000 + (uint64_t)r, (uint64_t)r), HM_OK);
        expected[r]++;
        for (int q = 0; q < 12; q++) {
            char other[32];
            int m = snprintf(other, sizeof other, "region_%02d", q);
            hm_region_record rec;
            int rc = hm_lookup(s, other, (size_t)m, &rec);
            if (rc == HM_OK) {
                /* present: every sample it holds is its own (ns 1000 + q), never another name's */
                CHECK_EQ(rec.kernel_ns_total, rec.dispatch_count * (1000 + (uint64_t)q));
                CHECK(rec.dispatch_count <= expected[q]);
            } else {
                CHECK_EQ(rc, HM_ENOTFOUND);
            }
        }
    }
    /* the same pointer and length, other bytes, in the slot the hint names: the full path */
    int n = snprintf(buf, sizeof buf, "region_%02d", 3);
    CHECK_EQ(hm_record(s, buf, (size_t)n, 1003, 3), HM_OK);
    buf[n - 1] = 'x';
    CHECK_EQ(hm_record(s, buf, (size_t)n, 5, 5), HM_OK);
    hm_region_record rec;
    CHECK_EQ(hm_lookup(s, buf, (size_t)n, &rec), HM_OK);
    CHECK_EQ(rec.dispatch_count, 1);
    CHECK_EQ(rec.kernel_ns_total, 5);
    CHECK_EQ(hm_close(s), HM_OK);
}

/* hm_lookup and hm_is_hot remember, by the caller's pointer and length, the slot a name was found in
 * (the name cache of hm_record). After that region is evicted and its slot given to another region
 * of the same length, the same pointer finds the region absent (never the other region's record),
 * and after the region is recorded again, its own record. */
static void test_lookup_by_name_after_its_cached_slot_went_to_another_region_is_absent_then_its_own(void) {
    hm_options o = opts_cap(2);
    hm_options_set_hot_threshold_ns(&o, 1000);
    hm_store *s;
    OPEN_OK(s, tpath("hint.hm"), &o);
    char alpha[] = "region-alpha", beta[] = "region-betaa", gamma[] = "region-gamma";
    const size_t n = sizeof alpha - 1;
    CHECK_EQ(hm_record(s, alpha, n, 5000, 1), HM_OK); /* hot */
    hm_region_record r;
    for (int i = 0; i < 3; i++) { /* the first lookup fills the cache, the next ones use it */
        CHECK_EQ(hm_lookup(s, alpha, n, &r), HM_OK);
        CHECK_EQ(r.kernel_ns_total, 5000);
        CHECK_EQ(hm_is_hot(s, alpha, n), 1);
    }
    uint32_t k_alpha, k;
    CHECK_EQ(hm_test_slot_of(s, alpha, n, &k_alpha), HM_OK);
    /* capacity 2: beta and gamma (not hot) evict alpha; one of them takes its slot */
    for (int i = 0; i < 8 && hm_test_slot_of(s, alpha, n, &k) == HM_OK; i++) {
        CHECK_EQ(hm_record(s, beta, n, 10, 2), HM_OK);
        CHECK_EQ(hm_record(s, gamma, n, 20, 3), HM_OK);
    }
    CHECK_EQ(hm_test_slot_of(s, alpha, n, &k), HM_ENOTFOUND);
    int taken = (hm_test_slot_of(s, beta, n, &k) == HM_OK && k == k_alpha) ||
                (hm_test_slot_of(s, gamma, n, &k) == HM_OK && k == k_alpha);
    CHECK(taken);
    CHECK_EQ(hm_lookup(s, alpha, n, &r), HM_ENOTFOUND);
    CHECK_EQ(hm_is_hot(s, alpha, n), 0);
    CHECK_EQ(hm_lookup(s, alpha, n, &r), HM_ENOTFOUND); /* twice: a miss leaves nothing behind */
    /* alpha again, into some slot: the same pointer finds its own record, one sample */
    CHECK_EQ(hm_record(s, alpha, n, 7000, 1), HM_OK);
    CHECK_EQ(hm_lookup(s, alpha, n, &r), HM_OK);
    CHECK_EQ(r.dispatch_count, 1);
    CHECK_EQ(r.kernel_ns_total, 7000);
    CHECK_EQ(hm_is_hot(s, alpha, n), 1);
    CHECK_EQ(hm_close(s), HM_OK);
}

/* A name buffer rewritten in place: the same pointer and length now spell another name. hm_lookup
 * and hm_is_hot answer for the bytes at the call, whatever slot the pointer last found: another
 * present region's record, or absent, never the record of the name the buffer held before. */
static void test_lookup_through_a_rewritten_name_buffer_answers_for_the_bytes_at_the_call(void) {
    hm_options o = opts_cap(8);
    hm_options_set_hot_threshold_ns(&o, 1000);
    hm_store *s;
    OPEN_OK(s, tpath("hint.hm"), &o);
    char buf[32];
    for (int i = 0; i < 6; i++) { /* region_0i: mean (i + 1) * 400 ns, hot from i = 2 on */
        int m = snprintf(buf, sizeof buf, "region_%02d", i);
        CHECK_EQ(hm_record(s, buf, (size_t)m, (uint64_t)(i + 1) * 400, (uint64_t)i), HM_OK);
    }
    for (int round = 0; round < 200; round++) {
        int i = (round * 5) % 9; /* 0..8: six present names, three absent ones, through one buffer */
        int m = snprintf(buf, sizeof buf, "region_%02d", i);
        hm_region_record r;
        int rc = hm_lookup(s, buf, (size_t)m, &r);
        if (i < 6) {
            CHECK_EQ(rc, HM_OK);
            CHECK_EQ(r.dispatch_count, 1);
            CHECK_EQ(r.kernel_ns_total, (uint64_t)(i + 1) * 400);
            CHECK_EQ(r.bytes_total, (uint64_t)i);
        } else {
            CHECK_EQ(rc, HM_ENOTFOUND);
        }
        CHECK_EQ(hm_is_hot(s, buf, (size_t)m), i >= 2 && i < 6);
        CHECK_EQ(hm_lookup(s, buf, (size_t)m, &r), rc); /* again, through the slot just remembered */
    }
    /* one byte changed in place, the length kept: the full path answers */
    int m = snprintf(buf, sizeof buf, "region_%02d", 4);
    hm_region_record r;
    CHECK_EQ(hm_lookup(s, buf, (size_t)m, &r), HM_OK);
    buf[m - 1] = '1';
    CHECK_EQ(hm_lookup(s, buf, (size_t)m, &r), HM_OK);
    CHECK_EQ(r.kernel_ns_total, 800);
    buf[m - 1] = 'x';
    CHECK_EQ(hm_lookup(s, buf, (size_t)m, &r), HM_ENOTFOUND);
    CHECK_EQ(hm_is_hot(s, buf, (size_t)m), 0);
    /* a rewritten buffer must still be a valid name: the checks of the full path apply */
    buf[m - 1] = (char)0xC3;
    CHECK_EQ(hm_lookup(s, buf, (size_t)m, &r), HM_EBADNAME);
    CHECK_EQ(hm_close(s), HM_OK);
}

/* The name cache itself: with the index emptied, a lookup can only find a region through the slot its
 * name pointer was found in before. Each name of 1..24 bytes (whole words, tails, both) is found so,
 * and with any one byte changed in place it is not: the slot's name is compared byte for byte. */
static void test_lookup_by_a_remembered_name_pointer_reads_its_slot_and_compares_every_byte(void) {
    hm_options o = opts_cap(32);
    hm_store *s;
    OPEN_OK(s, tpath("hint.hm"), &o);
    char names[24][32];
    for (int l = 1; l <= 24; l++) {
        for (int b = 0; b < l; b++) names[l - 1][b] = (char)('a' + (l + b) % 26);
        CHECK_EQ(hm_record(s, names[l - 1], (size_t)l, (uint64_t)l, 0), HM_OK);
        hm_region_record r;
        CHECK_EQ(hm_lookup(s, names[l - 1], (size_t)l, &r), HM_OK); /* remembers the slot */
    }
    hm_file_header *h = hm_test_mapping(s);
    _Atomic uint64_t *index = (_Atomic uint64_t *)((unsigned char *)h + h->index_offset);
    for (uint32_t j = 0; j < h->index_entries; j++) atomic_store(&index[j], 0); /* the full path finds nothing now */
    for (int l = 1; l <= 24; l++) {
        char *n = names[l - 1];
        hm_region_record r;
        CHECK_EQ(hm_lookup(s, n, (size_t)l, &r), HM_OK);
        CHECK_EQ(r.kernel_ns_total, l);
        for (int b = 0; b < l; b++) {
            char was = n[b];
            n[b] = (char)('A' + b % 26);
            CHECK_EQ(hm_lookup(s, n, (size_t)l, &r), HM_ENOTFOUND);
            n[b] = was;
        }
        CHECK_EQ(hm_is_hot(s, n, (size_t)l), 0); /* l ns: not hot (threshold 100,000 ns) */
        CHECK_EQ(hm_lookup(s, n, (size_t)l, &r), HM_OK);
    }
    CHECK_EQ(hm_close(s), HM_OK);
}

/* The record rules (hintmap_format.h, Java's RecordRules) equal exact arithmetic: the division
 * they replace on small values, and 128-bit division at the edges of [0, 2^63-1]. */
static int exact_hot(uint64_t count, uint64_t total, uint64_t threshold) {
    return count != 0 && total / count >= threshold;
}
static int exact_sound(uint64_t count, uint64_t total, uint64_t max, uint64_t bytes) {
    return count != 0 && count <= HM_VALUE_MAX && total <= HM_VALUE_MAX && bytes <= HM_VALUE_MAX && max <= total &&
           total / count <= max;
}
static void test_record_rules_equal_exact_arithmetic(void) {
    for (uint64_t count = 0; count <= 12; count++)
        for (uint64_t total = 0; total <= 60; total++)
            for (uint64_t b = 0; b <= 62; b++) {
                CHECK_EQ(hm_record_hot(count, total, b), exact_hot(count, total, b));
                CHECK_EQ(hm_record_sound(count, total, b, 0), exact_sound(count, total, b, 0));
            }
    const uint64_t m = HM_VALUE_MAX;
    const uint64_t edges[] = {0, 1, 2, 3, m / 3, m / 2, m / 2 + 1, m - 1, m, m + 1, UINT64_MAX, UINT64_C(3037000499),
                              UINT64_C(3037000500), UINT64_C(1) << 32};
    const size_t n = sizeof edges / sizeof edges[0];
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            for (size_t k = 0; k < n; k++) {
                uint64_t count = edges[i], total = edges[j], b = edges[k];
                if (total <= m) CHECK_EQ(hm_record_hot(count, total, b), exact_hot(count, total, b));
                CHECK_EQ(hm_record_sound(count, total, b, 0), exact_sound(count, total, b, 0));
                CHECK_EQ(hm_record_sound(count, total, b, total), exact_sound(count, total, b, total));
            }
}

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

/* ------------------------------------------------------------------ eviction */

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

/* The C twin of `verify`'s LIVE and index rules (FORMAT §9.1): every slot below high_water is
 * FREE or LIVE and sound (valid UTF-8 name, a current record satisfying §7.2.1: hm_region_at
 * returns it, hm_lookup finds it), has exactly one index entry within max_probe of its home whose
 * tag is hash >> 34 and whose dist is its true distance, nothing else is indexed, live_count is
 * the number of LIVE slots, and every reference byte is 0 or 1 (§3.9). */
static int index_consistent(hm_store *s) {
    hm_file_header *h = hm_test_mapping(s);
    _Atomic uint64_t *index = (_Atomic uint64_t *)((unsigned char *)h + h->index_offset);
    const unsigned char *ref = (const unsigned char *)h + h->ref_table_offset;
    uint32_t mask = h->index_entries - 1;
    uint32_t live = 0, entries = 0;
    for (uint32_t k = 0; k < h->capacity; k++) {
        if (ref[k] > 1) return 0;
        hm_slot *sl = hm_test_slot(s, k);
        if (atomic_load(&sl->gen) & 1) return 0; /* BUSY with no change under way */
        if (atomic_load(&sl->name_len) == 0) continue;
        live++;
        char nb[HM_MAX_NAME_BYTES_LIMIT];
        size_t nl;
        hm_region_record r, r2;
        if (hm_region_at(s, k, nb, sizeof nb, &nl, &r) != HM_OK) return 0; /* not sound */
        if (hm_lookup(s, nb, nl, &r2) != HM_OK) return 0; /* not UTF-8 (HM_EBADNAME), or not indexed */
    }
    for (uint32_t j = 0; j < h->index_entries; j++) {
        uint64_t e = atomic_load(&index[j]);
        if (e == 0) continue;
        entries++;
        uint64_t k1 = e & HM_INDEX_SLOT_MASK;
        if (k1 == 0 || k1 > h->capacity) return 0;
        hm_slot *sl = hm_test_slot(s, (uint32_t)k1 - 1);
        uint64_t hash = atomic_load(&sl->hash);
        if (atomic_load(&sl->name_len) == 0 || (hash >> HM_INDEX_TAG_SHIFT) != (e >> HM_INDEX_TAG_SHIFT)) return 0;
        uint32_t dist = (j - ((uint32_t)hash & mask)) & mask;
        if (dist >= h->max_probe) return 0;
        if (((e >> HM_INDEX_DIST_SHIFT) & HM_INDEX_DIST_MASK) != dist) return 0; /* its dist is its distance */
        /* no empty entry between home and j */
        for (uint32_t i = (uint32_t)hash & mask; i != j; i = (i + 1) & mask)
            if (atomic_load(&index[i]) == 0) return 0;
    }
    return live == entries && live == atomic_load(&h->live_count);
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

/* ------------------------------------------------------------------ v2: dist, reference table, soundness */

static void expect_open_fails(const char *name, const unsigned char *bytes, size_t len, int code, const char *needle);

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

/* §5 step 2, §12: the committed v1 golden file (and its copy anywhere) is refused with
 * HM_EVERSION, before any other check, with a message naming the file and the command that
 * converts it; the file is left as it was. */
static void test_v1_file_is_refused_naming_hintmap_upgrade(void) {
    char src[1024];
    snprintf(src, sizeof src, "%s/golden-v1.hints", g_vectors);
    size_t len;
    unsigned char *v1 = t_read_file(src, &len);
    if (v1 == NULL) fprintf(stderr, "  cannot read %s\n", src);
    CHECK(v1 != NULL);
    uint32_t ver;
    memcpy(&ver, v1 + 8, 4);
    CHECK_EQ(ver, 1);
    char want[1200];
    snprintf(want, sizeof want, "hint file format version 1; this library reads version 3 \xe2\x80\x94 convert it with: "
                                "hintmap upgrade %s", tpath("golden-v1.hints"));
    expect_open_fails("golden-v1.hints", v1, len, HM_EVERSION, want);
    free(v1);
    CHECK(strstr(hm_strerror(HM_EVERSION), "hintmap upgrade") != NULL);
    CHECK_EQ(hm_format_version(), 3);
}

/* ------------------------------------------------------------------ bad files */

static void write_header_checksum(unsigned char *f) {
    uint64_t ck = hm_hash64(f + 8, 112);
    memcpy(f + 120, &ck, 8);
}

static void expect_open_fails(const char *name, const unsigned char *bytes, size_t len, int code, const char *needle) {
    const char *p = tpath(name);
    CHECK(t_write_file(p, bytes, len) == 0);
    for (int ro = 0; ro < 2; ro++) {
        hm_options o;
        hm_options_init(&o);
        o.read_only = ro;
        hm_store *s = (hm_store *)1;
        char err[512];
        int rc = hm_open_ex(p, &o, &s, err, sizeof err);
        if (rc != code) fprintf(stderr, "  %s (ro=%d): got %d (%s), want %d\n", name, ro, rc, err, code);
        CHECK_EQ(rc, code);
        CHECK(s == NULL);
        if (needle && !strstr(err, needle)) fprintf(stderr, "  %s: message '%s' lacks '%s'\n", name, err, needle);
        CHECK(needle == NULL || strstr(err, needle) != NULL);
        CHECK(strstr(err, p) != NULL); /* names the file */
        size_t got_len;
        unsigned char *after = t_read_file(p, &got_len);
        CHECK(after != NULL);
        int same = got_len == len && memcmp(after, bytes, len) == 0;
        free(after);
        CHECK(same); /* a failed open never modifies the file */
    }
    CHECK_EQ(count_tmp_files(), 0);
}

static void test_damaged_header_is_refused_and_file_left_unmodified(void) {
    char p[1024];
    snprintf(p, sizeof p, "%s", tpath("good.hm"));
    hm_options o = opts_cap(16);
    hm_store *s;
    OPEN_OK(s, p, &o);
    CHECK_EQ(t_rec(s, "x", 1, 1), HM_OK);
    CHECK_EQ(hm_close(s), HM_OK);
    size_t len;
    unsigned char *good = t_read_file(p, &len);
    CHECK(good != NULL && len > 8192);
    unsigned char *f = malloc(len + 4096);
    CHECK(f != NULL);
#define RESET() memcpy(f, good, len)
    expect_open_fails("empty.hm", f, 0, HM_ETRUNCATED, "truncated");
    RESET();
    expect_open_fails("short.hm", f, 100, HM_ETRUNCATED, "truncated");
    RESET();
    expect_open_fails("cut.hm", f, 8192, HM_ETRUNCATED, "file_bytes");
    RESET();
    memset(f, 0, 8);
    expect_open_fails("unfinished.hm", f, len, HM_EUNFINISHED, "magic");
    RESET();
    f[0] ^= 0x20;
    expect_open_fails("magic.hm", f, len, HM_ENOTHINT, "not a hint file");
    RESET();
    f[8] = 4;
    expect_open_fails("newer.hm", f, len, HM_EVERSION, "newer");
    RESET();
    f[8] = 0;
    expect_open_fails("older.hm", f, len, HM_EVERSION, "format_version");
    RESET();
    f[8] = 1; /* a v1 file: refused at the version check, before its (v1) fingerprint is compared */
    expect_open_fails("v1.hm", f, len, HM_EVERSION, "format version 1; this library reads version 3");
    {
        char want[1200];
        snprintf(want, sizeof want, "convert it with: hintmap upgrade %s", tpath("v1.hm"));
        expect_open_fails("v1.hm", f, len, HM_EVERSION, want);
        /* where a C user gets that command: the tool's distribution of this version */
        expect_open_fails("v1.hm", f, len, HM_EVERSION, "hintmap-" HM_VERSION_STRING "-bin.tar.gz");
    }
    RESET();
    f[8] = 2; /* a v2 file (same layout, v2's stored names): refused, naming the command that converts it */
    {
        char want[1200];
        snprintf(want, sizeof want, "format version 2; this library reads version 3 \xe2\x80\x94 convert it with: "
                                    "hintmap upgrade %s", tpath("v2.hm"));
        expect_open_fails("v2.hm", f, len, HM_EVERSION, want);
    }
    RESET();
    f[56] ^= 0x01; /* created_epoch_ms */
    expect_open_fails("flip56.hm", f, len, HM_ECHECKSUM, "checksum");
    RESET();
    f[30] ^= 0x01; /* max_name_bytes */
    expect_open_fails("flip30.hm", f, len, HM_ECHECKSUM, "checksum");
    RESET();
    f[100] = 1; /* ref_table_offset */
    expect_open_fails("flip100.hm", f, len, HM_ECHECKSUM, "checksum");
    RESET();
    f[110] = 1; /* reserved */
    expect_open_fails("flip110.hm", f, len, HM_ECHECKSUM, "checksum");
    RESET();
    f[123] ^= 0x80; /* the checksum itself */
    expect_open_fails("flip123.hm", f, len, HM_ECHECKSUM, "checksum");
    RESET();
    f[16] ^= 0x01;
    write_header_checksum(f);
    expect_open_fails("layout.hm", f, len, HM_ELAYOUT, "layout");
    RESET();
    f[24] = 17; /* capacity without the matching derived values */
    write_header_checksum(f);
    expect_open_fails("cap.hm", f, len, HM_EINCONSISTENT, "index_entries");
    RESET();
    f[12] = 1; /* header_bytes 0x1001 */
    write_header_checksum(f);
    expect_open_fails("hdrbytes.hm", f, len, HM_EINCONSISTENT, "header_bytes");
    RESET();
    memset(f + 28, 0, 4); /* max_name_bytes 0 */
    write_header_checksum(f);
    expect_open_fails("mnb0.hm", f, len, HM_EINCONSISTENT, "max_name_bytes");
    RESET();
    f[28] = 32; /* max_name_bytes 256 -> 32: below the minimum, named before any derived value */
    f[29] = 0;
    write_header_checksum(f);
    expect_open_fails("mnb32.hm", f, len, HM_EINCONSISTENT, "max_name_bytes is 32, outside [33, 1024]");
    RESET();
    f[40] = 7; /* max_probe */
    write_header_checksum(f);
    expect_open_fails("probe.hm", f, len, HM_EINCONSISTENT, "max_probe");
    RESET();
    f[97] ^= 0x10; /* ref_table_offset off by 4096 */
    write_header_checksum(f);
    expect_open_fails("reftab.hm", f, len, HM_EINCONSISTENT, "ref_table_offset");
    RESET();
    f[81] ^= 0x10; /* slots_offset off by 4096 */
    write_header_checksum(f);
    expect_open_fails("slotsoff.hm", f, len, HM_EINCONSISTENT, "slots_offset");
    RESET();
    f[55] = 0x80; /* hot threshold with the top bit */
    write_header_checksum(f);
    expect_open_fails("hot.hm", f, len, HM_EINCONSISTENT, "hot_threshold_ns");
    RESET();
    memset(f + len, 0, 4096);
    expect_open_fails("long.hm", f, len + 4096, HM_EINCONSISTENT, "file_bytes");
    RESET();
    /* the good file still opens */
    OPEN_OK(s, p, NULL);
    CHECK_EQ(hm_close(s), HM_OK);
#undef RESET
    free(f);
    free(good);
}

/* ------------------------------------------------------------------ crashed writers */

static void child_hold_and_wait(const char *path, int fd, int what, const char *name) {
    /* in the child: own store, take a lock, report, wait to be killed */
    hm_store *cs;
    if (hm_open(path, NULL, &cs) != HM_OK) _exit(3);
    int rc = what == 0 ? hm_test_hold_slot_lock(cs, name, strlen(name)) : hm_test_hold_struct_lock(cs);
    if (rc != HM_OK) _exit(4);
    if (what == 2) {
        /* die inside a structural change of slot `name` (§7.4 steps 4-7 done) */
        uint32_t k;
        if (hm_test_slot_of(cs, name, strlen(name), &k) != HM_OK) _exit(5);
        hm_file_header *h = hm_test_mapping(cs);
        hm_slot *sl = hm_test_slot(cs, k);
        atomic_store(&sl->lock, hm_test_owner(cs));
        atomic_store(&h->journal_slot, (uint64_t)k + 1);
        atomic_store(&h->index_seq, atomic_load(&h->index_seq) + 1);
        atomic_store(&sl->gen, atomic_load(&sl->gen) + 1);
    }
    char c = 'x';
    if (write(fd, &c, 1) != 1) _exit(6);
    for (;;) pause();
}

typedef struct leader_exit_arg {
    const char *path;
    int fd;
} leader_exit_arg;

/* State (field 3) of this process in /proc/self/stat: the leader thread's state. */
static char own_process_state(void) {
    char buf[512];
    FILE *f = fopen("/proc/self/stat", "r");
    if (f == NULL) return '?';
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    return p && p[1] == ' ' ? p[2] : '?';
}

static void *hold_from_thread(void *p) {
    leader_exit_arg *a = p;
    while (own_process_state() != 'Z') usleep(1000); /* until the leader has really exited */
    child_hold_and_wait(a->path, a->fd, 0, "r"); /* never returns */
    return NULL;
}

typedef struct rec_arg {
    hm_store *s;
    const char *name;
    _Atomic int done;
    int rc;
} rec_arg;

static void *rec_thread(void *p) {
    rec_arg *a = p;
    a->rc = t_rec(a->s, a->name, 5, 5);
    atomic_store(&a->done, 1);
    return NULL;
}

/* A process whose main thread called pthread_exit() shows as a zombie (state Z) in
 * /proc/<pid>/stat while its other threads run: it is alive, and its locks must not be taken. */
static void test_zombie_leader_with_live_threads_keeps_its_locks(void) {
    const char *p = tpath("leader.hm");
    hm_options o = opts_cap(16);
    hm_store *s;
    OPEN_OK(s, p, &o);
    CHECK_EQ(t_rec(s, "r", 1, 1), HM_OK);
    int fds[2];
    CHECK(pipe(fds) == 0);
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        static leader_exit_arg a;
        a.path = p;
        a.fd = fds[1];
        pthread_t t;
        if (pthread_create(&t, NULL, hold_from_thread, &a) != 0) _exit(7);
        alarm(300); /* never outlive a failed test (its pipe would keep the runner's output open) */
        pthread_exit(NULL); /* the leader exits, the holding thread lives on */
    }
    close(fds[1]);
    char c;
    CHECK(read(fds[0], &c, 1) == 1);
    close(fds[0]);
    hm_test_set_lock_wait_limit_ns(s, T_NO_GIVEUP_NS); /* the give-up (§6.2) is test_hardening's */
    uint64_t checks = hm_test_liveness_checks(s);
    rec_arg a = {s, "r", 0, 0};
    pthread_t t;
    CHECK(pthread_create(&t, NULL, rec_thread, &a) == 0);
    /* not "not done after a while": the writer found the holder's process alive 10 times */
    int reached = t_await_liveness_checks(s, checks + 10, &a.done);
    int waited = !atomic_load(&a.done);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    pthread_join(t, NULL);
    CHECK_EQ(reached, 0);
    CHECK(waited); /* waited: the holder's process is alive */
    CHECK_EQ(a.rc, HM_OK);
    hm_region_record r;
    CHECK_EQ(t_look(s, "r", &r), HM_OK);
    CHECK_EQ(r.dispatch_count, 2);
    CHECK_EQ(hm_close(s), HM_OK);
}

static void test_dead_owners_slot_lock_is_stolen_live_owners_is_waited_for(void) {
    const char *p = tpath("dead.hm");
    hm_options o = opts_cap(16);
    hm_store *s;
    OPEN_OK(s, p, &o);
    CHECK_EQ(t_rec(s, "r", 1, 1), HM_OK);
    for (int reap_first = 0; reap_first < 2; reap_first++) {
        int fds[2];
        CHECK(pipe(fds) == 0);
        fflush(NULL);
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
            close(fds[0]);
            child_hold_and_wait(p, fds[1], 0, "r");
        }
        close(fds[1]);
        char c;
        CHECK(read(fds[0], &c, 1) == 1);
        close(fds[0]);
        /* the holder is alive: a writer must wait (found it alive 10 times), not steal */
        hm_test_set_lock_wait_limit_ns(s, T_NO_GIVEUP_NS); /* the give-up (§6.2) is test_hardening's */
        uint64_t checks = hm_test_liveness_checks(s);
        rec_arg a = {s, "r", 0, 0};
        pthread_t t;
        CHECK(pthread_create(&t, NULL, rec_thread, &a) == 0);
        int reached = t_await_liveness_checks(s, checks + 10, &a.done);
        int still_waiting = !atomic_load(&a.done);
        double t0 = t_now_ms();
        kill(pid, SIGKILL);
        if (reap_first) waitpid(pid, NULL, 0); /* else: a zombie (state Z) until reaped */
        pthread_join(t, NULL);
        double waited = t_now_ms() - t0;
        if (!reap_first) waitpid(pid, NULL, 0);
        CHECK_EQ(reached, 0);
        CHECK(still_waiting);
        CHECK_EQ(a.rc, HM_OK);
        fprintf(stderr, "  info: record completed %.2f ms after kill -9 of the lock holder (%s)\n", waited,
                reap_first ? "reaped" : "zombie");
    }
    hm_region_record r;
    CHECK_EQ(t_look(s, "r", &r), HM_OK);
    CHECK_EQ(r.dispatch_count, 3);
    hm_stats st;
    CHECK_EQ(hm_stats_get(s, &st), HM_OK);
    CHECK_EQ(st.stolen_locks, 2);
    CHECK_EQ(st.recoveries, 0);
    /* the dead child's writer entry is reclaimed by the next open */
    hm_store *s2;
    OPEN_OK(s2, p, NULL);
    hm_file_header *h = hm_test_mapping(s);
    hm_writer_entry *w = (hm_writer_entry *)((unsigned char *)h + 4096);
    int held = 0;
    for (int i = 0; i < 1024; i++) held += atomic_load(&w[i].token) != 0;
    CHECK_EQ(held, 2); /* s and s2 only */
    CHECK_EQ(hm_close(s2), HM_OK);
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

/* ------------------------------------------------------------------ writer table */

static void test_full_writer_table_refuses_writers_not_readers(void) {
    const char *p = tpath("full.hm");
    hm_options o = opts_cap(4);
    enum { N = 1024 };
    hm_store **ss = calloc(N, sizeof *ss);
    CHECK(ss != NULL);
    for (int i = 0; i < N; i++) OPEN_OK(ss[i], p, &o);
    hm_store *extra;
    char err[512];
    CHECK_EQ(hm_open_ex(p, &o, &extra, err, sizeof err), HM_EWRITERS);
    CHECK(strstr(err, "writer table full") != NULL);
    hm_options ro;
    hm_options_init(&ro);
    ro.read_only = 1;
    OPEN_OK(extra, p, &ro); /* readers claim nothing */
    CHECK_EQ(hm_close(extra), HM_OK);
    CHECK_EQ(hm_close(ss[500]), HM_OK);
    OPEN_OK(ss[500], p, &o);
    CHECK_EQ(t_rec(ss[500], "w", 1, 1), HM_OK);
    for (int i = 0; i < N; i++) CHECK_EQ(hm_close(ss[i]), HM_OK);
    free(ss);
}

static void test_processes_recording_together_lose_no_sample(void) {
    const char *p = tpath("mp.hm");
    hm_options o = opts_cap(64);
    hm_store *s;
    OPEN_OK(s, p, &o);
    enum { P = 3, R = 20000, REG = 32 };
    pid_t pids[P];
    fflush(NULL);
    for (int i = 0; i < P; i++) {
        pids[i] = fork();
        CHECK(pids[i] >= 0);
        if (pids[i] == 0) {
            hm_store *cs;
            if (hm_open(p, NULL, &cs) != HM_OK) _exit(3);
            char nb[16];
            for (int n = 0; n < R; n++) {
                snprintf(nb, sizeof nb, "mp-%d", n % REG);
                if (hm_record(cs, nb, strlen(nb), (uint64_t)(n % 7) + 1, 2) != HM_OK) _exit(4);
            }
            _exit(hm_close(cs) == HM_OK ? 0 : 5);
        }
    }
    for (int i = 0; i < P; i++) {
        int st;
        CHECK(waitpid(pids[i], &st, 0) == pids[i]);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    uint64_t count = 0, total = 0, want_total = 0;
    for (int n = 0; n < R; n++) want_total += (uint64_t)(n % 7) + 1;
    for (int g = 0; g < REG; g++) {
        char nb[16];
        snprintf(nb, sizeof nb, "mp-%d", g);
        hm_region_record r;
        CHECK_EQ(t_look(s, nb, &r), HM_OK);
        CHECK_EQ(r.dispatch_count, (uint64_t)P * R / REG);
        CHECK_EQ(r.bytes_total, 2 * r.dispatch_count);
        count += r.dispatch_count;
        total += r.kernel_ns_total;
    }
    CHECK_EQ(count, (uint64_t)P * R);
    CHECK_EQ(total, P * want_total);
    CHECK_EQ(hm_close(s), HM_OK);
}

static void test_concurrent_writers_sum_exactly_and_reader_never_sees_torn_copy_asan(void) { hm_t_concurrent_totals(4, 30000); }
static void test_concurrent_inserts_and_evictions_keep_counts_and_index_consistent_asan(void) { hm_t_concurrent_eviction(4, 20000); }
static void test_threads_give_up_on_live_holder_and_record_elsewhere_asan(void) { hm_t_concurrent_giveup(4); }
static void test_reads_by_name_or_handle_under_eviction_never_return_another_regions_record_asan(void) { hm_t_concurrent_named_reads(3, 20000); }

/* Java's Problem.MISSING (HintFileOpener): nothing at the path of a read-only open, and no
 * directory to create a file in, are HM_EMISSING ("no hints yet"), not HM_EIO; nothing is created. */
static void test_missing_file_read_only_and_missing_directory_are_emissing(void) {
    hm_options ro;
    hm_options_init(&ro);
    ro.read_only = 1;
    hm_store *s = (hm_store *)&ro; /* not NULL: the failed open must set it to NULL */
    char err[512];
    const char *p = tpath("never-recorded.hm");
    CHECK_EQ(hm_open_ex(p, &ro, &s, err, sizeof err), HM_EMISSING);
    CHECK(s == NULL);
    CHECK(strstr(err, "no such hint file") != NULL);
    CHECK(strstr(err, p) != NULL);
    CHECK(access(p, F_OK) != 0);
    CHECK(strstr(hm_strerror(HM_EMISSING), "no such hint file") != NULL);

    /* a writer's open in a directory that does not exist: creation fails, nothing is made */
    char dir[1024], in_dir[1100];
    snprintf(dir, sizeof dir, "%s", tpath("no-such-dir"));
    snprintf(in_dir, sizeof in_dir, "%s/h.hm", dir);
    CHECK_EQ(hm_open_ex(in_dir, NULL, &s, err, sizeof err), HM_EMISSING);
    CHECK(s == NULL);
    CHECK(strstr(err, "no directory") != NULL);
    CHECK(strstr(err, "No such file") != NULL);
    CHECK(access(dir, F_OK) != 0);
    /* read-only in the missing directory: the same code */
    CHECK_EQ(hm_open_ex(in_dir, &ro, &s, err, sizeof err), HM_EMISSING);

    /* other failures to open stay what they were: a path through a regular file is ENOTDIR, HM_EIO */
    const char *file = tpath("plain-file");
    FILE *f = fopen(file, "w");
    CHECK(f != NULL);
    if (f) fclose(f);
    char through[1100];
    snprintf(through, sizeof through, "%s/h.hm", file);
    CHECK_EQ(hm_open_ex(through, &ro, &s, err, sizeof err), HM_EIO);
    CHECK_EQ(hm_open_ex(through, NULL, &s, err, sizeof err), HM_EIO);
}

/* FORMAT §1.1: hm_name_canonical agrees with the shared vectors (Java and the collector check them
 * too), and a 300-byte kernel name recorded by name is found by the same name through every API. */
static void test_long_names_follow_the_shared_vectors_and_are_found_by_the_full_name(void) {
    char path[1024];
    snprintf(path, sizeof path, "%s/stored-names.txt", g_vectors);
    size_t len;
    unsigned char *txt = t_read_file(path, &len);
    if (!txt) fprintf(stderr, "  cannot read %s\n", path);
    CHECK(txt != NULL);
    int rows = 0;
    size_t i = 0;
    const char *line;
    size_t ll;
    while (txt != NULL && vector_line(txt, len, &i, &line, &ll)) {
        const char *t1 = memchr(line, '\t', ll);
        const char *t2 = t1 ? memchr(t1 + 1, '\t', ll - (size_t)(t1 + 1 - line)) : NULL;
        CHECK(t1 != NULL && t2 != NULL);
        if (t1 == NULL || t2 == NULL) break;
        uint32_t limit = (uint32_t)strtoul(line, NULL, 10);
        const char *want = t1 + 1, *name = t2 + 1;
        size_t want_len = (size_t)(t2 - want), name_len = ll - (size_t)(name - line);
        char got[HM_MAX_NAME_BYTES_LIMIT];
        size_t got_len = 0;
        CHECK_EQ(hm_name_canonical(name, name_len, limit, got, sizeof got, &got_len), HM_OK);
        if (got_len != want_len || memcmp(got, want, want_len) != 0)
            fprintf(stderr, "  limit %u: got '%.*s' want '%.*s'\n", limit, (int)got_len, got, (int)want_len, want);
        CHECK(got_len == want_len && memcmp(got, want, want_len) == 0);
        size_t again_len = 0; /* the stored form of a stored form is itself */
        char again[HM_MAX_NAME_BYTES_LIMIT];
        CHECK_EQ(hm_name_canonical(got, got_len, limit, again, sizeof again, &again_len), HM_OK);
        CHECK(again_len == got_len && memcmp(again, got, got_len) == 0);
        if (got_len > 1) { /* a buffer one byte short: refused, with the size needed */
            size_t need = 0;
            CHECK_EQ(hm_name_canonical(name, name_len, limit, again, got_len - 1, &need), HM_EINVAL);
            CHECK_EQ(need, got_len);
        }
        rows++;
    }
    free(txt);
    CHECK_EQ(rows, 91);
    char out[64];
    size_t out_len;
    CHECK_EQ(hm_name_canonical("", 0, 64, out, sizeof out, &out_len), HM_EEMPTYNAME);
    CHECK_EQ(hm_name_canonical("\xff", 1, 64, out, sizeof out, &out_len), HM_EBADNAME);
    CHECK_EQ(hm_name_canonical("abc", 3, 0, out, sizeof out, &out_len), HM_EINVAL);
    CHECK_EQ(hm_name_canonical("abc", 3, HM_MIN_NAME_BYTES - 1, out, sizeof out, &out_len), HM_EINVAL);
    CHECK_EQ(hm_name_canonical("abc", 3, HM_MIN_NAME_BYTES, out, sizeof out, &out_len), HM_OK);
    CHECK_EQ(hm_name_canonical("abc", 3, HM_MAX_NAME_BYTES_LIMIT + 1, out, sizeof out, &out_len), HM_EINVAL);

    /* a 300-byte templated kernel name, with spaces and punctuation, in files of three limits */
    char name[301];
    size_t n = 0;
    n += (size_t)snprintf(name, sizeof name, "void cute::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, int>, ");
    const char *more = "cutlass::epilogue::collective::DefaultEpilogue<float, 8>, ";
    for (size_t m = strlen(more), j = 0; n < 299; n++, j++) name[n] = more[j % m];
    name[299] = ')';
    n = 300;
    uint32_t limits[] = {64, 256, 1024};
    for (size_t li = 0; li < sizeof limits / sizeof limits[0]; li++) {
        hm_options o = opts_cap(16);
        hm_options_set_max_name_bytes(&o, limits[li]);
        hm_options_set_hot_threshold_ns(&o, 1000);
        char file[64];
        snprintf(file, sizeof file, "long-%u.hm", limits[li]);
        hm_store *s;
        OPEN_OK(s, tpath(file), &o);
        CHECK_EQ(hm_record(s, name, n, 2000, 10), HM_OK);
        CHECK_EQ(hm_record(s, name, n, 4000, 10), HM_OK);
        hm_region_record r;
        CHECK_EQ(hm_lookup(s, name, n, &r), HM_OK);
        CHECK_EQ(r.dispatch_count, 2);
        CHECK_EQ(hm_is_hot(s, name, n), 1);
        hm_region *h;
        CHECK_EQ(hm_region_resolve(s, name, n, &h), HM_OK);
        CHECK_EQ(hm_region_add(h, 6000, 10), HM_OK);
        CHECK_EQ(hm_region_lookup(h, &r), HM_OK);
        CHECK_EQ(r.dispatch_count, 3);
        hm_region_free(h);
        char stored[HM_MAX_NAME_BYTES_LIMIT], at[HM_MAX_NAME_BYTES_LIMIT];
        size_t stored_len, at_len;
        CHECK_EQ(hm_name_canonical(name, n, limits[li], stored, sizeof stored, &stored_len), HM_OK);
        CHECK_EQ(hm_lookup(s, stored, stored_len, &r), HM_OK); /* by its stored form too */
        CHECK_EQ(hm_region_at(s, 0, at, sizeof at, &at_len, &r), HM_OK);
        CHECK(at_len == stored_len && memcmp(at, stored, at_len) == 0);
        CHECK_EQ(at_len, limits[li] < n ? limits[li] : n); /* an ASCII prefix fills the limit exactly */
        CHECK_EQ(hm_size(s, &(uint64_t){0}), HM_OK);
        CHECK_EQ(hm_close(s), HM_OK);
    }
}

/* FORMAT §4: hm64's running state after the first `upto` bytes (a multiple of 8) of a name of n
 * bytes, written here from the text of §4 (the library's own loop is not reachable from a test). */
static uint64_t hm64_state(const char *p, size_t upto, size_t n) {
    const uint64_t P0 = UINT64_C(0xa0761d6478bd642f), P1 = UINT64_C(0xe7037ed1a0b428db);
    uint64_t h = P0 ^ (uint64_t)n;
    for (size_t i = 0; i < upto; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        unsigned __int128 m = (unsigned __int128)(h ^ w) * P1; /* mum(h XOR w, P1) */
        h = (uint64_t)m ^ (uint64_t)(m >> 64);
    }
    return h;
}

static int printable_word(uint64_t w) {
    for (int b = 0; b < 8; b++, w >>= 8)
        if ((w & 0xFF) < 0x20 || (w & 0xFF) > 0x7E) return 0;
    return 1;
}

/* hm64's zero-state weakness (FORMAT §10, format version 3): a block equal to the running state h
 * makes h XOR w = 0, and mum(0, P1) = 0. Writes a name of head + 16 + strlen(tail) bytes: the
 * `head` bytes already in name (a multiple of 8), a block "_vNNNNNN" (the first variant from
 * `from` on after which the state is printable ASCII), a block equal to that state, the tail.
 * Two such names of one length share their hm64 whatever their variants. Returns the variant. */
static unsigned hm64_zeroing_name(char *name, size_t head, const char *tail, unsigned from) {
    size_t n = head + 16 + strlen(tail);
    for (unsigned v = from;; v++) {
        char block[16];
        snprintf(block, sizeof block, "_v%06u", v % 1000000u);
        memcpy(name + head, block, 8);
        uint64_t h = hm64_state(name, head + 8, n);
        if (!printable_word(h)) continue;
        memcpy(name + head + 8, &h, 8); /* little-endian: the block's word is h itself */
        memcpy(name + head + 16, tail, strlen(tail));
        return v;
    }
}

/* Issue 32 finding 1: two different long names with one hm64 (built in milliseconds with the zero
 * state) shared one record in format version 2 (stored form prefix~hm64, equal prefixes at every
 * limit up to 1024); in version 3 (prefix~SHA-256/128) they are two regions, in files of limits
 * 64, 256 and 1024, by name and through handles. */
static void test_two_long_names_with_one_hm64_are_two_regions(void) {
    enum { HEAD = 1008 }; /* >= 1024 - 17: v2 kept the same prefix of both at every limit */
    const char *start = "void cute::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, int>, ";
    const char *more = "cutlass::epilogue::collective::DefaultEpilogue<float, 8>, ";
    const char *tail = ", cute::C<128>>(Params)";
    char a[HEAD + 64], b[HEAD + 64];
    size_t n0 = strlen(start);
    memcpy(a, start, n0);
    for (size_t i = n0, m = strlen(more); i < HEAD; i++) a[i] = more[(i - n0) % m];
    memcpy(b, a, HEAD);
    unsigned va = hm64_zeroing_name(a, HEAD, tail, 0);
    unsigned vb = hm64_zeroing_name(b, HEAD, tail, va + 1);
    size_t n = HEAD + 16 + strlen(tail);
    CHECK(va != vb && memcmp(a, b, n) != 0);
    CHECK_EQ_U64(hm_hash64(a, n), hm_hash64(b, n)); /* the pair really collides: v2 stored both as one */

    uint32_t limits[] = {64, 256, 1024};
    for (size_t li = 0; li < sizeof limits / sizeof limits[0]; li++) {
        char sa[HM_MAX_NAME_BYTES_LIMIT], sb[HM_MAX_NAME_BYTES_LIMIT];
        size_t la, lb;
        CHECK_EQ(hm_name_canonical(a, n, limits[li], sa, sizeof sa, &la), HM_OK);
        CHECK_EQ(hm_name_canonical(b, n, limits[li], sb, sizeof sb, &lb), HM_OK);
        CHECK(la == limits[li] && lb == limits[li] && memcmp(sa, sb, la - 32) == 0); /* same prefix and '~' */
        CHECK(memcmp(sa, sb, la) != 0);                                                /* other digests */

        hm_options o = opts_cap(16);
        hm_options_set_max_name_bytes(&o, limits[li]);
        hm_options_set_hot_threshold_ns(&o, 1000);
        char file[64];
        snprintf(file, sizeof file, "collide-%u.hm", limits[li]);
        hm_store *s;
        OPEN_OK(s, tpath(file), &o);
        for (int i = 0; i < 60; i++) CHECK_EQ(hm_record(s, a, n, 5000, 10), HM_OK);
        hm_region_record r;
        CHECK_EQ(hm_lookup(s, b, n, &r), HM_ENOTFOUND); /* never recorded: v2 answered a's 60 dispatches */
        CHECK_EQ(hm_is_hot(s, b, n), 0);
        hm_region *hb;
        CHECK_EQ(hm_region_resolve(s, b, n, &hb), HM_OK);
        CHECK_EQ(hm_region_lookup(hb, &r), HM_ENOTFOUND);
        CHECK_EQ(hm_region_add(hb, 7, 1), HM_OK); /* b's records start b's region, a's stay a's */
        hm_region_free(hb);
        CHECK_EQ(hm_lookup(s, a, n, &r), HM_OK);
        CHECK_EQ(r.dispatch_count, 60);
        CHECK_EQ(hm_lookup(s, b, n, &r), HM_OK);
        CHECK_EQ(r.dispatch_count, 1);
        CHECK_EQ_U64(r.kernel_ns_total, 7);
        uint64_t size;
        CHECK_EQ(hm_size(s, &size), HM_OK);
        CHECK_EQ_U64(size, 2);
        CHECK_EQ(hm_close(s), HM_OK);
    }
}

/* FORMAT §1.1 at the boundary, in a store: a name of exactly max_name_bytes is stored whole, one
 * byte more is shortened to exactly the limit; a multi-byte character across the prefix's end is
 * left out whole (the stored form is then shorter than the limit); at the smallest limit, 33, a
 * long name keeps no prefix, only '~' and the digest. */
static void test_names_at_the_limit_are_whole_and_one_byte_over_is_shortened(void) {
    hm_options o = opts_cap(16);
    hm_options_set_max_name_bytes(&o, 64);
    hm_store *s;
    OPEN_OK(s, tpath("boundary.hm"), &o);
    char name[80];
    memset(name, 'k', sizeof name);
    char got[HM_MAX_NAME_BYTES_LIMIT];
    size_t gl;
    uint32_t k;
    CHECK_EQ(hm_record(s, name, 64, 1, 1), HM_OK);
    CHECK_EQ(hm_test_slot_of(s, name, 64, &k), HM_OK); /* stored under its own 64 bytes */
    CHECK_EQ(hm_name_canonical(name, 65, 64, got, sizeof got, &gl), HM_OK);
    CHECK(gl == 64 && memcmp(got, name, 31) == 0 && got[31] == '~');
    CHECK_EQ(hm_record(s, name, 65, 1, 1), HM_OK);
    CHECK_EQ(hm_test_slot_of(s, got, gl, &k), HM_OK);
    /* "€" (3 bytes) across byte 31: prefix 30 bytes + '~' + 32 digits = 63 */
    memcpy(name + 30, "\xe2\x82\xac", 3);
    CHECK_EQ(hm_name_canonical(name, 70, 64, got, sizeof got, &gl), HM_OK);
    CHECK(gl == 63 && memcmp(got, name, 30) == 0 && got[30] == '~');
    CHECK_EQ(hm_record(s, name, 70, 1, 1), HM_OK);
    CHECK_EQ(hm_test_slot_of(s, got, gl, &k), HM_OK);
    CHECK_EQ(hm_close(s), HM_OK);
    memset(name, 'k', sizeof name);
    CHECK_EQ(hm_name_canonical(name, 34, HM_MIN_NAME_BYTES, got, sizeof got, &gl), HM_OK);
    CHECK(gl == 33 && got[0] == '~');
    CHECK_EQ(hm_name_canonical(name, 33, HM_MIN_NAME_BYTES, got, sizeof got, &gl), HM_OK);
    CHECK(gl == 33 && memcmp(got, name, 33) == 0);
}

/* HM_VERSION_* of the header and hm_version() of the library agree (the install check compares
 * them with the pom's version and the installed files' names). */
static void test_version_macros_match_hm_version(void) {
    char want[64];
    snprintf(want, sizeof want, "%d.%d.%d", HM_VERSION_MAJOR, HM_VERSION_MINOR, HM_VERSION_PATCH);
    CHECK(hm_version() != NULL);
    CHECK(strcmp(hm_version(), want) == 0);
    CHECK(strcmp(HM_VERSION_STRING, want) == 0);
}

/* What hm_name_print writes for name[0, len), NUL-terminated in buf. */
static const char *printed(const char *name, size_t len, char *buf, size_t cap) {
    FILE *f = fmemopen(buf, cap, "w");
    if (f == NULL) return "";
    hm_name_print(f, name, len);
    fclose(f);
    return buf;
}

/* FORMAT §1 allows NUL in names: hm-dump prints the whole name, escaped as the Java CLI's
 * Table.printable escapes it, so the two tools print one name alike. */
static void test_hm_dump_prints_whole_names_escaped_as_the_java_cli(void) {
    char b[256];
    CHECK(strcmp(printed("gemm", 4, b, sizeof b), "gemm") == 0);
    CHECK(strcmp(printed("a\0b", 3, b, sizeof b), "a\\x00b") == 0);          /* NUL inside: not the end */
    CHECK(strcmp(printed("t\tn\n\x1b[1m\x7f", 9, b, sizeof b), "t\\x09n\\x0a\\x1b[1m\\x7f") == 0);
    CHECK(strcmp(printed("c1\xc2\x85!", 5, b, sizeof b), "c1\\x85!") == 0);   /* U+0085, a C1 control */
    CHECK(strcmp(printed("\xc2\xa0", 2, b, sizeof b), "\xc2\xa0") == 0);       /* U+00A0 is no control */
    CHECK(strcmp(printed("a\\b", 3, b, sizeof b), "a\\b") == 0);              /* a lone backslash stays */
    CHECK(strcmp(printed("a\\x", 3, b, sizeof b), "a\\\\x") == 0);          /* before x: doubled */
    CHECK(strcmp(printed("\\\\", 2, b, sizeof b), "\\\\\\") == 0);      /* before \: doubled, last stays */
    CHECK(strcmp(printed("\\\n", 2, b, sizeof b), "\\\\\\x0a") == 0);    /* before a control: doubled */
    CHECK(strcmp(printed("\\\xc2\x90", 3, b, sizeof b), "\\\\\\x90") == 0); /* before a C1 control */
    CHECK(strcmp(printed("end\\", 4, b, sizeof b), "end\\") == 0);

    /* Through the library: a name with a NUL is its own region, read back whole by hm_region_at. */
    hm_options o = opts_cap(8);
    hm_store *s;
    OPEN_OK(s, tpath("nul.hm"), &o);
    static const char nul_name[] = {'k', '\0', 'v', '\t', '2'};
    CHECK_EQ(hm_record(s, nul_name, sizeof nul_name, 100, 1), HM_OK);
    CHECK_EQ(hm_record(s, "k", 1, 300, 1), HM_OK);
    hm_region_record r;
    CHECK_EQ(hm_lookup(s, nul_name, sizeof nul_name, &r), HM_OK);
    CHECK_EQ(r.kernel_ns_total, 100);
    char name[1025];
    size_t len = 0;
    CHECK_EQ(hm_region_at(s, 0, name, sizeof name, &len, &r), HM_OK);
    CHECK_EQ(len, sizeof nul_name);
    CHECK(strcmp(printed(name, len, b, sizeof b), "k\\x00v\\x092") == 0);
    CHECK_EQ(hm_close(s), HM_OK);
}

int main(int argc, char **argv) {
    if (argc > 1) g_vectors = argv[1];
    static const hm_test_case cases[] = {
        {"hm64_matches_committed_vectors", test_hm64_matches_committed_vectors},
        {"sha256_matches_the_fips_examples_and_hashlib_for_lengths_0_to_200",
         test_sha256_matches_the_fips_examples_and_hashlib_for_lengths_0_to_200},
        {"fingerprint_matches_committed_vector", test_fingerprint_matches_committed_vector},
        {"layout_description_matches_committed_vector", test_layout_description_matches_committed_vector},
        {"create_writes_documented_header_and_reopen_checks_options", test_create_writes_documented_header_and_reopen_checks_options},
        {"missing_file_read_only_and_missing_directory_are_emissing", test_missing_file_read_only_and_missing_directory_are_emissing},
        {"version_macros_match_hm_version", test_version_macros_match_hm_version},
        {"long_names_follow_the_shared_vectors_and_are_found_by_the_full_name",
         test_long_names_follow_the_shared_vectors_and_are_found_by_the_full_name},
        {"two_long_names_with_one_hm64_are_two_regions", test_two_long_names_with_one_hm64_are_two_regions},
        {"names_at_the_limit_are_whole_and_one_byte_over_is_shortened",
         test_names_at_the_limit_are_whole_and_one_byte_over_is_shortened},
        {"close_releases_writer_entry_and_readers_claim_none", test_close_releases_writer_entry_and_readers_claim_none},
        {"record_rules_equal_exact_arithmetic", test_record_rules_equal_exact_arithmetic},
        {"lookup_by_name_after_its_cached_slot_went_to_another_region_is_absent_then_its_own",
         test_lookup_by_name_after_its_cached_slot_went_to_another_region_is_absent_then_its_own},
        {"lookup_by_a_remembered_name_pointer_reads_its_slot_and_compares_every_byte",
         test_lookup_by_a_remembered_name_pointer_reads_its_slot_and_compares_every_byte},
        {"lookup_through_a_rewritten_name_buffer_answers_for_the_bytes_at_the_call",
         test_lookup_through_a_rewritten_name_buffer_answers_for_the_bytes_at_the_call},
        {"records_accumulate_count_total_max_and_bytes", test_records_accumulate_count_total_max_and_bytes},
        {"capacity_zero_file_drops_every_record", test_capacity_zero_file_drops_every_record},
        {"clock_evicts_unreferenced_region_and_spares_referenced_one", test_clock_evicts_unreferenced_region_and_spares_referenced_one},
        {"stale_handle_reinserts_its_region_not_counting_into_another", test_stale_handle_reinserts_its_region_not_counting_into_another},
        {"handle_read_trusts_an_unchanged_generation_not_the_name", test_handle_read_trusts_an_unchanged_generation_not_the_name},
        {"random_churn_matches_model_counts_and_index_invariant", test_random_churn_matches_model_counts_and_index_invariant},
        {"insert_beyond_probe_bound_is_dropped", test_insert_beyond_probe_bound_is_dropped},
        {"backward_shift_deletion_keeps_dist_without_reading_slots", test_backward_shift_deletion_keeps_dist_without_reading_slots},
        {"victim_without_an_index_entry_is_evicted_and_the_index_rebuilt", test_victim_without_an_index_entry_is_evicted_and_the_index_rebuilt},
        {"lookup_compares_tag_and_dist", test_lookup_compares_tag_and_dist},
        {"reference_table_and_clock_hand_by_byte_alone", test_reference_table_and_clock_hand_by_byte_alone},
        {"recovery_frees_unsound_slots", test_recovery_frees_unsound_slots},
        {"recovery_keeps_a_region_whose_record_writers_keep_republishing",
         test_recovery_keeps_a_region_whose_record_writers_keep_republishing},
        {"v1_file_is_refused_naming_hintmap_upgrade", test_v1_file_is_refused_naming_hintmap_upgrade},
        {"damaged_header_is_refused_and_file_left_unmodified", test_damaged_header_is_refused_and_file_left_unmodified},
        {"hm_dump_prints_whole_names_escaped_as_the_java_cli", test_hm_dump_prints_whole_names_escaped_as_the_java_cli},
        {"dead_owners_slot_lock_is_stolen_live_owners_is_waited_for", test_dead_owners_slot_lock_is_stolen_live_owners_is_waited_for},
        {"zombie_leader_with_live_threads_keeps_its_locks", test_zombie_leader_with_live_threads_keeps_its_locks},
        {"dead_struct_lock_holder_is_repaired_by_next_insert", test_dead_struct_lock_holder_is_repaired_by_next_insert},
        {"crashed_structural_change_is_repaired_from_journal", test_crashed_structural_change_is_repaired_from_journal},
        {"full_writer_table_refuses_writers_not_readers", test_full_writer_table_refuses_writers_not_readers},
        {"one_name_buffer_reused_for_many_names_and_evictions_counts_each_under_its_name",
         test_one_name_buffer_reused_for_many_names_and_evictions_counts_each_under_its_name},
        {"processes_recording_together_lose_no_sample", test_processes_recording_together_lose_no_sample},
        {"concurrent_writers_sum_exactly_and_reader_never_sees_torn_copy", test_concurrent_writers_sum_exactly_and_reader_never_sees_torn_copy_asan},
        {"concurrent_inserts_and_evictions_keep_counts_and_index_consistent", test_concurrent_inserts_and_evictions_keep_counts_and_index_consistent_asan},
        {"threads_give_up_on_live_holder_and_record_elsewhere", test_threads_give_up_on_live_holder_and_record_elsewhere_asan},
        {"reads_by_name_or_handle_under_eviction_never_return_another_regions_record", test_reads_by_name_or_handle_under_eviction_never_return_another_regions_record_asan},
    };
    size_t nh, nhot, nrules;
    const hm_test_case *hard = hm_t_hardening_cases(&nh);
    const hm_test_case *hot = hm_t_hot_set_cases(&nhot, g_vectors);
    const hm_test_case *rules = hm_t_rules_cases(&nrules, g_vectors);
    enum { NBASE = sizeof cases / sizeof cases[0] };
    hm_test_case all[NBASE + 64];
    if (nh + nhot + nrules > 64) return 2;
    memcpy(all, cases, sizeof cases);
    memcpy(all + NBASE, hard, nh * sizeof *hard);
    memcpy(all + NBASE + nh, hot, nhot * sizeof *hot);
    memcpy(all + NBASE + nh + nhot, rules, nrules * sizeof *rules);
    return hm_run_tests(all, NBASE + nh + nhot + nrules, argc > 2 ? argv[2] : NULL);
}
