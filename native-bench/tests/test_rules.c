/*
 * test_rules.c - the rules of docs/FORMAT.md that C writes in one place each, against the shared
 * vectors that Java's Utf8Test and FileGeometryTest answer too (src/test/resources/vectors):
 * which bytes are a valid UTF-8 name (utf8.txt: hm_utf8.h's hmi_utf8_char, the library's
 * hmi_utf8_valid behind every name-taking function, and the CUPTI collector's sanitiser, which
 * walks with hmi_utf8_char), what a reader shows for the rest (utf8-replacement.txt: one U+FFFD per
 * maximal subpart, hmi_utf8_malformed) and the parameter ranges of §2 (limits.txt: hintmap.h).
 */
#define _GNU_SOURCE 1
#include "hintmap.h"
#include "hm_test.h"
#include "hm_utf8.h"
#include "test_cases.h"

#include <stdlib.h>
#include <string.h>

static const char *g_rules_vectors;

/* The next line of a vector file that is neither blank nor a '#' comment: 1 with *line and *ll set, 0 at the end. */
static int next_line(const char *txt, size_t len, size_t *at, const char **line, size_t *ll) {
    while (*at < len) {
        size_t e = *at;
        while (e < len && txt[e] != '\n') e++;
        *line = txt + *at;
        *ll = e - *at;
        *at = e + 1;
        if (*ll != 0 && (*line)[0] != '#') return 1;
    }
    return 0;
}

/* The tab-separated fields of a line, at most `max`; returns how many. */
static size_t fields(const char *line, size_t ll, const char **f, size_t *fl, size_t max) {
    size_t n = 0, start = 0;
    for (size_t i = 0; i <= ll && n < max; i++) {
        if (i == ll || line[i] == '\t') {
            f[n] = line + start;
            fl[n++] = i - start;
            start = i + 1;
        }
    }
    return n;
}

static int hex_digit(char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Whether p[0..n) walks as whole characters of hmi_utf8_char, as the collector's sanitiser walks a name. */
static int valid_by_characters(const unsigned char *p, size_t n) {
    for (size_t i = 0; i < n;) {
        size_t k = hmi_utf8_char(p + i, n - i);
        if (k == 0) return 0;
        i += k;
    }
    return 1;
}

static char *read_vectors(const char *file, size_t *len) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", g_rules_vectors, file);
    char *txt = (char *)t_read_file(path, len);
    if (txt == NULL) fprintf(stderr, "  cannot read %s\n", path);
    return txt;
}

static void test_utf8_validity_is_the_shared_vectors_in_every_name_path(void) {
    size_t len;
    char *txt = read_vectors("utf8.txt", &len);
    CHECK(txt != NULL);
    hm_options o;
    hm_options_init(&o);
    hm_options_set_capacity(&o, 64);
    hm_store *s;
    OPEN_OK(s, tpath("utf8.hm"), &o);
    size_t at = 0, ll, valid = 0, invalid = 0;
    const char *line;
    while (next_line(txt, len, &at, &line, &ll)) {
        const char *f[3];
        size_t fl[3];
        CHECK(fields(line, ll, f, fl, 3) == 3 && fl[1] % 2 == 0 && fl[1] > 0 && fl[1] / 2 <= 16);
        unsigned char bytes[16];
        size_t n = fl[1] / 2;
        for (size_t i = 0; i < n; i++) {
            int hi = hex_digit(f[1][2 * i]), lo = hex_digit(f[1][2 * i + 1]);
            CHECK(hi >= 0 && lo >= 0);
            bytes[i] = (unsigned char)(hi << 4 | lo);
        }
        int want = fl[0] == 5 && memcmp(f[0], "valid", 5) == 0;
        CHECK(want || (fl[0] == 7 && memcmp(f[0], "invalid", 7) == 0));
        char out[64];
        size_t out_len;
        int canonical = hm_name_canonical((const char *)bytes, n, 64, out, sizeof out, &out_len);
        int recorded = hm_record(s, (const char *)bytes, n, 1000, 1);
        if (valid_by_characters(bytes, n) != want || canonical != (want ? HM_OK : HM_EBADNAME) ||
            recorded != (want ? HM_OK : HM_EBADNAME))
            fprintf(stderr, "  %.*s: characters %d, hm_name_canonical %d, hm_record %d\n", (int)ll, line,
                    valid_by_characters(bytes, n), canonical, recorded);
        CHECK_EQ(valid_by_characters(bytes, n), want);
        CHECK_EQ(canonical, want ? HM_OK : HM_EBADNAME);
        CHECK_EQ(recorded, want ? HM_OK : HM_EBADNAME);
        if (want) valid++;
        else invalid++;
    }
    free(txt);
    CHECK_EQ(valid, 15);
    CHECK_EQ(invalid, 22);
    CHECK_EQ(hm_close(s), HM_OK);
}

/* FORMAT §1.1: a name both over the limit and not UTF-8 is a bad name (HM_EBADNAME), also for a
 * store that refuses long names: Java's EncodedName checks in that order. C used to answer
 * HM_ENAMETOOLONG, as it checked the length first. */
