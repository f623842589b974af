/* test_support.c - helpers shared by several subjects of the unit tests (test_support.h). */
#define _GNU_SOURCE 1
#include "test_support.h"

#include "hintmap.h"
#include "hintmap_format.h"
#include "hm_internal.h"

#include <errno.h>
#include <math.h>
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

#ifndef HM_VECTORS_DIR
#define HM_VECTORS_DIR "../src/test/resources/vectors"
#endif

const char *hm_t_vectors = HM_VECTORS_DIR;

hm_options opts_cap(uint32_t cap) {
    hm_options o;
    hm_options_init(&o);
    hm_options_set_capacity(&o, cap);
    return o;
}

/* The next line of a vector file that is neither blank nor a '#' comment: 1 with *line and *ll set, 0 at the end. */
int vector_line(const unsigned char *txt, size_t len, size_t *at, const char **line, size_t *ll) {
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

int vector_field(const char *line, size_t ll, int i, const char **f, size_t *fl) {
    const char *p = line, *end = line + ll;
    for (int k = 0; k < i; k++) {
        const char *tab = memchr(p, '\t', (size_t)(end - p));
        if (tab == NULL) return 0;
        p = tab + 1;
    }
    const char *tab = memchr(p, '\t', (size_t)(end - p));
    *f = p;
    *fl = (size_t)((tab ? tab : end) - p);
    return 1;
}

int vector_is(const char *line, size_t ll, const char *word) {
    size_t n = strlen(word);
    return ll > n && memcmp(line, word, n) == 0 && line[n] == '\t';
}

uint64_t vector_u64(const char *line, size_t ll, int i) {
    const char *f;
    size_t fl;
    char buf[32];
    if (!vector_field(line, ll, i, &f, &fl) || fl >= sizeof buf) return UINT64_MAX;
    memcpy(buf, f, fl);
    buf[fl] = '\0';
    return strtoull(buf, NULL, 10);
}

double vector_real(const char *line, size_t ll, int i) {
    const char *f;
    size_t fl;
    char buf[64];
    if (!vector_field(line, ll, i, &f, &fl) || fl >= sizeof buf) return NAN;
    memcpy(buf, f, fl);
    buf[fl] = '\0';
    return strtod(buf, NULL); /* correctly rounded to the nearest double, as Java's Double.parseDouble */
}

const char *vector_rest(const char *line, size_t ll, int i, size_t *len) {
    const char *f;
    size_t fl;
    if (!vector_field(line, ll, i, &f, &fl)) return NULL;
    *len = ll - (size_t)(f - line);
    return f;
}

/* The C twin of `verify`'s LIVE and index rules (FORMAT §9.1): every slot below high_water is
 * FREE or LIVE and sound (valid UTF-8 name, a current record satisfying §7.2.1: hm_region_at
 * returns it, hm_lookup finds it), has exactly one index entry within max_probe of its home whose
 * tag is hash >> 34 and whose dist is its true distance, nothing else is indexed, live_count is
 * the number of LIVE slots, and every reference byte is 0 or 1 (§3.9). */
int index_consistent(hm_store *s) {
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

void child_hold_and_wait(const char *path, int fd, int what, const char *name) {
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

hm_options opts(uint32_t cap, int read_only, uint32_t flags) {
    hm_options o;
    hm_options_init(&o);
    if (cap != HM_DEFAULT_CAPACITY) hm_options_set_capacity(&o, cap);
    o.read_only = read_only;
    o.flags = flags;
    return o;
}

/* Files in directory `dir` whose name ends in ".tmp". */
int count_tmp_in(const char *dir) {
    DIR *d = opendir(dir);
    if (d == NULL) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l > 4 && strcmp(e->d_name + l - 4, ".tmp") == 0) n++;
    }
    closedir(d);
    return n;
}

int exists(const char *p) {
    struct stat st;
    return lstat(p, &st) == 0;
}

int same_bytes(const char *path, const unsigned char *bytes, size_t len) {
    size_t n;
    unsigned char *b = t_read_file(path, &n);
    int same = b != NULL && n == len && memcmp(b, bytes, len) == 0;
    free(b);
    return same;
}

int wait_status(pid_t pid) {
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    return st;
}
