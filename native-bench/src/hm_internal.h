/*
 * hm_internal.h - not part of the public API. Two parts:
 *
 * 1. The test hooks of libhintmap (hm_test_*, src/test_hooks.c). They exist so that tests can
 *    simulate crashed writers (a process that dies holding a lock or inside a structural change)
 *    and live lock holders. The functions exist only in the test variant of the library
 *    (build/libhintmap-test.a) and are declared only with -DHM_TEST_HOOKS (the sanitizer builds
 *    of tests/ and fuzz/, hm-bench); build/libhintmap.a, what users link, has none
 *    (`make check-user-lib`). Without HM_TEST_HOOKS only the creation-hook type is declared (the
 *    library's open path takes one).
 * 2. The library's internal interface between its source files (HM_LIBRARY_SOURCE, which only
 *    the library's own source files define): the store struct, small inline helpers, and the hmi_*
 *    functions one file of the library calls in another. hmi_ marks them internal in `nm`
 *    output; HMI_INTERNAL gives them hidden visibility, so that they are never exported from a
 *    shared object made of these objects and calls to them need no PLT.
 *
 * Each source file of the library is the twin of a Java class of the same name (snake_case), e.g.
 * store_engine.c of dev.hintmap.store.StoreEngine.
 */
#ifndef HM_INTERNAL_H
#define HM_INTERNAL_H

#include "hintmap.h"
#include "hintmap_format.h"

#include <sys/types.h>

/** Hooks into creation and opening (FORMAT §5), for crash and fault tests. */
typedef struct hm_test_create_hooks {
    /** Called after step 3 (the temporary file is allocated, not yet initialised or linked). */
    void (*after_allocate)(void *arg, const char *tmp_path);
    void *arg;
    /** Called when the file is mapped, before a writer claims its entry (§6.1): a test may
     *  truncate the file there. */
    void (*after_map)(void *arg, const char *path);
} hm_test_create_hooks;

#ifdef HM_TEST_HOOKS
/** Base address of the store's mapping (the header), NULL for a closed store. */
void *hm_test_mapping(hm_store *s);
/** Size of the mapping in bytes. */
size_t hm_test_mapping_bytes(const hm_store *s);
/** This store's owner word (0 for read-only stores). */
uint64_t hm_test_owner(const hm_store *s);
/** Empties the name cache (hm_record, hm_lookup), so that the next call by name takes the full path
 *  (the index probe of FORMAT §7.3). */
void hm_test_forget_names(hm_store *s);
/** Slot index of a LIVE region (the full path, never the name cache), or HM_ENOTFOUND / validation error. */
int hm_test_slot_of(hm_store *s, const char *name, size_t name_len, uint32_t *slot_out);
/** Acquires the slot lock of region `name` and returns without releasing it. */
int hm_test_hold_slot_lock(hm_store *s, const char *name, size_t name_len);
/** Acquires struct_lock and returns without releasing it. */
int hm_test_hold_struct_lock(hm_store *s);
/** Pointer to slot k (no bounds check beyond k < capacity; NULL otherwise). */
hm_slot *hm_test_slot(hm_store *s, uint32_t k);

/** Sets this store's lock_wait_limit (FORMAT §6.2 "give up", 5 s otherwise), so that tests of a
 *  lock held by a live process finish quickly. Not thread-safe: call right after opening. */
void hm_test_set_lock_wait_limit_ns(hm_store *s, uint64_t ns);

/** Owner liveness checks (FORMAT §6.3) this store has made so far: each is a /proc read unless the
 *  owner is this process or its word is dead without one. */
uint64_t hm_test_liveness_checks(hm_store *s);

/** Calls probe(arg) inside every read a rebuild of the index (FORMAT §8 step 2c) makes of a slot's
 *  record, between its loads and its re-check, on the rebuilding thread (which holds struct_lock);
 *  NULL removes it. Not thread-safe: call right after opening. */
void hm_test_set_rebuild_read_probe(hm_store *s, void (*probe)(void *arg), void *arg);

