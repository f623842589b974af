/*
 * test_translate - the CUPTI collector's record-to-sample translation (hmc_translate.c), with
 * hand-built CUpti_ActivityKernel10 / Memcpy6 / Memset4 records: no GPU, no driver, no CUPTI
 * call. Every name produced is also recorded into a real hint file of the same max_name_bytes,
 * so "fits and is valid UTF-8" is checked by the library itself. Run by `make cupti-test`.
 */
#define _GNU_SOURCE
#include "hmc_translate.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hmc_check.h"

static char tmpdir[] = "/tmp/hmc-test-XXXXXX";


static hmc_kernel_record kernel(const char *name, uint64_t start, uint64_t end, int gx, int gy, int gz, int bx, int by, int bz) {
    hmc_kernel_record k;
    memset(&k, 0, sizeof k);
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.name = name;
    k.start = start;
    k.end = end;
    k.gridX = gx; k.gridY = gy; k.gridZ = gz;
    k.blockX = bx; k.blockY = by; k.blockZ = bz;
    return k;
}

/* A stand-in demangler: "_Z5saxpyifPKfPf" -> "saxpy(int, float, float const*, float*)", "_Zlong<N>" -> N 'x's + "()", else NULL. */
static char *fake_demangle(const char *m, void *ctx) {
    (void)ctx;
    if (strcmp(m, "_Z5saxpyifPKfPf") == 0) return strdup("saxpy(int, float, float const*, float*)");
    if (strncmp(m, "_Zlong", 6) == 0) {
        size_t n = (size_t)atoi(m + 6);
        char *s = malloc(n + 3);
        memset(s, 'x', n);
        memcpy(s + n, "()", 3);
        return s;
    }
    return NULL;
}

/* The real one, as the collector finds it. */
typedef char *(*cxa_fn)(const char *, char *, size_t *, int *);
static cxa_fn cxa;
static char *cxa_demangle(const char *m, void *ctx) {
    (void)ctx;
    int st = 0;
    char *r = cxa(m, NULL, NULL, &st);
    if (st != 0) { free(r); return NULL; }
    return r;
}

/* Names recorded into a file of max_name_bytes = limit must be accepted as they are. */
static void check_recordable(const char *name, size_t len, uint32_t limit) {
    char path[128];
    snprintf(path, sizeof path, "%s/l%u.hints", tmpdir, limit);
    hm_options o;
    hm_options_init(&o);
    hm_options_set_max_name_bytes(&o, limit);
    hm_store *s;
    char err[256];
    int rc = hm_open_ex(path, &o, &s, err, sizeof err);
    CHECK(rc == 0, "open %s: %s", path, err);
    if (rc != 0) return;
    rc = hm_record(s, name, len, 1, 0);
    CHECK(rc == HM_OK, "record '%.*s' (%zu bytes, limit %u): %s", (int)len, name, len, limit, hm_strerror(rc));
    hm_close(s);
}

static size_t name_of(const hmc_kernel_record *k, hmc_name_mode mode, uint32_t limit, hmc_demangle_fn dm, char *out, int *truncated) {
    hmc_naming n = {mode, limit, dm, NULL};
    size_t len = 0;
    int rc = hmc_kernel_region_name(k, &n, out, &len, truncated);
    CHECK(rc == 0, "hmc_kernel_region_name rc %d", rc);
    CHECK(len >= 1 && len <= limit, "length %zu, limit %u", len, limit);
    if (rc == 0) check_recordable(out, len, limit);
    return len;
}

static int is_name(const char *got, size_t len, const char *want) { return len == strlen(want) && memcmp(got, want, len) == 0; }

