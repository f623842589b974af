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

int hmi_index_insert(hm_store *s, uint64_t hash, uint32_t k) {
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
int hmi_index_delete(hm_store *s, uint64_t hash, uint32_t k) {
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
