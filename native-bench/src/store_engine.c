/*
 * store_engine.c - the protocol on the mapping, in FORMAT §7's order: record (§7.1), consistent
 * read (§7.2.1), handle read (§7.2.2), resolve (§7.3), insertion and eviction (§7.4), the live
 * count (§7.5), then recovery (§8). Twin of the Java class dev.hintmap.store.StoreEngine (§7.1-§7.5)
 * with its sibling StoreRecovery (§8), in the same order; §7.6 (merge, decay) is Java's only
 * (WholeRecords). A function called before it is defined is declared just below the constants.
 *
 * Section references (§n) are to docs/FORMAT.md. Every atomic access to the mapping names its
 * memory order; the one-line comment next to it says why. Decisions that FORMAT.md leaves open
 * are marked "DECISION:". The library's internal interface is src/hm_internal.h.
 */
#define _GNU_SOURCE 1
#define HM_LIBRARY_SOURCE 1 /* this file is part of the library: hm_internal.h declares its internals */

#include "hm_internal.h"

#include <string.h>

#include <sched.h>

#define HM_READ_ATTEMPTS     65536u  /* §7.2.1 */
#define HM_RESOLVE_ATTEMPTS  64u     /* §7.3 */
#define HM_RECORD_ATTEMPTS   1024u   /* §7.1: re-resolutions of a record before its sample is dropped */
#define HM_SIZE_SPINS        1024u   /* §7.5: spins of hm_size before it yields to a structural change */
#define HM_SIZE_STALL_NS     UINT64_C(10000000) /* §7.5: 10 ms, then the unvalidated count is the answer */

#define HM_FOUND_UNDER_LOCK 2 /* internal: another writer inserted the name first (record_structural) */
#define HM_READ_UNSETTLED (-1) /* rebuild_read: no consistent read within HM_READ_ATTEMPTS */

/* Defined below, in FORMAT's order, and called before their definitions. */
static int record_structural(hm_store *s, const hm_name *nm, uint64_t ns, uint64_t bytes, uint32_t *k_out,
                             uint64_t *g_out);
static void slot_add_locked(hm_store *s, uint32_t k, hm_slot *sl, uint64_t ns, uint64_t bytes);
static __attribute__((warn_unused_result)) int lock_victim(hm_store *s, uint32_t *k_out);
static int slot_assign(hm_store *s, uint32_t k, const hm_name *nm, uint64_t ns, uint64_t bytes, uint64_t *g_out);
static int needs_recovery(const hm_store *s);
static __attribute__((warn_unused_result)) int recover(hm_store *s);
static int slot_free(hm_store *s, uint32_t k);
static __attribute__((warn_unused_result)) int index_rebuild(hm_store *s);
static int slot_name_sound(const hm_store *s, uint32_t k, uint64_t *words, hm_name *nm);

/* ------------------------------------------------------------------ slot names */

/* Whether slot sl's stored name is exactly the `len` bytes at `name` (len >= 1), as words: the
 * caller's bytes in little-endian words, the stored padding zero. Relaxed loads: the caller makes
 * them exact, under the slot lock (hmi_slot_record_if_named) or by the seqlock re-check (slot_read). */
static inline int slot_name_is(const hm_slot *sl, const char *name, uint32_t len) {
    uint32_t whole = len / 8;
    for (uint32_t i = 0; i < whole; i++) {
        uint64_t w;
        memcpy(&w, name + 8 * i, 8); /* little-endian target, as the name words (hintmap_format.h) */
        if (atomic_load_explicit(&sl->name[i], RLX) != w) return 0; /* relaxed: see above */
    }
    uint32_t tail = len % 8;
    if (tail == 0) return 1;
    uint64_t w = 0;
    if (whole > 0) { /* the last 8 bytes, shifted down to the tail: one load instead of a byte loop */
        memcpy(&w, name + len - 8, 8);
        w >>= 8 * (8 - tail);
    } else {
        for (uint32_t b = 0; b < tail; b++) w |= (uint64_t)(unsigned char)name[b] << (8 * b);
    }
    return atomic_load_explicit(&sl->name[whole], RLX) == w; /* relaxed: see above */
}

/* ------------------------------------------------------------------ record (§7.1) */

