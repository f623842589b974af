/*
 * hint_file_opener.c (was hintmap.c) - the C implementation of docs/FORMAT.md version 1.
 *
 * Section references (§n) are to FORMAT.md. Every atomic access to the mapping
 * names its memory order; the one-line comment next to it says why.
 *
 * Decisions that FORMAT.md leaves open are marked "DECISION:".
 */
#define _GNU_SOURCE 1

#include "hintmap.h"
#include "hintmap_format.h"
#include "hm_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#define HM_MAX_NAME_WORDS    (HM_MAX_NAME_BYTES_LIMIT / 8u)
#define HM_READ_ATTEMPTS     65536u  /* §7.2.1 */
#define HM_RESOLVE_ATTEMPTS  64u     /* §7.3 */
#define HM_RECORD_ATTEMPTS   1024u   /* §7.1: re-resolutions of a record before its sample is dropped */
#define HM_SPINS_PER_CHECK   1024u   /* §6.2 */
#define HM_SIZE_SPINS        1024u   /* §7.5: spins of hm_size before it yields to a structural change */
#define HM_SIZE_STALL_NS     UINT64_C(10000000) /* §7.5: 10 ms, then the unvalidated count is the answer */
#define HM_OPEN_ATTEMPTS     8       /* create/open races (file replaced between link and open) */
#define HM_ERR_BYTES         512
#define HM_LOCK_WAIT_LIMIT_NS UINT64_C(5000000000) /* §6.2 lock_wait_limit: give up after 5 s */
#define HM_GIVEUP_MEMO       16      /* (lock, owner word) pairs a store remembers giving up on */
#define HM_CHECK_PERIOD_NS   UINT64_C(1000000)    /* §6.2/§6.3: 1 ms between liveness checks of one holder */
#define HM_MAPS_LINE         256     /* bytes kept of a /proc/<pid>/maps line: its fields before the path */
#define HM_ACL_XATTR         "system.posix_acl_access"
#define HM_OPEN_KNOWN_FLAGS  (HM_OPEN_GROUP_SHARED | HM_OPEN_FOLLOW_SYMLINKS | HM_OPEN_ALLOW_FOREIGN_OWNER)

#define RLX memory_order_relaxed
#define ACQ memory_order_acquire
#define REL memory_order_release

/* ------------------------------------------------------------------ types */

/* A lock this store gave up on (§6.2 "give up"): while the lock still holds that owner word,
 * later waiters give up at once while the last liveness check of the pair is less than
 * giveup_recheck_ns (1 ms) old, else after one liveness check, instead of waiting
 * lock_wait_limit again. */
typedef struct hm_giveup {
    _Atomic uintptr_t lock; /* written under giveup_mu; read without it by giveup_clear */
    uint64_t owner;         /* under giveup_mu */
    uint64_t checked_ns;    /* under giveup_mu: monotonic time of the last liveness check of the pair */
} hm_giveup;

/* A mapped file as /proc/<pid>/maps names it (§6.3 last rule): device MAJ:MIN, inode. */
typedef struct hm_map_id {
    uint64_t major, minor, ino;
} hm_map_id;

struct hm_store {
    unsigned char *base;             /* mapping of the whole file                      */
    size_t map_bytes;
    hm_file_header *hdr;
    hm_writer_entry *writers;
    _Atomic uint64_t *index;
    unsigned char *slots;
    /* geometry, validated at open and never re-read from the (mutable) file */
    uint32_t capacity, max_name_bytes, slot_bytes, name_area_words;
    uint32_t index_entries, index_mask, max_probe, writer_entries;
    uint64_t hot_threshold_ns, created_epoch_ms;
    int read_only;
    uint32_t flags;                  /* HM_OPEN_* of the open                              */
    /* the descriptor opened in §5 step 0, kept for hm_check() (§5.1) and closed by hm_close() */
    int fd;
    dev_t dev;
    ino_t ino;
    /* §6.2 give up: lock_wait_limit (changed only by a test hook) and what we gave up on */
    uint64_t lock_wait_limit_ns;
    _Atomic unsigned giveup_count;   /* entries in use: lets the common slow path skip the mutex */
    pthread_mutex_t giveup_mu;
    unsigned giveup_next;
    uint64_t giveup_recheck_ns;      /* HM_CHECK_PERIOD_NS (changed only by a test hook)       */
    hm_giveup giveup[HM_GIVEUP_MEMO];
    _Atomic uint64_t liveness_checks; /* owner liveness checks made (a test hook reads it)       */
    /* §6.3 last rule: how /proc/self/maps names this store's mapping, learnt at the first
     * liveness check that needs it (self_map is written once, under map_mu, before the
     * release store of self_map_known) */
    _Atomic int self_map_known;
    pthread_mutex_t map_mu;
    hm_map_id self_map;
    /* writer identity (§6.1) */
    uint64_t token, owner;
    uint32_t writer_index;
    /* lifetime: 1 reference for the open store + 1 per handle */
    _Atomic int closed;
    _Atomic unsigned refs;
    /* last error */
    pthread_mutex_t err_mu;
    char err[HM_ERR_BYTES];
    char path[];
};

/* A name as slots store it: little-endian words, zero past len, with its hash. */
typedef struct hm_name {
    uint64_t hash;
    uint32_t len, nwords;
    const uint64_t *words;
} hm_name;

struct hm_region {
    hm_store *s;
    uint32_t slot;
    int resolved;
    uint64_t gen;
    hm_name nm;
    uint64_t words[];
};

/* ------------------------------------------------------------------ small helpers */

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("isb" ::: "memory");
#else
    atomic_signal_fence(memory_order_seq_cst);
#endif
}

static inline uint64_t clamp63(uint64_t v) { return v > HM_VALUE_MAX ? HM_VALUE_MAX : v; }

/* A statistics counter any writer may bump: saturating like every count of the file (§1), so a
 * counter at 2^63-1 never wraps into the top bit. Relaxed CAS loop: statistics order nothing. */
static inline void counter_bump(_Atomic uint64_t *counter) {
    uint64_t v = atomic_load_explicit(counter, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(counter, &v, hm_sat_add(v, 1), memory_order_relaxed,
                                                  memory_order_relaxed)) {
    }
}

static inline uint64_t roundup64(uint64_t v, uint64_t to) { return (v + to - 1) / to * to; }

static inline hm_slot *slot_at(const hm_store *s, uint32_t k) {
    return (hm_slot *)(void *)(s->slots + (size_t)k * s->slot_bytes);
}

static void msg_vset(char *buf, size_t len, const char *path, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));
static void msg_vset(char *buf, size_t len, const char *path, const char *fmt, va_list ap) {
    if (buf == NULL || len == 0) return;
    int n = snprintf(buf, len, "hintmap: %s: ", path ? path : "(null)");
    if (n < 0) n = 0;
    if ((size_t)n < len) vsnprintf(buf + n, len - (size_t)n, fmt, ap);
}

static void msg_set(char *buf, size_t len, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void msg_set(char *buf, size_t len, const char *path, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    msg_vset(buf, len, path, fmt, ap);
    va_end(ap);
}

static int fail(hm_store *s, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(hm_store *s, int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    pthread_mutex_lock(&s->err_mu);
    msg_vset(s->err, sizeof s->err, s->path, fmt, ap);
    pthread_mutex_unlock(&s->err_mu);
    va_end(ap);
    return code;
}

const char *hm_strerror(int code) {
    switch (code) {
    case HM_OK: return "success";
    case HM_DROPPED: return "sample dropped (capacity 0, probe bound, or a lock a live process holds)";
    case HM_EINVAL: return "invalid argument";
    case HM_ENAMETOOLONG: return "region name longer than max_name_bytes";
    case HM_EEMPTYNAME: return "region name is empty";
    case HM_EBADNAME: return "region name is not valid UTF-8";
    case HM_ENOTHINT: return "not a hint file (wrong magic)";
    case HM_ETRUNCATED: return "hint file is truncated";
    case HM_EUNFINISHED: return "hint file initialisation never finished (magic is 0)";
    case HM_EVERSION: return "unsupported (newer or unknown) format version";
    case HM_ECHECKSUM: return "header checksum mismatch (corrupt header)";
    case HM_ELAYOUT: return "layout fingerprint mismatch (built with another layout)";
    case HM_EINCONSISTENT: return "header field out of range or inconsistent";
    case HM_EOPTIONS: return "options contradict the existing file";
    case HM_EIO: return "I/O error";
    case HM_ENOMEM: return "out of memory";
    case HM_ENOTFOUND: return "region not found";
    case HM_EWRITERS: return "writer table full";
    case HM_EREADONLY: return "store is read-only";
    case HM_ECLOSED: return "store is closed";
    case HM_ESYMLINK: return "symbolic link at the final path component refused";
    case HM_EOWNER: return "file owned by another user refused";
    case HM_ENOSPC: return "no space to create or allocate the hint file (ENOSPC, EDQUOT or file-size limit)";
    case HM_ECHANGED: return "hint file truncated, resized, replaced or removed under the mapping";
    case HM_ESPARSE:
        return "the file has unallocated ranges: a writer's open allocates them; or copy it with cp --sparse=never";
    default: return "unknown error";
    }
}

/* ------------------------------------------------------------------ hm64 (§4) */

#define HM_P0 UINT64_C(0xa0761d6478bd642f)
#define HM_P1 UINT64_C(0xe7037ed1a0b428db)
#define HM_P2 UINT64_C(0x8ebc6af09c88c6e3)

static inline uint64_t mum(uint64_t a, uint64_t b) {
    __extension__ typedef unsigned __int128 u128;
    u128 p = (u128)a * b;
    return (uint64_t)p ^ (uint64_t)(p >> 64);
}

uint64_t hm_hash64(const void *bytes, size_t len) {
    const unsigned char *p = bytes;
    uint64_t h = HM_P0 ^ (uint64_t)len;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8); /* little-endian target (checked in hintmap_format.h) */
        h = mum(h ^ w, HM_P1);
    }
    if (i < len) {
        uint64_t w = 0;
        memcpy(&w, p + i, len - i);
        h = mum(h ^ w, HM_P1);
    }
    return mum(h ^ HM_P2, HM_P1);
}

static uint64_t hash_words(const uint64_t *w, uint32_t len, uint32_t nwords) {
    uint64_t h = HM_P0 ^ (uint64_t)len;
    for (uint32_t i = 0; i < nwords; i++) h = mum(h ^ w[i], HM_P1);
    return mum(h ^ HM_P2, HM_P1);
}

/* ------------------------------------------------------------------ layout fingerprint (§3.4) */

/* The inputs come from the X-macro lists of hintmap_format.h (the only place the layout is
 * written down), as offsetof/sizeof of this build's structs, which the lists pin by
 * _Static_assert; the order of §3.4 is that of HM_LAYOUT_FINGERPRINT_SIZES/_OFFSETS. */
uint64_t hm_layout_fingerprint(void) {
    uint32_t v[64];
    unsigned n = 0;
    memset(v, 0, sizeof v); /* 6. zero fill to 64 values */
#define FP_V(x) v[n++] = (x);
#define FP_F(st, name, up, off, type) FP_V((uint32_t)offsetof(HM_CTYPE(st), name))
#define FP_A(st, name, up, off, type, cnt) FP_V((uint32_t)offsetof(HM_CTYPE(st), name))
    HM_LAYOUT_FINGERPRINT_SIZES(FP_V)                                      /* 1. sizes */
    HM_LAYOUT_FINGERPRINT_OFFSETS(FP_F, FP_A, HM_LAYOUT_SKIP_R, FP_F)     /* 2.-5. offsets */
#undef FP_A
#undef FP_F
#undef FP_V
    (void)n;
    return hm_hash64(v, sizeof v); /* u32 values little-endian: the target's own order */
}

uint32_t hm_format_version(void) { return HM_FORMAT_VERSION; }

/* ------------------------------------------------------------------ geometry (§2) */

typedef struct hm_geometry {
    uint32_t capacity, max_name_bytes, slot_bytes, index_entries, max_probe, writer_entries;
    uint64_t writer_table_offset, index_offset, slots_offset, file_bytes;
} hm_geometry;

static void geometry_compute(uint32_t capacity, uint32_t max_name_bytes, hm_geometry *g) {
    uint64_t want = 2u * (uint64_t)capacity;
    uint64_t ie = 16;
    if (want < 16) want = 16;
    while (ie < want) ie <<= 1;
    g->capacity = capacity;
    g->max_name_bytes = max_name_bytes;
    g->slot_bytes = (uint32_t)(HM_SLOT_FIXED_BYTES + roundup64(max_name_bytes, 64));
    g->index_entries = (uint32_t)ie;
    g->max_probe = ie < HM_MAX_PROBE_LIMIT ? (uint32_t)ie : HM_MAX_PROBE_LIMIT;
    g->writer_entries = HM_WRITER_ENTRIES;
    g->writer_table_offset = HM_HEADER_BYTES;
    g->index_offset = roundup64(g->writer_table_offset + sizeof(hm_writer_entry) * (uint64_t)HM_WRITER_ENTRIES, 4096);
    g->slots_offset = roundup64(g->index_offset + HM_INDEX_ENTRY_BYTES * ie, 4096);
    g->file_bytes = roundup64(g->slots_offset + (uint64_t)capacity * g->slot_bytes, 4096);
}

static uint64_t header_checksum(const hm_file_header *h) {
    return hm_hash64((const unsigned char *)h + HM_HDR_FORMAT_VERSION_OFFSET,
                     HM_HDR_HEADER_CHECKSUM_OFFSET - HM_HDR_FORMAT_VERSION_OFFSET);
}

/* ------------------------------------------------------------------ names */

static int utf8_valid(const unsigned char *p, size_t n) {
    size_t i = 0;
    while (i < n) {
        unsigned c = p[i];
        if (c < 0x80) { i++; continue; }
        size_t need;
        uint32_t cp;
        if (c >= 0xC2 && c <= 0xDF) { need = 1; cp = c & 0x1F; }
        else if ((c & 0xF0) == 0xE0) { need = 2; cp = c & 0x0F; }
        else if (c >= 0xF0 && c <= 0xF4) { need = 3; cp = c & 0x07; }
        else return 0;
        if (n - i <= need) return 0;
        for (size_t k = 1; k <= need; k++) {
            unsigned b = p[i + k];
            if ((b & 0xC0) != 0x80) return 0;
            cp = cp << 6 | (b & 0x3F);
        }
        if (need == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) return 0; /* overlong, surrogate */
        if (need == 3 && (cp < 0x10000 || cp > 0x10FFFF)) return 0;
        i += need + 1;
    }
    return 1;
}