static void test_a_name_over_the_limit_and_not_utf8_is_a_bad_name_even_when_long_names_are_refused(void) {
    hm_options o;
    hm_options_init(&o);
    hm_options_set_capacity(&o, 16);
    hm_options_set_max_name_bytes(&o, 64);
    o.flags = HM_OPEN_REJECT_LONG_NAMES;
    hm_store *s;
    OPEN_OK(s, tpath("long_bad.hm"), &o);
    const char *gemm = "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)";
    char name[128];
    size_t n = strlen(gemm);
    memcpy(name, gemm, n);
    name[n++] = (char)0xed; /* the surrogate U+D800: never UTF-8 */
    name[n++] = (char)0xa0;
    name[n++] = (char)0x80;
    hm_region_record r;
    CHECK_EQ(hm_record(s, name, n, 1000, 1), HM_EBADNAME);
    CHECK(strstr(hm_last_error(s), "UTF-8") != NULL);
    CHECK_EQ(hm_lookup(s, name, n, &r), HM_EBADNAME);
    CHECK_EQ(hm_record(s, gemm, strlen(gemm), 1000, 1), HM_ENAMETOOLONG); /* valid and over the limit: too long */
    uint64_t size;
    CHECK_EQ(hm_size(s, &size), HM_OK);
    CHECK_EQ(size, 0);
    CHECK_EQ(hm_close(s), HM_OK);
}

static void test_limits_are_the_shared_vectors(void) {
    size_t len;
    char *txt = read_vectors("limits.txt", &len);
    CHECK(txt != NULL);
    size_t at = 0, ll, seen = 0;
    const char *line;
    while (next_line(txt, len, &at, &line, &ll)) {
        const char *f[2];
        size_t fl[2];
        CHECK(fields(line, ll, f, fl, 2) == 2);
        unsigned long long value = strtoull(f[1], NULL, 10);
        unsigned long long mine = 0;
        if (fl[0] == 12 && memcmp(f[0], "max_capacity", 12) == 0) mine = HM_MAX_CAPACITY;
        else if (fl[0] == 20 && memcmp(f[0], "max_name_bytes_limit", 20) == 0) mine = HM_MAX_NAME_BYTES_LIMIT;
        else if (fl[0] == 18 && memcmp(f[0], "min_max_name_bytes", 18) == 0) mine = HM_MIN_NAME_BYTES;
        else fprintf(stderr, "  unknown limit %.*s\n", (int)fl[0], f[0]);
        if (mine != value) fprintf(stderr, "  %.*s: hintmap.h has %llu\n", (int)ll, line, mine);
        CHECK_EQ_U64(mine, value);
        seen++;
    }
    free(txt);
    CHECK_EQ(seen, 3);
}

/* FORMAT §9.1: a name that is not valid UTF-8 is shown with one U+FFFD per maximal ill-formed subpart
 * (hmi_utf8_malformed), well-formed characters kept (hmi_utf8_char): every line of utf8-replacement.txt,
 * which Java's Utf8Test and Python's test_names read too. */
static void test_utf8_replacement_is_one_per_maximal_subpart_as_the_shared_vectors_say(void) {
    size_t len;
    char *txt = read_vectors("utf8-replacement.txt", &len);
    CHECK(txt != NULL);
    size_t at = 0, ll, seen = 0;
    const char *line;
    while (next_line(txt, len, &at, &line, &ll)) {
        const char *f[3];
        size_t fl[3];
        CHECK(fields(line, ll, f, fl, 3) == 3 && fl[0] % 2 == 0 && fl[1] % 2 == 0 && fl[0] / 2 <= 64 && fl[1] / 2 <= 192);
        unsigned char in[64], want[192], shown[192];
        size_t n = fl[0] / 2, wn = fl[1] / 2, sn = 0;
        for (size_t i = 0; i < n; i++) in[i] = (unsigned char)(hex_digit(f[0][2 * i]) << 4 | hex_digit(f[0][2 * i + 1]));
        for (size_t i = 0; i < wn; i++) want[i] = (unsigned char)(hex_digit(f[1][2 * i]) << 4 | hex_digit(f[1][2 * i + 1]));
        for (size_t i = 0; i < n;) {
            size_t k = hmi_utf8_char(in + i, n - i);
            if (k) {
                memcpy(shown + sn, in + i, k);
                sn += k;
                i += k;
            } else {
                memcpy(shown + sn, "\xef\xbf\xbd", 3); /* U+FFFD */
                sn += 3;
                i += hmi_utf8_malformed(in + i, n - i);
            }
        }
        if (sn != wn || memcmp(shown, want, wn) != 0) fprintf(stderr, "  %.*s: shown differently\n", (int)ll, line);
        CHECK(sn == wn && memcmp(shown, want, wn) == 0);
        seen++;
    }
    free(txt);
    CHECK_EQ(seen, 28);
}

const hm_test_case *hm_t_rules_cases(size_t *n, const char *vectors_dir) {
    static const hm_test_case cases[] = {
        {"utf8_validity_is_the_shared_vectors_in_every_name_path", test_utf8_validity_is_the_shared_vectors_in_every_name_path},
        {"utf8_replacement_is_one_per_maximal_subpart_as_the_shared_vectors_say",
         test_utf8_replacement_is_one_per_maximal_subpart_as_the_shared_vectors_say},
        {"limits_are_the_shared_vectors", test_limits_are_the_shared_vectors},
        {"a_name_over_the_limit_and_not_utf8_is_a_bad_name_even_when_long_names_are_refused",
         test_a_name_over_the_limit_and_not_utf8_is_a_bad_name_even_when_long_names_are_refused},
    };
    g_rules_vectors = vectors_dir;
    *n = sizeof cases / sizeof cases[0];
    return cases;
}
