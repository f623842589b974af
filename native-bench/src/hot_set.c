/*
 * hot_set.c - the hot set by coverage (docs/GUIDE.md "The hot set by coverage", the definition)
 * read in one cut of the file (FORMAT §7.5 "Every region in one cut"). Twin of the Java classes
 * dev.hintmap.RegionCut (the cut) and dev.hintmap.HotSetRule (the rule); both answer the vectors of
 * src/test/resources/vectors/hot-set.txt.
 *
 * Allocation: none. The caller's arrays hold every region read (the regions array and the names
 * buffer, one max_name_bytes stride per region), are sorted in place with qsort, and the hot set is
 * their first `count` entries. Section references (§n) are to docs/FORMAT.md.
 */
#define _GNU_SOURCE 1
#define HM_LIBRARY_SOURCE 1 /* this file is part of the library: hm_internal.h declares its internals */

#include "hm_internal.h"

#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The ABI that bindings mirror (the Python module's ctypes structures): LP64, natural alignment. */
_Static_assert(sizeof(hm_hot_region) == 64 && offsetof(hm_hot_region, name) == 48, "hm_hot_region: 64 bytes");
_Static_assert(sizeof(hm_hot_set_info) == 80 && offsetof(hm_hot_set_info, count) == 56, "hm_hot_set_info: 80 bytes");

#define HM_CUT_SCANS    64u                 /* scans before the last one is taken as it is */
#define HM_CUT_SPINS    1024u               /* spins on an odd index_seq before yielding */
#define HM_CUT_STALL_NS UINT64_C(10000000)  /* 10 ms: §7.5's stall bound, all scans together */

/* ------------------------------------------------------------------ the cut (§7.5) */

/* One pass over the slots used so far into regions[0, room) and names (stride max_name_bytes):
 * the number read, or room + 1 when more regions than room were found. high_water is read after
 * index_seq (acquire in hmi_high_water): a slot made LIVE by a change that ended before our load of
 * index_seq was claimed (§7.4 step 3) before that change's release of index_seq. */
static uint32_t cut_scan(const hm_store *s, hm_hot_region *regions, uint32_t room, char *names,
                         hmi_scan_hook hook, void *hook_arg) {
    uint32_t hw = hmi_high_water(s);
    uint32_t n = 0;
    uint64_t words[HM_MAX_NAME_WORDS];
    for (uint32_t k = 0; k < hw; k++) {
        hm_region_record rec;
        uint32_t len;
        if (hmi_slot_read(s, k, NULL, &rec, NULL, words, &len)) { /* §7.2.1: name and record from one read */
            if (n == room) return room + 1;
            char *name = names + (size_t)n * s->max_name_bytes;
            memcpy(name, words, len); /* little-endian words: the name's bytes in order */
            regions[n].record = rec;
            regions[n].name = name;
            regions[n].name_len = len;
            n++;
        }
        if (hook != NULL) hook(hook_arg, k);
    }
    return n;
}

/* Every region in one cut when it can: a scan between two equal, even loads of index_seq
 * overlapped no structural change (each one makes index_seq odd before it touches a slot's gen or
 * name and even after, §7.4 steps 6 and 11), so no region is read twice (evicted behind the scan
 * and inserted ahead of it) or missed (the reverse). *consistent is 0 when MAX scans all raced
 * with changes, or a change stayed unfinished past the stall bound (a writer descheduled, or dead
 * inside it until the next insertion recovers it, §8): the last scan is then the answer, a hint. */
