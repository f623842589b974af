/*
 * hash_index.c - the open-addressing index of FORMAT §3.8: insert, backward-shift delete, room
 * check, clear. Callers hold struct_lock.
 * Twin of the Java class dev.hintmap.store.HashIndex.
 *
 * Section references (§n) are to docs/FORMAT.md. Every atomic access to the mapping names its
 * memory order; the one-line comment next to it says why. Decisions that FORMAT.md leaves open
 * are marked "DECISION:". The library's internal interface is src/hm_internal.h.
 */
#define _GNU_SOURCE 1
#define HM_LIBRARY_SOURCE 1 /* this file is part of the library: hm_internal.h declares its internals */

#include "hm_internal.h"

/* §7.4 step 10 / §8 step 2c: the first empty entry within max_probe of hash's home gets
 * (tag, dist, k + 1), dist its probe position. Returns 0 when there is none. */
int hmi_index_insert(hm_store *s, uint64_t hash, uint32_t k) {
    uint32_t j = (uint32_t)hash & s->index_mask;
    for (uint32_t p = 0; p < s->max_probe; p++) {
        if (atomic_load_explicit(&s->index[j], RLX) == 0) { /* relaxed: only the lock holder writes */
            /* release: a reader that acquires the entry sees everything before it */
            atomic_store_explicit(&s->index[j], hm_index_entry(hash, p, k), REL);
            return 1;
        }
        j = (j + 1) & s->index_mask;
    }
    return 0;
}

/* §7.4 step 8: backward-shift deletion of slot k's entry, reading no slot: each entry's own dist
 * says how far it may move back toward its home. Returns 0 when the index proved inconsistent
 * (no entry for (hash, k) before the first empty entry within max_probe -- backward shift keeps
 * every entry's run from its home free of empty entries, so the search stops there, as lookups
 * do -- or a moved entry that names no slot or sits further from its home than max_probe allows):
 * the caller rebuilds it after the change (§7.4 step 8). */
int hmi_index_delete(hm_store *s, uint64_t hash, uint32_t k) {
    const uint64_t tag = hash >> HM_INDEX_TAG_SHIFT;
    const uint32_t mask = s->index_mask;
    uint32_t j = (uint32_t)hash & mask;
    uint32_t p = 0;
    for (; p < s->max_probe; p++) {
        uint64_t e = atomic_load_explicit(&s->index[j], RLX); /* relaxed: we are the only writer */
        if (e == 0) return 0;
        if (hm_index_tag(e) == tag && hm_index_slot1(e) == (uint64_t)k + 1) break;
        j = (j + 1) & mask;
    }
    if (p == s->max_probe) return 0;
    uint32_t hole = j;
    uint32_t i = (j + 1) & mask;
    for (uint32_t step = 1; step < s->index_entries; step++) {
        uint64_t e = atomic_load_explicit(&s->index[i], RLX); /* relaxed: we are the only writer */
        if (e == 0) break;
        uint32_t d = hm_index_dist(e);
        uint64_t k1 = hm_index_slot1(e);
        if (k1 == 0 || k1 > s->capacity || d >= s->max_probe) {
            /* DECISION: a damaged entry (§5 step 5: a slot field naming no slot, a dist no insertion
             * writes) stops the shift here and the caller rebuilds the index, as for a missing entry */
            atomic_store_explicit(&s->index[hole], 0, REL); /* release: entry writes are release (§3.8) */
            return 0;
        }
        uint32_t m = (i - hole) & mask;
        if (m <= d) { /* its home lies cyclically at or before the hole: move it back by m */
            atomic_store_explicit(&s->index[hole], hm_index_with_dist(e, d - m), REL); /* release: as every entry write */
            hole = i;
        }
        i = (i + 1) & mask;
    }
    atomic_store_explicit(&s->index[hole], 0, REL); /* release: entry writes are release (§3.8) */
    return 1;
}

/* Whether inserting hash would find an empty index entry within max_probe. struct_lock held. */
int hmi_index_has_room(const hm_store *s, uint64_t hash) {
    uint32_t j = (uint32_t)hash & s->index_mask;
    for (uint32_t p = 0; p < s->max_probe; p++) {
        if (atomic_load_explicit(&s->index[j], RLX) == 0) return 1; /* relaxed: only the lock holder writes */
        j = (j + 1) & s->index_mask;
    }
    return 0;
}

/* Empties every entry (§8 step 2, before the index is rebuilt from the slots; index_seq odd). */
void hmi_index_clear(hm_store *s) {
    for (uint32_t j = 0; j < s->index_entries; j++)
        atomic_store_explicit(&s->index[j], 0, REL); /* release: entry writes are release (§3.8) */
}
