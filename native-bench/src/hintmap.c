/*
 * hintmap.c - the public API of include/hintmap.h that reads as the Java HintStore and Region
 * (dev.hintmap.HintStore, dev.hintmap.Region): error strings, options, record and lookup by name,
 * region handles, iteration, size and statistics. Thin wrappers: the protocol is in
 * store_engine.c, opening in hint_file_opener.c, the lifetime in mapped_store.c.
 *
 * Section references (§n) are to docs/FORMAT.md. Every atomic access to the mapping names its
 * memory order; the one-line comment next to it says why. Decisions that FORMAT.md leaves open
 * are marked "DECISION:". The library's internal interface is src/hm_internal.h.
 */
#define _GNU_SOURCE 1
#define HM_LIBRARY_SOURCE 1 /* this file is part of the library: hm_internal.h declares its internals */

#include "hm_internal.h"

#include <stdlib.h>
#include <string.h>

const char *hm_version(void) { return HM_VERSION_STRING; }

const char *hm_strerror(int code) {
    switch (code) {
    case HM_OK: return "success";
    case HM_DROPPED: return "sample dropped (capacity 0, probe bound, or a lock a live process holds)";
    case HM_EINVAL: return "invalid argument";
    case HM_ENAMETOOLONG: return "region name longer than max_name_bytes (refused: HM_OPEN_REJECT_LONG_NAMES)";
    case HM_EEMPTYNAME: return "region name is empty";
    case HM_EBADNAME: return "region name is not valid UTF-8";
    case HM_ENOTHINT: return "not a hint file (wrong magic)";
    case HM_ETRUNCATED: return "hint file is truncated";
    case HM_EUNFINISHED: return "hint file initialisation never finished (magic is 0)";
    case HM_EVERSION:
        return "unsupported format version (newer or unknown; a version 1 file is converted with: hintmap upgrade FILE)";
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
    case HM_EMISSING: return "no such hint file (read-only open), or no directory to create it in";
    default: return "unknown error";
    }
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

/* ------------------------------------------------------------------ public record / lookup */

static unsigned name_cache_index(const char *name, size_t name_len) {
    /* Fibonacci hashing of the pointer and length: neighbouring buffers spread over the table */
    uint64_t h = ((uint64_t)(uintptr_t)name ^ (uint64_t)name_len << 48) * 0x9E3779B97F4A7C15u;
    return (unsigned)(h >> 54) & (HM_NAME_CACHE_ENTRIES - 1); /* the top 10 bits */
}

/* The slot + 1 the name cache remembers for this pointer and length, or 0. Relaxed: a guess,
 * which every user checks against the slot's stored name (under its lock, or inside a seqlock
 * read) before it trusts it. A name over the limit is never cached: it is stored in its stored form. */
static uint32_t name_cache_guess(const hm_store *s, const char *name, size_t name_len) {
    if (name == NULL || name_len == 0 || name_len > s->max_name_bytes) return 0;
    uint32_t k1 = atomic_load_explicit(&s->name_cache[name_cache_index(name, name_len)], RLX);
    return k1 <= s->capacity ? k1 : 0;
}

/* Remembers slot k for this pointer and length (relaxed: a guess, as name_cache_guess says). */
static void name_cache_remember(hm_store *s, const char *name, size_t name_len, uint32_t k) {
    if (name_len <= s->max_name_bytes)
        atomic_store_explicit(&s->name_cache[name_cache_index(name, name_len)], k + 1, RLX);
}

/* The fast path of a repeated name through the name cache (the runtime's common case, a region's
 * name kept in one buffer): the slot the same pointer and length last recorded into, if it still holds exactly
 * these bytes, compared under its lock. Its stored name is sound (valid UTF-8, §8 step 2c), so
 * equal bytes need neither the UTF-8 check nor the hash nor the probe. Returns 1 when it
 * recorded, 0 to take the full path, <0 on a lock give-up (§6.2). */
static int record_cached(hm_store *s, const char *name, size_t name_len, uint64_t ns, uint64_t bytes) {
    uint32_t k1 = name_cache_guess(s, name, name_len);
    return k1 == 0 ? 0 : hmi_slot_record_if_named(s, k1 - 1, name, (uint32_t)name_len, ns, bytes);
}

/* ------------------------------------------------------------------ guarded calls
 *
 * Each public call that touches the mapping is split in two: its checks of the arguments and of
 * the store, then the part that reads or writes the file, which a store opened with
 * HM_OPEN_FAULT_GUARD runs through hmi_guard_run (fault_guard.c) and any other store calls
 * directly. The parts are always_inline, so that the unguarded path is the code it was. */
#define HMI_HOT static inline __attribute__((always_inline))

HMI_HOT int record_by_name(hm_store *s, const char *name, size_t name_len, uint64_t ns, uint64_t bytes) {
    int hinted = s->capacity == 0 ? 0 : record_cached(s, name, name_len, ns, bytes);
    if (hinted > 0) return HM_OK;
    if (hinted < 0) return HM_DROPPED; /* §6.2 give up, as on the full path */
    uint64_t words[HM_MAX_NAME_WORDS];
    hm_name nm;
    int rc = hmi_name_encode(s, name, name_len, words, &nm);
    if (rc < 0) return rc;
    uint32_t k;
    uint64_t g;
    rc = hmi_record_name(s, &nm, ns, bytes, &k, &g);
    if (rc == HM_OK) name_cache_remember(s, name, name_len, k);
    return rc;
}

typedef struct record_call {
    hm_store *s;
    const char *name;
    size_t name_len;
    uint64_t ns, bytes;
} record_call;
static int record_guarded(void *arg) {
    record_call *c = arg;
    return record_by_name(c->s, c->name, c->name_len, c->ns, c->bytes);
}

int hm_record(hm_store *s, const char *name, size_t name_len, uint64_t kernel_ns, uint64_t bytes_touched) {
    CHECK_STORE(s);
    if (s->read_only) return hmi_fail(s, HM_EREADONLY, "cannot record: store was opened read-only");
    uint64_t ns = clamp63(kernel_ns), bytes = clamp63(bytes_touched);
    if (hmi_guarded(s)) {
        record_call c = {s, name, name_len, ns, bytes};
        return hmi_guard_run(s, record_guarded, &c);
    }
    return record_by_name(s, name, name_len, ns, bytes);
}

/* The read twin of record_cached: the slot the same pointer and length was last found in or recorded
 * into, read consistently (§7.2.1) if it holds exactly these bytes. The bytes are compared inside the
 * seqlock read, so the record returned and the name compared come from one consistent read: a stale
 * guess (the slot evicted and given to another region, the caller's buffer rewritten) reads as a miss,
 * never as another region's record, and the full path answers. Returns 1 when *out is the region's. */
static int lookup_cached(const hm_store *s, const char *name, size_t name_len, hm_region_record *out) {
    uint32_t k1 = name_cache_guess(s, name, name_len);
    return k1 == 0 ? 0 : hmi_slot_read_if_named(s, k1 - 1, name, (uint32_t)name_len, out);
}

HMI_HOT int lookup_by_name(hm_store *s, const char *name, size_t name_len, hm_region_record *out) {
    if (lookup_cached(s, name, name_len, out)) return HM_OK;
    uint64_t words[HM_MAX_NAME_WORDS];
    hm_name nm;
    int rc = hmi_name_encode(s, name, name_len, words, &nm);
    if (rc < 0) return rc;
    uint32_t k;
    uint64_t g;
    if (!hmi_resolve(s, &nm, &k, &g, out)) return HM_ENOTFOUND;
    name_cache_remember(s, name, name_len, k);
    return HM_OK;
}

typedef struct lookup_call {
    hm_store *s;
    const char *name;
    size_t name_len;
    hm_region_record *out;
} lookup_call;
static int lookup_guarded(void *arg) {
    lookup_call *c = arg;
    return lookup_by_name(c->s, c->name, c->name_len, c->out);
}

/* hm_lookup after its checks: guarded or not. */
HMI_HOT int lookup_checked(hm_store *s, const char *name, size_t name_len, hm_region_record *out) {
    if (hmi_guarded(s)) {
        lookup_call c = {s, name, name_len, out};
        return hmi_guard_run(s, lookup_guarded, &c);
    }
    return lookup_by_name(s, name, name_len, out);
}

int hm_lookup(hm_store *s, const char *name, size_t name_len, hm_region_record *out) {
    CHECK_STORE(s);
    if (out == NULL) return hmi_fail(s, HM_EINVAL, "out must not be NULL");
    return lookup_checked(s, name, name_len, out);
}

int hm_is_hot(hm_store *s, const char *name, size_t name_len) {
    CHECK_STORE(s);
    return hm_is_hot_at(s, name, name_len, s->hot_threshold_ns);
}

int hm_is_hot_at(hm_store *s, const char *name, size_t name_len, uint64_t threshold_ns) {
    CHECK_STORE(s);
    if (threshold_ns > HM_VALUE_MAX)
        return hmi_fail(s, HM_EINVAL, "threshold_ns %llu is outside [0, 2^63-1]", (unsigned long long)threshold_ns);
    hm_region_record r;
    int rc = lookup_checked(s, name, name_len, &r);
    if (rc == HM_ENOTFOUND) return 0; /* an unknown region is not hot */
    if (rc < 0) return rc;
    return hm_record_hot(r.dispatch_count, r.kernel_ns_total, threshold_ns);
}

/* The reference design's one-figure questions: the record read as hm_lookup reads it, absent as 0. */
int hm_dispatch_count(hm_store *s, const char *name, size_t name_len, uint64_t *count) {
    CHECK_STORE(s);
    if (count == NULL) return hmi_fail(s, HM_EINVAL, "count must not be NULL");
    hm_region_record r;
    int rc = hm_lookup(s, name, name_len, &r);
    if (rc < 0 && rc != HM_ENOTFOUND) return rc;
    *count = rc == HM_ENOTFOUND ? 0 : r.dispatch_count;
    return HM_OK;
}

int hm_mean_kernel_ns(hm_store *s, const char *name, size_t name_len, uint64_t *mean_ns) {
    CHECK_STORE(s);
    if (mean_ns == NULL) return hmi_fail(s, HM_EINVAL, "mean_ns must not be NULL");
    hm_region_record r;
    int rc = hm_lookup(s, name, name_len, &r);
    if (rc < 0 && rc != HM_ENOTFOUND) return rc;
    *mean_ns = rc == HM_ENOTFOUND ? 0 : hm_record_mean(r.dispatch_count, r.kernel_ns_total);
    return HM_OK;
}

static int region_at(hm_store *s, uint32_t slot, char *name_buf, size_t buf_len, size_t *name_len, hm_region_record *out) {
    if (slot >= hmi_high_water(s)) return HM_ENOTFOUND;
    uint64_t words[HM_MAX_NAME_WORDS];
    uint32_t len;
    uint64_t g;
    if (!hmi_slot_read(s, slot, NULL, out, &g, words, &len)) return HM_ENOTFOUND;
    *name_len = len;
    if (buf_len < len) return hmi_fail(s, HM_EINVAL, "name buffer of %zu bytes is too small for %u", buf_len, len);
    memcpy(name_buf, words, len);
    if (buf_len > len) name_buf[len] = '\0';
    return HM_OK;
}

typedef struct region_at_call {
    hm_store *s;
    uint32_t slot;
    char *name_buf;
    size_t buf_len;
    size_t *name_len;
    hm_region_record *out;
} region_at_call;
static int region_at_guarded(void *arg) {
    region_at_call *c = arg;
    return region_at(c->s, c->slot, c->name_buf, c->buf_len, c->name_len, c->out);
}

int hm_region_at(hm_store *s, uint32_t slot, char *name_buf, size_t buf_len, size_t *name_len, hm_region_record *out) {
    CHECK_STORE(s);
    if (out == NULL || name_len == NULL || (name_buf == NULL && buf_len != 0))
        return hmi_fail(s, HM_EINVAL, "out and name_len must not be NULL");
    if (hmi_guarded(s)) {
        region_at_call c = {s, slot, name_buf, buf_len, name_len, out};
        return hmi_guard_run(s, region_at_guarded, &c);
    }
    return region_at(s, slot, name_buf, buf_len, name_len, out);
}

typedef struct size_call {
    const hm_store *s;
    uint64_t *out;
} size_call;
static int size_read(void *arg) {
    size_call *c = arg;
    *c->out = hmi_size(c->s); /* §7.5 */
    return HM_OK;
}

int hm_size(hm_store *s, uint64_t *out) {
    CHECK_STORE(s);
    if (out == NULL) return hmi_fail(s, HM_EINVAL, "out must not be NULL");
    size_call c = {s, out};
    return hmi_guarded(s) ? hmi_guard_run(s, size_read, &c) : size_read(&c);
}

int hm_is_empty(hm_store *s) {
    uint64_t n;
    int rc = hm_size(s, &n); /* §7.5, guarded as hm_size */
    return rc < 0 ? rc : n == 0;
}

uint32_t hm_capacity(const hm_store *s) { return s && !atomic_load_explicit(&s->closed, RLX) ? s->capacity : 0; }
uint32_t hm_max_name_bytes(const hm_store *s) { return s && !atomic_load_explicit(&s->closed, RLX) ? s->max_name_bytes : 0; }
uint64_t hm_hot_threshold_ns(const hm_store *s) { return s && !atomic_load_explicit(&s->closed, RLX) ? s->hot_threshold_ns : 0; }

static int high_water_read(void *arg) { return (int)hmi_high_water(arg); /* at most capacity, 2^26 */ }

uint32_t hm_high_water(const hm_store *s) {
    if (s == NULL || atomic_load_explicit(&s->closed, RLX) || atomic_load_explicit(&s->fault_code, RLX)) return 0;
    if (!hmi_guarded(s)) return hmi_high_water(s);
    hm_store *m = (hm_store *)(uintptr_t)s; /* a fault marks the store: not part of the logical state */
    int hw = hmi_guard_run(m, high_water_read, m);
    return hw < 0 ? 0 : (uint32_t)hw;
}

static inline uint64_t counter_value(uint64_t v) { return v > HM_VALUE_MAX ? 0 : v; }

typedef struct stats_call {
    const hm_store *s;
    hm_stats *out;
} stats_call;
static int stats_read(void *arg) {
    stats_call *c = arg;
    const hm_store *s = c->s;
    hm_stats *out = c->out;
    hm_file_header *h = s->hdr;
    /* relaxed: monitoring values, not a snapshot */
    out->live_count = atomic_load_explicit(&h->live_count, RLX);
    out->high_water = atomic_load_explicit(&h->high_water, RLX);
    /* §5 step 5: a statistics counter with the top bit set is damaged and reads as 0, as in Java's
     * HintStore.info(); its next increment stores 2^63-1 (§1) */
    out->evictions = counter_value(atomic_load_explicit(&h->evictions, RLX));
    out->recoveries = counter_value(atomic_load_explicit(&h->recoveries, RLX));
    out->dropped_inserts = counter_value(atomic_load_explicit(&h->dropped_inserts, RLX));
    out->stolen_locks = counter_value(atomic_load_explicit(&h->stolen_locks, RLX));
    out->created_epoch_ms = s->created_epoch_ms;
    return HM_OK;
}

int hm_stats_get(hm_store *s, hm_stats *out) {
    CHECK_STORE(s);
    if (out == NULL) return hmi_fail(s, HM_EINVAL, "out must not be NULL");
    stats_call c = {s, out};
    return hmi_guarded(s) ? hmi_guard_run(s, stats_read, &c) : stats_read(&c);
}

/* ------------------------------------------------------------------ handles */

static int region_resolve_guarded(void *arg) {
    hm_region *r = arg;
    r->resolved = hmi_resolve(r->s, &r->nm, &r->slot, &r->gen, NULL);
    return HM_OK;
}

int hm_region_resolve(hm_store *s, const char *name, size_t name_len, hm_region **out) {
    CHECK_STORE(s);
    if (out == NULL) return hmi_fail(s, HM_EINVAL, "out must not be NULL");
    *out = NULL;
    uint64_t words[HM_MAX_NAME_WORDS];
    hm_name nm;
    int rc = hmi_name_encode(s, name, name_len, words, &nm);
    if (rc < 0) return rc;
    hm_region *r = malloc(sizeof *r + (size_t)nm.nwords * sizeof(uint64_t));
    if (r == NULL) return hmi_fail(s, HM_ENOMEM, "out of memory for a region handle");
    memcpy(r->words, words, (size_t)nm.nwords * sizeof(uint64_t));
    r->nm = nm;
    r->nm.words = r->words;
    r->s = s;
    rc = hmi_guarded(s) ? hmi_guard_run(s, region_resolve_guarded, r) : region_resolve_guarded(r);
    if (rc < 0) { /* the mapping faulted: allocated before the guarded part, freed here */
        free(r);
        return rc;
    }
    atomic_fetch_add_explicit(&s->refs, 1, RLX); /* relaxed: we already hold a reference */
    *out = r;
    return HM_OK;
}

HMI_HOT int region_add(hm_region *r, uint64_t ns, uint64_t bytes) {
    hm_store *s = r->s;
    if (r->resolved) {
        int done = hmi_slot_record(s, r->slot, r->gen, ns, bytes);
        if (done > 0) return HM_OK;
        if (done < 0) return HM_DROPPED; /* §6.2 give up; the handle stays resolved */
    }
    r->resolved = 0; /* evicted or reused (gen changed): re-resolve or insert */
    uint32_t k;
    uint64_t g;
    int rc = hmi_record_name(s, &r->nm, ns, bytes, &k, &g);
    if (rc == HM_OK) {
        r->slot = k;
        r->gen = g;
        r->resolved = 1;
    }
    return rc;
}

typedef struct region_add_call {
    hm_region *r;
    uint64_t ns, bytes;
} region_add_call;
static int region_add_guarded(void *arg) {
    region_add_call *c = arg;
    return region_add(c->r, c->ns, c->bytes);
}

int hm_region_add(hm_region *r, uint64_t kernel_ns, uint64_t bytes_touched) {
    if (r == NULL) return HM_EINVAL;
    hm_store *s = r->s;
    CHECK_STORE(s);
    if (s->read_only) return hmi_fail(s, HM_EREADONLY, "cannot record: store was opened read-only");
    uint64_t ns = clamp63(kernel_ns), bytes = clamp63(bytes_touched);
    if (hmi_guarded(s)) {
        region_add_call c = {r, ns, bytes};
        return hmi_guard_run(s, region_add_guarded, &c);
    }
    return region_add(r, ns, bytes);
}

HMI_HOT int region_lookup(hm_region *r, hm_region_record *out) {
    hm_store *s = r->s;
    if (r->resolved) {
        int got = hmi_slot_read_at(s, r->slot, r->gen, out); /* §7.2.2: no name compare while gen stands */
        if (got > 0) return HM_OK;
        if (got == 0) return HM_ENOTFOUND;
    }
    uint64_t g;
    uint32_t k;
    if (hmi_resolve(s, &r->nm, &k, &g, out)) {
        r->slot = k;
        r->gen = g;
        r->resolved = 1;
        return HM_OK;
    }
    r->resolved = 0;
    return HM_ENOTFOUND;
}

typedef struct region_lookup_call {
    hm_region *r;
    hm_region_record *out;
} region_lookup_call;
static int region_lookup_guarded(void *arg) {
    region_lookup_call *c = arg;
    return region_lookup(c->r, c->out);
}

int hm_region_lookup(hm_region *r, hm_region_record *out) {
    if (r == NULL || out == NULL) return HM_EINVAL;
    hm_store *s = r->s;
    CHECK_STORE(s);
    if (hmi_guarded(s)) {
        region_lookup_call c = {r, out};
        return hmi_guard_run(s, region_lookup_guarded, &c);
    }
    return region_lookup(r, out);
}

void hm_region_free(hm_region *r) {
    if (r == NULL) return;
    hmi_store_unref(r->s);
    free(r);
}