static uint32_t region_cut(const hm_store *s, hm_hot_region *regions, uint32_t room, char *names, int *consistent,
                           hmi_scan_hook hook, void *hook_arg) {
    uint64_t deadline = 0;
    uint32_t spins = 0, scans = 0;
    for (;;) {
        uint64_t v1 = atomic_load_explicit(&s->hdr->index_seq, ACQ); /* acquire: pairs with §7.4 step 11's release */
        if (v1 & 1) { /* a structural change is under way: wait for its end, boundedly */
            if (spins++ < HM_CUT_SPINS) {
                cpu_relax();
                continue;
            }
            uint64_t now = monotonic_ns();
            if (deadline == 0) {
                deadline = now + HM_CUT_STALL_NS;
            } else if (now >= deadline) {
                *consistent = 0;
                return cut_scan(s, regions, room, names, hook, hook_arg); /* stalled: read it as it is */
            }
            sched_yield();
            continue;
        }
        uint32_t n = cut_scan(s, regions, room, names, hook, hook_arg);
        atomic_thread_fence(ACQ); /* acquire fence: orders the slot reads above before the re-check */
        if (atomic_load_explicit(&s->hdr->index_seq, RLX) == v1) { /* relaxed: ordered by the fence */
            *consistent = 1;
            return n;
        }
        if (++scans == HM_CUT_SCANS || n > room) { /* too small a buffer stays too small: no retry */
            *consistent = 0;
            return n;
        }
    }
}

/* ------------------------------------------------------------------ the rule (GUIDE.md) */

/* Stored names in UTF-8 byte order (unsigned, a proper prefix first): memcmp's, as Java's
 * HotSetRule.compareUtf8 orders by code point. */
static int name_order(const hm_hot_region *a, const hm_hot_region *b) {
    uint32_t n = a->name_len < b->name_len ? a->name_len : b->name_len;
    int c = memcmp(a->name, b->name, n);
    if (c != 0) return c;
    return a->name_len < b->name_len ? -1 : a->name_len > b->name_len;
}

static int by_name(const void *x, const void *y) { return name_order(x, y); }

/* Hottest first: larger kernel_ns_total, then name_order. */
static int hottest_first(const void *x, const void *y) {
    const hm_hot_region *a = x, *b = y;
    if (a->record.kernel_ns_total != b->record.kernel_ns_total)
        return a->record.kernel_ns_total > b->record.kernel_ns_total ? -1 : 1;
    return name_order(a, b);
}

/* ------------------------------------------------------------------ exact sums of kernel time */

/* A non-negative integer in two 64-bit words: the rule's exact sums (GUIDE.md steps 2, 5, 6). One
 * region's total is at most 2^63-1 and a file holds fewer than 2^32 regions, so a sum stays below 2^95
 * and never wraps, where a saturating u64 would make three regions of 2^63-1 ns look like one. Two
 * words rather than unsigned __int128: that type is a GCC/Clang extension (absent from MSVC and from
 * 32-bit targets); this is portable C11 and the same steps as Java's dev.hintmap.Uint128, so both
 * libraries round a sum to binary64 alike by construction. */
typedef struct wide_ns {
    uint64_t hi, lo;
} wide_ns;

static wide_ns wide_plus(wide_ns w, uint64_t n) {
    w.lo += n;
    w.hi += w.lo < n; /* the carry */
    return w;
}

static int wide_cmp(wide_ns a, wide_ns b) {
    if (a.hi != b.hi) return a.hi < b.hi ? -1 : 1;
    return a.lo < b.lo ? -1 : a.lo > b.lo;
}

/* The value, or 2^63-1 where it is larger: how hm_hot_set_info reports a sum. */
static uint64_t wide_clamped(wide_ns w) { return w.hi != 0 || w.lo > HM_VALUE_MAX ? HM_VALUE_MAX : w.lo; }

/* The nearest binary64, ties to even: the top 64 bits with every lower bit folded into the last one
 * (a sticky bit: 53 bits are kept, so rounding only needs to know whether anything below was set),
 * converted (C's conversion rounds to nearest in the default mode), then scaled by the power of two
 * shifted out (exact). No libm: the library links none. */
