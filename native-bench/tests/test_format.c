/*
 * test_format.c - format: hm64 and SHA-256 against the shared vectors, the layout and its
 * fingerprint, the record rules, the saturating add, the version (Java: the tests of dev.hintmap.format).
 * Registered by the runner, test_unit.c; run under ASan+UBSan (build/test_unit_asan).
 */
#define _GNU_SOURCE 1
#include "test_cases.h"
#include "test_support.h"

#include "hintmap.h"
#include "hintmap_format.h"
#include "hm_internal.h"
#include "hm_layout.h"

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
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/xattr.h>

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

/* sha256.c against the examples of FIPS 180-4 (NIST's "Examples with intermediate values") and
 * against Python's hashlib for every message length 0..200 (vectors/sha256.txt, make_vectors.py):
 * every padding case (0..55 bytes left: one block; 56..63: two) and multi-block messages. */
static void sha256_hex(const void *data, size_t len, char hex[65]) {
    unsigned char d[32];
    hm_test_sha256(data, len, d);
    for (unsigned i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", d[i]);
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

static void test_hm64_matches_committed_vectors(void) {
    char path[1024];
    snprintf(path, sizeof path, "%s/hash.txt", hm_t_vectors);
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
    snprintf(path, sizeof path, "%s/sha256.txt", hm_t_vectors);
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
    snprintf(path, sizeof path, "%s/layout.txt", hm_t_vectors);
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
    snprintf(path, sizeof path, "%s/layout.txt", hm_t_vectors);
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

/* HM_VERSION_* of the header and hm_version() of the library agree (the install check compares
 * them with the pom's version and the installed files' names). */
static void test_version_macros_match_hm_version(void) {
    char want[64];
    snprintf(want, sizeof want, "%d.%d.%d", HM_VERSION_MAJOR, HM_VERSION_MINOR, HM_VERSION_PATCH);
    CHECK(hm_version() != NULL);
    CHECK(strcmp(hm_version(), want) == 0);
    CHECK(strcmp(HM_VERSION_STRING, want) == 0);
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

/* hm_sat_add, the one saturating add (hintmap_format.h): b the caller's value in [0, 2^63-1], a
 * from the file and possibly damaged; the result is a + b clamped to 2^63-1, a damaged a gives
 * the maximum, and nothing it returns has the top bit set. */
static void test_saturating_add_clamps_sums_and_damaged_values(void) {
    const uint64_t M = HM_VALUE_MAX, TOP = UINT64_C(1) << 63;
    CHECK_EQ_U64(hm_sat_add(0, 0), 0);
    CHECK_EQ_U64(hm_sat_add(5, 7), 12);
    CHECK_EQ_U64(hm_sat_add(0, M), M);
    CHECK_EQ_U64(hm_sat_add(M - 7, 7), M);
    CHECK_EQ_U64(hm_sat_add(M - 7, 8), M);
    CHECK_EQ_U64(hm_sat_add(M, 1), M);
    CHECK_EQ_U64(hm_sat_add(M, M), M);
    CHECK_EQ_U64(hm_sat_add(TOP, 0), M);          /* damaged a, nothing added: still clamped */
    CHECK_EQ_U64(hm_sat_add(TOP + 5, 1), M);
    CHECK_EQ_U64(hm_sat_add(UINT64_MAX, 0), M);
    CHECK_EQ_U64(hm_sat_add(UINT64_MAX, M), M);    /* would wrap to 2^63-2 unsigned */
    CHECK_EQ_U64(hm_sat_add(1, UINT64_MAX), M);    /* b outside the contract does not wrap either */
}

const hm_test_case *hm_t_format_cases(size_t *n) {
    static const hm_test_case cases[] = {
        {"hm64_matches_committed_vectors", test_hm64_matches_committed_vectors},
        {"sha256_matches_the_fips_examples_and_hashlib_for_lengths_0_to_200",
         test_sha256_matches_the_fips_examples_and_hashlib_for_lengths_0_to_200},
        {"fingerprint_matches_committed_vector", test_fingerprint_matches_committed_vector},
        {"layout_description_matches_committed_vector", test_layout_description_matches_committed_vector},
        {"version_macros_match_hm_version", test_version_macros_match_hm_version},
        {"record_rules_equal_exact_arithmetic", test_record_rules_equal_exact_arithmetic},
        {"saturating_add_clamps_sums_and_damaged_values", test_saturating_add_clamps_sums_and_damaged_values},
    };
    *n = sizeof cases / sizeof cases[0];
    return cases;
}
