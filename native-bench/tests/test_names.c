/*
 * test_names.c - names: the stored form of long names (FORMAT §1.1), hm64 collisions, names printed
 * whole, the name cache of reads by name (Java: LongNameTest, StoredNameTest,
 * NameCacheLifetimeTest).
 * Registered by the runner, test_unit.c; run under ASan+UBSan (build/test_unit_asan).
 */
#define _GNU_SOURCE 1
#include "test_cases.h"
#include "test_support.h"

#include "hintmap.h"
#include "hintmap_format.h"
#include "hm_internal.h"
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

/* What hm_name_print writes for name[0, len), NUL-terminated in buf. */
static const char *printed(const char *name, size_t len, char *buf, size_t cap) {
    FILE *f = fmemopen(buf, cap, "w");
    if (f == NULL) return "";
    hm_name_print(f, name, len);
    fclose(f);
    return buf;
}

/* FORMAT §1.1: hm_name_canonical agrees with the shared vectors (Java and the collector check them
 * too), and a 300-byte kernel name recorded by name is found by the same name through every API. */
static void test_long_names_follow_the_shared_vectors_and_are_found_by_the_full_name(void) {
    char path[1024];
    snprintf(path, sizeof path, "%s/stored-names.txt", hm_t_vectors);
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

const hm_test_case *hm_t_names_cases(size_t *n) {
    static const hm_test_case cases[] = {
        {"long_names_follow_the_shared_vectors_and_are_found_by_the_full_name",
         test_long_names_follow_the_shared_vectors_and_are_found_by_the_full_name},
        {"two_long_names_with_one_hm64_are_two_regions", test_two_long_names_with_one_hm64_are_two_regions},
        {"names_at_the_limit_are_whole_and_one_byte_over_is_shortened",
         test_names_at_the_limit_are_whole_and_one_byte_over_is_shortened},
        {"lookup_by_name_after_its_cached_slot_went_to_another_region_is_absent_then_its_own",
         test_lookup_by_name_after_its_cached_slot_went_to_another_region_is_absent_then_its_own},
        {"lookup_by_a_remembered_name_pointer_reads_its_slot_and_compares_every_byte",
         test_lookup_by_a_remembered_name_pointer_reads_its_slot_and_compares_every_byte},
        {"lookup_through_a_rewritten_name_buffer_answers_for_the_bytes_at_the_call",
         test_lookup_through_a_rewritten_name_buffer_answers_for_the_bytes_at_the_call},
        {"hm_dump_prints_whole_names_escaped_as_the_java_cli", test_hm_dump_prints_whole_names_escaped_as_the_java_cli},
        {"one_name_buffer_reused_for_many_names_and_evictions_counts_each_under_its_name",
         test_one_name_buffer_reused_for_many_names_and_evictions_counts_each_under_its_name},
    };
    *n = sizeof cases / sizeof cases[0];
    return cases;
}