static double wide_to_double(wide_ns w) {
    if (w.hi == 0) return (double)w.lo;
    int shift = 64;
    while ((w.hi >> (shift - 1)) == 0) shift--; /* bits of hi: 1..64 */
    uint64_t top = shift == 64 ? w.hi : (w.hi << (64 - shift)) | (w.lo >> shift);
    uint64_t lost = shift == 64 ? w.lo : w.lo << (64 - shift);
    if (lost != 0) top |= 1;
    double scale = shift == 64 ? 0x1p64 : (double)(UINT64_C(1) << shift);
    return (double)top * scale;
}

/* The smallest integer >= x, for a finite x in [0, 2^127). A double at or above 2^52 is an integer
 * already: its 53-bit significand shifted into place (the bits as Java's Uint128.ceil reads them). */
static wide_ns wide_ceil(double x) {
    wide_ns w = {0, 0};
    if (x < 0x1p63) {
        w.lo = (uint64_t)x; /* truncation of a non-negative double below 2^63: exact */
        if ((double)w.lo < x) w.lo++;
        return w;
    }
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    uint64_t significand = (bits & ((UINT64_C(1) << 52) - 1)) | (UINT64_C(1) << 52);
    int shift = (int)((bits >> 52) & 0x7ff) - 1023 - 52; /* 11..74: x = significand * 2^shift */
    if (shift < 64) {
        w.hi = significand >> (64 - shift);
        w.lo = significand << shift;
    } else {
        w.hi = significand << (shift - 64);
    }
    return w;
}

/* What the set must cover (GUIDE.md step 5): all of total at coverage 1; else ceil(coverage ⊗
 * double(total)), ⊗ the binary64 product (one rounding, so a decimal coverage means what it says:
 * 0.8 of 100 ns is 80 ns), at most total. Java: HotSetRule.needed. */
static wide_ns needed_ns(double coverage, wide_ns total) {
    if (coverage == 1) return total;
    wide_ns n = wide_ceil(coverage * wide_to_double(total));
    return wide_cmp(n, total) < 0 ? n : total;
}

/* part / whole, both rounded to binary64 already; 0 when whole is 0. */
static double share_of(double part, double whole) { return whole == 0 ? 0 : part / whole; }

/* The rule on regions[0, n): combine names read twice, cut, fill info. */
static void hot_select(hm_hot_region *regions, uint32_t n, double coverage, uint64_t min_dispatches,
                       hm_hot_set_info *info) {
    /* A name read twice (a damaged index, or a scan that was not one cut) is one region, its records
     * combined as `hintmap merge` combines them: sort by name, fold each run into its first entry. */
    if (n > 1) qsort(regions, n, sizeof *regions, by_name); /* regions may be NULL when n is 0 */
    uint32_t unique = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (unique > 0 && name_order(&regions[unique - 1], &regions[i]) == 0) {
            hm_region_record *into = &regions[unique - 1].record;
            const hm_region_record *r = &regions[i].record;
            into->dispatch_count = hm_sat_add(into->dispatch_count, r->dispatch_count);
            into->kernel_ns_total = hm_sat_add(into->kernel_ns_total, r->kernel_ns_total);
            into->kernel_ns_max = into->kernel_ns_max > r->kernel_ns_max ? into->kernel_ns_max : r->kernel_ns_max;
            into->bytes_total = hm_sat_add(into->bytes_total, r->bytes_total);
        } else {
            regions[unique++] = regions[i];
        }
    }
    /* The whole file's kernel time (an exact sum), and the regions that may count moved to the front. */
    wide_ns total = {0, 0}, thin_ns = {0, 0};
    uint32_t thin = 0, eligible = 0;
    for (uint32_t i = 0; i < unique; i++) {
        const hm_region_record *r = &regions[i].record;
        total = wide_plus(total, r->kernel_ns_total);
        if (r->dispatch_count < min_dispatches) {
            thin++;
            thin_ns = wide_plus(thin_ns, r->kernel_ns_total);
        } else if (r->kernel_ns_total > 0) {
            hm_hot_region keep = regions[i];
            regions[i] = regions[eligible];
            regions[eligible++] = keep;
        }
    }
    if (eligible > 1) qsort(regions, eligible, sizeof *regions, hottest_first);
    wide_ns needed = needed_ns(coverage, total), covered = {0, 0};
    double whole = wide_to_double(total);
    uint32_t count = 0;
    while (count < eligible && wide_cmp(covered, needed) < 0) {
        hm_hot_region *r = &regions[count++];
        covered = wide_plus(covered, r->record.kernel_ns_total);
        r->share = share_of((double)r->record.kernel_ns_total, whole);
        r->cumulative_share = share_of(wide_to_double(covered), whole);
    }
    info->total_ns = wide_clamped(total);
    info->needed_ns = wide_clamped(needed);
    info->covered_ns = wide_clamped(covered);
    info->thin_ns = wide_clamped(thin_ns);
    info->covered_share = share_of(wide_to_double(covered), whole);
    info->count = count;
    info->regions_read = unique;
    info->thin_regions = thin;
    info->reached = wide_cmp(covered, needed) >= 0;
}

