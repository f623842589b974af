/*
 * clock_hand.c - the CLOCK choice of a slot for a new region (FORMAT §7.4 step 3).
 * Twin of the Java class dev.hintmap.eviction.ClockHand.
 *
 * Section references (§n) are to docs/FORMAT.md. Every atomic access to the mapping names its
 * memory order; the one-line comment next to it says why. Decisions that FORMAT.md leaves open
 * are marked "DECISION:". The library's internal interface is src/hm_internal.h.
 */
#define _GNU_SOURCE 1
#define HM_LIBRARY_SOURCE 1 /* this file is part of the library: hm_internal.h declares its internals */

#include "hm_internal.h"

/* §7.4 step 3: chooses the slot for a new region. struct_lock held, capacity > 0. */
uint32_t hmi_clock_choose(hm_store *s) {
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
        /* v2: the byte alone decides, so a step over a referenced slot touches the reference
         * table only, never the slot's control line; only the slot taken is read (step 4).
         * A FREE slot's byte is 0 (every path that frees a slot clears it), so it is taken. */
        if (!ref_get(s, k)) {
            atomic_store_explicit(&h->clock_hand, hand, RLX); /* relaxed: ours under struct_lock */
            return k;
        }
        ref_set(s, k, 0); /* the hand passes: the region must be recorded again to survive the next turn */
    }
    /* writers kept setting bits during both turns: take the slot under the hand */
    uint32_t k = (uint32_t)hand;
    atomic_store_explicit(&h->clock_hand, hand + 1 == s->capacity ? 0 : hand + 1, RLX); /* relaxed: ours under struct_lock */
    return k;
}