/** Sets how long a remembered give-up (FORMAT §6.2) stays fresh, i.e. given up on at once without
 *  a liveness check (1 ms otherwise). Not thread-safe: call right after opening. */
void hm_test_set_giveup_recheck_ns(hm_store *s, uint64_t ns);

/** The ACL part of the group-shared rule (FORMAT §5 step 0) on a system.posix_acl_access value:
 *  1 it grants write to a named user, 2 to a named group (*id_out names it), 0 neither, -1 malformed. */
int hm_test_acl_rule(const void *acl_xattr, size_t len, uint32_t *id_out);

/** The /proc/<pid>/stat parser of FORMAT §3.5/§6.3 on text[0, len): 1 parsed (*state, *start_ticks
 *  set), -1 cannot tell (the owner is then alive: an empty text, no ')', fewer than 22 fields). */
int hm_test_stat_parse(const char *text, size_t len, char *state, uint64_t *start_ticks);

/** SHA-256 (FIPS 180-4) of data[0, len), the digest of a long name's stored form (src/sha256.c). */
void hm_test_sha256(const void *data, size_t len, unsigned char out[32]);

/** hm_open_ex() with creation hooks (NULL: none). */
int hm_test_open_hooked(const char *path, const hm_options *opts, hm_store **out, char *errbuf, size_t errlen,
                        const hm_test_create_hooks *hooks);

/** hm_hot_set() calling hook(arg, slot) after each slot of each scan of the file (§7.5 "Every region
 *  in one cut"), so that a test can insert or evict a region at a chosen point of a scan. */
int hm_test_hot_set_hooked(hm_store *s, double coverage, uint64_t min_dispatches, hm_hot_region *regions,
                           uint32_t max_regions, char *names, size_t names_len, hm_hot_set_info *info,
                           void (*hook)(void *arg, uint32_t slot), void *arg);

/** The owner rule of FORMAT §5 step 0 on injected ids: HM_OK (allowed) or HM_EOWNER. */
int hm_test_owner_rule(uid_t file_uid, gid_t file_gid, mode_t mode, uid_t euid, gid_t egid, const gid_t *groups,
                       int ngroups, uint32_t flags);

#endif /* HM_TEST_HOOKS */

#ifdef HM_LIBRARY_SOURCE

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

/* Internal to the library: not exported from a shared object, direct calls (no PLT). */
#define HMI_INTERNAL __attribute__((visibility("hidden")))

#define HM_MAX_NAME_WORDS    (HM_MAX_NAME_BYTES_LIMIT / 8u)

/* FORMAT §2's parameter ranges, checked once here for options (hm_open), headers (header.c) and
 * hm_name_canonical; twins of Java's FileGeometry.isCapacity and isNameLimit. */
static inline int hmi_capacity_valid(uint32_t capacity) { return capacity <= HM_MAX_CAPACITY; }
static inline int hmi_name_limit_valid(uint32_t max_name_bytes) {
    return max_name_bytes >= HM_MIN_NAME_BYTES && max_name_bytes <= HM_MAX_NAME_BYTES_LIMIT;
}
#define HM_ERR_BYTES         512
#define HM_LOCK_WAIT_LIMIT_NS UINT64_C(5000000000) /* §6.2 lock_wait_limit: give up after 5 s */
#define HM_GIVEUP_MEMO       16      /* (lock, owner word) pairs a store remembers giving up on */
#define HM_NAME_CACHE_ENTRIES 1024   /* the name cache: where a caller's name pointer last found its region (hm_record, hm_lookup): 4 KiB */
#define HM_CHECK_PERIOD_NS   UINT64_C(1000000)    /* §6.2/§6.3: 1 ms between liveness checks of one holder */

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
    _Atomic uint8_t *ref;            /* §3.9 reference table: capacity bytes, one per slot */
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
    /* The name cache (Java: EncodedNames.CachedName), the guess of hm_record and hm_lookup of the slot
     * a (name pointer, length) pair last recorded into or was found in, slot + 1, 0 = none: only a
     * guess, since every use compares the caller's bytes with the slot's name, under the slot lock
     * (record) or in the seqlock read (lookup) (a caller may reuse one buffer for many names);
     * relaxed, any thread may overwrite it */
    _Atomic uint32_t name_cache[HM_NAME_CACHE_ENTRIES];
    _Atomic uint64_t liveness_checks; /* owner liveness checks made (a test hook reads it)       */
    /* §8 step 2c: called by a rebuild's read of a slot between the loads and the re-check of each
     * attempt, so that a test can publish there as a writer would; NULL (set only by a test hook,
     * Java: HeldLockProbe.Section.REBUILD_READ) */
    void (*rebuild_read_probe)(void *arg);
    void *rebuild_read_probe_arg;
    /* §6.3 last rule: how /proc/self/maps names this store's mapping, learnt at the first
     * liveness check that needs it (self_map is written once, under map_mu, before the
     * release store of self_map_known) */
    _Atomic int self_map_known;
    pthread_mutex_t map_mu;
    hm_map_id self_map;
    /* writer identity (§6.1) */
    uint64_t token, owner;
    uint32_t writer_index;
    /* HM_OPEN_FAULT_GUARD (fault_guard.c): 0, or the code of the first fault of the mapping in a
     * guarded call, which every later call returns without touching the mapping (relaxed: a thread
     * that does not see it yet faults again, guarded, and gets the same code) */
    _Atomic int fault_code;
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