static void test_names(void) {
    char buf[HMC_NAME_CAP];
    int tr;
    hmc_kernel_record k = kernel("_Z5saxpyifPKfPf", 10, 20, 16, 1, 1, 256, 1, 1);
    size_t n = name_of(&k, HMC_NAME_MANGLED, 64, fake_demangle, buf, &tr);
    CHECK(is_name(buf, n, "_Z5saxpyifPKfPf") && !tr, "mangled: '%.*s'", (int)n, buf);
    n = name_of(&k, HMC_NAME_DEMANGLED, 64, fake_demangle, buf, &tr);
    CHECK(is_name(buf, n, "saxpy(int, float, float const*, float*)") && !tr, "demangled: '%.*s'", (int)n, buf);
    n = name_of(&k, HMC_NAME_DEMANGLED_GRID, 128, fake_demangle, buf, &tr);
    CHECK(is_name(buf, n, "saxpy(int, float, float const*, float*)<<<16,256>>>"), "grid: '%.*s'", (int)n, buf);
    hmc_kernel_record k3 = kernel("_Z5saxpyifPKfPf", 10, 20, 4, 2, 1, 8, 8, 1);
    n = name_of(&k3, HMC_NAME_DEMANGLED_GRID, 128, fake_demangle, buf, &tr);
    CHECK(is_name(buf, n, "saxpy(int, float, float const*, float*)<<<4x2x1,8x8x1>>>"), "3-d grid: '%.*s'", (int)n, buf);
    hmc_kernel_record kneg = kernel("k", 10, 20, -1, 1, 1, 2147483647, 1, 1);
    n = name_of(&kneg, HMC_NAME_DEMANGLED_GRID, 64, fake_demangle, buf, &tr);
    CHECK(is_name(buf, n, "k<<<-1,2147483647>>>"), "extreme dims: '%.*s'", (int)n, buf);

    /* demangler refuses / absent: the mangled name stays */
    hmc_kernel_record kc = kernel("plain_c_kernel", 10, 20, 1, 1, 1, 1, 1, 1);
    n = name_of(&kc, HMC_NAME_DEMANGLED, 64, fake_demangle, buf, &tr);
    CHECK(is_name(buf, n, "plain_c_kernel"), "refused: '%.*s'", (int)n, buf);
    n = name_of(&k, HMC_NAME_DEMANGLED, 64, NULL, buf, &tr);
    CHECK(is_name(buf, n, "_Z5saxpyifPKfPf"), "no demangler: '%.*s'", (int)n, buf);

    /* no name */
    hmc_kernel_record k0 = kernel(NULL, 10, 20, 1, 1, 1, 1, 1, 1);
    n = name_of(&k0, HMC_NAME_DEMANGLED, 64, fake_demangle, buf, &tr);
    CHECK(is_name(buf, n, "<unnamed kernel>"), "NULL name: '%.*s'", (int)n, buf);
    hmc_kernel_record ke = kernel("", 10, 20, 1, 1, 1, 1, 1, 1);
    n = name_of(&ke, HMC_NAME_MANGLED, 64, NULL, buf, &tr);
    CHECK(is_name(buf, n, "<unnamed kernel>"), "empty name: '%.*s'", (int)n, buf);

    /* each maximal ill-formed subpart becomes one '?' (a surrogate's three bytes three, a character cut
     * short one), well-formed multi-byte characters stay */
    hmc_kernel_record ku = kernel("k\xff\xc3\xa9\xed\xa0\x80z\xe2\x82_", 10, 20, 1, 1, 1, 1, 1, 1);
    n = name_of(&ku, HMC_NAME_MANGLED, 64, NULL, buf, &tr);
    CHECK(is_name(buf, n, "k?\xc3\xa9???z?_"), "sanitised: '%.*s'", (int)n, buf);

    /* the real demangler, where the C++ runtime is there */
    void *cxx = dlopen("libstdc++.so.6", RTLD_NOW);
    if (cxx != NULL) *(void **)&cxa = dlsym(cxx, "__cxa_demangle");
    if (cxa != NULL) {
        n = name_of(&k, HMC_NAME_DEMANGLED, 64, cxa_demangle, buf, &tr);
        CHECK(is_name(buf, n, "saxpy(int, float, float const*, float*)"), "__cxa_demangle: '%.*s'", (int)n, buf);
        hmc_kernel_record kt = kernel("_Z6kernelILi4EEvPf", 1, 2, 1, 1, 1, 1, 1, 1);
        n = name_of(&kt, HMC_NAME_DEMANGLED, 64, cxa_demangle, buf, &tr);
        CHECK(is_name(buf, n, "void kernel<4>(float*)"), "template: '%.*s'", (int)n, buf);
    } else {
        printf("note: no __cxa_demangle here; the real-demangler cases were not run\n");
    }
}

