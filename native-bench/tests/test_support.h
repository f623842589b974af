/* test_support.h - helpers shared by several subjects of the unit tests (tests/test_*.c), and
 * where the shared vectors are. The runner, test_unit.c, sets hm_t_vectors. */
#ifndef HM_TEST_SUPPORT_H
#define HM_TEST_SUPPORT_H

#include "hm_test.h"

#include <stdint.h>
#include <string.h>
#include <sys/types.h>

/* The directory of src/test/resources/vectors (argv[1] of the runner, else HM_VECTORS_DIR). */
extern const char *hm_t_vectors;

/* Expects hm_open_ex to fail with `code` and a message containing the path and `needle`. */
#define OPEN_FAILS(path, opts, code, needle)                                          \
    do {                                                                              \
        char e_[512];                                                                 \
        hm_store *s_ = (hm_store *)1;                                                 \
        int rc_ = hm_open_ex((path), (opts), &s_, e_, sizeof e_);                     \
        if (rc_ != (code) || strstr(e_, (needle)) == NULL || strstr(e_, (path)) == NULL) \
            fprintf(stderr, "  %s:%d: open %s: got %d '%s', want %d with '%s'\n", __FILE__, __LINE__, \
                    (path), rc_, e_, (code), (needle));                               \
        CHECK_EQ(rc_, (code));                                                        \
        CHECK(s_ == NULL);                                                            \
        CHECK(strstr(e_, (needle)) != NULL);                                          \
        CHECK(strstr(e_, (path)) != NULL);                                            \
    } while (0)

/* The lock wait limit (§6.2) of the give-up tests, in ms: short, so that a test waits it out quickly. */
#define LIMIT_MS 300

/* Default options with capacity `cap`. */
hm_options opts_cap(uint32_t cap);

/* The next line of a vector file that is neither blank nor a '#' comment: 1 with *line and *ll set, 0 at the end. */
int vector_line(const unsigned char *txt, size_t len, size_t *at, const char **line, size_t *ll);

/* The fields of a vector line line[0, ll), separated by tabs and counted from 0 (the verb). */
/* Field i: *f and *fl; 0 when the line has fewer fields. */
int vector_field(const char *line, size_t ll, int i, const char **f, size_t *fl);
/* Whether the line's verb (field 0) is `word` and a field follows it. */
int vector_is(const char *line, size_t ll, const char *word);
/* Field i as a decimal uint64_t; UINT64_MAX when missing or too long. */
uint64_t vector_u64(const char *line, size_t ll, int i);
/* Field i as a double, correctly rounded as Java's Double.parseDouble; NaN when missing. */
double vector_real(const char *line, size_t ll, int i);
/* Field i and everything after it (a name, which holds no tab but ends the line), *len bytes; NULL when missing. */
const char *vector_rest(const char *line, size_t ll, int i, size_t *len);

/* The C twin of `verify`'s LIVE and index rules (FORMAT §9.1): every slot below high_water is
 * FREE or LIVE and sound (valid UTF-8 name, a current record satisfying §7.2.1: hm_region_at
 * returns it, hm_lookup finds it), has exactly one index entry within max_probe of its home whose
 * tag is hash >> 34 and whose dist is its true distance, nothing else is indexed, live_count is
 * the number of LIVE slots, and every reference byte is 0 or 1 (§3.9). */
int index_consistent(hm_store *s);

/* In a forked child: opens `path`, takes the slot lock of region `name` (what 0), the structure lock
 * (1), or the structure lock and dies inside a structural change of `name`'s slot, steps 4-7 of
 * §7.4 done (2); then writes one byte to `fd` and waits to be killed. Never returns. */
void child_hold_and_wait(const char *path, int fd, int what, const char *name);

/* Default options with capacity `cap` (unless HM_DEFAULT_CAPACITY), read-only or not, and HM_OPEN_* `flags`. */
hm_options opts(uint32_t cap, int read_only, uint32_t flags);

/* Files in directory `dir` whose name ends in ".tmp". */
int count_tmp_in(const char *dir);

/* Whether anything (a dangling symbolic link included) is at `p`. */
int exists(const char *p);

/* Whether the file at `path` holds exactly `bytes[0, len)`. */
int same_bytes(const char *path, const unsigned char *bytes, size_t len);

/* waitpid(pid) through EINTR: the child's status. */
int wait_status(pid_t pid);

#endif
