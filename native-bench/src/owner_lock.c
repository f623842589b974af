/*
 * owner_lock.c - the lock words of FORMAT §6.2: acquire, steal from a dead holder, give up on a
 * live one.
 * Twin of the Java class dev.hintmap.store.OwnerLock.
 *
 * Section references (§n) are to docs/FORMAT.md. Every atomic access to the mapping names its
 * memory order; the one-line comment next to it says why. Decisions that FORMAT.md leaves open
 * are marked "DECISION:". The library's internal interface is src/hm_internal.h.
 */
#define _GNU_SOURCE 1
#define HM_LIBRARY_SOURCE 1 /* this file is part of the library: hm_internal.h declares its internals */

#include "hm_internal.h"

#include <pthread.h>
#include <sched.h>

#define HM_SPINS_PER_CHECK   1024u   /* §6.2 */

/* §6.3 for the holder of a lock, counted (hm_test_liveness_checks). */
static int holder_dead(hm_store *s, uint64_t holder) {
    atomic_fetch_add_explicit(&s->liveness_checks, 1, RLX); /* relaxed: a statistic for tests */
    return hmi_owner_dead(s, holder);
}

/* The give-up memo: HM_GIVEUP_MEMO (lock, owner word) pairs in a fixed array under giveup_mu, as in
 * the Java twin (OwnerLock.giveUp): a waiter holds at most two locks, so a stopped process leaves
 * few, a remember allocates nothing, and past 16 (a hostile file) the oldest is overwritten, which
 * costs a later waiter one more wait, never correctness. */
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

/* giveup_clear (hm_internal.h) when the memo is not empty: forgets what we gave up on `l`. */
void hmi_giveup_forget(hm_store *s, const _Atomic uint64_t *l) {
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

/* lock_acquire (hm_internal.h) after lock_try found `l` taken: the rest of §6.2. */
__attribute__((warn_unused_result)) int hmi_lock_acquire_contended(hm_store *s, _Atomic uint64_t *l, int *stolen) {
    if (atomic_load_explicit(&s->giveup_count, RLX) != 0) { /* relaxed: a hint, the memo is under its mutex */
        /* §6.2 give up, remembered: a holder this store gave up on is not waited for again, and
         * not checked more than once per recheck period (one /proc read costs tens of µs) */
        uint64_t holder = atomic_load_explicit(l, RLX); /* relaxed: only a hint before a CAS */
        if (holder != 0) {
            uint64_t now = monotonic_ns();
            int known = giveup_known(s, l, holder, now);
            if (known == HM_GIVEUP_FRESH) return 0;
            if (known == HM_GIVEUP_STALE) {
                if (!holder_dead(s, holder)) {
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
        /* A guarded store that faulted (fault_guard.c) is done with the file: the holder may be one
         * of its own calls, abandoned at the fault with the lock held. Relaxed: a hint. */
        if (atomic_load_explicit(&s->fault_code, RLX) != 0) return 0;
        if (holder_dead(s, holder)) {
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