/* ------------------------------------------------------------------ public */

/* The cut, the part of hmi_hot_set that reads the file (guarded for HM_OPEN_FAULT_GUARD). */
typedef struct cut_call {
    const hm_store *s;
    hm_hot_region *regions;
    uint32_t room;
    char *names;
    int consistent;
    hmi_scan_hook hook;
    void *hook_arg;
    uint32_t n;
} cut_call;
static int cut_read(void *arg) {
    cut_call *c = arg;
    c->n = region_cut(c->s, c->regions, c->room, c->names, &c->consistent, c->hook, c->hook_arg);
    return HM_OK;
}

int hmi_hot_set(hm_store *s, double coverage, uint64_t min_dispatches, hm_hot_region *regions, uint32_t max_regions,
                char *names, size_t names_len, hm_hot_set_info *info, hmi_scan_hook hook, void *hook_arg) {
    CHECK_STORE(s);
    if (info == NULL) return hmi_fail(s, HM_EINVAL, "hot set: info must not be NULL");
    memset(info, 0, sizeof *info);
    if (!(coverage >= 0 && coverage <= 1)) /* NaN fails both */
        return hmi_fail(s, HM_EINVAL, "hot set: coverage %g is not a fraction in [0, 1] (0.95: the regions that make"
                        " up 95%% of the kernel time)", coverage);
    if (max_regions > 0 && (regions == NULL || names == NULL))
        return hmi_fail(s, HM_EINVAL, "hot set: regions and names must not be NULL");
    if (names_len / s->max_name_bytes < max_regions)
        return hmi_fail(s, HM_EINVAL, "hot set: a names buffer of %zu bytes is too small for %u regions of up to %u"
                        " bytes (max_regions * hm_max_name_bytes() bytes)", names_len, max_regions, s->max_name_bytes);
    cut_call c = {s, regions, max_regions, names, 1, hook, hook_arg, 0};
    if (s->capacity != 0) {
        int rc = hmi_guarded(s) ? hmi_guard_run(s, cut_read, &c) : cut_read(&c);
        if (rc < 0) return rc;
    }
    uint32_t n = c.n;
    int consistent = c.consistent;
    if (n > max_regions)
        return hmi_fail(s, HM_EINVAL, "hot set: room for %u regions, the file holds more (hm_capacity() = %u regions"
                        " always suffice)", max_regions, s->capacity);
    info->coverage = coverage;
    info->min_dispatches = clamp63(min_dispatches); /* as every input of the format: a count is at most 2^63-1 */
    info->consistent = consistent;
    hot_select(regions, n, coverage, info->min_dispatches, info);
    return HM_OK;
}

int hm_hot_set(hm_store *s, double coverage, uint64_t min_dispatches, hm_hot_region *regions, uint32_t max_regions,
               char *names, size_t names_len, hm_hot_set_info *info) {
    return hmi_hot_set(s, coverage, min_dispatches, regions, max_regions, names, names_len, info, NULL, NULL);
}