/* The tag of the whole name `full` at name[at]: '~' and 32 hex digits of SHA-256 (FORMAT §1.1), as the
 * library's hm_name_canonical writes it at the smallest limit (the tag alone), which the shared vectors
 * check independently; the collector has no rule of its own. */
static void expect_tag(const char *name, size_t len, size_t at, const char *full, size_t full_len) {
    char want[HM_NAME_TAG_BYTES];
    size_t want_len = 0;
    CHECK(hm_name_canonical(full, full_len, HM_MIN_NAME_BYTES, want, sizeof want, &want_len) == HM_OK &&
              want_len == HM_NAME_TAG_BYTES && want[0] == '~',
          "the tag alone: %zu", want_len);
    CHECK(len == at + HM_NAME_TAG_BYTES && memcmp(name + at, want, HM_NAME_TAG_BYTES) == 0, "tag at %zu of '%.*s', want %.33s",
          at, (int)len, name, want);
}

static void test_truncation(void) {
    char buf[HMC_NAME_CAP], buf2[HMC_NAME_CAP];
    int tr;
    /* 100 'x' + "()" under 64 bytes: 31-byte prefix + tag of the whole name */
    hmc_kernel_record k = kernel("_Zlong100", 1, 2, 16, 1, 1, 256, 1, 1);
    size_t n = name_of(&k, HMC_NAME_DEMANGLED, 64, fake_demangle, buf, &tr);
    char full[256];
    memset(full, 'x', 100);
    memcpy(full + 100, "()", 2);
    CHECK(tr && n == 64, "truncated to %zu (flag %d)", n, tr);
    CHECK(memcmp(buf, full, 31) == 0, "prefix kept: '%.*s'", (int)n, buf);
    expect_tag(buf, n, 31, full, 102);

    /* exactly at the limit: untouched */
    hmc_kernel_record k62 = kernel("_Zlong62", 1, 2, 1, 1, 1, 1, 1, 1);
    n = name_of(&k62, HMC_NAME_DEMANGLED, 64, fake_demangle, buf, &tr);
    CHECK(n == 64 && !tr && buf[63] == ')', "64-byte name kept: %zu %d", n, tr);
    hmc_kernel_record k63 = kernel("_Zlong63", 1, 2, 1, 1, 1, 1, 1, 1);
    n = name_of(&k63, HMC_NAME_DEMANGLED, 64, fake_demangle, buf, &tr);
    CHECK(n == 64 && tr, "65-byte name truncated: %zu %d", n, tr);

    /* collision-aware: two long names with one prefix get two regions */
    hmc_kernel_record k101 = kernel("_Zlong101", 1, 2, 1, 1, 1, 1, 1, 1);
    size_t n1 = name_of(&k, HMC_NAME_DEMANGLED, 64, fake_demangle, buf, &tr);
    size_t n2 = name_of(&k101, HMC_NAME_DEMANGLED, 64, fake_demangle, buf2, &tr);
    CHECK(n1 == n2 && memcmp(buf, buf2, n1) != 0, "same prefix, different names: '%.*s' vs '%.*s'", (int)n1, buf, (int)n2, buf2);

    /* grid variants of one long kernel stay apart: the tag digests the whole composed name */
    hmc_kernel_record kg = kernel("_Zlong100", 1, 2, 4096, 1, 1, 256, 1, 1);
    n1 = name_of(&k, HMC_NAME_DEMANGLED_GRID, 64, fake_demangle, buf, &tr);
    n2 = name_of(&kg, HMC_NAME_DEMANGLED_GRID, 64, fake_demangle, buf2, &tr);
    CHECK(n1 == 64 && n2 == 64 && memcmp(buf, buf2, 64) != 0, "grid variants: '%.*s' '%.*s'", (int)n1, buf, (int)n2, buf2);
    memcpy(full + 102, "<<<16,256>>>", 12);
    expect_tag(buf, n1, 31, full, 114);
    char stored[HMC_NAME_CAP]; /* the library's rule, nothing of the collector's own */
    size_t stored_len;
    CHECK(hm_name_canonical(full, 114, 64, stored, sizeof stored, &stored_len) == HM_OK && stored_len == n1
                  && memcmp(stored, buf, n1) == 0,
          "hm_name_canonical: '%.*s'", (int)stored_len, stored);

    n = name_of(&k, HMC_NAME_DEMANGLED_GRID, 40, fake_demangle, buf, &tr);
    CHECK(n == 40 && memcmp(buf, "xxxxxxx~", 8) == 0, "limit 40: '%.*s'", (int)n, buf);
    expect_tag(buf, n, 7, full, 114);
    /* the smallest limit, 33: the tag alone */
    n = name_of(&k, HMC_NAME_DEMANGLED_GRID, HM_MIN_NAME_BYTES, fake_demangle, buf, &tr);
    expect_tag(buf, n, 0, full, 114);

    /* the cut backs off to a character boundary: 'é' (2 bytes) across the cut */
    char utf[128];
    memset(utf, 'a', 30);
    for (int i = 0; i < 20; i++) memcpy(utf + 30 + 2 * i, "\xc3\xa9", 2);
    utf[70] = '\0';
    hmc_kernel_record kutf = kernel(utf, 1, 2, 1, 1, 1, 1, 1, 1);
    n = name_of(&kutf, HMC_NAME_MANGLED, 64, NULL, buf, &tr);
    CHECK(n == 63 && buf[30] == '~', "cut at a boundary: %zu '%.*s'", n, (int)n, buf);
    memset(utf, 'a', 31);
    for (int i = 0; i < 20; i++) memcpy(utf + 31 + 2 * i, "\xc3\xa9", 2);
    utf[71] = '\0';
    n = name_of(&kutf, HMC_NAME_MANGLED, 64, NULL, buf, &tr);
    CHECK(n == 64 && buf[31] == '~', "boundary right at the cut: %zu", n);

    /* names up to the format's largest limit, and a very long demangled name (200 KB) */
    hmc_kernel_record kbig = kernel("_Zlong200000", 1, 2, 1, 1, 1, 1, 1, 1);
    n = name_of(&kbig, HMC_NAME_DEMANGLED, HM_MAX_NAME_BYTES_LIMIT, fake_demangle, buf, &tr);
    CHECK(n == HM_MAX_NAME_BYTES_LIMIT && tr, "1024-byte limit: %zu", n);

    /* arguments */
    hmc_naming bad = {HMC_NAME_MANGLED, 0, NULL, NULL};
    size_t len;
    CHECK(hmc_kernel_region_name(&k, &bad, buf, &len, &tr) == HMC_EINVAL, "limit 0");
    bad.max_name_bytes = HM_MIN_NAME_BYTES - 1; /* 32: no room for the whole tag (issue 32 finding 2) */
    CHECK(hmc_kernel_region_name(&k, &bad, buf, &len, &tr) == HMC_EINVAL, "limit 32");
    bad.max_name_bytes = HM_MAX_NAME_BYTES_LIMIT + 1;
    CHECK(hmc_kernel_region_name(&k, &bad, buf, &len, &tr) == HMC_EINVAL, "limit 1025");
    CHECK(hmc_kernel_region_name(NULL, &bad, buf, &len, &tr) == HMC_EINVAL, "NULL record");
    CHECK(hmc_name_mode_parse("demangled+grid") == HMC_NAME_DEMANGLED_GRID && hmc_name_mode_parse("Demangled") == -1 &&
              hmc_name_mode_parse(NULL) == -1 && hmc_name_mode_parse("mangled") == HMC_NAME_MANGLED,
          "mode parse");
}