/* The geometry of a file (§2), computed from capacity and max_name_bytes (file_geometry.c). */
typedef struct hm_geometry {
    uint32_t capacity, max_name_bytes, slot_bytes, index_entries, max_probe, writer_entries;
    uint64_t writer_table_offset, index_offset, ref_table_offset, slots_offset, file_bytes;
} hm_geometry;

/* Where the messages of an open go (hm_open_ex's errbuf, or a local buffer). */
typedef struct hm_open_ctx {
    const char *path;
    char *msg;
    size_t msglen;
} hm_open_ctx;

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

static inline hm_slot *slot_at(const hm_store *s, uint32_t k) {
    return (hm_slot *)(void *)(s->slots + (size_t)k * s->slot_bytes);
}

/* §3.9: slot k's reference byte. Every access is a relaxed single-byte atomic: the bit is a hint
 * for eviction and orders nothing. A reader treats any non-zero value as 1. */
static inline int ref_get(const hm_store *s, uint32_t k) {
    return atomic_load_explicit(&s->ref[k], memory_order_relaxed) != 0; /* relaxed: a hint (§3.9) */
}
static inline void ref_set(const hm_store *s, uint32_t k, uint8_t v) {
    atomic_store_explicit(&s->ref[k], v, memory_order_relaxed); /* relaxed: a hint (§3.9) */
}

static inline uint64_t monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void lock_release(_Atomic uint64_t *l) {
    atomic_store_explicit(l, 0, REL); /* release: publishes every write of the critical section */
}

/* hm64 (§4, hm64.c): inline, since the record path hashes every name it is given. */
#define HM_P0 UINT64_C(0xa0761d6478bd642f)
#define HM_P1 UINT64_C(0xe7037ed1a0b428db)
#define HM_P2 UINT64_C(0x8ebc6af09c88c6e3)

static inline uint64_t hm64_mum(uint64_t a, uint64_t b) {
    __extension__ typedef unsigned __int128 u128;
    u128 p = (u128)a * b;
    return (uint64_t)p ^ (uint64_t)(p >> 64);
}

/* hm64 of a name already in words (nwords words, len bytes, zero past len). */
static inline uint64_t hash_words(const uint64_t *w, uint32_t len, uint32_t nwords) {
    uint64_t h = HM_P0 ^ (uint64_t)len;
    for (uint32_t i = 0; i < nwords; i++) h = hm64_mum(h ^ w[i], HM_P1);
    return hm64_mum(h ^ HM_P2, HM_P1);
}

/* ------------------------------------------------------------------ errors (mapped_store.c) */

