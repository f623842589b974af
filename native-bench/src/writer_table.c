/*
 * writer_table.c - the writer table (FORMAT §3.5, §6.1): claiming an entry at open, and whether the
 * holder an owner word names is dead (§6.3).
 * Twin of the Java class dev.hintmap.store.WriterTable.
 *
 * Section references (§n) are to docs/FORMAT.md. Every atomic access to the mapping names its
 * memory order; the one-line comment next to it says why. Decisions that FORMAT.md leaves open
 * are marked "DECISION:". The library's internal interface is src/hm_internal.h.
 */
#define _GNU_SOURCE 1
#define HM_LIBRARY_SOURCE 1 /* this file is part of the library: hm_internal.h declares its internals */

#include "hm_internal.h"

/* §6.1 */
int hmi_writer_claim(hm_open_ctx *ctx, hm_store *s) {
    int rc = hmi_self_token(ctx, &s->token);
    if (rc < 0) return rc;
    for (uint32_t i = 0; i < s->writer_entries; i++) {
        hm_writer_entry *w = &s->writers[i];
        uint64_t t = atomic_load_explicit(&w->token, ACQ); /* acquire: pairs with claim/release */
        if (t != 0 && !hmi_token_alive(s, t, 0)) { /* only a process that is not running: see hmi_token_alive */
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

int hmi_owner_dead(hm_store *s, uint64_t owner) {
    uint64_t i = (owner & 0xFFFFFFFFu) - 1; /* low word 0 wraps to a huge index: corrupt, dead */
    if (i >= s->writer_entries) return 1;
    hm_writer_entry *w = &s->writers[i];
    uint64_t gen = atomic_load_explicit(&w->generation, ACQ); /* acquire: pairs with the holder's release */
    if ((gen & 0xFFFFFFFFu) != owner >> 32) return 1;
    uint64_t token = atomic_load_explicit(&w->token, ACQ); /* acquire: pairs with claim CAS / release store */
    if (token == 0) return 1;
    return !hmi_token_alive(s, token, 1);
}