int hmi_record_name(hm_store *s, const hm_name *nm, uint64_t ns, uint64_t bytes,
                    uint32_t *k_out, uint64_t *g_out) {
    if (s->capacity == 0) return HM_DROPPED;
    for (uint32_t attempt = 0; attempt < HM_RECORD_ATTEMPTS; attempt++) {
        uint32_t k;
        uint64_t g;
        int found = hmi_resolve(s, nm, &k, &g, NULL);
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
        int r = hmi_slot_record(s, k, g, ns, bytes);
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

/* Records into slot k if its gen is still g. Returns 1 recorded, 0 stale, -1 gave up (a live
 * process held the slot lock for lock_wait_limit, §6.2: the sample is dropped). */

int hmi_slot_record(hm_store *s, uint32_t k, uint64_t g, uint64_t ns, uint64_t bytes) {
    hm_slot *sl = slot_at(s, k);
    if (!lock_acquire(s, &sl->lock, NULL)) return -1;
    if (atomic_load_explicit(&sl->gen, RLX) != g) { /* relaxed: gen changes only under this lock */
        lock_release(&sl->lock);
        return 0;
    }
    slot_add_locked(s, k, sl, ns, bytes);
    lock_release(&sl->lock);
    return 1;
}

/* §7.1 into slot k if it holds exactly the `len` bytes at `name`, whatever its generation: under
 * the slot lock gen, name_len and the name cannot change (§7.4 steps 4-11 and §8 step 1 hold it),
 * so the compare is exact. hm_record's fast path for a repeated name. Returns 1 when it recorded,
 * 0 when the slot holds another name (or is BUSY), -1 on a give-up (§6.2). */
int hmi_slot_record_if_named(hm_store *s, uint32_t k, const char *name, uint32_t len, uint64_t ns, uint64_t bytes) {
    hm_slot *sl = slot_at(s, k);
    if (!lock_acquire(s, &sl->lock, NULL)) return -1;
    /* relaxed: each of these changes only under this lock */
    int same = (atomic_load_explicit(&sl->gen, RLX) & 1) == 0 && atomic_load_explicit(&sl->name_len, RLX) == len &&
               slot_name_is(sl, name, len);
    if (same) slot_add_locked(s, k, sl, ns, bytes);
    lock_release(&sl->lock);
    return same;
}

/* §7.1's publish, the one way a LIVE slot's record changes (Java's StoreEngine.copyPublish, which
 * record, add and decay share; C records only): with slot sl's lock held and `seq` the value this
 * holder read, a release fence, the four relaxed stores of the copy that is not current, then the
 * release store of seq + 1 that makes it current. */
static inline void copy_publish(hm_slot *sl, uint64_t seq, uint64_t count, uint64_t total, uint64_t max,
                                uint64_t bytes) {
    /* release fence, before any store into the copy (FORMAT §1, §7.1): it orders what this
     * holder saw on taking the lock -- the seq the previous holder published -- before the relaxed
     * stores below. A reader (§7.2.1) whose relaxed load of the copy sees one of those stores
     * synchronizes with this fence through its acquire fence, so its re-load of seq sees at least
     * that seq, not its s1, and it retries. This is the same store-store fence the structural
     * path issues after making gen odd (§7.4 step 7). Without it only the cumulativity of
     * release/acquire on x86-64 and AArch64 would keep a torn copy from being returned; with it
     * the read is correct under the C11 model. Cost: a compiler barrier on x86-64, one dmb on AArch64. */
    atomic_thread_fence(REL);
    hm_record_copy *nxt = &sl->copies[(seq + 1) & 1];
    /* relaxed: the copy is published by the release store of seq below */
    atomic_store_explicit(&nxt->dispatch_count, count, RLX);
    atomic_store_explicit(&nxt->kernel_ns_total, total, RLX);
    atomic_store_explicit(&nxt->kernel_ns_max, max, RLX);
    atomic_store_explicit(&nxt->bytes_total, bytes, RLX);
    atomic_store_explicit(&sl->seq, seq + 1, REL); /* release: publishes nxt as the current copy */
}

/* The body of §7.1 with slot k's lock held and its generation checked. */
static void slot_add_locked(hm_store *s, uint32_t k, hm_slot *sl, uint64_t ns, uint64_t bytes) {
    uint64_t seq = atomic_load_explicit(&sl->seq, RLX); /* relaxed ("plain"): the lock orders it */
    hm_record_copy *cur = &sl->copies[seq & 1];
    /* relaxed: the lock's holder is the only writer of the copies; the lock ordered the last one */
    uint64_t c = atomic_load_explicit(&cur->dispatch_count, RLX);
    uint64_t t = atomic_load_explicit(&cur->kernel_ns_total, RLX);
    uint64_t m = atomic_load_explicit(&cur->kernel_ns_max, RLX);
    uint64_t b = atomic_load_explicit(&cur->bytes_total, RLX);
    m = m > ns ? m : ns;
    copy_publish(sl, seq, hm_sat_add(c, 1), hm_sat_add(t, ns), clamp63(m), hm_sat_add(b, bytes));
    /* §3.9: test before set, so that a hot region's byte stays shared in every core's cache; both
     * relaxed (ref_get/ref_set): a lost race only ages the region */
    if (!ref_get(s, k)) ref_set(s, k, 1);
}

/* ------------------------------------------------------------------ consistent read (§7.2.1) */

/* The one seqlock read loop (§7.2.1) behind hmi_slot_read, hmi_slot_read_if_named and
 * rebuild_read: the slot must hold `want` (hash, length and words) when it is given, or the
 * `raw_len` bytes at `raw` when they are given, or any name. Inlined into each, so each compiles to
 * its own loop; `rebuild` (a constant in each) makes a read that gives up return HM_READ_UNSETTLED
 * instead of 0, and calls the rebuild's test probe. */
static inline __attribute__((always_inline)) int slot_read(const hm_store *s, uint32_t k, const hm_name *want,
                                                           const char *raw, uint32_t raw_len, hm_region_record *rec,
                                                           uint64_t *gen_out, uint64_t *name_out, uint32_t *len_out,
                                                           int rebuild) {
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
        } else if (match && raw != NULL) {
            /* the name words are validated with the copy by the re-check below: equal bytes of a
             * consistent read are the region's own name, so a stale guess never answers for another */
            match = len == raw_len && slot_name_is(sl, raw, raw_len);
        }
        if (match && name_out != NULL) {
            uint32_t nw = (len + 7) / 8;
            for (uint32_t i = 0; i < nw; i++) name_out[i] = atomic_load_explicit(&sl->name[i], RLX);
        }
        if (rebuild && s->rebuild_read_probe != NULL) s->rebuild_read_probe(s->rebuild_read_probe_arg);
        atomic_thread_fence(ACQ); /* acquire fence: orders the loads above before the re-checks */
        uint64_t s2 = atomic_load_explicit(&sl->seq, RLX);
        uint64_t g2 = atomic_load_explicit(&sl->gen, RLX);
        if (s1 != s2 || g1 != g2) {
            cpu_relax();
            continue;
        }
        /* A record no writer could have produced (top bit set, or breaking the invariants of
         * §7.2.1) comes from a damaged file: it reads as absent, never as a hint. */
        if (!match || !hm_record_sound(count, total, max, bytes)) return 0;
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
    return rebuild ? HM_READ_UNSETTLED : 0;
}

/* Reads slot k. With `want`, succeeds only if the slot holds that name. With name_out
 * (HM_MAX_NAME_WORDS words), copies the name words. Returns 1 with rec, gen_out, len_out
 * filled, or 0 (FREE, BUSY, other name, or no consistent read within the bound). */
int hmi_slot_read(const hm_store *s, uint32_t k, const hm_name *want, hm_region_record *rec,
                  uint64_t *gen_out, uint64_t *name_out, uint32_t *len_out) {
    return slot_read(s, k, want, NULL, 0, rec, gen_out, name_out, len_out, 0);
}

int hmi_slot_read_if_named(const hm_store *s, uint32_t k, const char *name, uint32_t len, hm_region_record *rec) {
    return slot_read(s, k, NULL, name, len, rec, NULL, NULL, NULL, 0);
}

/* §8 step 2c's read of slot k's record, which must hold nm: 1 sound, 0 absent or not sound, or
 * HM_READ_UNSETTLED when writers republished it under every attempt (not known to be unsound). */
static int rebuild_read(const hm_store *s, uint32_t k, const hm_name *nm) {
    return slot_read(s, k, nm, NULL, 0, NULL, NULL, NULL, NULL, 1);
}

/* ------------------------------------------------------------------ handle read (§7.2.2) */

int hmi_slot_read_at(const hm_store *s, uint32_t k, uint64_t g, hm_region_record *rec) {
    hm_slot *sl = slot_at(s, k);
    for (uint32_t attempt = 0; attempt < HM_READ_ATTEMPTS; attempt++) {
        /* acquire: pairs with §7.4 step 11's release of gen; an odd (BUSY) gen never equals a handle's */
        if (atomic_load_explicit(&sl->gen, ACQ) != g) return -1;
        uint64_t s1 = atomic_load_explicit(&sl->seq, ACQ); /* acquire: pairs with §7.1 release of seq */
        hm_record_copy *cp = &sl->copies[s1 & 1];
        /* relaxed: validated by the seq/gen re-check below; the name is not read: while gen stays g
         * the slot holds the name the handle matched (names change only while gen is odd, §7.2.2) */
        uint64_t count = atomic_load_explicit(&cp->dispatch_count, RLX);
        uint64_t total = atomic_load_explicit(&cp->kernel_ns_total, RLX);
        uint64_t max = atomic_load_explicit(&cp->kernel_ns_max, RLX);
        uint64_t bytes = atomic_load_explicit(&cp->bytes_total, RLX);
        atomic_thread_fence(ACQ); /* acquire fence: orders the loads above before the re-checks */
        uint64_t s2 = atomic_load_explicit(&sl->seq, RLX);
        if (atomic_load_explicit(&sl->gen, RLX) != g) return -1;
        if (s1 != s2) {
            cpu_relax();
            continue;
        }
        if (!hm_record_sound(count, total, max, bytes)) return 0;
        rec->dispatch_count = count;
        rec->kernel_ns_total = total;
        rec->kernel_ns_max = max;
        rec->bytes_total = bytes;
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------ resolve (§7.3) */

int hmi_resolve(const hm_store *s, const hm_name *nm, uint32_t *k_out, uint64_t *g_out, hm_region_record *rec) {
    if (s->capacity == 0) return 0;
    const uint64_t tag = nm->hash >> HM_INDEX_TAG_SHIFT;
    for (uint32_t attempt = 0; attempt < HM_RESOLVE_ATTEMPTS; attempt++) {
        uint64_t v1 = atomic_load_explicit(&s->hdr->index_seq, ACQ); /* acquire: pairs with step 11 release */
        uint32_t j = (uint32_t)nm->hash & s->index_mask;
        for (uint32_t p = 0; p < s->max_probe; p++) {
            uint64_t e = atomic_load_explicit(&s->index[j], ACQ); /* acquire: pairs with entry release stores */
            if (e == 0) break;
            /* same tag and same home (dist == p): a false tag match needs the same home too */
            if (hm_index_tag(e) == tag && hm_index_dist(e) == p) {
                uint64_t k1 = hm_index_slot1(e);
                /* an entry naming no slot (a damaged index) is no match: probe on, remember nothing;
                 * the writer that meets it under struct_lock recovers (resolve_locked, §7.3) */
                if (k1 >= 1 && k1 <= s->capacity && hmi_slot_read(s, (uint32_t)(k1 - 1), nm, rec, g_out, NULL, NULL)) {
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

/* Exact lookup under struct_lock: index, hash, name_len and names change only under it. Sets
 * *corrupt when an entry it would follow (same tag, same home) names no slot: the caller recovers
 * (§8) and resolves again (§7.3). */
static int resolve_locked(const hm_store *s, const hm_name *nm, uint32_t *k_out, uint64_t *g_out, int *corrupt) {
    if (s->capacity == 0) return 0;
    const uint64_t tag = nm->hash >> HM_INDEX_TAG_SHIFT;
    uint32_t j = (uint32_t)nm->hash & s->index_mask;
    for (uint32_t p = 0; p < s->max_probe; p++) {
        uint64_t e = atomic_load_explicit(&s->index[j], RLX); /* relaxed: we are the only writer */
        if (e == 0) break;
        if (hm_index_tag(e) == tag && hm_index_dist(e) == p) { /* as §7.3: same tag, same home */
            uint64_t k1 = hm_index_slot1(e);
            if (k1 == 0 || k1 > s->capacity) {
                *corrupt = 1;
            } else {
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

/* ------------------------------------------------------------------ structural change (§7.4) */

/* +1 to a counter only the struct_lock holder writes (evictions, recoveries, dropped_inserts, §3.2):
 * relaxed load and store, no CAS, since no other writer races on it (stolen_locks, which any writer
 * bumps, is counter_bump's CAS). */
static void holder_count(_Atomic uint64_t *counter) {
    atomic_store_explicit(counter, hm_sat_add(atomic_load_explicit(counter, RLX), 1), RLX);
}

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
    found = resolve_locked(s, nm, &k, &g, &corrupt);                        /* 2 */
    if (!found && corrupt) {
        /* an index entry named no slot (§5 step 5): repair, then look again */
        if (!recover(s)) {
            rc = HM_DROPPED;
            goto out;
        }
        corrupt = 0;
        found = resolve_locked(s, nm, &k, &g, &corrupt);
    }
    if (found) {
        rc = HM_FOUND_UNDER_LOCK; /* release struct_lock, then record as in §7.1 */
    } else if (!hmi_index_has_room(s, nm->hash)) {
        /* no entry within the probe bound: drop the sample without evicting anyone (§7.4 step 3) */
        holder_count(&h->dropped_inserts);
        rc = HM_DROPPED;
    } else if (!lock_victim(s, &k)) {                                       /* 3-4 */
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

/* §7.4 steps 3-4: chooses the slot for a new region by CLOCK and takes its lock (waiting for a
 * record in flight into it, stealing from a dead holder). A busy victim is waited for, never
 * passed over: that would make an eviction depend on a record readers cannot see yet, which no
 * order of the operations explains (Lincheck's StoreLinearizabilityTest on the Java twin). struct_lock held. */
static __attribute__((warn_unused_result)) int lock_victim(hm_store *s, uint32_t *k_out) {
    hm_file_header *h = s->hdr;
    /* relaxed: ours under struct_lock */
    const uint64_t hw0 = atomic_load_explicit(&h->high_water, RLX);
    const uint64_t hand0 = atomic_load_explicit(&h->clock_hand, RLX);
    for (uint32_t second_chances = 0;; second_chances++) {
        uint32_t k = hmi_clock_choose(s);
        hm_slot *sl = slot_at(s, k);
        if (!lock_acquire(s, &sl->lock, NULL)) {
            /* §6.2 give up: the victim's lock is held by a live process. Undo the choice so that
             * the change leaves the index and every region as they were (the hand may have
             * cleared some reference bits: that only ages regions). */
            atomic_store_explicit(&h->high_water, hw0, REL); /* release: as in hmi_clock_choose */
            atomic_store_explicit(&h->clock_hand, hand0, RLX);
            return 0;
        }
        /* §7.4 step 4: a record that finished between the hand's look and this lock set the bit
         * again; evicting now would match no order of the two operations. Second chance. */
        if (second_chances >= s->capacity || atomic_load_explicit(&sl->name_len, RLX) == 0 || !ref_get(s, k)) {
            *k_out = k;
            return 1;
        }
        ref_set(s, k, 0); /* a hint, as in the hand */
        lock_release(&sl->lock);
    }
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
    if (atomic_load_explicit(&sl->name_len, RLX) > 0) {                     /* 8: the slot had a name (gen is odd by now) */
        if (!hmi_index_delete(s, atomic_load_explicit(&sl->hash, RLX), k)) rebuild = 1;
        uint64_t live = atomic_load_explicit(&h->live_count, RLX);
        atomic_store_explicit(&h->live_count, live > 0 ? live - 1 : 0, REL); /* release (§3.2); never below 0 */
        holder_count(&h->evictions);
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
    ref_set(s, k, 0); /* a first sample is no second reference (§10) */
    int rc;
    if (hmi_index_insert(s, nm->hash, k)) {                                      /* 10 */
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
        ref_set(s, k, 0);
        holder_count(&h->dropped_inserts);
        atomic_store_explicit(&h->clock_hand, k, RLX); /* the next insertion reuses the free slot (§7.4 step 10) */
        rc = HM_DROPPED;
    }
    atomic_store_explicit(&sl->gen, busy + 1, REL);       /* 11: release: even, publishes the slot */
    /* release: even, index stable; a pending rebuild keeps it odd until the rebuild ends, so a
     * death before then leaves the §8 trigger (odd index_seq) and lookups never trust the gap */
    if (!rebuild) atomic_store_explicit(&h->index_seq, iseq + 2, REL);
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
            if (!resolve_locked(s, nm, &k2, NULL, &corrupt) || k2 != k) rc = HM_DROPPED;
        }
    }
    *g_out = busy + 1;
    return rc;
}

/* ------------------------------------------------------------------ live count (§7.5) */

/* live_count changes only while index_seq is odd, so a count read between two equal even values
 * of index_seq agrees with every region a lookup can see. */
uint64_t hmi_size(const hm_store *s) {
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
    /* §7.5/§9.1: a live_count with the top bit set is damaged and reads as 0; any other value is
     * clamped to capacity */
    if (live > HM_VALUE_MAX) return 0;
    return live > s->capacity ? s->capacity : live;
}

/* ------------------------------------------------------------------ recovery (§8) */

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
    /* §8 step 1: only a journaled slot left BUSY is half-changed; one whose gen is even is the
     * untouched victim or the complete new region, kept by step 2 if sound (freeing it would lose
     * completed records). relaxed: gen changes only under the slot lock, which the dead writer held */
    if (j != 0 && j <= s->capacity && (atomic_load_explicit(&slot_at(s, (uint32_t)(j - 1))->gen, RLX) & 1) != 0 &&
        !slot_free(s, (uint32_t)(j - 1)))
        return 0;
    if (!index_rebuild(s)) return 0;
    atomic_store_explicit(&h->journal_slot, 0, REL); /* release: journal cleared after the repair */
    holder_count(&h->recoveries);
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
    ref_set(s, k, 0);
    atomic_store_explicit(&sl->gen, busy + 1, REL); /* release: the next even gen publishes the FREE slot */
    atomic_store_explicit(&s->hdr->clock_hand, k, RLX); /* the next insertion takes it, not a live region (§8) */
    lock_release(&sl->lock);
    return 1;
}

/* Rebuilds the index from the slots (§8 step 2). struct_lock held; index_seq made odd
 * here and even again at the end. Returns 1, or 0 when it gave up on a slot lock (§6.2): the
 * rebuild is then left unfinished with index_seq odd, for the next holder, as on a crash. */
static __attribute__((warn_unused_result)) int index_rebuild(hm_store *s) {
    hm_file_header *h = s->hdr;
    uint64_t seq = atomic_load_explicit(&h->index_seq, RLX) | 1;
    atomic_store_explicit(&h->index_seq, seq, RLX);
    atomic_thread_fence(REL); /* store-store: readers see index_seq odd before entries change */
    hmi_index_clear(s);
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
        /* §8 step 2c: kept only when sound -- a sound name (slot_name_sound), a sound current
         * record (read as readers do, whose hm_record_sound is that rule; a read that gave up
         * because writers kept republishing is not known to be unsound and keeps the slot, never
         * destroying a live region for a momentarily unreadable hint) -- not a later duplicate,
         * and fitting the index. */
        int sound = (gen & 1) == 0 && slot_name_sound(s, k, words, &nm) && rebuild_read(s, k, &nm) != 0 &&
                    !resolve_locked(s, &nm, &other, NULL, &corrupt) && hmi_index_insert(s, nm.hash, k);
        if (sound) live++;
        else if (!slot_free(s, k)) return 0;
    }
    atomic_store_explicit(&h->live_count, live, REL);  /* release: pairs with acquire loads of live_count */
    atomic_store_explicit(&h->index_seq, seq + 1, REL); /* release: index stable again */
    return 1;
}

/* Copies slot k's name into nm (words: HM_MAX_NAME_WORDS) and checks that it is sound (§8 step 2c;
 * Java's SlotSoundness.nameSound): length in range, zero padding, hash matching, valid UTF-8 (the
 * writer's own rule, hmi_utf8_valid; the words are little-endian, so their bytes are the name).
 * struct_lock held. */
static int slot_name_sound(const hm_store *s, uint32_t k, uint64_t *words, hm_name *nm) {
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
    return nm->hash == atomic_load_explicit(&sl->hash, RLX) && hmi_utf8_valid((const unsigned char *)words, len);
}
