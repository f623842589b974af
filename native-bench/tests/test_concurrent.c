/* test_concurrent.c - multi-threaded tests (built into the ASan binary and, alone, the TSan one). */
#define _GNU_SOURCE 1
#include "test_concurrent.h"

#include "hintmap.h"
#include "hintmap_format.h"
#include "hm_internal.h"
#include "hm_test.h"

#include <unistd.h>

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum { CT_REGIONS = 64, CE_NAMES = 48, CT_MAX_THREADS = 16 };

typedef struct ct_shared {
    hm_store *s;
    int per_thread;
    int nregions;
    _Atomic int writers_left;
    _Atomic long bad_reads;
    _Atomic long good_reads;
    _Atomic long errors;
} ct_shared;

typedef struct ct_thread {
    ct_shared *sh;
    int id;
    uint64_t count[CT_REGIONS];
    uint64_t total[CT_REGIONS];
} ct_thread;

static void region_name(char *buf, size_t len, int i) { snprintf(buf, len, "ct-region-%03d", i); }

static inline uint64_t xs(uint64_t *x) {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static void *ct_writer(void *p) {
    ct_thread *t = p;
    ct_shared *sh = t->sh;
    hm_region *handles[CT_REGIONS] = {0};
    int use_handles = t->id & 1;
    char nb[32];
    if (use_handles) {
        for (int i = 0; i < sh->nregions; i++) {
            region_name(nb, sizeof nb, i);
            if (hm_region_resolve(sh->s, nb, strlen(nb), &handles[i]) != HM_OK) atomic_fetch_add(&sh->errors, 1);
        }
    }
    uint64_t x = 0x9E3779B97F4A7C15u * (uint64_t)(t->id + 1);
    for (int n = 0; n < sh->per_thread; n++) {
        int i = (int)(xs(&x) % (uint64_t)sh->nregions);
        uint64_t ns = 1 + xs(&x) % 100000;
        int rc;
        if (use_handles && handles[i]) {
            rc = hm_region_add(handles[i], ns, 2 * ns);
        } else {
            region_name(nb, sizeof nb, i);
            rc = hm_record(sh->s, nb, strlen(nb), ns, 2 * ns);
        }
        if (rc != HM_OK) atomic_fetch_add(&sh->errors, 1);
        if (i < CT_REGIONS) {
            t->count[i]++;
            t->total[i] += ns;
        }
    }
    for (int i = 0; i < CT_REGIONS; i++) hm_region_free(handles[i]);
    atomic_fetch_sub(&sh->writers_left, 1);
    return NULL;
}

static void *ct_reader(void *p) {
    ct_shared *sh = p;
    uint64_t x = 12345;
    uint64_t last[CE_NAMES > CT_REGIONS ? CE_NAMES : CT_REGIONS] = {0};
    char nb[32];
    while (atomic_load(&sh->writers_left) > 0) {
        int i = (int)(xs(&x) % (uint64_t)sh->nregions);
        region_name(nb, sizeof nb, i);
        hm_region_record r;
        if (hm_lookup(sh->s, nb, strlen(nb), &r) != HM_OK) continue;
        int ok = r.dispatch_count > 0 && r.kernel_ns_max <= r.kernel_ns_total &&
                 r.kernel_ns_total / r.dispatch_count <= r.kernel_ns_max &&
                 r.bytes_total == 2 * r.kernel_ns_total; /* a torn snapshot would break this */
        if (!ok) atomic_fetch_add(&sh->bad_reads, 1);
        else atomic_fetch_add(&sh->good_reads, 1);
        last[i] = r.dispatch_count;
    }
    (void)last;
    return NULL;
}

static void run(ct_shared *sh, ct_thread *ts, int threads) {
    pthread_t w[CT_MAX_THREADS], r;
    atomic_store(&sh->writers_left, threads);
    pthread_create(&r, NULL, ct_reader, sh);
    for (int i = 0; i < threads; i++) {
        ts[i].sh = sh;
        ts[i].id = i;
        pthread_create(&w[i], NULL, ct_writer, &ts[i]);
    }
    for (int i = 0; i < threads; i++) pthread_join(w[i], NULL);
    pthread_join(r, NULL);
}

void hm_t_concurrent_totals(int threads, int per_thread) {
    CHECK(threads <= CT_MAX_THREADS);
    hm_options o;
    hm_options_init(&o);
    hm_options_set_capacity(&o, 256);
    ct_shared sh;
    memset(&sh, 0, sizeof sh);
    sh.per_thread = per_thread;
    sh.nregions = CT_REGIONS;
    CHECK_EQ(hm_open(tpath("ct.hm"), &o, &sh.s), HM_OK);
    ct_thread *ts = calloc((size_t)threads, sizeof *ts);
    CHECK(ts != NULL);
    run(&sh, ts, threads);
    CHECK_EQ(atomic_load(&sh.errors), 0);
    CHECK_EQ(atomic_load(&sh.bad_reads), 0);
    uint64_t all = 0;
    for (int i = 0; i < CT_REGIONS; i++) {
        uint64_t c = 0, t = 0;
        for (int k = 0; k < threads; k++) {
            c += ts[k].count[i];
            t += ts[k].total[i];
        }
        char nb[32];
        region_name(nb, sizeof nb, i);
        hm_region_record r;
        CHECK_EQ(hm_lookup(sh.s, nb, strlen(nb), &r), HM_OK);
        CHECK_EQ(r.dispatch_count, c);
        CHECK_EQ(r.kernel_ns_total, t);
        CHECK_EQ(r.bytes_total, 2 * t);
        all += r.dispatch_count;
    }
    CHECK_EQ(all, (uint64_t)threads * (uint64_t)per_thread);
    hm_stats st;
    CHECK_EQ(hm_stats_get(sh.s, &st), HM_OK);
    CHECK_EQ(st.evictions, 0);
    CHECK_EQ(st.live_count, CT_REGIONS);
    CHECK_EQ(st.stolen_locks, 0);
    free(ts);
    CHECK_EQ(hm_close(sh.s), HM_OK);
}

void hm_t_concurrent_eviction(int threads, int per_thread) {
    CHECK(threads <= CT_MAX_THREADS);
    hm_options o;
    hm_options_init(&o);
    hm_options_set_capacity(&o, 8);
    ct_shared sh;
    memset(&sh, 0, sizeof sh);
    sh.per_thread = per_thread;
    sh.nregions = CE_NAMES;
    CHECK_EQ(hm_open(tpath("ce.hm"), &o, &sh.s), HM_OK);
    ct_thread *ts = calloc((size_t)threads, sizeof *ts);
    CHECK(ts != NULL);
    run(&sh, ts, threads);
    CHECK_EQ(atomic_load(&sh.errors), 0);
    CHECK_EQ(atomic_load(&sh.bad_reads), 0);
    hm_stats st;
    CHECK_EQ(hm_stats_get(sh.s, &st), HM_OK);
    CHECK(st.evictions > 0);
    CHECK_EQ(st.recoveries, 0);
    CHECK_EQ(st.stolen_locks, 0);
    CHECK_EQ(st.dropped_inserts, 0);
    CHECK_EQ(st.live_count, 8);
    int found = 0;
    uint64_t sum = 0;
    for (int i = 0; i < CE_NAMES; i++) {
        char nb[32];
        region_name(nb, sizeof nb, i);
        hm_region_record r;
        if (hm_lookup(sh.s, nb, strlen(nb), &r) == HM_OK) {
            found++;
            sum += r.dispatch_count;
            CHECK_EQ(r.bytes_total, 2 * r.kernel_ns_total);
        }
    }
    CHECK_EQ(found, 8);
    CHECK(sum <= (uint64_t)threads * (uint64_t)per_thread);
    for (uint32_t k = 0; k < hm_high_water(sh.s); k++) {
        char nb[64];
        size_t nl;
        hm_region_record r;
        CHECK_EQ(hm_region_at(sh.s, k, nb, sizeof nb, &nl, &r), HM_OK);
    }
    free(ts);
    CHECK_EQ(hm_close(sh.s), HM_OK);
}

/* ------------------------------------------------------------------ reads by name under churn */

/* Region i's every sample is (i + 1) * 1000 ns and 2 * that many bytes: a record read for name i that
 * belongs to another region, or mixes two, breaks cr_own. */
enum { CR_NAMES = 48, CR_READERS = 2 };
static uint64_t cr_ns(int i) { return (uint64_t)(i + 1) * 1000u; }
static int cr_own(int i, const hm_region_record *r) {
    return r->dispatch_count > 0 && r->kernel_ns_max == cr_ns(i) && r->kernel_ns_total == r->dispatch_count * cr_ns(i) &&
           r->bytes_total == 2 * r->kernel_ns_total;
}

typedef struct cr_shared {
    hm_store *s;
    int per_thread;
    char names[CR_NAMES][24]; /* fixed buffers: their pointers are what the name cache remembers */
    _Atomic int writers_left;
    _Atomic long wrong, found, absent, errors;
} cr_shared;

typedef struct cr_thread {
    cr_shared *sh;
    int id;
} cr_thread;

static void *cr_writer(void *p) {
    cr_thread *t = p;
    cr_shared *sh = t->sh;
    uint64_t x = 0x9E3779B97F4A7C15u * (uint64_t)(t->id + 1);
    char nb[24];
    for (int n = 0; n < sh->per_thread; n++) {
        int i = (int)(xs(&x) % CR_NAMES);
        const char *name = sh->names[i];
        if (n & 1) { /* half through a rewritten buffer, half through the fixed one */
            memcpy(nb, sh->names[i], sizeof nb);
            name = nb;
        }
        if (hm_record(sh->s, name, strlen(name), cr_ns(i), 2 * cr_ns(i)) != HM_OK) atomic_fetch_add(&sh->errors, 1);
    }
    atomic_fetch_sub(&sh->writers_left, 1);
    return NULL;
}

/* Counts one read of region i: found (and whether the record is i's own), absent, or an error. */
static void cr_tally(cr_shared *sh, int i, int rc, const hm_region_record *r, long *found, long *absent, long *wrong) {
    if (rc == HM_OK) {
        (*found)++;
        if (!cr_own(i, r)) (*wrong)++;
    } else if (rc == HM_ENOTFOUND) {
        (*absent)++;
    } else {
        atomic_fetch_add(&sh->errors, 1);
    }
}

/* Reads by name and through handles while writers evict: by name through the fixed buffers (the name cache hits, and goes stale
 * when a region is evicted and its slot given to another) and through one rewritten buffer (the same
 * pointer for every name); through handles whose slot's generation moves under them. Every record
 * found is the named region's own; hm_is_hot agrees with it. */
static void *cr_reader(void *p) {
    cr_thread *t = p;
    cr_shared *sh = t->sh;
    uint64_t x = 12345u + (uint64_t)t->id;
    char nb[24];
    long wrong = 0, found = 0, absent = 0;
    hm_region *handles[CR_NAMES]; /* this thread's own (one thread per handle), read by §7.2.2 */
    for (int i = 0; i < CR_NAMES; i++)
        if (hm_region_resolve(sh->s, sh->names[i], strlen(sh->names[i]), &handles[i]) != HM_OK) {
            atomic_fetch_add(&sh->errors, 1);
            while (i-- > 0) hm_region_free(handles[i]);
            return NULL;
        }
    /* at least 1,000 reads, so that a reader scheduled late still reads found and absent names */
    for (long n = 0; atomic_load(&sh->writers_left) > 0 || n < 1000; n++) {
        int i = (int)(xs(&x) % CR_NAMES);
        const char *name = sh->names[i];
        if (xs(&x) & 1) {
            memcpy(nb, sh->names[i], sizeof nb);
            name = nb;
        }
        hm_region_record r;
        cr_tally(sh, i, hm_lookup(sh->s, name, strlen(name), &r), &r, &found, &absent, &wrong);
        int hot = hm_is_hot(sh->s, name, strlen(name)); /* threshold 24,500 ns: hot only from i = 24 on */
        if (hot < 0) atomic_fetch_add(&sh->errors, 1);
        if (hot == 1 && i < 24) wrong++;
        /* a slot gone to another name must not answer for it */
        cr_tally(sh, i, hm_region_lookup(handles[i], &r), &r, &found, &absent, &wrong);
    }
    for (int i = 0; i < CR_NAMES; i++) hm_region_free(handles[i]);
    atomic_fetch_add(&sh->wrong, wrong);
    atomic_fetch_add(&sh->found, found);
    atomic_fetch_add(&sh->absent, absent);
    return NULL;
}

void hm_t_concurrent_named_reads(int writers, int per_thread) {
    CHECK(writers <= CT_MAX_THREADS);
    hm_options o;
    hm_options_init(&o);
    hm_options_set_capacity(&o, 8);
    hm_options_set_hot_threshold_ns(&o, 24500);
    cr_shared *sh = calloc(1, sizeof *sh);
    CHECK(sh != NULL);
    sh->per_thread = per_thread;
    for (int i = 0; i < CR_NAMES; i++) snprintf(sh->names[i], sizeof sh->names[i], "cr-region-%03d", i);
    CHECK_EQ(hm_open(tpath("cr.hm"), &o, &sh->s), HM_OK);
    cr_thread ts[CT_MAX_THREADS + CR_READERS];
    pthread_t th[CT_MAX_THREADS + CR_READERS];
    atomic_store(&sh->writers_left, writers);
    for (int i = 0; i < writers + CR_READERS; i++) {
        ts[i] = (cr_thread){sh, i};
        CHECK(pthread_create(&th[i], NULL, i < writers ? cr_writer : cr_reader, &ts[i]) == 0);
    }
    for (int i = 0; i < writers + CR_READERS; i++) pthread_join(th[i], NULL);
    CHECK_EQ(atomic_load(&sh->errors), 0);
    CHECK_EQ(atomic_load(&sh->wrong), 0);
    CHECK(atomic_load(&sh->found) > 0);
    CHECK(atomic_load(&sh->absent) > 0); /* the churn did evict under the readers */
    hm_stats st;
    CHECK_EQ(hm_stats_get(sh->s, &st), HM_OK);
    CHECK(st.evictions > 0);
    for (int i = 0; i < CR_NAMES; i++) { /* after the churn: each present region is its own */
        hm_region_record r;
        int rc = hm_lookup(sh->s, sh->names[i], strlen(sh->names[i]), &r);
        CHECK(rc == HM_ENOTFOUND || (rc == HM_OK && cr_own(i, &r)));
    }
    CHECK_EQ(hm_close(sh->s), HM_OK);
    free(sh);
}

/* ------------------------------------------------------------------ give up (FORMAT §6.2) */

/* Threads give up together on a slot lock a live process holds, then record into another region
 * of the same store, contending for its lock, while they drop samples on the held one.
 * In two phases, so that no thread can give up on another thread of this process: a thread
 * preempted inside a record (a loaded machine, a paused VM) makes the others wait for a live
 * holder, and with the short limit that the held lock's waits need they would drop a sample.
 *   1. each thread's first sample on "held" waits for the 200 ms limit (or sees that another
 *      thread gave up meanwhile) and gives up; nobody records elsewhere yet;
 *   2. with the limit set past any wait of the test, the later samples on "held" are dropped
 *      by the give-up memo (no wait), and those on "free" all count. */
typedef struct cg_shared {
    hm_store *s;
    pthread_barrier_t phase;
    _Atomic long dropped, recorded, errors;
} cg_shared;

static void cg_held(cg_shared *sh) {
    if (hm_record(sh->s, "held", 4, 1, 1) == HM_DROPPED) atomic_fetch_add(&sh->dropped, 1);
    else atomic_fetch_add(&sh->errors, 1);
}

static void *cg_thread(void *p) {
    cg_shared *sh = p;
    cg_held(sh); /* phase 1 */
    pthread_barrier_wait(&sh->phase);
    pthread_barrier_wait(&sh->phase); /* the main thread sets the long limit in between */
    for (int n = 0; n < 3; n++) {
        if (n > 0) cg_held(sh);
        for (int k = 0; k < 100; k++) {
            if (hm_record(sh->s, "free", 4, 1, 1) == HM_OK) atomic_fetch_add(&sh->recorded, 1);
            else atomic_fetch_add(&sh->errors, 1);
        }
    }
    return NULL;
}

void hm_t_concurrent_giveup(int threads) {
    hm_options o;
    hm_options_init(&o);
    hm_options_set_capacity(&o, 16);
    hm_store *s;
    CHECK_EQ(hm_open(tpath("giveup-mt.hm"), &o, &s), HM_OK);
    hm_test_set_lock_wait_limit_ns(s, 200000000); /* 200 ms */
    CHECK_EQ(hm_record(s, "held", 4, 1, 1), HM_OK);
    CHECK_EQ(hm_record(s, "free", 4, 1, 1), HM_OK);
    uint32_t k;
    CHECK_EQ(hm_test_slot_of(s, "held", 4, &k), HM_OK);
    uint64_t owner = t_plant_owner(s, 1010, (long)getpid()); /* a live process: this one */
    CHECK(owner != 0);
    atomic_store(&hm_test_slot(s, k)->lock, owner);
    if (threads > CT_MAX_THREADS) threads = CT_MAX_THREADS;
    cg_shared sh = {.s = s};
    CHECK(pthread_barrier_init(&sh.phase, NULL, (unsigned)threads + 1) == 0);
    pthread_t t[CT_MAX_THREADS];
    for (int i = 0; i < threads; i++) CHECK(pthread_create(&t[i], NULL, cg_thread, &sh) == 0);
    pthread_barrier_wait(&sh.phase);
    long dropped_waiting = atomic_load(&sh.dropped);
    hm_test_set_lock_wait_limit_ns(s, T_NO_GIVEUP_NS); /* ordered before phase 2 by the barrier */
    pthread_barrier_wait(&sh.phase);
    for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
    pthread_barrier_destroy(&sh.phase);
    CHECK_EQ(atomic_load(&sh.errors), 0);
    CHECK_EQ(dropped_waiting, threads);
    CHECK_EQ(atomic_load(&sh.dropped), 3L * threads);
    CHECK_EQ(atomic_load(&sh.recorded), 300L * threads);
    CHECK_EQ_U64(atomic_load(&hm_test_slot(s, k)->lock), owner); /* never taken from a live process */
    hm_region_record r;
    CHECK_EQ(hm_lookup(s, "free", 4, &r), HM_OK);
    CHECK_EQ(r.dispatch_count, 1 + 300 * (uint64_t)threads);
    atomic_store(&hm_test_slot(s, k)->lock, 0);
    CHECK_EQ(hm_record(s, "held", 4, 1, 1), HM_OK);
    CHECK_EQ(hm_lookup(s, "held", 4, &r), HM_OK);
    CHECK_EQ(r.dispatch_count, 2);
    CHECK_EQ(hm_close(s), HM_OK);
}

/* ------------------------------------------------------------------ a guarded store truncated under threads */

static const char *const CG_KERNELS[] = {
    "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>(Params const&)",
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 3> >"
    "(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3>)",
    "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64, 64, 4, false, false, cutlass::half_t> >"
    "(Flash_fwd_params)",
};
enum { CG_KERNELS_N = 3 };

typedef struct guarded_caller {
    hm_store *s;
    int index;
    _Atomic int *running;
    int code; /* the negative code that ended its loop */
} guarded_caller;

static int cg_is_hot(hm_store *s, unsigned k) { return hm_is_hot(s, CG_KERNELS[k], strlen(CG_KERNELS[k])); }

static void *cg_keep_calling(void *p) {
    guarded_caller *a = p;
    const char *mine = CG_KERNELS[a->index % CG_KERNELS_N];
    hm_region *h = NULL;
    int rc = hm_region_resolve(a->s, mine, strlen(mine), &h);
    atomic_fetch_add(a->running, 1);
    hm_region_record r;
    for (unsigned n = 0; rc >= 0; n++) {
        switch (n % 4) {
        case 0: rc = t_rec(a->s, CG_KERNELS[n % CG_KERNELS_N], 150000, 8); break;
        case 1: rc = hm_region_add(h, 150000, 8); break;
        case 2: rc = hm_region_lookup(h, &r); break;
        default: rc = cg_is_hot(a->s, (n / 4) % CG_KERNELS_N); break;
        }
    }
    a->code = rc;
    hm_region_free(h);
    return NULL;
}

void hm_t_concurrent_truncated_guarded(int threads) {
    if (threads > CT_MAX_THREADS) threads = CT_MAX_THREADS;
    const char *p = tpath("cg-guarded.hm");
    unlink(p);
    hm_options o;
    hm_options_init(&o);
    hm_options_set_capacity(&o, 64);
    o.flags = HM_OPEN_FAULT_GUARD;
    hm_store *s;
    OPEN_OK(s, p, &o);
    for (unsigned k = 0; k < CG_KERNELS_N; k++) CHECK_EQ(t_rec(s, CG_KERNELS[k], 150000, 8), HM_OK);
    pthread_t t[CT_MAX_THREADS];
    guarded_caller a[CT_MAX_THREADS];
    _Atomic int running = 0;
    for (int i = 0; i < threads; i++) {
        a[i] = (guarded_caller){s, i, &running, 0};
        CHECK(pthread_create(&t[i], NULL, cg_keep_calling, &a[i]) == 0);
    }
    while (atomic_load(&running) < threads) sched_yield();
    CHECK(truncate(p, 0) == 0);
    int wrong = 0;
    for (int i = 0; i < threads; i++) {
        CHECK(pthread_join(t[i], NULL) == 0);
        if (a[i].code != HM_ECHANGED) {
            fprintf(stderr, "  thread %d ended on %d, want HM_ECHANGED\n", i, a[i].code);
            wrong++;
        }
    }
    CHECK_EQ(wrong, 0);
    CHECK_EQ(hm_close(s), HM_ECHANGED);
    unlink(p);
}