/* The shared stored-name vectors (FORMAT §1.1), through the collector's own naming path: a name taken
 * as CUPTI gives it (mangled mode, nothing demangled) comes out in the form Java and C look it up by. */
static void test_stored_name_vectors(void) {
    FILE *f = fopen(HM_VECTORS_DIR "/stored-names.txt", "r");
    CHECK(f != NULL, "cannot read %s", HM_VECTORS_DIR "/stored-names.txt");
    if (f == NULL) return;
    static char line[8192];
    int rows = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        size_t ll = strcspn(line, "\n");
        line[ll] = '\0';
        if (ll == 0 || line[0] == '#') continue;
        char *t1 = strchr(line, '\t');
        char *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
        CHECK(t1 != NULL && t2 != NULL, "malformed vector line");
        if (t1 == NULL || t2 == NULL) break;
        *t1 = *t2 = '\0';
        uint32_t limit = (uint32_t)strtoul(line, NULL, 10);
        hmc_kernel_record k = kernel(t2 + 1, 1, 2, 1, 1, 1, 1, 1, 1);
        char buf[HMC_NAME_CAP];
        int tr;
        size_t n = name_of(&k, HMC_NAME_MANGLED, limit, NULL, buf, &tr);
        CHECK(n == strlen(t1 + 1) && memcmp(buf, t1 + 1, n) == 0 && tr == (strlen(t2 + 1) > limit),
              "limit %u: got '%.*s' want '%s'", limit, (int)n, buf, t1 + 1);
        rows++;
    }
    fclose(f);
    CHECK(rows == 91, "%d vector rows", rows);
}

