/*
 * hm-floor - the physical-limit reference for hintmap's record path.
 *
 * Performs exactly the raw atomic operations of one hintmap record (FORMAT §7.1) on a
 * slot of the real layout (hm_slot: 64-byte control line + 64-byte record line) in a
 * MAP_SHARED file, with no hashing, lookup or liveness logic:
 *
 *   lock:  CAS(lock 0->owner, acquire); load gen; release fence; load seq; 4 relaxed loads (cur copy);
 *          4 relaxed stores (next copy); release store seq; relaxed load of the slot's reference
 *          byte and a relaxed store of 1 only when it reads 0 (§3.9; the bytes of all slots share
 *          one line, before the slots, as in the file); release store lock = 0   (what hintmap does)
 *   faa:   3 relaxed fetch_add (count, total, bytes) + CAS-max loop on max
 *          (the alternative FORMAT §10 rejects: no consistent snapshot)
 *
 * Each variant runs with every thread on one shared slot (contended: a single hot
 * region) and with a private slot per thread (uncontended), for 1 and N threads.
 * Output: one line per run,
 *   floor variant=V slots=shared|private threads=T records=N seconds=S records_per_s=X
 *         ns_per_record=Y thread_ns_per_record=Z
 */
#define _GNU_SOURCE 1
#include "hintmap_format.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define RLX memory_order_relaxed
#define ACQ memory_order_acquire
#define REL memory_order_release

typedef struct run_arg {
    unsigned char *slot;   /* hm_slot */
    _Atomic uint8_t *ref;  /* its reference byte (§3.9) */
    uint64_t records;
    uint64_t owner;
    int variant;           /* 0 lock, 1 faa */
    _Atomic int *go;
    _Atomic int *ready;
    uint64_t start_ns, end_ns;
} run_arg;

static uint64_t mono_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("isb" ::: "memory");
#endif
}

static void record_lock(hm_slot *sl, _Atomic uint8_t *ref, uint64_t owner, uint64_t g, uint64_t ns, uint64_t bytes) {
    uint64_t expected = 0;
    while (!atomic_compare_exchange_weak_explicit(&sl->lock, &expected, owner, ACQ, RLX)) {
        expected = 0;
        cpu_relax();
    }
    if (atomic_load_explicit(&sl->gen, RLX) != g) __builtin_trap(); /* never: gen is constant here */
    atomic_thread_fence(REL); /* as slot_record: the seqlock's store-store fence (FORMAT §1, §7.1) */
    uint64_t seq = atomic_load_explicit(&sl->seq, RLX);
    hm_record_copy *cur = &sl->copies[seq & 1], *nxt = &sl->copies[(seq + 1) & 1];
    uint64_t c = atomic_load_explicit(&cur->dispatch_count, RLX);
    uint64_t t = atomic_load_explicit(&cur->kernel_ns_total, RLX);
    uint64_t m = atomic_load_explicit(&cur->kernel_ns_max, RLX);
    uint64_t b = atomic_load_explicit(&cur->bytes_total, RLX);
    atomic_store_explicit(&nxt->dispatch_count, hm_sat_add(c, 1), RLX);
    atomic_store_explicit(&nxt->kernel_ns_total, hm_sat_add(t, ns), RLX);
    atomic_store_explicit(&nxt->kernel_ns_max, m > ns ? m : ns, RLX);
    atomic_store_explicit(&nxt->bytes_total, hm_sat_add(b, bytes), RLX);
    atomic_store_explicit(&sl->seq, seq + 1, REL);
    if (atomic_load_explicit(ref, RLX) == 0) atomic_store_explicit(ref, 1, RLX); /* test before set, as slot_record */
    atomic_store_explicit(&sl->lock, 0, REL);
}

static void record_faa(hm_slot *sl, uint64_t ns, uint64_t bytes) {
    hm_record_copy *r = &sl->copies[0];
    atomic_fetch_add_explicit(&r->dispatch_count, 1, RLX);
    atomic_fetch_add_explicit(&r->kernel_ns_total, ns, RLX);
    atomic_fetch_add_explicit(&r->bytes_total, bytes, RLX);
    uint64_t m = atomic_load_explicit(&r->kernel_ns_max, RLX);
    while (m < ns && !atomic_compare_exchange_weak_explicit(&r->kernel_ns_max, &m, ns, RLX, RLX)) {
    }
}

static void *run(void *p) {
    run_arg *a = p;
    hm_slot *sl = (hm_slot *)(void *)a->slot;
    atomic_fetch_add(a->ready, 1);
    while (!atomic_load_explicit(a->go, ACQ)) sched_yield();
    uint64_t start = mono_ns();
    if (a->variant == 0) {
        for (uint64_t i = 0; i < a->records; i++) record_lock(sl, a->ref, a->owner, 0, (i & 1023) + 1, 64);
    } else {
        for (uint64_t i = 0; i < a->records; i++) record_faa(sl, (i & 1023) + 1, 64);
    }
    a->end_ns = mono_ns();
    a->start_ns = start;
    return NULL;
}