/* Formats "hintmap: <path>: <message>" into buf. */
HMI_INTERNAL void hmi_msg_set(char *buf, size_t len, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Sets the store's last error (hm_last_error) and returns code. */
HMI_INTERNAL int hmi_fail(hm_store *s, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* An open's failure: sets its message, evaluates to code. */
#define OFAIL(ctx, code, ...) (hmi_msg_set((ctx)->msg, (ctx)->msglen, (ctx)->path, __VA_ARGS__), (code))

#define CHECK_STORE(s)                                                         \
    do {                                                                       \
        if ((s) == NULL) return HM_EINVAL;                                     \
        if (atomic_load_explicit(&(s)->closed, RLX)) return HM_ECLOSED;         \
        int fault_ = atomic_load_explicit(&(s)->fault_code, RLX);              \
        if (fault_ != 0) return fault_; /* a guarded store that faulted */     \
    } while (0)

/* high_water clamped to capacity (hm_high_water, without its checks). */
static inline uint32_t hmi_high_water(const hm_store *s) {
    uint64_t hw = atomic_load_explicit(&s->hdr->high_water, ACQ); /* acquire: pairs with hmi_clock_choose release */
    return hw > s->capacity ? s->capacity : (uint32_t)hw;
}

/* ------------------------------------------------------------------ fault_guard.c */

/* Whether the calls on s are guarded (HM_OPEN_FAULT_GUARD). */
static inline int hmi_guarded(const hm_store *s) { return (s->flags & HM_OPEN_FAULT_GUARD) != 0; }
/* Runs body(arg), which may touch s's mapping, as a guarded call: its result, or, when an access
 * to the mapping faulted, s marked faulted and the fault's code (HM_ECHANGED or HM_EIO, with the
 * message). Calls nest (a guarded call inside another: the innermost takes the fault). */
HMI_INTERNAL int hmi_guard_run(hm_store *s, int (*body)(void *arg), void *arg);

/* ------------------------------------------------------------------ mapped_store.c */

/* Drops one reference (the open store's, or a handle's); the last one frees the store. */
HMI_INTERNAL void hmi_store_unref(hm_store *s);

/* ------------------------------------------------------------------ hint_file_opener.c */

/* hm_open_ex() with creation hooks (NULL: none). */
HMI_INTERNAL int hmi_open_impl(const char *path, const hm_options *opts, hm_store **out, char *errbuf, size_t errlen,
                               const hm_test_create_hooks *hooks);
/* §5 step 0 owner rule on the values of an fstat: 0 allowed, 1 another owner, 2 (group-shared)
 * the file's group is not one of ours, 3 (group-shared) the file is writable by others. */
HMI_INTERNAL int hmi_owner_refusal(uid_t file_uid, gid_t file_gid, mode_t mode, uid_t euid, gid_t egid,
                                   const gid_t *groups, int ngroups, uint32_t flags);

/* ------------------------------------------------------------------ posix_acl.c */

/* Whether a system.posix_acl_access value grants write to a named user (1) or group (2), *id
 * naming it; 0 neither; -1 malformed. */
HMI_INTERNAL int hmi_acl_write_grant(const unsigned char *x, size_t len, uint32_t *id);

/* ------------------------------------------------------------------ format: file_geometry.c, header.c */

HMI_INTERNAL void hmi_geometry_compute(uint32_t capacity, uint32_t max_name_bytes, hm_geometry *g);
/* header_checksum: hm64 of header bytes [8, 120) (§3.1). */
HMI_INTERNAL uint64_t hmi_header_checksum(const hm_file_header *h);
/* §5 opening steps 1-4 on a header copy read from a file of `size` bytes; fills g. */
HMI_INTERNAL int hmi_header_validate(hm_open_ctx *ctx, const hm_file_header *h, uint64_t size, hm_geometry *g);

/* ------------------------------------------------------------------ encoded_name.c */

/* Whether bytes [0, n) are well-formed UTF-8 (no overlong forms, surrogates or code points above
 * U+10FFFF): the rule for names a writer accepts and for the names recovery keeps (§8 step 2c). */
HMI_INTERNAL int hmi_utf8_valid(const unsigned char *p, size_t n);
/* Validates `name` for store s and encodes it into words (HM_MAX_NAME_WORDS capacity). */
HMI_INTERNAL int hmi_name_encode(hm_store *s, const char *name, size_t len, uint64_t *words, hm_name *out);

/* ------------------------------------------------------------------ sha256.c */

#define HMI_SHA256_BYTES 32u
/* SHA-256 (FIPS 180-4) of bytes [0, len): the digest of a long name's stored form (§1.1). */
HMI_INTERNAL void hmi_sha256(const void *data, size_t len, unsigned char out[HMI_SHA256_BYTES]);

/* ------------------------------------------------------------------ process_identity.c, mapped_file_sighting.c */

/* §6.3: whether the process a writer token names is alive (maps_rule: with the last rule). */
HMI_INTERNAL int hmi_token_alive(hm_store *s, uint64_t token, int maps_rule);
/* §3.5/§6.3: state (field 3) and starttime (field 22) of a /proc/<pid>/stat text buf[0, got),
 * NUL-terminated at buf[got]: 1 parsed, -1 cannot tell (no ')', too few fields, empty). */
HMI_INTERNAL int hmi_stat_parse(char *buf, size_t got, char *state, uint64_t *start_ticks);
/* §5 step 1: whether process pid may still be running. */
HMI_INTERNAL int hmi_pid_running(uint64_t pid);
/* This process's writer token (§3.5). */
HMI_INTERNAL int hmi_self_token(hm_open_ctx *ctx, uint64_t *token);
/* §6.3 last rule: whether process pid maps this store's file (1 also when that cannot be told). */
HMI_INTERNAL int hmi_pid_maps_this_file(hm_store *s, uint64_t pid);

/* ------------------------------------------------------------------ writer_table.c */

/* §6.1: reclaims entries of processes that are not running, then claims one (s->token, owner). */
HMI_INTERNAL int hmi_writer_claim(hm_open_ctx *ctx, hm_store *s);
/* §6.3 on an owner word: whether the writer it names is dead. */
HMI_INTERNAL int hmi_owner_dead(hm_store *s, uint64_t owner);

/* ------------------------------------------------------------------ owner_lock.c */

/* The uncontended acquisition is inline here (every record takes a slot lock); the waits,
 * liveness checks, steals and give-ups of §6.2 are in owner_lock.c. */
HMI_INTERNAL __attribute__((warn_unused_result)) int hmi_lock_acquire_contended(hm_store *s, _Atomic uint64_t *l,
                                                                                int *stolen);
HMI_INTERNAL void hmi_giveup_forget(hm_store *s, const _Atomic uint64_t *l);

/* Takes lock word `l` only if it is free right now. */
static inline int lock_try(hm_store *s, _Atomic uint64_t *l) {
    uint64_t expected = 0;
    /* acquire on success: the critical section sees everything the previous holder released */
    return atomic_compare_exchange_strong_explicit(l, &expected, s->owner, ACQ, RLX);
}

/* We took lock `l`: its word changed, so whatever we gave up on it is over ("until the word
 * changes", §6.2). Costs one relaxed load per acquisition while the memo is empty. */
static inline void giveup_clear(hm_store *s, const _Atomic uint64_t *l) {
    if (__builtin_expect(atomic_load_explicit(&s->giveup_count, RLX) == 0, 1)) return; /* relaxed: a hint */
    hmi_giveup_forget(s, l);
}

/* Acquires lock word `l` with this store's owner word (§6.2). Returns 1 when taken; *stolen
 * (optional) is set when it was taken over from a dead holder. Returns 0 when it gave up: a
 * live holder kept it for lock_wait_limit of wall-clock time, or the store gave up on this
 * same (lock, owner word) before and either checked that holder less than giveup_recheck_ns
 * (1 ms) ago, or checks it once now and finds it still alive. A waiter that gives up has
 * changed nothing. */
static inline __attribute__((warn_unused_result)) int lock_acquire(hm_store *s, _Atomic uint64_t *l, int *stolen) {
    if (lock_try(s, l)) {
        giveup_clear(s, l);
        return 1;
    }
    return hmi_lock_acquire_contended(s, l, stolen);
}

/* ------------------------------------------------------------------ hash_index.c (struct_lock held) */

HMI_INTERNAL int hmi_index_insert(hm_store *s, uint64_t hash, uint32_t k);
HMI_INTERNAL int hmi_index_delete(hm_store *s, uint64_t hash, uint32_t k);
HMI_INTERNAL int hmi_index_has_room(const hm_store *s, uint64_t hash);
HMI_INTERNAL void hmi_index_clear(hm_store *s);

/* ------------------------------------------------------------------ clock_hand.c (struct_lock held) */

HMI_INTERNAL uint32_t hmi_clock_choose(hm_store *s);

/* ------------------------------------------------------------------ store_engine.c */

/* §7.1 into slot k if it holds exactly the `len` bytes at `name`, whatever its generation: 1
 * recorded, 0 another name (or BUSY), -1 gave up (§6.2). hm_record's fast path for a repeated name. */
HMI_INTERNAL int hmi_slot_record_if_named(hm_store *s, uint32_t k, const char *name, uint32_t len, uint64_t ns,
                                          uint64_t bytes);
/* §7.2.1 consistent read of slot k (want: only if it holds that name; name_out: its words). */
HMI_INTERNAL int hmi_slot_read(const hm_store *s, uint32_t k, const hm_name *want, hm_region_record *rec,
                               uint64_t *gen_out, uint64_t *name_out, uint32_t *len_out);
/* §7.2.1 consistent read of slot k if it holds exactly the `len` bytes (1..max_name_bytes) at
 * `name`, whatever its generation: 1 with rec filled, 0 not (another name, FREE, BUSY, unsound, or no
 * consistent read within the bound). hm_lookup's fast path for a repeated name (the name cache). */
HMI_INTERNAL int hmi_slot_read_if_named(const hm_store *s, uint32_t k, const char *name, uint32_t len,
                                        hm_region_record *rec);
/* §7.2.2 handle read of slot k while its gen is still g (no name compare): 1 with rec filled, 0
 * absent (unsound, or no consistent read within the bound), -1 stale (gen moved: resolve again). */
HMI_INTERNAL int hmi_slot_read_at(const hm_store *s, uint32_t k, uint64_t g, hm_region_record *rec);
/* §7.3: the slot of LIVE region nm, 1 found (k_out, g_out, rec filled), 0 not. An index entry
 * naming no slot is no match, and nothing of it is remembered (the writer that meets it under
 * struct_lock recovers, §8). */
HMI_INTERNAL int hmi_resolve(const hm_store *s, const hm_name *nm, uint32_t *k_out, uint64_t *g_out,
                             hm_region_record *rec);
/* §7.1 into slot k if its gen is still g: 1 recorded, 0 stale, -1 gave up (§6.2). */
HMI_INTERNAL int hmi_slot_record(hm_store *s, uint32_t k, uint64_t g, uint64_t ns, uint64_t bytes);
/* §7.1/§7.4: records a sample of nm, inserting it when absent: HM_OK (k_out, g_out) or HM_DROPPED. */
HMI_INTERNAL int hmi_record_name(hm_store *s, const hm_name *nm, uint64_t ns, uint64_t bytes, uint32_t *k_out,
                                 uint64_t *g_out);
/* §7.5: the live count, clamped to capacity. */
HMI_INTERNAL uint64_t hmi_size(const hm_store *s);

/* ------------------------------------------------------------------ hot_set.c */

/* Called after each slot of each scan of hmi_hot_set (tests change the file there). */
typedef void (*hmi_scan_hook)(void *arg, uint32_t slot);
/* hm_hot_set with a scan hook (NULL: none). */
HMI_INTERNAL int hmi_hot_set(hm_store *s, double coverage, uint64_t min_dispatches, hm_hot_region *regions,
                             uint32_t max_regions, char *names, size_t names_len, hm_hot_set_info *info,
                             hmi_scan_hook hook, void *hook_arg);

#endif /* HM_LIBRARY_SOURCE */

#endif /* HM_INTERNAL_H */