static void test_durations(void) {
    hmc_sample s;
    hmc_kernel_record k = kernel("k", 1000, 1750, 1, 1, 1, 1, 1, 1);
    CHECK(hmc_kernel_sample(&k, &s) == HMC_SAMPLE && s.kernel_ns == 750 && s.bytes == 0, "750 ns: %" PRIu64, s.kernel_ns);
    k.end = k.start;
    CHECK(hmc_kernel_sample(&k, &s) == HMC_SAMPLE && s.kernel_ns == 0, "zero duration is a sample of 0 ns");
    k.end = k.start - 1;
    CHECK(hmc_kernel_sample(&k, &s) == HMC_SKIP_NEGATIVE && s.kernel_ns == 0, "negative duration skipped");
    k.start = 0; k.end = 5;
    CHECK(hmc_kernel_sample(&k, &s) == HMC_SKIP_UNTIMED, "start unknown");
    k.start = 5; k.end = 0;
    CHECK(hmc_kernel_sample(&k, &s) == HMC_SKIP_UNTIMED, "end unknown (not negative)");
    k.start = 1; k.end = UINT64_MAX;
    CHECK(hmc_kernel_sample(&k, &s) == HMC_SAMPLE && s.kernel_ns == (uint64_t)INT64_MAX, "overflow clamps to 2^63-1");
    k.start = 1; k.end = (uint64_t)INT64_MAX + 1;
    CHECK(hmc_kernel_sample(&k, &s) == HMC_SAMPLE && s.kernel_ns == (uint64_t)INT64_MAX, "exactly 2^63-1");
    k.start = UINT64_MAX - 10; k.end = UINT64_MAX;
    CHECK(hmc_kernel_sample(&k, &s) == HMC_SAMPLE && s.kernel_ns == 10, "near the top of the clock");
    CHECK(hmc_kernel_sample(NULL, &s) == HMC_EINVAL && hmc_kernel_sample(&k, NULL) == HMC_EINVAL, "NULL");

    hmc_memcpy_record m;
    memset(&m, 0, sizeof m);
    m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
    m.bytes = 4096; m.start = 100; m.end = 300;
    CHECK(hmc_memcpy_sample(&m, &s) == HMC_SAMPLE && s.kernel_ns == 200 && s.bytes == 4096, "memcpy sample");
    CHECK(strcmp(hmc_memcpy_region(&m), "[memcpy HtoD]") == 0, "HtoD");
    m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
    CHECK(strcmp(hmc_memcpy_region(&m), "[memcpy DtoH]") == 0, "DtoH");
    m.copyKind = 200;
    CHECK(strcmp(hmc_memcpy_region(&m), "[memcpy other]") == 0, "unknown kind");
    hmc_memset_record ms;
    memset(&ms, 0, sizeof ms);
    ms.bytes = UINT64_MAX; ms.start = 5; ms.end = 4;
    CHECK(hmc_memset_sample(&ms, &s) == HMC_SKIP_NEGATIVE && s.bytes == (uint64_t)INT64_MAX, "memset negative, bytes clamped");
}

int main(void) {
    if (mkdtemp(tmpdir) == NULL) { perror("mkdtemp"); return 1; }
    test_names();
    test_truncation();
    test_stored_name_vectors();
    test_durations();
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "note: could not remove %s\n", tmpdir);
    printf("test_translate: %d checks, %d failures\n", checks, failures);
    return failures != 0;
}