/* m: the reference bytes (one 4 KiB page), then the slots. */
static int measure(unsigned char *m, uint32_t slot_bytes, int threads, int shared_slot, int variant, uint64_t records) {
    pthread_t tid[256];
    run_arg args[256];
    _Atomic int go = 0, ready = 0;
    _Atomic uint8_t *refs = (_Atomic uint8_t *)(void *)m;
    unsigned char *slots = m + 4096;
    /* reset the reference bytes and the slots used */
    memset(m, 0, 4096 + (size_t)slot_bytes * (size_t)(threads + 1));
    for (int t = 0; t < threads; t++) {
        int k = shared_slot ? 0 : t;
        args[t] = (run_arg){slots + (size_t)k * slot_bytes, &refs[k], records, (uint64_t)(t + 1) << 32 | 1,
                            variant, &go, &ready, 0, 0};
        if (pthread_create(&tid[t], NULL, run, &args[t]) != 0) {
            fprintf(stderr, "hm-floor: pthread_create: %s\n", strerror(errno));
            return 1;
        }
    }
    while (atomic_load(&ready) < threads) sched_yield();
    atomic_store_explicit(&go, 1, REL);
    uint64_t tmin = UINT64_MAX, tmax = 0, tsum = 0;
    for (int t = 0; t < threads; t++) {
        pthread_join(tid[t], NULL);
        if (args[t].start_ns < tmin) tmin = args[t].start_ns;
        if (args[t].end_ns > tmax) tmax = args[t].end_ns;
        tsum += args[t].end_ns - args[t].start_ns;
    }
    /* sanity: the counts add up */
    uint64_t count = 0;
    for (int t = 0; t < (shared_slot ? 1 : threads); t++) {
        hm_slot *sl = (hm_slot *)(void *)(slots + (size_t)t * slot_bytes);
        count += variant == 0 ? atomic_load(&sl->copies[atomic_load(&sl->seq) & 1].dispatch_count)
                              : atomic_load(&sl->copies[0].dispatch_count);
    }
    uint64_t total = records * (uint64_t)threads;
    if (count != total) {
        fprintf(stderr, "hm-floor: lost updates: %" PRIu64 " of %" PRIu64 "\n", count, total);
        return 1;
    }
    double secs = (double)(tmax - tmin) / 1e9;
    printf("floor variant=%s slots=%s threads=%d records=%" PRIu64 " seconds=%.6f records_per_s=%.0f ns_per_record=%.2f"
           " thread_ns_per_record=%.2f\n",
           variant == 0 ? "lock" : "faa", shared_slot ? "shared" : "private", threads, total, secs, (double)total / secs,
           secs * 1e9 / (double)total, (double)tsum / (double)total);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv) {
    const char *path = NULL;
    int threads = 2;
    uint64_t records = 10000000;
    int variants = 3; /* bit 0 lock, bit 1 faa */
    int opt;
    while ((opt = getopt(argc, argv, "f:t:n:v:h")) != -1) {
        switch (opt) {
        case 'f': path = optarg; break;
        case 't': threads = atoi(optarg); break;
        case 'n': records = strtoull(optarg, NULL, 10); break;
        case 'v': variants = strcmp(optarg, "lock") == 0 ? 1 : strcmp(optarg, "faa") == 0 ? 2 : 3; break;
        default:
            fprintf(opt == 'h' ? stdout : stderr,
                    "usage: hm-floor [-f FILE] [-t N] [-n RECORDS_PER_THREAD] [-v lock|faa|all]\n"
                    "  runs 1 and N threads (default N=2), shared and private slots, on a MAP_SHARED file\n");
            return opt == 'h' ? 0 : 2;
        }
    }
    if (threads < 1 || threads > 256 || records == 0) {
        fprintf(stderr, "hm-floor: bad -t or -n\n");
        return 2;
    }
    char defpath[256];
    if (!path) {
        snprintf(defpath, sizeof defpath, "/dev/shm/hm-floor.%ld", (long)getpid());
        path = defpath;
    }
    const uint32_t slot_bytes = HM_SLOT_FIXED_BYTES + 64; /* a slot with max_name_bytes 64 */
    size_t bytes = 4096 + (((size_t)slot_bytes * (size_t)(threads + 1) + 4095) & ~(size_t)4095);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || ftruncate(fd, (off_t)bytes) != 0) {
        fprintf(stderr, "hm-floor: %s: %s\n", path, strerror(errno));
        return 1;
    }
    unsigned char *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (m == MAP_FAILED) {
        fprintf(stderr, "hm-floor: mmap: %s\n", strerror(errno));
        return 1;
    }
    int rc = 0;
    int counts[2] = {1, threads};
    for (int v = 0; v < 2; v++) {
        if (!(variants & (1 << v))) continue;
        for (int ci = 0; ci < (threads > 1 ? 2 : 1); ci++) {
            rc |= measure(m, slot_bytes, counts[ci], 1, v, records);
            if (counts[ci] > 1) rc |= measure(m, slot_bytes, counts[ci], 0, v, records);
        }
    }
    munmap(m, bytes);
    unlink(path);
    return rc;
}
