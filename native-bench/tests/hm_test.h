/*
 * hm_test.h - a minimal test runner for the hintmap C tests.
 *
 * A test is a void function; CHECK* macros record a failure and return from it.
 * run_tests() prints one line per test and finally "N passed, M failed".
 */
#ifndef HM_TEST_H
#define HM_TEST_H

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hintmap.h"

extern int hm_t_failures;      /* failed checks in the current test */
extern int hm_t_skipped;       /* the current test was skipped (hm_t_skip) */
extern char hm_t_dir[];        /* per-run scratch directory */

#define CHECK(cond)                                                                 \
    do {                                                                            \
        if (!(cond)) {                                                              \
            fprintf(stderr, "  %s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            hm_t_failures++;                                                        \
            return;                                                                 \
        }                                                                           \
    } while (0)

#define CHECK_EQ(a, b)                                                              \
    do {                                                                            \
        long long hm_a_ = (long long)(a), hm_b_ = (long long)(b);                   \
        if (hm_a_ != hm_b_) {                                                       \
            fprintf(stderr, "  %s:%d: CHECK_EQ failed: %s == %lld, %s == %lld\n",   \
                    __FILE__, __LINE__, #a, hm_a_, #b, hm_b_);                      \
            hm_t_failures++;                                                        \
            return;                                                                 \
        }                                                                           \
    } while (0)

#define CHECK_EQ_U64(a, b)                                                          \
    do {                                                                            \
        uint64_t hm_a_ = (uint64_t)(a), hm_b_ = (uint64_t)(b);                      \
        if (hm_a_ != hm_b_) {                                                       \
            fprintf(stderr, "  %s:%d: CHECK_EQ_U64 failed: %s == 0x%016" PRIx64     \
                    ", %s == 0x%016" PRIx64 "\n", __FILE__, __LINE__, #a, hm_a_, #b, hm_b_); \
            hm_t_failures++;                                                        \
            return;                                                                 \
        }                                                                           \
    } while (0)

/* Opens (or creates) `path` with hm_open_ex into `s`; on failure records it with the library's message and returns. */
#define OPEN_OK(s, path, opts)                                                        \
    do {                                                                              \
        char e_[512];                                                                 \
        int rc_ = hm_open_ex((path), (opts), &(s), e_, sizeof e_);                    \
        if (rc_ != HM_OK) {                                                           \
            fprintf(stderr, "  %s:%d: open %s: %d %s\n", __FILE__, __LINE__, (path), rc_, e_); \
            hm_t_failures++;                                                          \
            return;                                                                   \
        }                                                                             \
    } while (0)

typedef struct hm_test_case {
    const char *name;
    void (*fn)(void);
} hm_test_case;

/* Marks the current test skipped: instead of "ok" the runner prints the one line
 * "SKIP <test name>: <why>" and counts it as skipped, not passed. The test should return then. */
void hm_t_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Runs the cases whose name contains `filter` (NULL: all); returns the process exit code. */
int hm_run_tests(const hm_test_case *cases, size_t n, const char *filter);

/* A path inside the scratch directory (static buffer rotation of 64 entries: copy it if kept longer). */
const char *tpath(const char *name);

/* Helpers. */
/* hm_record / hm_lookup of a NUL-terminated name. */
int t_rec(hm_store *s, const char *name, uint64_t ns, uint64_t bytes);
int t_look(hm_store *s, const char *name, hm_region_record *r);
/* CLOCK_MONOTONIC in milliseconds. */
double t_now_ms(void);

/* How long a test waits for a state of the code under test before it takes it for a hang, in ms:
 * far above any real wait on a loaded 2-core machine. Tests wait on counters or states and then
 * assert; they never sleep for a time and assert what did or did not happen meanwhile. */
#define T_HANG_MS 120000.0
/* A lock wait limit (§6.2) longer than any wait of a test (and than T_HANG_MS): for tests in
 * which a writer must wait for a live holder, never give up on it. */
#define T_NO_GIVEUP_NS (300ull * 1000000000ull)
/* Waits until store s has made `checks` liveness checks of lock holders in all
 * (hm_test_liveness_checks: a waiter checks once per ms, §6.3) or *done is set; returns 0 when
 * that happened within T_HANG_MS, -1 otherwise. */
int t_await_liveness_checks(struct hm_store *s, uint64_t checks, _Atomic int *done);
int t_write_file(const char *path, const void *data, size_t len);
unsigned char *t_read_file(const char *path, size_t *len);

/* Token of process pid (FORMAT §3.5: pid << 42 | starttime & (2^42-1)); 0 if unreadable. */
uint64_t t_token_of(long pid);
struct hm_store;
/* Makes writer entry i (one nobody holds) name the live process pid, as a hostile or stale file
 * could; returns the owner word (§6.1) of that entry, for planting into a lock word. */
uint64_t t_plant_owner(struct hm_store *s, uint32_t i, long pid);

#endif