/* Validates `name` for store s and encodes it into words (HM_MAX_NAME_WORDS capacity). */
static int name_encode(hm_store *s, const char *name, size_t len, uint64_t *words, hm_name *out) {
    if (name == NULL) return fail(s, HM_EINVAL, "region name is NULL");
    if (len == 0) return fail(s, HM_EEMPTYNAME, "region name is empty");
    if (len > s->max_name_bytes)
        return fail(s, HM_ENAMETOOLONG, "region name of %zu bytes is longer than max_name_bytes %u",
                    len, s->max_name_bytes);
    if (!utf8_valid((const unsigned char *)name, len))
        return fail(s, HM_EBADNAME, "region name is not valid UTF-8");
    uint32_t nwords = (uint32_t)((len + 7) / 8);
    words[nwords - 1] = 0;
    memcpy(words, name, len);
    out->len = (uint32_t)len;
    out->nwords = nwords;
    out->words = words;
    out->hash = hash_words(words, out->len, nwords);
    return HM_OK;
}

/* ------------------------------------------------------------------ liveness (§6.3) */

/* Reads state (field 3) and starttime (field 22) of /proc/<pid>/stat.
 * Returns 1 found, 0 no such process, -1 cannot tell. */
static int proc_stat_read(uint64_t pid, char *state, uint64_t *start_ticks) {
    char path[48];
    char buf[1024];
    snprintf(path, sizeof path, "/proc/%llu/stat", (unsigned long long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return (errno == ENOENT || errno == ESRCH) ? 0 : -1;
    size_t got = 0;
    while (got < sizeof buf - 1) {
        ssize_t r = read(fd, buf + got, sizeof buf - 1 - got);
        if (r < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            close(fd);
            return e == ESRCH ? 0 : -1;
        }
        if (r == 0) break;
        got += (size_t)r;
    }
    close(fd);
    if (got == 0) return 0;
    buf[got] = '\0';
    /* Field 2 (comm) may contain spaces and ')': fields 3.. start after the LAST ')'. */
    char *p = memrchr(buf, ')', got);
    if (p == NULL) return -1;
    p++;
    for (int field = 3; field <= 22; field++) {
        while (*p == ' ') p++;
        if (*p == '\0') return -1;
        if (field == 3) {
            *state = *p;
        } else if (field == 22) {
            char *end;
            errno = 0;
            unsigned long long v = strtoull(p, &end, 10);
            if (end == p || errno != 0) return -1;
            *start_ticks = (uint64_t)v;
            return 1;
        }
        while (*p != ' ' && *p != '\0') p++;
    }
    return -1;
}

/* Threads of process pid from the "Threads:" line of /proc/<pid>/status: 0 when it is gone,
 * 2 ("more than one") when it cannot be read, so that a lock is never taken on a guess. */
static long proc_thread_count(uint64_t pid) {
    char path[64];
    char buf[4096];
    snprintf(path, sizeof path, "/proc/%llu/status", (unsigned long long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return (errno == ENOENT || errno == ESRCH) ? 0 : 2;
    size_t got = 0;
    while (got < sizeof buf - 1) {
        ssize_t r = read(fd, buf + got, sizeof buf - 1 - got);
        if (r < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (r == 0) break;
        got += (size_t)r;
    }
    close(fd);
    buf[got] = '\0';
    const char *line = strstr(buf, "\nThreads:");
    if (line == NULL) return 2;
    return strtol(line + strlen("\nThreads:"), NULL, 10);
}

/* One number of a maps line, in base 16 or 10; advances *pp. Returns 0 when there is none or it
 * overflows 64 bits. */
static int maps_number(const char **pp, unsigned base, uint64_t *out) {
    const char *p = *pp;
    uint64_t v = 0;
    for (; ; p++) {
        unsigned d;
        if (*p >= '0' && *p <= '9') d = (unsigned)(*p - '0');
        else if (base == 16 && *p >= 'a' && *p <= 'f') d = (unsigned)(*p - 'a') + 10;
        else break;
        if (v > (UINT64_MAX - d) / base) return 0;
        v = v * base + d;
    }
    if (p == *pp) return 0;
    *pp = p;
    *out = v;
    return 1;
}

/* "start-end perms offset MAJ:MIN inode [path]" (proc(5)). Returns 1 parsed, 0 malformed. */
static int maps_line_parse(const char *p, uint64_t *start, uint64_t *end, hm_map_id *id) {
    uint64_t offset;
    if (!maps_number(&p, 16, start) || *p != '-') return 0;
    p++;
    if (!maps_number(&p, 16, end) || *p != ' ') return 0;
    p++;
    while (*p != ' ' && *p != '\0') p++; /* perms */
    if (*p != ' ') return 0;
    p++;
    if (!maps_number(&p, 16, &offset) || *p != ' ') return 0;
    p++;
    if (!maps_number(&p, 16, &id->major) || *p != ':') return 0;
    p++;
    if (!maps_number(&p, 16, &id->minor) || *p != ' ') return 0;
    p++;
    if (!maps_number(&p, 10, &id->ino)) return 0;
    return *p == ' ' || *p == '\0';
}

/* Streams a maps file with bounded memory (one read buffer, the first HM_MAPS_LINE bytes of each
 * line: the maps of a big process are megabytes). With want == NULL, finds the line whose range
 * contains addr and stores its id in *found; otherwise looks for a line naming *want. Returns 1
 * found, 0 not found, -1 cannot tell (cannot open or read it, e.g. EACCES for another user's
 * process or ENOENT when it just exited, or a line that does not parse). */
static int maps_scan(const char *path, uintptr_t addr, const hm_map_id *want, hm_map_id *found) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    char buf[4096], line[HM_MAPS_LINE];
    size_t len = 0;
    int result = 0;
    for (;;) {
        ssize_t r = read(fd, buf, sizeof buf);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            result = -1;
            break;
        }
        const size_t n = (size_t)r;
        const int eof = r == 0;
        for (size_t i = 0; i < n || (eof && len > 0); i++) {
            char c = i < n ? buf[i] : '\n'; /* a last line without its newline */
            if (c != '\n') {
                if (len < sizeof line - 1) line[len++] = c;
                continue;
            }
            line[len] = '\0';
            len = 0;
            uint64_t a, b;
            hm_map_id id;
            if (!maps_line_parse(line, &a, &b, &id)) {
                result = -1;
                goto done;
            }
            if (want == NULL ? (addr >= a && addr < b)
                             : (id.ino == want->ino && id.major == want->major && id.minor == want->minor)) {
                if (found) *found = id;
                result = 1;
                goto done;
            }
        }
        if (eof) break;
    }
done:
    close(fd);
    return result;
}

/* How /proc/self/maps names this store's mapping (the line holding its base address: right on
 * overlayfs too, where fstat's st_dev/st_ino differ from what maps prints). Learnt once, on the
 * first liveness check that needs it; 0 when it cannot be learnt now. */
static int self_map_id(hm_store *s, hm_map_id *out) {
    if (!atomic_load_explicit(&s->self_map_known, ACQ)) { /* acquire: pairs with the release below */
        hm_map_id id;
        if (maps_scan("/proc/self/maps", (uintptr_t)s->base, NULL, &id) != 1 || id.ino == 0) return 0;
        pthread_mutex_lock(&s->map_mu);
        if (!atomic_load_explicit(&s->self_map_known, RLX)) { /* relaxed: under the mutex */
            s->self_map = id;
            atomic_store_explicit(&s->self_map_known, 1, REL); /* release: self_map is written */
        }
        pthread_mutex_unlock(&s->map_mu);
    }
    *out = s->self_map;
    return 1;
}

/* §6.3 last rule: whether process pid maps this file. 1 when it does, and when that cannot be
 * told (our own line not found, its maps unreadable or unparsable: the rule without maps). */
static int pid_maps_this_file(hm_store *s, uint64_t pid) {
    hm_map_id self;
    if (!self_map_id(s, &self)) return 1;
    char path[48];
    snprintf(path, sizeof path, "/proc/%llu/maps", (unsigned long long)pid);
    return maps_scan(path, 0, &self, NULL) != 0;
}

/* §6.3. Slow path only (lock waits after the spins, writer-entry reclaim at open). maps_rule 0:
 * without §6.3's last rule, for the writer-table reclaim (§6.1): its CAS compares the token alone,
 * and a writer that closes and reopens the file between our check and our CAS claims the same
 * entry with the same token; judged by its mappings (none in that gap) it would lose its claim. */
static int token_alive(hm_store *s, uint64_t token, int maps_rule) {
    if (token == 0) return 0;
    if (token == s->token) return 1; /* this process (it maps the file: s is its mapping) */
    const uint64_t pid = token >> HM_TOKEN_START_BITS;
    char state = 0;
    uint64_t start = 0;
    int r = proc_stat_read(pid, &state, &start);
    if (r < 0) return 1; /* cannot tell: never take a lock from a process that may be alive */
    if (r == 0) return 0;
    if (state == 'X') return 0;
    if ((start & HM_TOKEN_START_MASK) != (token & HM_TOKEN_START_MASK)) return 0; /* pid reused */
    /* A zombie leader whose other threads still run (main called pthread_exit) is alive; its
     * maps read empty, so the maps rule does not apply to it. */
    if (state == 'Z') return proc_thread_count(pid) > 1;
    if (!maps_rule) return 1;
    /* Last rule: a process that does not map THIS file is not its writer: the token came with a
     * copy of a live file (cp), or names a reused pid whose start time matches. */
    return pid_maps_this_file(s, pid);
}

static int owner_dead(hm_store *s, uint64_t owner) {
    atomic_fetch_add_explicit(&s->liveness_checks, 1, RLX); /* relaxed: a statistic for tests */
    uint64_t i = (owner & 0xFFFFFFFFu) - 1; /* low word 0 wraps to a huge index: corrupt, dead */
    if (i >= s->writer_entries) return 1;
    hm_writer_entry *w = &s->writers[i];
    uint64_t gen = atomic_load_explicit(&w->generation, ACQ); /* acquire: pairs with the holder's release */
    if ((gen & 0xFFFFFFFFu) != owner >> 32) return 1;
    uint64_t token = atomic_load_explicit(&w->token, ACQ); /* acquire: pairs with claim CAS / release store */
    if (token == 0) return 1;
    return !token_alive(s, token, 1);
}

static uint64_t monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------------------ locks (§6.2) */

/* Takes lock word `l` only if it is free right now. */
static inline int lock_try(hm_store *s, _Atomic uint64_t *l) {
    uint64_t expected = 0;
    /* acquire on success: the critical section sees everything the previous holder released */
    return atomic_compare_exchange_strong_explicit(l, &expected, s->owner, ACQ, RLX);
}

#define HM_GIVEUP_UNKNOWN 0 /* giveup_known: the store did not give up on this (lock, owner word) */
#define HM_GIVEUP_FRESH   1 /* it did, and checked the holder less than giveup_recheck_ns ago   */
#define HM_GIVEUP_STALE   2 /* it did, and the last check is older                               */

/* §6.2 give up: whether this store already gave up on lock `l` held by `owner`, and how long
 * ago (from `now`) it last checked that holder's liveness. */
static int giveup_known(hm_store *s, const _Atomic uint64_t *l, uint64_t owner, uint64_t now) {
    if (atomic_load_explicit(&s->giveup_count, RLX) == 0) return HM_GIVEUP_UNKNOWN; /* relaxed: a hint; the mutex orders the memo */
    int known = HM_GIVEUP_UNKNOWN;
    pthread_mutex_lock(&s->giveup_mu);
    for (unsigned i = 0; i < HM_GIVEUP_MEMO; i++) { /* relaxed: under the mutex */
        if (atomic_load_explicit(&s->giveup[i].lock, RLX) == (uintptr_t)l && s->giveup[i].owner == owner) {
            uint64_t at = s->giveup[i].checked_ns;
            known = now >= at && now - at < s->giveup_recheck_ns ? HM_GIVEUP_FRESH : HM_GIVEUP_STALE;
            break;
        }
    }
    pthread_mutex_unlock(&s->giveup_mu);
    return known;
}

/* Remembers giving up on (l, owner) after a liveness check at monotonic time `checked`, or
 * refreshes that time. Bounded: HM_GIVEUP_MEMO pairs, one per lock, the oldest overwritten. */
static void giveup_remember(hm_store *s, const _Atomic uint64_t *l, uint64_t owner, uint64_t checked) {
    pthread_mutex_lock(&s->giveup_mu);
    unsigned free_i = HM_GIVEUP_MEMO;
    for (unsigned i = 0; i < HM_GIVEUP_MEMO; i++) { /* relaxed: under the mutex */
        uintptr_t li = atomic_load_explicit(&s->giveup[i].lock, RLX);
        if (li == (uintptr_t)l) free_i = i; /* one entry per lock: the newest owner */
        else if (free_i == HM_GIVEUP_MEMO && li == 0) free_i = i;
    }
    if (free_i == HM_GIVEUP_MEMO) free_i = s->giveup_next++ % HM_GIVEUP_MEMO; /* full: overwrite round robin */
    if (atomic_load_explicit(&s->giveup[free_i].lock, RLX) == 0)
        atomic_fetch_add_explicit(&s->giveup_count, 1, RLX); /* relaxed: counted under the mutex */
    atomic_store_explicit(&s->giveup[free_i].lock, (uintptr_t)l, RLX); /* relaxed: a hint for giveup_clear */
    s->giveup[free_i].owner = owner;
    s->giveup[free_i].checked_ns = checked;
    pthread_mutex_unlock(&s->giveup_mu);
}

/* We took lock `l`: its word changed, so whatever we gave up on it is over ("until the word
 * changes", §6.2). Costs one relaxed load per acquisition while the memo is empty. */
static inline void giveup_clear(hm_store *s, const _Atomic uint64_t *l) {
    if (__builtin_expect(atomic_load_explicit(&s->giveup_count, RLX) == 0, 1)) return; /* relaxed: a hint */
    int found = 0;
    for (unsigned i = 0; i < HM_GIVEUP_MEMO && !found; i++) /* relaxed: a hint, confirmed under the mutex */
        found = atomic_load_explicit(&s->giveup[i].lock, RLX) == (uintptr_t)l;
    if (!found) return;
    pthread_mutex_lock(&s->giveup_mu);
    for (unsigned i = 0; i < HM_GIVEUP_MEMO; i++) {
        if (atomic_load_explicit(&s->giveup[i].lock, RLX) == (uintptr_t)l) { /* relaxed: under the mutex */
            atomic_store_explicit(&s->giveup[i].lock, 0, RLX);
            s->giveup[i].owner = 0;
            atomic_fetch_sub_explicit(&s->giveup_count, 1, RLX); /* relaxed: counted under the mutex */
        }
    }
    pthread_mutex_unlock(&s->giveup_mu);
}

/* Takes lock `l` from `holder`, found dead (§6.2 steal). Returns 0 when the word changed meanwhile. */
static int lock_steal(hm_store *s, _Atomic uint64_t *l, uint64_t holder, int *stolen) {
    uint64_t expected = holder;
    /* acquire on success: we inherit what the dead holder left (repaired by §7.2 / §8) */
    if (!atomic_compare_exchange_strong_explicit(l, &expected, s->owner, ACQ, RLX)) return 0;
    counter_bump(&s->hdr->stolen_locks);
    if (stolen) *stolen = 1;
    giveup_clear(s, l);
    return 1;
}

/* Acquires lock word `l` with this store's owner word (§6.2). Returns 1 when taken; *stolen
 * (optional) is set when it was taken over from a dead holder. Returns 0 when it gave up: a
 * live holder kept it for lock_wait_limit of wall-clock time, or the store gave up on this
 * same (lock, owner word) before and either checked that holder less than giveup_recheck_ns
 * (1 ms) ago, or checks it once now and finds it still alive. A waiter that gives up has
 * changed nothing. */
static __attribute__((warn_unused_result)) int lock_acquire(hm_store *s, _Atomic uint64_t *l, int *stolen) {
    if (lock_try(s, l)) {
        giveup_clear(s, l);
        return 1;
    }
    if (atomic_load_explicit(&s->giveup_count, RLX) != 0) { /* relaxed: a hint, the memo is under its mutex */
        /* §6.2 give up, remembered: a holder this store gave up on is not waited for again, and
         * not checked more than once per check period (one /proc read costs tens of µs, which
         * every dropped sample paid before) */
        uint64_t holder = atomic_load_explicit(l, RLX); /* relaxed: only a hint before a CAS */
        if (holder != 0) {
            uint64_t now = monotonic_ns();
            int known = giveup_known(s, l, holder, now);
            if (known == HM_GIVEUP_FRESH) return 0;
            if (known == HM_GIVEUP_STALE) {
                if (!owner_dead(s, holder)) {
                    giveup_remember(s, l, holder, now);
                    return 0;
                }
                if (lock_steal(s, l, holder, stolen)) return 1;
                /* the word changed meanwhile: wait for the new holder as for any */
            }
        }
    }
    uint64_t expected;
    unsigned spins = 0;
    int yielding = 0;
    uint64_t start_ns = 0, next_check_ns = 0;
    for (;;) {
        uint64_t holder = atomic_load_explicit(l, RLX); /* relaxed: only a hint before the CAS */
        if (holder == 0) {
            expected = 0;
            if (atomic_compare_exchange_weak_explicit(l, &expected, s->owner, ACQ, RLX)) {
                giveup_clear(s, l);
                return 1;
            }
            continue;
        }
        uint64_t t;
        if (!yielding) {
            if (++spins % HM_SPINS_PER_CHECK != 0) {
                cpu_relax();
                continue;
            }
            yielding = 1; /* §6.2: after the first liveness check, yield between attempts */
            t = start_ns = monotonic_ns();
            next_check_ns = t + HM_CHECK_PERIOD_NS;
        } else {
            sched_yield();
            /* §6.3: from then on the holder is checked by the clock, once per millisecond, so a
             * holder that dies after being seen alive is noticed within ~1 ms however slowly
             * the yields come back on a loaded machine */
            t = monotonic_ns();
            if (t < next_check_ns) continue;
            next_check_ns = t + HM_CHECK_PERIOD_NS;
        }
        if (owner_dead(s, holder)) {
            if (lock_steal(s, l, holder, stolen)) return 1;
            continue;
        }
        /* §6.2 give up: a live holder (a stopped process, or a hostile file naming a live process).
         * Known already (another thread of this store gave up on it meanwhile): this check
         * refreshes the memo's time. */
        if (giveup_known(s, l, holder, t) != HM_GIVEUP_UNKNOWN || t - start_ns >= s->lock_wait_limit_ns) {
            giveup_remember(s, l, holder, t);
            return 0;
        }
    }
}

static inline void lock_release(_Atomic uint64_t *l) {
    atomic_store_explicit(l, 0, REL); /* release: publishes every write of the critical section */
}

/* ------------------------------------------------------------------ consistent read (§7.2.1) */

/* Reads slot k. With `want`, succeeds only if the slot holds that name. With name_out
 * (HM_MAX_NAME_WORDS words), copies the name words. Returns 1 with rec, gen_out, len_out
 * filled, or 0 (FREE, BUSY, other name, or no consistent read within the bound). */
static int slot_read(const hm_store *s, uint32_t k, const hm_name *want, hm_region_record *rec,
                     uint64_t *gen_out, uint64_t *name_out, uint32_t *len_out) {
    hm_slot *sl = slot_at(s, k);
    for (uint32_t attempt = 0; attempt < HM_READ_ATTEMPTS; attempt++) {
        uint64_t g1 = atomic_load_explicit(&sl->gen, ACQ); /* acquire: pairs with §7.4 step 11 release of gen */
        if (g1 & 1) {
            /* DECISION: BUSY is reported absent at once instead of spinning here; the
             * resolve loop retries because index_seq is odd during the change (§7.3). */
            return 0;
        }
        uint64_t s1 = atomic_load_explicit(&sl->seq, ACQ); /* acquire: pairs with §7.1 release of seq */
        hm_record_copy *cp = &sl->copies[s1 & 1];
        /* relaxed: the copy fields and name words are validated by the seq/gen re-check below */
        uint64_t count = atomic_load_explicit(&cp->dispatch_count, RLX);
        uint64_t total = atomic_load_explicit(&cp->kernel_ns_total, RLX);
        uint64_t max = atomic_load_explicit(&cp->kernel_ns_max, RLX);
        uint64_t bytes = atomic_load_explicit(&cp->bytes_total, RLX);
        uint32_t len = atomic_load_explicit(&sl->name_len, RLX);
        int match = len >= 1 && len <= s->max_name_bytes;
        if (match && want != NULL) {
            match = len == want->len && atomic_load_explicit(&sl->hash, RLX) == want->hash;
            for (uint32_t i = 0; match && i < want->nwords; i++)
                match = atomic_load_explicit(&sl->name[i], RLX) == want->words[i];
        }
        if (match && name_out != NULL) {
            uint32_t nw = (len + 7) / 8;
            for (uint32_t i = 0; i < nw; i++) name_out[i] = atomic_load_explicit(&sl->name[i], RLX);
        }
        atomic_thread_fence(ACQ); /* acquire fence: orders the loads above before the re-checks */
        uint64_t s2 = atomic_load_explicit(&sl->seq, RLX);
        uint64_t g2 = atomic_load_explicit(&sl->gen, RLX);
        if (s1 != s2 || g1 != g2) {
            cpu_relax();
            continue;
        }
        /* A record no writer could have produced (top bit set, or breaking the invariants of
         * §7.2.1) comes from a damaged file: it reads as absent, never as a hint. */
        if (!match || count == 0 || count > (uint64_t)INT64_MAX || total > (uint64_t)INT64_MAX ||
            max > total || bytes > (uint64_t)INT64_MAX || total / count > max)
            return 0;
        if (rec) {
            rec->dispatch_count = count;
            rec->kernel_ns_total = total;
            rec->kernel_ns_max = max;
            rec->bytes_total = bytes;
        }
        if (gen_out) *gen_out = g1;
        if (len_out) *len_out = len;
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------ resolve (§7.3) */

static int resolve(const hm_store *s, const hm_name *nm, uint32_t *k_out, uint64_t *g_out,
                   hm_region_record *rec, int *corrupt) {
    if (s->capacity == 0) return 0;
    const uint64_t tag = nm->hash >> 32;
    for (uint32_t attempt = 0; attempt < HM_RESOLVE_ATTEMPTS; attempt++) {
        uint64_t v1 = atomic_load_explicit(&s->hdr->index_seq, ACQ); /* acquire: pairs with step 11 release */
        uint32_t j = (uint32_t)nm->hash & s->index_mask;
        for (uint32_t p = 0; p < s->max_probe; p++) {
            uint64_t e = atomic_load_explicit(&s->index[j], ACQ); /* acquire: pairs with entry release stores */
            if (e == 0) break;
            if (e >> 32 == tag) {
                uint64_t k1 = e & 0xFFFFFFFFu;
                if (k1 == 0 || k1 > s->capacity) {
                    if (corrupt) *corrupt = 1; /* names no slot: never used as an offset */
                } else if (slot_read(s, (uint32_t)(k1 - 1), nm, rec, g_out, NULL, NULL)) {
                    *k_out = (uint32_t)(k1 - 1);
                    return 1;
                }
            }
            j = (j + 1) & s->index_mask;
        }
        atomic_thread_fence(ACQ); /* acquire fence: orders the probe loads before the re-check */
        if ((v1 & 1) == 0 && atomic_load_explicit(&s->hdr->index_seq, RLX) == v1) return 0; /* definite miss */
        cpu_relax();
    }
    return 0;
}

/* Exact lookup under struct_lock: index, hash, name_len and names change only under it. */
static int resolve_locked(const hm_store *s, const hm_name *nm, uint32_t skip_k, uint32_t *k_out,
                          uint64_t *g_out, int *corrupt) {
    if (s->capacity == 0) return 0;
    const uint64_t tag = nm->hash >> 32;
    uint32_t j = (uint32_t)nm->hash & s->index_mask;
    for (uint32_t p = 0; p < s->max_probe; p++) {
        uint64_t e = atomic_load_explicit(&s->index[j], RLX); /* relaxed: we are the only writer */
        if (e == 0) break;
        if (e >> 32 == tag) {
            uint64_t k1 = e & 0xFFFFFFFFu;
            if (k1 == 0 || k1 > s->capacity) {
                *corrupt = 1;
            } else if (k1 - 1 != skip_k) {
                hm_slot *sl = slot_at(s, (uint32_t)(k1 - 1));
                /* relaxed: structure fields are ours while we hold struct_lock */
                int match = atomic_load_explicit(&sl->name_len, RLX) == nm->len &&
                            atomic_load_explicit(&sl->hash, RLX) == nm->hash &&
                            (atomic_load_explicit(&sl->gen, RLX) & 1) == 0;
                for (uint32_t i = 0; match && i < nm->nwords; i++)
                    match = atomic_load_explicit(&sl->name[i], RLX) == nm->words[i];
                if (match) {
                    *k_out = (uint32_t)(k1 - 1);
                    if (g_out) *g_out = atomic_load_explicit(&sl->gen, RLX);
                    return 1;
                }
            }
        }
        j = (j + 1) & s->index_mask;
    }
    return 0;
}

/* ------------------------------------------------------------------ record (§7.1) */

/* Records into slot k if its gen is still g. Returns 1 recorded, 0 stale, -1 gave up (a live
 * process held the slot lock for lock_wait_limit, §6.2: the sample is dropped). */
static int slot_record(hm_store *s, uint32_t k, uint64_t g, uint64_t ns, uint64_t bytes) {
    hm_slot *sl = slot_at(s, k);
    if (!lock_acquire(s, &sl->lock, NULL)) return -1;
    if (atomic_load_explicit(&sl->gen, RLX) != g) { /* relaxed: gen changes only under this lock */
        lock_release(&sl->lock);
        return 0;
    }
    /* release fence, before any store into the copy (FORMAT §1, §7.1): it orders what this
     * holder saw on taking the lock -- the seq the previous holder published -- before the relaxed
     * stores below. A reader (§7.2.1) whose relaxed load of the copy sees one of those stores
     * synchronizes with this fence through its acquire fence, so its re-load of seq sees at least
     * that seq, not its s1, and it retries. This is the same store-store fence the structural
     * path issues after making gen odd (§7.4 step 7). Without it only the cumulativity of
     * release/acquire on x86-64 and AArch64 kept a torn copy from being returned; with it the
     * read is correct under the C11 model. Cost: a compiler barrier on x86-64, one dmb on AArch64. */
    atomic_thread_fence(REL);
    uint64_t seq = atomic_load_explicit(&sl->seq, RLX); /* relaxed ("plain"): the lock orders it */
    hm_record_copy *cur = &sl->copies[seq & 1];
    hm_record_copy *nxt = &sl->copies[(seq + 1) & 1];
    /* relaxed: the copy is published by the release store of seq below */
    uint64_t c = atomic_load_explicit(&cur->dispatch_count, RLX);
    uint64_t t = atomic_load_explicit(&cur->kernel_ns_total, RLX);
    uint64_t m = atomic_load_explicit(&cur->kernel_ns_max, RLX);
    uint64_t b = atomic_load_explicit(&cur->bytes_total, RLX);
    m = m > ns ? m : ns;
    atomic_store_explicit(&nxt->dispatch_count, hm_sat_add(c, 1), RLX);
    atomic_store_explicit(&nxt->kernel_ns_total, hm_sat_add(t, ns), RLX);
    atomic_store_explicit(&nxt->kernel_ns_max, clamp63(m), RLX);
    atomic_store_explicit(&nxt->bytes_total, hm_sat_add(b, bytes), RLX);
    atomic_store_explicit(&sl->seq, seq + 1, REL);   /* release: publishes nxt as the current copy */
    atomic_store_explicit(&sl->referenced, 1, RLX);  /* relaxed: a lost race only ages the region */
    lock_release(&sl->lock);
    return 1;
}

/* ------------------------------------------------------------------ index maintenance (§7.4, §8) */

static int index_insert(hm_store *s, uint64_t hash, uint32_t k) {
    uint32_t j = (uint32_t)hash & s->index_mask;
    for (uint32_t p = 0; p < s->max_probe; p++) {
        if (atomic_load_explicit(&s->index[j], RLX) == 0) { /* relaxed: only the lock holder writes */
            /* release: a reader that acquires the entry sees everything before it */
            atomic_store_explicit(&s->index[j], (hash >> 32) << 32 | ((uint64_t)k + 1), REL);
            return 1;
        }
        j = (j + 1) & s->index_mask;
    }
    return 0;
}

/* Backward-shift deletion of entry (hash, k). Returns 0 if the index proved inconsistent
 * (entry missing or a run naming a bad slot): the caller rebuilds it. */
static int index_delete(hm_store *s, uint64_t hash, uint32_t k) {
    const uint64_t want = (hash >> 32) << 32 | ((uint64_t)k + 1);
    const uint32_t mask = s->index_mask;
    uint32_t j = (uint32_t)hash & mask;
    uint32_t p = 0;
    for (; p < s->max_probe; p++) {
        uint64_t e = atomic_load_explicit(&s->index[j], RLX); /* relaxed: we are the only writer */
        if (e == 0) return 0;
        if (e == want) break;
        j = (j + 1) & mask;
    }
    if (p == s->max_probe) return 0;
    uint32_t hole = j;
    uint32_t n = (j + 1) & mask;
    for (uint32_t step = 0; step < s->index_entries; step++) {
        uint64_t e = atomic_load_explicit(&s->index[n], RLX);
        if (e == 0) break;
        uint64_t k1 = e & 0xFFFFFFFFu;
        if (k1 == 0 || k1 > s->capacity) {
            atomic_store_explicit(&s->index[hole], 0, REL);
            return 0;
        }
        uint64_t h = atomic_load_explicit(&slot_at(s, (uint32_t)(k1 - 1))->hash, RLX);
        if (h >> 32 != e >> 32) {
            atomic_store_explicit(&s->index[hole], 0, REL);
            return 0;
        }
        uint32_t home = (uint32_t)h & mask;
        int in_range = hole <= n ? (home > hole && home <= n) : (home > hole || home <= n);
        if (!in_range) {
            atomic_store_explicit(&s->index[hole], e, REL); /* release: entry writes are release (§3.8) */
            hole = n;
        }
        n = (n + 1) & mask;
    }
    atomic_store_explicit(&s->index[hole], 0, REL);
    return 1;
}

/* Clears slot k to FREE under its lock (§8 step 1). struct_lock held. Returns 1, or 0 when it
 * gave up on the slot lock (§6.2) without changing anything. */
static int slot_free(hm_store *s, uint32_t k) {
    hm_slot *sl = slot_at(s, k);
    if (!lock_acquire(s, &sl->lock, NULL)) return 0;
    uint64_t gen = atomic_load_explicit(&sl->gen, RLX);
    uint64_t busy = gen | 1;
    if (busy != gen) {
        atomic_store_explicit(&sl->gen, busy, RLX);
        atomic_thread_fence(REL); /* store-store: readers see BUSY before the fields change */
    }
    atomic_store_explicit(&sl->name_len, 0, RLX);
    atomic_store_explicit(&sl->hash, 0, RLX);
    for (uint32_t i = 0; i < s->name_area_words; i++) atomic_store_explicit(&sl->name[i], 0, RLX);
    for (int c = 0; c < 2; c++) {
        atomic_store_explicit(&sl->copies[c].dispatch_count, 0, RLX);
        atomic_store_explicit(&sl->copies[c].kernel_ns_total, 0, RLX);
        atomic_store_explicit(&sl->copies[c].kernel_ns_max, 0, RLX);
        atomic_store_explicit(&sl->copies[c].bytes_total, 0, RLX);
    }
    atomic_store_explicit(&sl->referenced, 0, RLX);
    atomic_store_explicit(&sl->gen, busy + 1, REL); /* release: the next even gen publishes the FREE slot */
    atomic_store_explicit(&s->hdr->clock_hand, k, RLX); /* the next insertion takes it, not a live region (§8) */
    lock_release(&sl->lock);
    return 1;
}

/* Copies slot k's name into nm (words: HM_MAX_NAME_WORDS) and checks that it is well formed:
 * length in range, zero padding, hash matching. struct_lock held. */
static int slot_name_checked(const hm_store *s, uint32_t k, uint64_t *words, hm_name *nm) {
    hm_slot *sl = slot_at(s, k);
    uint32_t len = atomic_load_explicit(&sl->name_len, RLX);
    if (len == 0 || len > s->max_name_bytes) return 0;
    uint32_t nw = (len + 7) / 8;
    for (uint32_t i = 0; i < s->name_area_words; i++) {
        uint64_t w = atomic_load_explicit(&sl->name[i], RLX);
        if (i < nw) {
            words[i] = w;
        } else if (w != 0) {
            return 0;
        }
    }
    if (len % 8 != 0 && (words[nw - 1] >> (8 * (len % 8))) != 0) return 0;
    nm->len = len;
    nm->nwords = nw;
    nm->words = words;
    nm->hash = hash_words(words, len, nw);
    return nm->hash == atomic_load_explicit(&sl->hash, RLX);
}

/* Rebuilds the index from the slots (§8 step 2). struct_lock held; index_seq made odd
 * here and even again at the end. Returns 1, or 0 when it gave up on a slot lock (§6.2): the
 * rebuild is then left unfinished with index_seq odd, for the next holder, as on a crash. */
static __attribute__((warn_unused_result)) int index_rebuild(hm_store *s) {
    hm_file_header *h = s->hdr;
    uint64_t seq = atomic_load_explicit(&h->index_seq, RLX) | 1;
    atomic_store_explicit(&h->index_seq, seq, RLX);
    atomic_thread_fence(REL); /* store-store: readers see index_seq odd before entries change */
    for (uint32_t j = 0; j < s->index_entries; j++) atomic_store_explicit(&s->index[j], 0, REL);
    uint64_t hw = atomic_load_explicit(&h->high_water, RLX);
    if (hw > s->capacity) {
        hw = s->capacity;
        atomic_store_explicit(&h->high_water, hw, REL);
    }
    if (atomic_load_explicit(&h->clock_hand, RLX) >= s->capacity) atomic_store_explicit(&h->clock_hand, 0, RLX);
    uint64_t live = 0;
    uint64_t words[HM_MAX_NAME_WORDS];
    for (uint32_t k = 0; k < hw; k++) {
        hm_slot *sl = slot_at(s, k);
        uint32_t len = atomic_load_explicit(&sl->name_len, RLX);
        uint64_t gen = atomic_load_explicit(&sl->gen, RLX);
        if (len == 0 && (gen & 1) == 0) continue; /* FREE */
        hm_name nm;
        uint32_t other;
        int corrupt = 0;
        /* DECISION: beyond §8 step 2, a slot with a malformed name or a duplicate name is freed too */
        int ok = (gen & 1) == 0 && slot_name_checked(s, k, words, &nm) &&
                 !resolve_locked(s, &nm, k, &other, NULL, &corrupt) && index_insert(s, nm.hash, k);
        if (ok) live++;
        else if (!slot_free(s, k)) return 0;
    }
    atomic_store_explicit(&h->live_count, live, REL);  /* release: pairs with acquire loads of live_count */
    atomic_store_explicit(&h->index_seq, seq + 1, REL); /* release: index stable again */
    return 1;
}

static int needs_recovery(const hm_store *s) {
    const hm_file_header *h = s->hdr;
    /* relaxed: we hold struct_lock, whose acquire ordered the previous holder's writes */
    return atomic_load_explicit(&h->journal_slot, RLX) != 0 ||
           (atomic_load_explicit(&h->index_seq, RLX) & 1) != 0 ||
           atomic_load_explicit(&h->clock_hand, RLX) >= s->capacity ||
           atomic_load_explicit(&h->high_water, RLX) > s->capacity ||
           atomic_load_explicit(&h->live_count, RLX) > s->capacity;
}

/* §8, under struct_lock. Returns 1 repaired, or 0 when it gave up on a slot lock held by a live
 * process (§6.2): journal_slot and index_seq are then left for the next holder, as on a crash. */
static __attribute__((warn_unused_result)) int recover(hm_store *s) {
    hm_file_header *h = s->hdr;
    uint64_t j = atomic_load_explicit(&h->journal_slot, RLX);
    if (j != 0 && j <= s->capacity && !slot_free(s, (uint32_t)(j - 1))) return 0;
    if (!index_rebuild(s)) return 0;
    atomic_store_explicit(&h->journal_slot, 0, REL); /* release: journal cleared after the repair */
    atomic_store_explicit(&h->recoveries, hm_sat_add(atomic_load_explicit(&h->recoveries, RLX), 1), RLX);
    return 1;
}

/* §7.4 step 3: chooses the slot for a new region. struct_lock held, capacity > 0. */
static uint32_t clock_choose(hm_store *s) {
    hm_file_header *h = s->hdr;
    uint64_t hw = atomic_load_explicit(&h->high_water, RLX);
    if (hw < s->capacity) {
        atomic_store_explicit(&h->high_water, hw + 1, REL); /* release: iteration bound for readers */
        return (uint32_t)hw;
    }
    uint64_t hand = atomic_load_explicit(&h->clock_hand, RLX);
    if (hand >= s->capacity) hand = 0;
    for (uint64_t step = 0; step < 2u * (uint64_t)s->capacity; step++) {
        uint32_t k = (uint32_t)hand;
        hand = hand + 1 == s->capacity ? 0 : hand + 1;
        hm_slot *sl = slot_at(s, k);
        /* relaxed: referenced is a hint; name_len is ours under struct_lock */
        if (atomic_load_explicit(&sl->name_len, RLX) == 0 || atomic_load_explicit(&sl->referenced, RLX) == 0) {
            atomic_store_explicit(&h->clock_hand, hand, RLX);
            return k;
        }
        atomic_store_explicit(&sl->referenced, 0, RLX);
    }
    /* writers kept setting bits during both turns: take the slot under the hand */
    uint32_t k = (uint32_t)hand;
    atomic_store_explicit(&h->clock_hand, hand + 1 == s->capacity ? 0 : hand + 1, RLX);
    return k;
}

/* §7.4 steps 3-4: chooses the slot for a new region by CLOCK and takes its lock (waiting for a
 * record in flight into it, stealing from a dead holder). A busy victim is waited for, never
 * passed over: that would make an eviction depend on a record readers cannot see yet, which no
 * order of the operations explains (found by Lincheck on the Java twin). struct_lock held. */
static __attribute__((warn_unused_result)) int victim_lock(hm_store *s, uint32_t *k_out) {
    hm_file_header *h = s->hdr;
    /* relaxed: ours under struct_lock */
    const uint64_t hw0 = atomic_load_explicit(&h->high_water, RLX);
    const uint64_t hand0 = atomic_load_explicit(&h->clock_hand, RLX);
    for (uint32_t second_chances = 0;; second_chances++) {
        uint32_t k = clock_choose(s);
        hm_slot *sl = slot_at(s, k);
        if (!lock_acquire(s, &sl->lock, NULL)) {
            /* §6.2 give up: the victim's lock is held by a live process. Undo the choice so that
             * the change leaves the index and every region as they were (the hand may have
             * cleared some reference bits: that only ages regions). */
            atomic_store_explicit(&h->high_water, hw0, REL); /* release: as in clock_choose */
            atomic_store_explicit(&h->clock_hand, hand0, RLX);
            return 0;
        }
        /* §7.4 step 4: a record that finished between the hand's look and this lock set the bit
         * again; evicting now would match no order of the two operations. Second chance. */
        if (second_chances >= s->capacity || atomic_load_explicit(&sl->name_len, RLX) == 0 ||
            atomic_load_explicit(&sl->referenced, RLX) == 0) {
            *k_out = k;
            return 1;
        }
        atomic_store_explicit(&sl->referenced, 0, RLX); /* relaxed: a hint, as in the hand */
        lock_release(&sl->lock);
    }
}

/* Whether inserting hash would find an empty index entry within max_probe. struct_lock held. */
static int index_has_room(const hm_store *s, uint64_t hash) {
    uint32_t j = (uint32_t)hash & s->index_mask;
    for (uint32_t p = 0; p < s->max_probe; p++) {
        if (atomic_load_explicit(&s->index[j], RLX) == 0) return 1; /* relaxed: only the lock holder writes */
        j = (j + 1) & s->index_mask;
    }
    return 0;
}

/* §7.4 steps 5-11: gives slot k, whose lock the caller holds, to nm with its first sample.
 * Releases the slot lock. struct_lock held. */
static int slot_assign(hm_store *s, uint32_t k, const hm_name *nm, uint64_t ns, uint64_t bytes, uint64_t *g_out) {
    hm_file_header *h = s->hdr;
    hm_slot *sl = slot_at(s, k);
    atomic_store_explicit(&h->journal_slot, (uint64_t)k + 1, RLX);          /* 5: relaxed store ... */
    atomic_thread_fence(REL);                                               /*    ... then store-store fence */
    uint64_t iseq = atomic_load_explicit(&h->index_seq, RLX);
    atomic_store_explicit(&h->index_seq, iseq + 1, RLX);                    /* 6: odd */
    atomic_thread_fence(REL);                                               /*    store-store fence */
    uint64_t busy = atomic_load_explicit(&sl->gen, RLX) | 1; /* odd even if a damaged file left it odd */
    atomic_store_explicit(&sl->gen, busy, RLX);                             /* 7: odd, BUSY */
    atomic_thread_fence(REL);                                               /*    store-store: BUSY before any field */
    int rebuild = 0;
    if (atomic_load_explicit(&sl->name_len, RLX) > 0) {                     /* 8: evict a LIVE region */
        if (!index_delete(s, atomic_load_explicit(&sl->hash, RLX), k)) rebuild = 1;
        uint64_t live = atomic_load_explicit(&h->live_count, RLX);
        atomic_store_explicit(&h->live_count, live > 0 ? live - 1 : 0, REL); /* release store (§3.2) */
        atomic_store_explicit(&h->evictions, hm_sat_add(atomic_load_explicit(&h->evictions, RLX), 1), RLX);
    }
    /* 9: relaxed: all published by the release store of gen in step 11 */
    atomic_store_explicit(&sl->hash, nm->hash, RLX);
    atomic_store_explicit(&sl->name_len, nm->len, RLX);
    for (uint32_t i = 0; i < s->name_area_words; i++)
        atomic_store_explicit(&sl->name[i], i < nm->nwords ? nm->words[i] : 0, RLX);
    uint64_t seq = atomic_load_explicit(&sl->seq, RLX);
    hm_record_copy *first = &sl->copies[(seq + 1) & 1];
    hm_record_copy *other = &sl->copies[seq & 1];
    atomic_store_explicit(&first->dispatch_count, 1, RLX);
    atomic_store_explicit(&first->kernel_ns_total, ns, RLX);
    atomic_store_explicit(&first->kernel_ns_max, ns, RLX);
    atomic_store_explicit(&first->bytes_total, bytes, RLX);
    atomic_store_explicit(&other->dispatch_count, 0, RLX);
    atomic_store_explicit(&other->kernel_ns_total, 0, RLX);
    atomic_store_explicit(&other->kernel_ns_max, 0, RLX);
    atomic_store_explicit(&other->bytes_total, 0, RLX);
    atomic_store_explicit(&sl->seq, seq + 1, RLX);
    atomic_store_explicit(&sl->referenced, 0, RLX); /* a first sample is no second reference (§10) */
    int rc;
    if (index_insert(s, nm->hash, k)) {                                      /* 10 */
        uint64_t live = atomic_load_explicit(&h->live_count, RLX);
        atomic_store_explicit(&h->live_count, live + 1, REL);
        rc = HM_OK;
    } else {
        atomic_store_explicit(&sl->name_len, 0, RLX); /* the slot becomes FREE; the sample is dropped */
        atomic_store_explicit(&sl->hash, 0, RLX);
        for (uint32_t i = 0; i < nm->nwords; i++) atomic_store_explicit(&sl->name[i], 0, RLX);
        atomic_store_explicit(&first->dispatch_count, 0, RLX);
        atomic_store_explicit(&first->kernel_ns_total, 0, RLX);
        atomic_store_explicit(&first->kernel_ns_max, 0, RLX);
        atomic_store_explicit(&first->bytes_total, 0, RLX);
        atomic_store_explicit(&sl->referenced, 0, RLX);
        counter_bump(&h->dropped_inserts);
        atomic_store_explicit(&h->clock_hand, k, RLX); /* the next insertion reuses the free slot (§7.4 step 10) */
        rc = HM_DROPPED;
    }
    atomic_store_explicit(&sl->gen, busy + 1, REL);       /* 11: release: even, publishes the slot */
    atomic_store_explicit(&h->index_seq, iseq + 2, REL);   /*     release: even, index stable */
    atomic_store_explicit(&h->journal_slot, 0, REL);       /*     release: change complete */
    lock_release(&sl->lock);
    if (rebuild) {
        /* DECISION: the index lacked the victim's entry (damaged file): rebuild it after the
         * change, still under struct_lock, rather than holding a second slot lock inside it. */
        if (!index_rebuild(s)) {
            rc = HM_DROPPED; /* gave up (§6.2): index_seq stays odd for the next holder */
        } else if (rc == HM_OK) {
            uint32_t k2;
            int corrupt = 0;
            if (!resolve_locked(s, nm, UINT32_MAX, &k2, NULL, &corrupt) || k2 != k) rc = HM_DROPPED;
        }
    }
    *g_out = busy + 1;
    return rc;
}

#define HM_FOUND_UNDER_LOCK 2 /* internal: another writer inserted the name first */

/* Insert path (§7.4) under struct_lock. Returns HM_OK / HM_DROPPED when it inserted, or
 * HM_FOUND_UNDER_LOCK with k_out, g_out set when the name is present (step 2). */
static int record_structural(hm_store *s, const hm_name *nm, uint64_t ns, uint64_t bytes,
                             uint32_t *k_out, uint64_t *g_out) {
    hm_file_header *h = s->hdr;
    if (!lock_acquire(s, &h->struct_lock, NULL)) return HM_DROPPED;        /* §6.2 give up */
    uint32_t k = 0;
    uint64_t g = 0;
    int rc;
    int corrupt = 0;
    int found = 0;
    if (needs_recovery(s) && !recover(s)) {                                 /* 1: journal set or index_seq odd */
        rc = HM_DROPPED; /* gave up on a slot lock held by a live process: left for the next holder */
        goto out;
    }
    found = resolve_locked(s, nm, UINT32_MAX, &k, &g, &corrupt);            /* 2 */
    if (!found && corrupt) {
        /* an index entry named no slot (§5 step 5): repair, then look again */
        if (!recover(s)) {
            rc = HM_DROPPED;
            goto out;
        }
        corrupt = 0;
        found = resolve_locked(s, nm, UINT32_MAX, &k, &g, &corrupt);
    }
    if (found) {
        rc = HM_FOUND_UNDER_LOCK; /* release struct_lock, then record as in §7.1 */
    } else if (!index_has_room(s, nm->hash)) {
        /* no entry within the probe bound: drop the sample without evicting anyone (§7.4 step 3) */
        counter_bump(&h->dropped_inserts);
        rc = HM_DROPPED;
    } else if (!victim_lock(s, &k)) {                                       /* 3-4 */
        rc = HM_DROPPED; /* the victim's lock is held by a live process (§6.2): nothing changed */
    } else {
        rc = slot_assign(s, k, nm, ns, bytes, &g);                          /* 5-11 */
    }
out:
    lock_release(&h->struct_lock);
    if (rc != HM_DROPPED) {
        *k_out = k;
        *g_out = g;
    }
    return rc;
}

static int record_name(hm_store *s, const hm_name *nm, uint64_t ns, uint64_t bytes,
                       uint32_t *k_out, uint64_t *g_out) {
    if (s->capacity == 0) return HM_DROPPED;
    for (uint32_t attempt = 0; attempt < HM_RECORD_ATTEMPTS; attempt++) {
        uint32_t k;
        uint64_t g;
        int found = resolve(s, nm, &k, &g, NULL, NULL);
        if (!found) {
            int rc = record_structural(s, nm, ns, bytes, &k, &g);
            if (rc != HM_FOUND_UNDER_LOCK) {
                if (rc == HM_OK) {
                    *k_out = k;
                    *g_out = g;
                }
                return rc;
            }
        }
        int r = slot_record(s, k, g, ns, bytes);
        if (r > 0) {
            *k_out = k;
            *g_out = g;
            return HM_OK;
        }
        if (r < 0) return HM_DROPPED; /* §6.2 give up */
        /* evicted and reused between resolve and lock: resolve again */
    }
    return HM_DROPPED; /* reassigned under every attempt: only a hostile writer does that (§7.1) */
}

/* ------------------------------------------------------------------ options */

void hm_options_init(hm_options *o) {
    if (o == NULL) return;
    memset(o, 0, sizeof *o);
    o->capacity = HM_DEFAULT_CAPACITY;
    o->max_name_bytes = HM_DEFAULT_MAX_NAME_BYTES;
    o->hot_threshold_ns = HM_DEFAULT_HOT_THRESHOLD_NS;
    o->read_only = 0;
    o->set_mask = 0;
    o->flags = 0;
}

void hm_options_set_capacity(hm_options *o, uint32_t v) {
    if (o) { o->capacity = v; o->set_mask |= HM_OPT_CAPACITY; }
}
void hm_options_set_max_name_bytes(hm_options *o, uint32_t v) {
    if (o) { o->max_name_bytes = v; o->set_mask |= HM_OPT_MAX_NAME_BYTES; }
}
void hm_options_set_hot_threshold_ns(hm_options *o, uint64_t v) {
    if (o) { o->hot_threshold_ns = v; o->set_mask |= HM_OPT_HOT_THRESHOLD; }
}

/* ------------------------------------------------------------------ open */

typedef struct open_ctx {
    const char *path;
    char *msg;
    size_t msglen;
} open_ctx;

#define OFAIL(ctx, code, ...) (msg_set((ctx)->msg, (ctx)->msglen, (ctx)->path, __VA_ARGS__), (code))

static uint64_t now_epoch_ms(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0) return 0;
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static uint64_t random64(void) {
    uint64_t r = 0;
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) == (ssize_t)sizeof r) return r;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_nsec * UINT64_C(0x9E3779B97F4A7C15) ^ (uint64_t)ts.tv_sec ^ (uint64_t)getpid() << 32;
}

/* Whether process pid may still be running (§5 step 1): a creator's temporary file is removed
 * only when this says no. A zombie leader whose other threads run is running; a /proc that
 * cannot be read means "maybe", so nothing is removed on a guess. */
static int pid_running(uint64_t pid) {
    if (pid == (uint64_t)getpid()) return 1;
    char state = 0;
    uint64_t start = 0;
    int r = proc_stat_read(pid, &state, &start);
    if (r < 0) return 1;
    if (r == 0 || state == 'X') return 0;
    return state != 'Z' || proc_thread_count(pid) > 1;
}

/* §5 step 1: removes the siblings `<name>.<pid>.<16 hex digits>.tmp` of path that this user
 * owns and whose creator is no longer running (it died in steps 2-4). Best effort: every
 * failure is ignored, and a name that does not match exactly is never touched. */
/* The directory of path (".", "/", or its part before the last '/', copied into buf); NULL when
 * that does not fit. */
static const char *path_dir(const char *path, char *buf, size_t len) {
    const char *slash = strrchr(path, '/');
    if (slash == NULL) return ".";
    if (slash == path) return "/";
    size_t dl = (size_t)(slash - path);
    if (dl >= len) return NULL;
    memcpy(buf, path, dl);
    buf[dl] = '\0';
    return buf;
}

/* §5 step 5: makes the directory entry that link() created durable. DECISION: best effort, every
 * failure (EIO included) is ignored and nothing is reported: the file is published and usable
 * whatever fsync says; only whether its name survives a machine crash is in doubt, and a creation
 * that failed here could not take the name back (other processes may already use the file). */
static void dir_fsync(const char *path) {
    char dirbuf[PATH_MAX];
    const char *dir = path_dir(path, dirbuf, sizeof dirbuf);
    if (dir == NULL) return;
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) return;
    (void)fsync(dfd);
    close(dfd);
}

static void stray_cleanup(const char *path) {
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t blen = strlen(base);
    if (blen == 0) return;
    char dirbuf[PATH_MAX];
    const char *dir = path_dir(path, dirbuf, sizeof dirbuf);
    if (dir == NULL) return;
    DIR *d = opendir(dir);
    if (d == NULL) return;
    int dfd = dirfd(d);
    const uid_t me = geteuid();
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        if (strncmp(n, base, blen) != 0 || n[blen] != '.') continue;
        const char *q = n + blen + 1;
        uint64_t pid = 0;
        unsigned digits = 0;
        for (; *q >= '0' && *q <= '9' && digits < 10; q++, digits++) pid = pid * 10 + (uint64_t)(*q - '0');
        if (digits == 0 || *q != '.') continue;
        q++;
        unsigned hex = 0;
        for (; hex < 16 && ((*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'f')); q++) hex++;
        if (hex != 16 || strcmp(q, ".tmp") != 0) continue;
        if (pid == 0 || pid_running(pid)) continue;
        struct stat st;
        if (fstatat(dfd, n, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        if (!S_ISREG(st.st_mode) || st.st_uid != me) continue;
        (void)unlinkat(dfd, n, 0);
    }
    closedir(d);
}

static int space_errno(int e) { return e == ENOSPC || e == EDQUOT || e == EFBIG; }

/* §5 creation, steps 1-5. Returns HM_OK when the file is published at the path, by this process
 * or by another that won link() (the caller then opens what is at the path). On every path the
 * temporary file is unlinked: a failed creation leaves nothing at the path. */
static int file_create(open_ctx *ctx, const hm_options *o, const hm_test_create_hooks *hooks) {
    hm_geometry g;
    geometry_compute(o->capacity, o->max_name_bytes, &g);
    stray_cleanup(ctx->path);                                                           /* 1 */
    const mode_t mode = (o->flags & HM_OPEN_GROUP_SHARED) ? 0660 : 0600;
    size_t plen = strlen(ctx->path);
    char *tmp = malloc(plen + 64);
    if (tmp == NULL) return OFAIL(ctx, HM_ENOMEM, "out of memory");
    int fd = -1;
    for (int attempt = 0; attempt < 16 && fd < 0; attempt++) {                           /* 2 */
        snprintf(tmp, plen + 64, "%s.%ld.%016llx.tmp", ctx->path, (long)getpid(), (unsigned long long)random64());
        fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) {
        int e = errno;
        int rc = OFAIL(ctx, space_errno(e) ? HM_ENOSPC : HM_EIO, "cannot create temporary file %s: %s [check create]", tmp,
                       strerror(e));
        free(tmp);
        return rc;
    }
    int rc = HM_OK;
    void *m = MAP_FAILED;
    /* exactly 0600 / 0660 whatever the umask (open() applied it) */
    if (fchmod(fd, mode) != 0) {
        rc = OFAIL(ctx, HM_EIO, "cannot set mode 0%o on temporary file %s: %s [check mode]", (unsigned)mode, tmp,
                   strerror(errno));
        goto out;
    }
    int err;
    do err = posix_fallocate(fd, 0, (off_t)g.file_bytes); /* returns the error, errno is untouched */
    while (err == EINTR);                                                                /* 3 */
    if (err == EOPNOTSUPP || err == EINVAL) {
        /* the filesystem cannot allocate: a sparse file (FORMAT §10 caveat: SIGBUS on a full disk) */
        err = ftruncate(fd, (off_t)g.file_bytes) == 0 ? 0 : errno;
    }
    if (err != 0) {
        rc = OFAIL(ctx, space_errno(err) ? HM_ENOSPC : HM_EIO,
                   "cannot allocate %llu bytes (file_bytes) for temporary file %s: %s%s [check allocation]",
                   (unsigned long long)g.file_bytes, tmp, strerror(err),
                   err == EFBIG ? " (a file-size limit, RLIMIT_FSIZE, or the filesystem's maximum file size)" : "");
        goto out;
    }
    if (hooks != NULL && hooks->after_allocate != NULL) hooks->after_allocate(hooks->arg, tmp);
    m = mmap(NULL, HM_HEADER_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);            /* 4 */
    if (m == MAP_FAILED) {
        rc = OFAIL(ctx, HM_EIO, "cannot map temporary file %s: %s [check mmap]", tmp, strerror(errno));
        goto out;
    }
    hm_file_header *h = m; /* the allocated file reads as zero everywhere */
    h->format_version = HM_FORMAT_VERSION;
    h->header_bytes = HM_HEADER_BYTES;
    h->layout_fingerprint = hm_layout_fingerprint();
    h->capacity = g.capacity;
    h->max_name_bytes = g.max_name_bytes;
    h->slot_bytes = g.slot_bytes;
    h->index_entries = g.index_entries;
    h->max_probe = g.max_probe;
    h->writer_entries = g.writer_entries;
    h->hot_threshold_ns = o->hot_threshold_ns;
    h->created_epoch_ms = now_epoch_ms();
    h->writer_table_offset = g.writer_table_offset;
    h->index_offset = g.index_offset;
    h->slots_offset = g.slots_offset;
    h->file_bytes = g.file_bytes;
    h->header_checksum = header_checksum(h);
    atomic_store_explicit(&h->magic, HM_MAGIC, REL); /* release: line 0 is complete before magic */
    if (msync(m, HM_HEADER_BYTES, MS_SYNC) != 0) {
        rc = OFAIL(ctx, HM_EIO, "cannot flush temporary file %s: %s [check msync]", tmp, strerror(errno));
        goto out;
    }
    if (link(tmp, ctx->path) == 0) {                                                        /* 5 */
        dir_fsync(ctx->path);
    } else if (errno != EEXIST) {
        /* EEXIST: another process created the path first; the caller opens that file */
        int e = errno;
        rc = OFAIL(ctx, space_errno(e) ? HM_ENOSPC : HM_EIO, "cannot publish %s by link(): %s [check link]", tmp,
                   strerror(e));
    }
out:
    if (m != MAP_FAILED) munmap(m, HM_HEADER_BYTES);
    close(fd);
    unlink(tmp);
    free(tmp);
    return rc;
}

/* §5 opening steps 1-4 on a header copy. */
static int header_validate(open_ctx *ctx, const hm_file_header *h, uint64_t size, hm_geometry *g) {
    if (size < HM_HEADER_BYTES)
        return OFAIL(ctx, HM_ETRUNCATED, "file is %llu bytes, shorter than the %u-byte header (truncated)",
                     (unsigned long long)size, HM_HEADER_BYTES);
    uint64_t magic = atomic_load_explicit(&h->magic, RLX); /* relaxed: a private copy read by pread */
    if (magic == 0)
        return OFAIL(ctx, HM_EUNFINISHED, "magic is 0: initialisation never finished (its creator died or is still creating it) [field magic]");
    if (magic != HM_MAGIC)
        return OFAIL(ctx, HM_ENOTHINT, "not a hint file: magic is 0x%016llx, expected 0x%016llx [field magic]",
                     (unsigned long long)magic, (unsigned long long)HM_MAGIC);
    if (h->format_version != HM_FORMAT_VERSION)
        return OFAIL(ctx, HM_EVERSION, "format version %u was written by %s; this library reads version %u [field format_version]",
                     h->format_version, h->format_version > HM_FORMAT_VERSION ? "a newer hintmap" : "an older or unknown hintmap",
                     HM_FORMAT_VERSION);
    if (h->header_bytes != HM_HEADER_BYTES)
        return OFAIL(ctx, HM_EINCONSISTENT, "header_bytes is %u, expected %u [field header_bytes]", h->header_bytes, HM_HEADER_BYTES);
    uint64_t ck = header_checksum(h);
    if (ck != h->header_checksum)
        return OFAIL(ctx, HM_ECHECKSUM, "header is corrupt: checksum 0x%016llx does not match its contents (0x%016llx) [field header_checksum]",
                     (unsigned long long)h->header_checksum, (unsigned long long)ck);
    uint64_t fp = hm_layout_fingerprint();
    if (h->layout_fingerprint != fp)
        return OFAIL(ctx, HM_ELAYOUT, "written by a build with another binary layout (fingerprint 0x%016llx, this build 0x%016llx) [field layout_fingerprint]",
                     (unsigned long long)h->layout_fingerprint, (unsigned long long)fp);
    if (h->capacity > HM_MAX_CAPACITY)
        return OFAIL(ctx, HM_EINCONSISTENT, "capacity is %u, outside [0, %u] [field capacity]", h->capacity, HM_MAX_CAPACITY);
    if (h->max_name_bytes < 1 || h->max_name_bytes > HM_MAX_NAME_BYTES_LIMIT)
        return OFAIL(ctx, HM_EINCONSISTENT, "max_name_bytes is %u, outside [1, %u] [field max_name_bytes]",
                     h->max_name_bytes, HM_MAX_NAME_BYTES_LIMIT);
    if (h->hot_threshold_ns > HM_VALUE_MAX)
        return OFAIL(ctx, HM_EINCONSISTENT, "hot_threshold_ns is %llu, outside [0, 2^63-1] [field hot_threshold_ns]",
                     (unsigned long long)h->hot_threshold_ns);
    geometry_compute(h->capacity, h->max_name_bytes, g);
#define HM_REQ_EQ(field, expect)                                                                            \
    if ((uint64_t)h->field != (uint64_t)(expect))                                                           \
        return OFAIL(ctx, HM_EINCONSISTENT, #field " is %llu, expected %llu for this file's parameters [field " #field "]", \
                     (unsigned long long)h->field, (unsigned long long)(expect));
    HM_REQ_EQ(slot_bytes, g->slot_bytes)
    HM_REQ_EQ(index_entries, g->index_entries)
    HM_REQ_EQ(max_probe, g->max_probe)
    HM_REQ_EQ(writer_entries, g->writer_entries)
    HM_REQ_EQ(writer_table_offset, g->writer_table_offset)
    HM_REQ_EQ(index_offset, g->index_offset)
    HM_REQ_EQ(slots_offset, g->slots_offset)
    HM_REQ_EQ(file_bytes, g->file_bytes)
#undef HM_REQ_EQ
    if (size != g->file_bytes)
        return OFAIL(ctx, size < g->file_bytes ? HM_ETRUNCATED : HM_EINCONSISTENT,
                     "file is %llu bytes but its header declares file_bytes %llu%s [field file_bytes]",
                     (unsigned long long)size, (unsigned long long)g->file_bytes,
                     size < g->file_bytes ? " (truncated)" : "");
    if ((uint64_t)(size_t)g->file_bytes != g->file_bytes)
        return OFAIL(ctx, HM_EINCONSISTENT, "file of %llu bytes cannot be mapped on this target", (unsigned long long)g->file_bytes);
    return HM_OK;
}

static int options_check(open_ctx *ctx, const hm_options *o, const hm_file_header *h) {
    int cap_set = (o->set_mask & HM_OPT_CAPACITY) || o->capacity != HM_DEFAULT_CAPACITY;
    int mnb_set = (o->set_mask & HM_OPT_MAX_NAME_BYTES) || o->max_name_bytes != HM_DEFAULT_MAX_NAME_BYTES;
    int hot_set = (o->set_mask & HM_OPT_HOT_THRESHOLD) || o->hot_threshold_ns != HM_DEFAULT_HOT_THRESHOLD_NS;
    if (cap_set && o->capacity != h->capacity)
        return OFAIL(ctx, HM_EOPTIONS, "option capacity %u contradicts the file's capacity %u (the file's layout wins)",
                     o->capacity, h->capacity);
    if (mnb_set && o->max_name_bytes != h->max_name_bytes)
        return OFAIL(ctx, HM_EOPTIONS, "option max_name_bytes %u contradicts the file's max_name_bytes %u (the file's layout wins)",
                     o->max_name_bytes, h->max_name_bytes);
    if (hot_set && o->hot_threshold_ns != h->hot_threshold_ns)
        return OFAIL(ctx, HM_EOPTIONS, "option hot_threshold_ns %llu contradicts the file's hot_threshold_ns %llu (the file's layout wins)",
                     (unsigned long long)o->hot_threshold_ns, (unsigned long long)h->hot_threshold_ns);
    return HM_OK;
}

static int self_token(open_ctx *ctx, uint64_t *token) {
    pid_t pid = getpid();
    char state;
    uint64_t start;
    if ((uint64_t)pid >= (UINT64_C(1) << (64 - HM_TOKEN_START_BITS)))
        return OFAIL(ctx, HM_EIO, "pid %ld does not fit a writer token", (long)pid);
    if (proc_stat_read((uint64_t)pid, &state, &start) != 1)
        return OFAIL(ctx, HM_EIO, "cannot read /proc/%ld/stat: hintmap writers need Linux /proc (%s)", (long)pid, strerror(errno));
    *token = (uint64_t)pid << HM_TOKEN_START_BITS | (start & HM_TOKEN_START_MASK);
    return HM_OK;
}

/* §6.1 */
static int writer_claim(open_ctx *ctx, hm_store *s) {
    int rc = self_token(ctx, &s->token);
    if (rc < 0) return rc;
    for (uint32_t i = 0; i < s->writer_entries; i++) {
        hm_writer_entry *w = &s->writers[i];
        uint64_t t = atomic_load_explicit(&w->token, ACQ); /* acquire: pairs with claim/release */
        if (t != 0 && !token_alive(s, t, 0)) { /* only a process that is not running: see token_alive */
            /* relaxed CAS: reclaiming publishes nothing; losing the race is fine */
            atomic_compare_exchange_strong_explicit(&w->token, &t, 0, RLX, RLX);
        }
    }
    for (uint32_t i = 0; i < s->writer_entries; i++) {
        hm_writer_entry *w = &s->writers[i];
        uint64_t expected = 0;
        if (atomic_load_explicit(&w->token, RLX) != 0) continue; /* relaxed: a hint before the CAS */
        /* acq_rel: acquire the previous holder's generation, publish our claim */
        if (atomic_compare_exchange_strong_explicit(&w->token, &expected, s->token, memory_order_acq_rel, RLX)) {
            uint64_t gen = atomic_load_explicit(&w->generation, RLX) + 1; /* relaxed: only the holder writes it */
            atomic_store_explicit(&w->generation, gen, REL); /* release: §6.1 */
            s->writer_index = i;
            s->owner = (gen & 0xFFFFFFFFu) << 32 | ((uint64_t)i + 1);
            return HM_OK;
        }
    }
    return OFAIL(ctx, HM_EWRITERS, "writer table full: all %u entries are held by live processes", s->writer_entries);
}

/* §5 step 0 owner rule, on the values of an fstat of the descriptor. Returns 0 when allowed, or
 * why not: 1 another owner, 2 (group-shared) the file's group is not one of ours, 3 (group-shared)
 * the file is writable by others. */
static int owner_rule(uid_t file_uid, gid_t file_gid, mode_t mode, uid_t euid, gid_t egid, const gid_t *groups,
                      int ngroups, uint32_t flags) {
    if (file_uid == euid || (flags & HM_OPEN_ALLOW_FOREIGN_OWNER)) return 0;
    if (!(flags & HM_OPEN_GROUP_SHARED)) return 1;
    int member = file_gid == egid;
    for (int i = 0; i < ngroups && !member; i++) member = groups[i] == file_gid;
    if (!member) return 2;
    return (mode & S_IWOTH) ? 3 : 0;
}

static inline uint32_t le16_at(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static inline uint32_t le32_at(const unsigned char *p) { return le16_at(p) | le16_at(p + 2) << 16; }

#define HM_ACL_USER  0x02u
#define HM_ACL_GROUP 0x08u
#define HM_ACL_MASK  0x10u
#define HM_ACL_WRITE 0x02u

/* §5 step 0, group-shared: whether the access ACL `x` (the system.posix_acl_access xattr: u32
 * version 2, then 8-byte entries {u16 tag, u16 perm, u32 id}, little-endian) grants write to a
 * named user (returns 1) or a named group (2), *id naming it; 0 when it grants neither (a named
 * entry's write counts only if the mask entry, when there is one, has write too); -1 when it is
 * malformed. */
static int acl_write_grant(const unsigned char *x, size_t len, uint32_t *id) {
    if (len < 4 || (len - 4) % 8 != 0 || le32_at(x) != 2) return -1;
    const size_t n = (len - 4) / 8;
    for (size_t i = 0; i < n; i++) {
        const unsigned char *e = x + 4 + 8 * i;
        if (le16_at(e) == HM_ACL_MASK && !(le16_at(e + 2) & HM_ACL_WRITE)) return 0; /* no named entry can write */
    }
    for (size_t i = 0; i < n; i++) {
        const unsigned char *e = x + 4 + 8 * i;
        uint32_t tag = le16_at(e);
        if ((tag == HM_ACL_USER || tag == HM_ACL_GROUP) && (le16_at(e + 2) & HM_ACL_WRITE)) {
            *id = le32_at(e + 4);
            return tag == HM_ACL_USER ? 1 : 2;
        }
    }
    return 0;
}

/* The ACL part of the group-shared rule, on the descriptor. */
static int acl_check(open_ctx *ctx, int fd, const struct stat *st) {
    unsigned char stack_buf[4 + 8 * 64];
    unsigned char *buf = stack_buf;
    ssize_t n = fgetxattr(fd, HM_ACL_XATTR, buf, sizeof stack_buf);
    if (n < 0 && errno == ERANGE) { /* more than 64 entries: ask for the size */
        ssize_t want = fgetxattr(fd, HM_ACL_XATTR, NULL, 0);
        if (want > 0 && want <= 65536) {
            buf = malloc((size_t)want);
            n = buf ? fgetxattr(fd, HM_ACL_XATTR, buf, (size_t)want) : -1;
            if (buf == NULL) errno = ENOMEM;
        } else if (want >= 0) {
            errno = E2BIG;
        }
    }
    int rc = HM_OK;
    if (n < 0) {
        int e = errno;
        if (e != ENODATA && e != EOPNOTSUPP && e != ENOTSUP) /* those three: no ACL */
            rc = OFAIL(ctx, HM_EIO, "cannot read its access ACL (%s): %s [check acl]", HM_ACL_XATTR, strerror(e));
    } else {
        uint32_t id = 0;
        int why = acl_write_grant(buf, (size_t)n, &id);
        if (why < 0)
            rc = OFAIL(ctx, HM_EOWNER,
                       "owned by uid %u: its access ACL (%zd bytes) cannot be read as a POSIX ACL of version 2, so "
                       "who may write it is unknown: refused for a group-shared open [check acl]",
                       (unsigned)st->st_uid, n);
        else if (why > 0)
            rc = OFAIL(ctx, HM_EOWNER,
                       "owned by uid %u and group %u: its ACL grants write to %s %u: a group-shared file of another "
                       "owner must be writable only by its owner and group [check acl, expected no named user or "
                       "group with write]",
                       (unsigned)st->st_uid, (unsigned)st->st_gid, why == 1 ? "user" : "group", (unsigned)id);
    }
    if (buf != stack_buf) free(buf);
    return rc;
}

static int owner_check(open_ctx *ctx, int fd, const struct stat *st, uint32_t flags) {
    const uid_t euid = geteuid();
    const gid_t egid = getegid();
    gid_t stack_groups[64];
    gid_t *groups = stack_groups;
    int n = 0;
    if (st->st_uid != euid && (flags & HM_OPEN_GROUP_SHARED)) {
        n = getgroups((int)(sizeof stack_groups / sizeof stack_groups[0]), stack_groups);
        if (n < 0 && errno == EINVAL) {
            int want = getgroups(0, NULL);
            groups = want > 0 ? malloc((size_t)want * sizeof *groups) : NULL;
            n = groups ? getgroups(want, groups) : -1;
        }
        if (n < 0) n = 0; /* no supplementary groups known: only the effective group counts */
    }
    int why = owner_rule(st->st_uid, st->st_gid, st->st_mode, euid, egid, groups, n, flags);
    if (groups != stack_groups) free(groups);
    switch (why) {
    case 0:
        /* accepted by the group-shared rule (another owner, not allowed explicitly): its ACL too */
        if (st->st_uid != euid && !(flags & HM_OPEN_ALLOW_FOREIGN_OWNER)) return acl_check(ctx, fd, st);
        return HM_OK;
    case 1:
        return OFAIL(ctx, HM_EOWNER,
                     "owned by uid %u, not by this process's effective uid %u: another user's file is refused "
                     "(HM_OPEN_ALLOW_FOREIGN_OWNER or HM_OPEN_GROUP_SHARED allow it) [check owner, expected uid %u]",
                     (unsigned)st->st_uid, (unsigned)euid, (unsigned)euid);
    case 2:
        return OFAIL(ctx, HM_EOWNER,
                     "owned by uid %u and group %u, which is not one of this process's groups (effective gid %u): "
                     "refused for a group-shared open [check group, expected one of this process's groups]",
                     (unsigned)st->st_uid, (unsigned)st->st_gid, (unsigned)egid);
    default:
        return OFAIL(ctx, HM_EOWNER,
                     "owned by uid %u and group %u with mode 0%03o: a group-shared file of another owner must not be "
                     "writable by others [check mode, expected S_IWOTH clear]",
                     (unsigned)st->st_uid, (unsigned)st->st_gid, (unsigned)(st->st_mode & 07777));
    }
}

/* §5 opening, sparse files (after the header checks of steps 1-4, before the mapping of step 6).
 * DECISION: lseek(SEEK_HOLE) alone also reports ranges that are allocated but were never
 * written (fallocate's unwritten extents on ext4 and XFS, tmpfs's fallocated pages; verified on
 * Linux 6.18), which every file made by creation step 3 has, and which fault in without
 * allocating. So the file "has a hole" only when SEEK_HOLE finds one before file_bytes AND
 * fewer than file_bytes bytes are allocated to it (st_blocks, 512-byte units). */
static int sparse_allocate(open_ctx *ctx, int fd, const struct stat *st, uint64_t file_bytes, int read_only) {
    off_t hole = lseek(fd, 0, SEEK_HOLE);
    if (hole < 0) return HM_OK; /* FORMAT §5 step 4a: a failing lseek (no SEEK_HOLE here) reads as no hole */
    const uint64_t allocated = st->st_blocks > 0 ? (uint64_t)st->st_blocks * 512u : 0;
    if ((uint64_t)hole >= file_bytes) return HM_OK;
    /* ext4 and tmpfs report allocated, never-written ranges as holes too (every created file has
     * them); the block count tells those apart for a reader. A writer allocates regardless (a no-op
     * on allocated ranges), because the block count also counts metadata that could hide a hole. */
    if (read_only && allocated >= file_bytes) return HM_OK;
    if (read_only)
        return OFAIL(ctx, HM_ESPARSE,
                     "the file has unallocated ranges (e.g. a sparse copy: %llu of its %llu bytes allocated, the first "
                     "hole at offset %lld): a read-only mapping faults on them, and on a full tmpfs that is SIGBUS; "
                     "a writer's open allocates them, or copy it with cp --sparse=never [check sparse]",
                     (unsigned long long)allocated, (unsigned long long)file_bytes, (long long)hole);
    /* fallocate(2), not posix_fallocate: where the filesystem cannot allocate, glibc's
     * posix_fallocate emulates it by writing a zero byte into every block that reads as zero,
     * which would race with the other writers of this live file and could undo their stores. */
    int err;
    do err = fallocate(fd, 0, 0, (off_t)file_bytes) == 0 ? 0 : errno;
    while (err == EINTR);
    if (err == 0 || err == EOPNOTSUPP || err == EINVAL) return HM_OK; /* cannot allocate: the FORMAT §10 sparse caveat */
    if (space_errno(err))
        return OFAIL(ctx, HM_ENOSPC,
                     "the file has unallocated ranges (e.g. a sparse copy: %llu of its %llu bytes allocated) and the "
                     "filesystem has no room to allocate them (%s); nothing was changed [check allocation]",
                     (unsigned long long)allocated, (unsigned long long)file_bytes, strerror(err));
    return OFAIL(ctx, HM_EIO, "cannot allocate the file's unallocated ranges (fallocate): %s [check allocation]",
                 strerror(err));
}

static const char *file_type_name(mode_t m) {
    if (S_ISDIR(m)) return "a directory";
    if (S_ISFIFO(m)) return "a FIFO";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    if (S_ISSOCK(m)) return "a socket";
    if (S_ISLNK(m)) return "a symbolic link";
    return "not a regular file";
}

/* §5 opening, steps 0 (after open) to 6, on the descriptor fd. On success the store owns fd. */
static int open_existing(open_ctx *ctx, int fd, const hm_options *o, hm_store **out) {
    struct stat st;
    if (fstat(fd, &st) != 0) return OFAIL(ctx, HM_EIO, "cannot stat: %s [check fstat]", strerror(errno));
    if (!S_ISREG(st.st_mode))
        return OFAIL(ctx, HM_ENOTHINT, "not a hint file: %s [check file type, expected a regular file]",
                     file_type_name(st.st_mode));
    int rc = owner_check(ctx, fd, &st, o->flags);
    if (rc < 0) return rc;
    uint64_t size = (uint64_t)st.st_size;
    hm_file_header h;
    memset(&h, 0, sizeof h);
    if (size >= HM_HEADER_BYTES) {
        size_t got = 0;
        while (got < sizeof h) {
            ssize_t r = pread(fd, (unsigned char *)&h + got, sizeof h - got, (off_t)got);
            if (r < 0 && errno == EINTR) continue;
            if (r < 0) return OFAIL(ctx, HM_EIO, "cannot read header: %s [check read]", strerror(errno));
            if (r == 0) { size = got; break; } /* shrank meanwhile */
            got += (size_t)r;
        }
    }
    hm_geometry g;
    rc = header_validate(ctx, &h, size, &g);
    if (rc < 0) return rc;
    rc = options_check(ctx, o, &h);
    if (rc < 0) return rc;
    rc = sparse_allocate(ctx, fd, &st, g.file_bytes, o->read_only != 0);
    if (rc < 0) return rc;

    size_t plen = strlen(ctx->path);
    hm_store *s = calloc(1, sizeof *s + plen + 1);
    if (s == NULL) return OFAIL(ctx, HM_ENOMEM, "out of memory");
    memcpy(s->path, ctx->path, plen + 1);
    if (pthread_mutex_init(&s->err_mu, NULL) != 0) {
        free(s);
        return OFAIL(ctx, HM_ENOMEM, "cannot initialise mutex");
    }
    if (pthread_mutex_init(&s->giveup_mu, NULL) != 0) {
        pthread_mutex_destroy(&s->err_mu);
        free(s);
        return OFAIL(ctx, HM_ENOMEM, "cannot initialise mutex");
    }
    if (pthread_mutex_init(&s->map_mu, NULL) != 0) {
        pthread_mutex_destroy(&s->giveup_mu);
        pthread_mutex_destroy(&s->err_mu);
        free(s);
        return OFAIL(ctx, HM_ENOMEM, "cannot initialise mutex");
    }
    s->read_only = o->read_only != 0;
    /* §5 step 6: exactly file_bytes, from the descriptor that passed the checks */
    void *m = mmap(NULL, (size_t)g.file_bytes, s->read_only ? PROT_READ : PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) {
        int e = errno;
        rc = OFAIL(ctx, e == ENOMEM ? HM_ENOMEM : HM_EIO, "cannot map %llu bytes (file_bytes): %s%s [check mmap]",
                   (unsigned long long)g.file_bytes, strerror(e),
                   e == ENOMEM ? " (address-space limit RLIMIT_AS, or vm.max_map_count mappings)" : "");
        pthread_mutex_destroy(&s->map_mu);
        pthread_mutex_destroy(&s->giveup_mu);
        pthread_mutex_destroy(&s->err_mu);
        free(s);
        return rc;
    }
    s->base = m;
    s->map_bytes = (size_t)g.file_bytes;
    s->hdr = m;
    s->writers = (hm_writer_entry *)(void *)(s->base + g.writer_table_offset);
    s->index = (_Atomic uint64_t *)(void *)(s->base + g.index_offset);
    s->slots = s->base + g.slots_offset;
    s->capacity = g.capacity;
    s->max_name_bytes = g.max_name_bytes;
    s->slot_bytes = g.slot_bytes;
    s->name_area_words = (g.slot_bytes - HM_SLOT_FIXED_BYTES) / 8;
    s->index_entries = g.index_entries;
    s->index_mask = g.index_entries - 1;
    s->max_probe = g.max_probe;
    s->writer_entries = g.writer_entries;
    s->hot_threshold_ns = h.hot_threshold_ns;
    s->created_epoch_ms = h.created_epoch_ms;
    s->flags = o->flags;
    s->fd = fd;
    s->dev = st.st_dev;
    s->ino = st.st_ino;
    s->lock_wait_limit_ns = HM_LOCK_WAIT_LIMIT_NS;
    s->giveup_recheck_ns = HM_CHECK_PERIOD_NS;
    atomic_init(&s->liveness_checks, 0);
    atomic_init(&s->self_map_known, 0);
    atomic_init(&s->giveup_count, 0);
    for (unsigned i = 0; i < HM_GIVEUP_MEMO; i++) atomic_init(&s->giveup[i].lock, 0);
    atomic_init(&s->closed, 0);
    atomic_init(&s->refs, 1);
    if (!s->read_only) {
        rc = writer_claim(ctx, s);
        if (rc < 0) {
            munmap(m, s->map_bytes);
            pthread_mutex_destroy(&s->map_mu);
            pthread_mutex_destroy(&s->giveup_mu);
            pthread_mutex_destroy(&s->err_mu);
            free(s);
            return rc;
        }
    }
    *out = s;
    return HM_OK;
}

static int open_impl(const char *path, const hm_options *opts, hm_store **out, char *errbuf, size_t errlen,
                     const hm_test_create_hooks *hooks) {
    char local[HM_ERR_BYTES];
    open_ctx ctx = {path, errbuf ? errbuf : local, errbuf ? errlen : sizeof local};
    if (errbuf && errlen) errbuf[0] = '\0';
    if (out) *out = NULL;
    if (path == NULL || out == NULL) return OFAIL(&ctx, HM_EINVAL, "path and out must not be NULL");
    hm_options o;
    if (opts) o = *opts;
    else hm_options_init(&o);
    if (o.capacity > HM_MAX_CAPACITY)
        return OFAIL(&ctx, HM_EINVAL, "option capacity %u is outside [0, %u]", o.capacity, HM_MAX_CAPACITY);
    if (o.max_name_bytes < 1 || o.max_name_bytes > HM_MAX_NAME_BYTES_LIMIT)
        return OFAIL(&ctx, HM_EINVAL, "option max_name_bytes %u is outside [1, %u]", o.max_name_bytes, HM_MAX_NAME_BYTES_LIMIT);
    if (o.hot_threshold_ns > HM_VALUE_MAX)
        return OFAIL(&ctx, HM_EINVAL, "option hot_threshold_ns %llu is outside [0, 2^63-1]", (unsigned long long)o.hot_threshold_ns);
    if (o.flags & ~HM_OPEN_KNOWN_FLAGS)
        return OFAIL(&ctx, HM_EINVAL, "option flags 0x%x has unknown bits (known: 0x%x)", o.flags, HM_OPEN_KNOWN_FLAGS);
    const int follow = (o.flags & HM_OPEN_FOLLOW_SYMLINKS) != 0;
    for (int attempt = 0; attempt < HM_OPEN_ATTEMPTS; attempt++) {
        /* §5 step 0: O_NOFOLLOW refuses a symlink at the final component, O_NONBLOCK keeps a FIFO
         * from blocking the open; everything after is checked on the descriptor */
        int fd = open(path, (o.read_only ? O_RDONLY : O_RDWR) | O_CLOEXEC | O_NONBLOCK | (follow ? 0 : O_NOFOLLOW));
        if (fd >= 0) {
            int rc = open_existing(&ctx, fd, &o, out);
            if (rc < 0) close(fd); /* on success the store keeps it until hm_close() */
            return rc;
        }
        int e = errno;
        struct stat lst;
        if (e == ELOOP && !follow && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
            return OFAIL(&ctx, HM_ESYMLINK,
                         "is a symbolic link: refused at the final path component (HM_OPEN_FOLLOW_SYMLINKS allows it) "
                         "[check symlink, expected a regular file]");
        if (e == EISDIR || e == ENXIO) /* a directory opened for writing; a socket */
            return OFAIL(&ctx, HM_ENOTHINT, "not a hint file: %s (%s) [check file type, expected a regular file]",
                         e == EISDIR ? "a directory" : "not a regular file", strerror(e));
        if (e != ENOENT || o.read_only)
            return OFAIL(&ctx, HM_EIO, "cannot open%s: %s [check open]", o.read_only ? " read-only" : "", strerror(e));
        if (follow && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
            return OFAIL(&ctx, HM_EIO,
                         "is a dangling symbolic link: hintmap does not create a file through a link [check symlink]");
        int rc = file_create(&ctx, &o, hooks);
        if (rc < 0) return rc;
        /* created (or lost the race to another creator): open what is at the path now */
    }
    return OFAIL(&ctx, HM_EIO, "the file kept disappearing between creation and open");
}

int hm_open_ex(const char *path, const hm_options *opts, hm_store **out, char *errbuf, size_t errlen) {
    return open_impl(path, opts, out, errbuf, errlen, NULL);
}

int hm_open(const char *path, const hm_options *opts, hm_store **out) {
    return hm_open_ex(path, opts, out, NULL, 0);
}

static void store_unref(hm_store *s) {
    if (atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) == 1) { /* acq_rel: last one frees */
        pthread_mutex_destroy(&s->map_mu);
        pthread_mutex_destroy(&s->giveup_mu);
        pthread_mutex_destroy(&s->err_mu);
        free(s);
    }
}

int hm_close(hm_store *s) {
    if (s == NULL) return HM_OK;
    if (atomic_load_explicit(&s->closed, RLX)) return HM_ECLOSED;
    int rc = HM_OK;
    if (!s->read_only) {
        /* §5.1: a file truncated below our writer entry has lost that page, and the store below
         * would raise SIGBUS; the entry is then left for reclaim as dead (§6.1). */
        uint64_t entry_end = (uint64_t)((unsigned char *)&s->writers[s->writer_index] - s->base) + sizeof(hm_writer_entry);
        struct stat st;
        if (fstat(s->fd, &st) != 0 || (uint64_t)st.st_size >= entry_end) {
            /* release: everything this process wrote happens before the entry looks free (§6.1).
             * Callers guarantee no other call on this store is running (documented). */
            atomic_store_explicit(&s->writers[s->writer_index].token, 0, REL);
        } else {
            rc = fail(s, HM_ECHANGED,
                      "truncated under the mapping to %lld bytes: writer entry %u not released (reclaimed as dead later) "
                      "[check size, expected file_bytes %zu]",
                      (long long)st.st_size, s->writer_index, s->map_bytes);
        }
    }
    if (munmap(s->base, s->map_bytes) != 0) rc = fail(s, HM_EIO, "munmap failed: %s", strerror(errno));
    close(s->fd);
    s->fd = -1;
    s->base = NULL;
    s->hdr = NULL;
    atomic_store_explicit(&s->closed, 1, RLX); /* relaxed: close is not concurrent with other calls */
    store_unref(s);
    return rc;
}

int hm_check(hm_store *s) {
    if (s == NULL) return HM_EINVAL;
    if (atomic_load_explicit(&s->closed, RLX)) return HM_ECLOSED;
    struct stat st;
    if (fstat(s->fd, &st) != 0) return fail(s, HM_EIO, "cannot fstat the mapped file: %s [check fstat]", strerror(errno));
    if ((uint64_t)st.st_size != (uint64_t)s->map_bytes) {
        if ((uint64_t)st.st_size < (uint64_t)s->map_bytes)
            return fail(s, HM_ECHANGED,
                        "truncated under the mapping: the file is %lld bytes [check size, expected file_bytes %zu]; "
                        "touching the lost pages raises SIGBUS: close this store without using it and reopen",
                        (long long)st.st_size, s->map_bytes);
        return fail(s, HM_ECHANGED,
                    "resized under the mapping: the file grew to %lld bytes [check size, expected file_bytes %zu]",
                    (long long)st.st_size, s->map_bytes);
    }
    struct stat now;
    int r = (s->flags & HM_OPEN_FOLLOW_SYMLINKS) ? stat(s->path, &now) : lstat(s->path, &now);
    if (r != 0) {
        int e = errno;
        if (e == ENOENT || e == ENOTDIR)
            return fail(s, HM_ECHANGED,
                        "removed: no file at the path any more; this store still maps the unlinked file "
                        "[check path, expected device/inode %llu/%llu]",
                        (unsigned long long)s->dev, (unsigned long long)s->ino);
        return fail(s, HM_EIO, "cannot %s the path: %s [check path]", (s->flags & HM_OPEN_FOLLOW_SYMLINKS) ? "stat" : "lstat",
                    strerror(e));
    }
    if (now.st_dev != s->dev || now.st_ino != s->ino)
        return fail(s, HM_ECHANGED,
                    "replaced: the path now names device/inode %llu/%llu%s [check inode, expected %llu/%llu, the mapped file]",
                    (unsigned long long)now.st_dev, (unsigned long long)now.st_ino,
                    S_ISLNK(now.st_mode) ? " (a symbolic link)" : "", (unsigned long long)s->dev,
                    (unsigned long long)s->ino);
    /* The header in the mapping: only now, after fstat found every page still there (a load from
     * a truncated part would raise SIGBUS). */
    uint64_t magic = atomic_load_explicit(&s->hdr->magic, ACQ); /* acquire: as every reader of magic (§5) */
    if (magic == 0)
        return fail(s, HM_EUNFINISHED,
                    "the header in the mapping changed under the store: magic is now 0 (e.g. a hole punched into "
                    "the file, or the file overwritten in place) [check magic]; close this store and reopen");
    if (magic != HM_MAGIC)
        return fail(s, HM_ENOTHINT,
                    "the header in the mapping changed under the store: magic is now 0x%016llx, expected 0x%016llx "
                    "(e.g. the file overwritten in place) [check magic]; close this store and reopen",
                    (unsigned long long)magic, (unsigned long long)HM_MAGIC);
    /* volatile: another program may change this immutable word under the mapping; read it now */
    uint64_t fp = *(const volatile uint64_t *)&s->hdr->layout_fingerprint;
    if (fp != hm_layout_fingerprint())
        return fail(s, HM_ELAYOUT,
                    "the header in the mapping changed under the store: layout_fingerprint is now 0x%016llx, this "
                    "build's is 0x%016llx (e.g. the file overwritten in place) [check layout_fingerprint]; close this "
                    "store and reopen",
                    (unsigned long long)fp, (unsigned long long)hm_layout_fingerprint());
    return HM_OK;
}

/* ------------------------------------------------------------------ public record / lookup */

#define CHECK_STORE(s)                                                         \
    do {                                                                       \
        if ((s) == NULL) return HM_EINVAL;                                     \
        if (atomic_load_explicit(&(s)->closed, RLX)) return HM_ECLOSED;         \
    } while (0)

int hm_record(hm_store *s, const char *name, size_t name_len, uint64_t kernel_ns, uint64_t bytes_touched) {
    CHECK_STORE(s);
    if (s->read_only) return fail(s, HM_EREADONLY, "cannot record: store was opened read-only");
    uint64_t words[HM_MAX_NAME_WORDS];
    hm_name nm;
    int rc = name_encode(s, name, name_len, words, &nm);
    if (rc < 0) return rc;
    uint32_t k;
    uint64_t g;
    return record_name(s, &nm, clamp63(kernel_ns), clamp63(bytes_touched), &k, &g);
}

int hm_lookup(hm_store *s, const char *name, size_t name_len, hm_region_record *out) {
    CHECK_STORE(s);
    if (out == NULL) return fail(s, HM_EINVAL, "out must not be NULL");
    uint64_t words[HM_MAX_NAME_WORDS];
    hm_name nm;
    int rc = name_encode(s, name, name_len, words, &nm);
    if (rc < 0) return rc;
    uint32_t k;
    uint64_t g;
    return resolve(s, &nm, &k, &g, out, NULL) ? HM_OK : HM_ENOTFOUND;
}

int hm_is_hot(hm_store *s, const char *name, size_t name_len) {
    hm_region_record r;
    int rc = hm_lookup(s, name, name_len, &r);
    if (rc == HM_ENOTFOUND) return 0; /* an unknown region is not hot */
    if (rc < 0) return rc;
    return r.kernel_ns_total / r.dispatch_count >= s->hot_threshold_ns;
}

int hm_region_at(hm_store *s, uint32_t slot, char *name_buf, size_t buf_len, size_t *name_len, hm_region_record *out) {
    CHECK_STORE(s);
    if (out == NULL || name_len == NULL || (name_buf == NULL && buf_len != 0))
        return fail(s, HM_EINVAL, "out and name_len must not be NULL");
    if (slot >= hm_high_water(s)) return HM_ENOTFOUND;
    uint64_t words[HM_MAX_NAME_WORDS];
    uint32_t len;
    uint64_t g;
    if (!slot_read(s, slot, NULL, out, &g, words, &len)) return HM_ENOTFOUND;
    *name_len = len;
    if (buf_len < len) return fail(s, HM_EINVAL, "name buffer of %zu bytes is too small for %u", buf_len, len);
    memcpy(name_buf, words, len);
    if (buf_len > len) name_buf[len] = '\0';
    return HM_OK;
}

int hm_size(hm_store *s, uint64_t *out) {
    CHECK_STORE(s);
    if (out == NULL) return fail(s, HM_EINVAL, "out must not be NULL");
    /* §7.5: live_count changes only while index_seq is odd, so a count read between two equal
     * even values of index_seq agrees with every region a lookup can see. */
    uint64_t live = 0;
    uint64_t deadline = 0;
    for (uint32_t attempt = 0;; attempt++) {
        uint64_t v1 = atomic_load_explicit(&s->hdr->index_seq, ACQ); /* acquire: pairs with step 11 release */
        live = atomic_load_explicit(&s->hdr->live_count, ACQ);      /* acquire: pairs with release stores */
        atomic_thread_fence(ACQ); /* acquire fence: orders the loads above before the re-check */
        if ((v1 & 1) == 0 && atomic_load_explicit(&s->hdr->index_seq, RLX) == v1) break;
        if (attempt < HM_SIZE_SPINS) {
            cpu_relax();
            continue;
        }
        /* the changing writer is descheduled or dead: yield to it, up to the stall bound of §7.5 */
        uint64_t now = monotonic_ns();
        if (deadline == 0) {
            deadline = now + HM_SIZE_STALL_NS;
        } else if (now >= deadline) {
            live = atomic_load_explicit(&s->hdr->live_count, ACQ); /* acquire: a hint, possibly off by one */
            break;
        }
        sched_yield();
    }
    *out = live > s->capacity ? s->capacity : live;
    return HM_OK;
}

uint32_t hm_capacity(const hm_store *s) { return s && !atomic_load_explicit(&s->closed, RLX) ? s->capacity : 0; }
uint32_t hm_max_name_bytes(const hm_store *s) { return s && !atomic_load_explicit(&s->closed, RLX) ? s->max_name_bytes : 0; }
uint64_t hm_hot_threshold_ns(const hm_store *s) { return s && !atomic_load_explicit(&s->closed, RLX) ? s->hot_threshold_ns : 0; }
int hm_is_read_only(const hm_store *s) { return s ? s->read_only : 0; }

uint32_t hm_high_water(const hm_store *s) {
    if (s == NULL || atomic_load_explicit(&s->closed, RLX)) return 0;
    uint64_t hw = atomic_load_explicit(&s->hdr->high_water, ACQ); /* acquire: pairs with clock_choose release */
    return hw > s->capacity ? s->capacity : (uint32_t)hw;
}

int hm_stats_get(hm_store *s, hm_stats *out) {
    CHECK_STORE(s);
    if (out == NULL) return fail(s, HM_EINVAL, "out must not be NULL");
    hm_file_header *h = s->hdr;
    /* relaxed: monitoring values, not a snapshot */
    out->live_count = atomic_load_explicit(&h->live_count, RLX);
    out->high_water = atomic_load_explicit(&h->high_water, RLX);
    out->evictions = atomic_load_explicit(&h->evictions, RLX);
    out->recoveries = atomic_load_explicit(&h->recoveries, RLX);
    out->dropped_inserts = atomic_load_explicit(&h->dropped_inserts, RLX);
    out->stolen_locks = atomic_load_explicit(&h->stolen_locks, RLX);
    out->created_epoch_ms = s->created_epoch_ms;
    return HM_OK;
}

int hm_flush(hm_store *s) {
    CHECK_STORE(s);
    if (msync(s->base, s->map_bytes, MS_SYNC) != 0) return fail(s, HM_EIO, "msync failed: %s", strerror(errno));
    return HM_OK;
}

const char *hm_last_error(const hm_store *s) { return s ? s->err : "invalid store"; }

size_t hm_last_error_copy(const hm_store *s, char *buf, size_t len) {
    if (s == NULL) {
        if (buf && len) snprintf(buf, len, "invalid store");
        return 13;
    }
    hm_store *m = (hm_store *)(uintptr_t)s; /* the mutex is not part of the logical state */
    pthread_mutex_lock(&m->err_mu);
    size_t n = strlen(m->err);
    if (buf && len) snprintf(buf, len, "%s", m->err);
    pthread_mutex_unlock(&m->err_mu);
    return n;
}

/* ------------------------------------------------------------------ handles */

int hm_region_resolve(hm_store *s, const char *name, size_t name_len, hm_region **out) {
    CHECK_STORE(s);
    if (out == NULL) return fail(s, HM_EINVAL, "out must not be NULL");
    *out = NULL;
    uint64_t words[HM_MAX_NAME_WORDS];
    hm_name nm;
    int rc = name_encode(s, name, name_len, words, &nm);
    if (rc < 0) return rc;
    hm_region *r = malloc(sizeof *r + (size_t)nm.nwords * sizeof(uint64_t));
    if (r == NULL) return fail(s, HM_ENOMEM, "out of memory for a region handle");
    memcpy(r->words, words, (size_t)nm.nwords * sizeof(uint64_t));
    r->nm = nm;
    r->nm.words = r->words;
    r->s = s;
    r->resolved = resolve(s, &r->nm, &r->slot, &r->gen, NULL, NULL);
    atomic_fetch_add_explicit(&s->refs, 1, RLX); /* relaxed: we already hold a reference */
    *out = r;
    return HM_OK;
}

int hm_region_add(hm_region *r, uint64_t kernel_ns, uint64_t bytes_touched) {
    if (r == NULL) return HM_EINVAL;
    hm_store *s = r->s;
    if (atomic_load_explicit(&s->closed, RLX)) return HM_ECLOSED;
    if (s->read_only) return fail(s, HM_EREADONLY, "cannot record: store was opened read-only");
    uint64_t ns = clamp63(kernel_ns), bytes = clamp63(bytes_touched);
    if (r->resolved) {
        int done = slot_record(s, r->slot, r->gen, ns, bytes);
        if (done > 0) return HM_OK;
        if (done < 0) return HM_DROPPED; /* §6.2 give up; the handle stays resolved */
    }
    r->resolved = 0; /* evicted or reused (gen changed): re-resolve or insert */
    uint32_t k;
    uint64_t g;
    int rc = record_name(s, &r->nm, ns, bytes, &k, &g);
    if (rc == HM_OK) {
        r->slot = k;
        r->gen = g;
        r->resolved = 1;
    }
    return rc;
}

int hm_region_lookup(hm_region *r, hm_region_record *out) {
    if (r == NULL || out == NULL) return HM_EINVAL;
    hm_store *s = r->s;
    if (atomic_load_explicit(&s->closed, RLX)) return HM_ECLOSED;
    uint64_t g;
    if (r->resolved && slot_read(s, r->slot, &r->nm, out, &g, NULL, NULL)) return HM_OK;
    uint32_t k;
    if (resolve(s, &r->nm, &k, &g, out, NULL)) {
        r->slot = k;
        r->gen = g;
        r->resolved = 1;
        return HM_OK;
    }
    r->resolved = 0;
    return HM_ENOTFOUND;
}

void hm_region_free(hm_region *r) {
    if (r == NULL) return;
    store_unref(r->s);
    free(r);
}

/* ------------------------------------------------------------------ test hooks (hm_internal.h) */

/* Only in the test variant (-DHM_TEST_HOOKS: build/libhintmap-test.a, the tests, the fuzz target,
 * hm-bench): a program linking build/libhintmap.a cannot hold a lock forever, plant an owner or
 * shorten the give-up limit through these, and `make check-user-lib` proves it has none. */
#ifdef HM_TEST_HOOKS

void *hm_test_mapping(hm_store *s) { return s && !atomic_load_explicit(&s->closed, RLX) ? s->base : NULL; }
size_t hm_test_mapping_bytes(const hm_store *s) { return s ? s->map_bytes : 0; }
uint64_t hm_test_owner(const hm_store *s) { return s ? s->owner : 0; }

hm_slot *hm_test_slot(hm_store *s, uint32_t k) {
    return s && k < s->capacity ? slot_at(s, k) : NULL;
}

int hm_test_slot_of(hm_store *s, const char *name, size_t name_len, uint32_t *slot_out) {
    CHECK_STORE(s);
    uint64_t words[HM_MAX_NAME_WORDS];
    hm_name nm;
    int rc = name_encode(s, name, name_len, words, &nm);
    if (rc < 0) return rc;
    uint64_t g;
    return resolve(s, &nm, slot_out, &g, NULL, NULL) ? HM_OK : HM_ENOTFOUND;
}

int hm_test_hold_slot_lock(hm_store *s, const char *name, size_t name_len) {
    uint32_t k;
    int rc = hm_test_slot_of(s, name, name_len, &k);
    if (rc < 0) return rc;
    if (s->read_only) return HM_EREADONLY;
    return lock_acquire(s, &slot_at(s, k)->lock, NULL) ? HM_OK : HM_DROPPED;
}

int hm_test_hold_struct_lock(hm_store *s) {
    CHECK_STORE(s);
    if (s->read_only) return HM_EREADONLY;
    return lock_acquire(s, &s->hdr->struct_lock, NULL) ? HM_OK : HM_DROPPED;
}

void hm_test_set_lock_wait_limit_ns(hm_store *s, uint64_t ns) {
    if (s) s->lock_wait_limit_ns = ns;
}

int hm_test_open_hooked(const char *path, const hm_options *opts, hm_store **out, char *errbuf, size_t errlen,
                        const hm_test_create_hooks *hooks) {
    return open_impl(path, opts, out, errbuf, errlen, hooks);
}

int hm_test_owner_rule(uid_t file_uid, gid_t file_gid, mode_t mode, uid_t euid, gid_t egid, const gid_t *groups,
                       int ngroups, uint32_t flags) {
    return owner_rule(file_uid, file_gid, mode, euid, egid, groups, ngroups, flags) == 0 ? HM_OK : HM_EOWNER;
}

uint64_t hm_test_liveness_checks(hm_store *s) {
    return s ? atomic_load_explicit(&s->liveness_checks, RLX) : 0; /* relaxed: a statistic */
}

void hm_test_set_giveup_recheck_ns(hm_store *s, uint64_t ns) {
    if (s) s->giveup_recheck_ns = ns;
}

int hm_test_acl_rule(const void *acl_xattr, size_t len, uint32_t *id_out) {
    uint32_t id = 0;
    int r = acl_write_grant(acl_xattr, len, &id);
    if (id_out) *id_out = id;
    return r;
}

#endif /* HM_TEST_HOOKS */
