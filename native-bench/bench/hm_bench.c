/*
 * hm-bench - a native "GPU driver" simulator recording into a hint file.
 *
 * P processes (fork) x T threads record samples into R regions drawn from a Zipf(s)
 * distribution, with kernel times from a seeded distribution. Samples are
 * pre-generated per thread (65,536 of them, cycled) so that the timed loop is the
 * record call plus a local tally. Output is line-oriented and machine-readable:
 *
 *   config key=value ...
 *   result records=N seconds=S records_per_s=X ns_per_record=Y thread_ns_per_record=Z
 *   region <name> <count> <kernel_ns_total> <bytes_total>      (what this run recorded)
 *   total regions=R count=N kernel_ns_total=K bytes_total=B
 *   store live=L evictions=E dropped=D recoveries=C stolen_locks=S
 *   verify ok | verify skipped (<why>) | verify FAILED <details>
 *
 * With --stuck it measures something else, the cost of a sample dropped on a lock that a live
 * process holds (FORMAT §6.2 give up), after the first give-up: a forked child opens the file,
 * takes the slot lock of region "stuck" and pauses; this process gives up once (after a
 * lock_wait_limit shortened to 20 ms), then times runs of records into "stuck", each dropped:
 *
 *   stuck run=I dropped=N ns_per_dropped=X                   (one line per run)
 *   stuck runs=R ns_per_dropped_median=X min=Y max=Z
 *
 * With --shared, other writers record into the same file at the same time; the region
 * lines are then this run's share for the caller to add up, and verify is skipped.
 *
 * With --read QUERY it measures reads instead of records: the parent first records into every region
 * (odd regions hot, even ones not: kernel ns twice or half the file's hot threshold, one sample each),
 * then the threads read the same Zipf-drawn regions by name (hm_is_hot, hm_lookup) or, with -H,
 * through handles (hm_region_lookup), answering QUERY: is-hot, dispatch-count or record (the four
 * fields). The result line has the same form (records= counts reads, ns_per_record is ns per read),
 * no region lines are printed, and one more line says whether every read found its region:
 *
 *   read query=Q handles=H reads=N hits=M answers=A ok | ... FAILED
 *
 * hits counts reads that found the region (is-hot: that answered what the region's record says, since
 * hm_is_hot answers 0 for an absent region too); answers adds up what they answered (is-hot, record:
 * the reads that answered hot; dispatch-count: the counts). The run fails (exit 1) unless hits == reads. "verify" then checks that reading changed no record.
 *
 * With --disjoint, every thread (of every process) draws from its own R regions instead of
 * sharing one set: thread g records into regions g*R .. g*R+R-1 (same Zipf skew within its set),
 * so the file holds R x threads x processes regions and no two threads touch the same slot --
 * the other end of the contention curve from one shared hot set (docs/GPU.md, the 16-core run).
 *
 * "verify" compares, for every region, the file's record after the run minus before it
 * with this run's tally; it is exact when nothing was evicted or dropped meanwhile
 * (regions <= capacity and no other writer churning the file).
 */
#define _GNU_SOURCE 1
#include "hintmap.h"
#include "hm_internal.h" /* --stuck only: a child holds a slot lock (hm_test_hold_slot_lock); built with -DHM_TEST_HOOKS */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SAMPLE_BITS 16
#define SAMPLES (1u << SAMPLE_BITS)

typedef enum { DIST_LOGNORMAL, DIST_UNIFORM, DIST_FIXED } dist_kind;

/* --read: what each read answers (READ_NONE: the benchmark records) */
typedef enum { READ_NONE, READ_IS_HOT, READ_DISPATCH_COUNT, READ_RECORD } read_query;
static const char *const READ_QUERY_NAMES[] = {"", "is-hot", "dispatch-count", "record"};

typedef struct config {
    const char *path;
    int keep;
    int shared;           /* other writers record into the file too: the file delta is not ours alone */
    int threads, processes;
    uint32_t regions;     /* all regions; with --disjoint, span x writer threads */
    uint32_t span;        /* the regions one thread draws from (-r) */
    int disjoint;         /* each thread its own span of regions */
    double zipf;
    uint64_t records;     /* per thread; 0 = use duration */
    double duration;
    uint32_t capacity;
    int capacity_set;
    dist_kind dist;
    double d1, d2;        /* lognormal: median, sigma; uniform: min, max; fixed: ns */
    double bytes_per_ns;
    uint64_t seed;
    int handles;
    int print_regions;
    const char *prefix;   /* region names are <prefix><5 digits> */
    uint32_t name_bytes;  /* 0: short names; else names of exactly this many bytes, templated (FORMAT §1.1) */
    uint32_t max_name_bytes; /* max_name_bytes when creating the file (0: the default) */
    double rate;          /* records per second per thread, 0 = as fast as possible */
    int stuck_runs;       /* --stuck: runs of the give-up measurement (0 = normal benchmark) */
    read_query read;      /* --read: reads instead of records */
} config;

/* Shared between processes (anonymous MAP_SHARED): tallies and timing per thread. */
typedef struct thread_result {
    uint64_t records;
    uint64_t start_ns, end_ns;
    uint64_t errors, dropped;
    uint64_t hits, answers; /* --read: reads that found their region, the sum of their answers (read_loop) */
} thread_result;

typedef struct shared {
    _Atomic int ready;
    _Atomic int go;
    _Atomic int failed;
} shared;

/* The anonymous shared mapping: the flags, then one result per thread, then the tallies. A struct with a
 * flexible array member, so the results start at thread_result's alignment (sizeof(shared) is 12: placed by
 * hand right after it, every uint64_t of them would be misaligned, which UBSan reports). */
typedef struct shared_area {
    shared sh;
    thread_result results[];
} shared_area;
_Static_assert(sizeof(thread_result) % _Alignof(uint64_t) == 0, "the tallies after the results are aligned");

typedef struct worker {
    const config *cfg;
    hm_store *store;
    const double *cdf;
    char **names;
    size_t *name_lens;
    shared *sh;
    thread_result *res;
    uint64_t *tally; /* regions x {count, kernel_ns, bytes} */
    int global_id;
    uint32_t base;   /* the first region this thread draws from */
    const uint8_t *expect_hot; /* --read: per region, whether its record (before the run) is hot */
} worker;

static uint64_t mono_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static inline uint64_t xorshift64(uint64_t *x) {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static inline double unit(uint64_t *x) { return (double)(xorshift64(x) >> 11) * 0x1.0p-53; }

static uint32_t zipf_draw(const double *cdf, uint32_t n, double u) {
    uint32_t lo = 0, hi = n - 1;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (cdf[mid] >= u) hi = mid; else lo = mid + 1;
    }
    return lo;
}

static uint64_t kernel_draw(const config *c, uint64_t *x) {
    double v;
    switch (c->dist) {
    case DIST_UNIFORM: v = c->d1 + (c->d2 - c->d1) * unit(x); break;
    case DIST_FIXED: v = c->d1; break;
    default: {
        double u1 = unit(x), u2 = unit(x);
        if (u1 < 1e-300) u1 = 1e-300;
        double z = sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
        v = c->d1 * exp(c->d2 * z);
    }
    }
    if (v < 1) v = 1;
    if (v > 1e15) v = 1e15;
    return (uint64_t)v;
}

/* --read: reads sreg[n % SAMPLES] until limit or deadline, by name or through handles; counts the
 * reads that found their region (*hits_out) and adds up their answers (*answers_out: is-hot and
 * record: the reads that answered hot; dispatch-count: the counts read). Returns the reads made. */
static uint64_t read_loop(const worker *w, hm_region *const *handles, const uint32_t *sreg, uint64_t limit,
                          uint64_t deadline, uint64_t *hits_out, uint64_t *answers_out) {
    const config *c = w->cfg;
    hm_store *s = w->store;
    const uint64_t threshold = hm_hot_threshold_ns(s);
    uint64_t n = 0, hits = 0, answers = 0;
    for (; n < limit; n++) {
        if ((n & 4095) == 0 && !c->records && mono_ns() >= deadline) break;
        uint32_t r = sreg[n & (SAMPLES - 1)];
        hm_region_record rec;
        int rc, is_hot;
        switch (c->read) {
        case READ_IS_HOT:
            if (handles) {
                rc = hm_region_lookup(handles[r], &rec);
                is_hot = rc == HM_OK && hm_record_hot(rec.dispatch_count, rec.kernel_ns_total, threshold);
            } else {
                rc = hm_is_hot(s, w->names[r], w->name_lens[r]);
                is_hot = rc == 1;
                rc = rc < 0 ? rc : HM_OK; /* absent is 0, "not hot": the answer check below catches it */
            }
            hits += rc == HM_OK && is_hot == w->expect_hot[r];
            answers += (uint64_t)is_hot;
            break;
        case READ_DISPATCH_COUNT:
        case READ_RECORD:
        default:
            rc = handles ? hm_region_lookup(handles[r], &rec) : hm_lookup(s, w->names[r], w->name_lens[r], &rec);
            if (rc == HM_OK) {
                hits++;
                answers += c->read == READ_DISPATCH_COUNT ? rec.dispatch_count
                                                          : (uint64_t)hm_record_hot(rec.dispatch_count, rec.kernel_ns_total, threshold);
            }
            break;
        }
    }
    *hits_out = hits;
    *answers_out = answers;
    return n;
}

static void *worker_main(void *p) {
    worker *w = p;
    const config *c = w->cfg;
    uint32_t *sreg = malloc(SAMPLES * sizeof *sreg);
    uint64_t *sns = malloc(SAMPLES * sizeof *sns);
    hm_region **handles = c->handles ? calloc(c->regions, sizeof *handles) : NULL;
    if (!sreg || !sns || (c->handles && !handles)) {
        fprintf(stderr, "hm-bench: out of memory\n");
        atomic_store(&w->sh->failed, 1);
    }
    uint64_t x = c->seed * UINT64_C(0x9E3779B97F4A7C15) ^ (uint64_t)(w->global_id + 1) * UINT64_C(0xD1B54A32D192ED03);
    if (x == 0) x = 1;
    for (uint32_t i = 0; sreg && sns && i < SAMPLES; i++) {
        sreg[i] = w->base + zipf_draw(w->cdf, c->span, unit(&x));
        sns[i] = kernel_draw(c, &x);
    }
    for (uint32_t r = w->base; handles && r < w->base + c->span; r++) {
        int rc = hm_region_resolve(w->store, w->names[r], w->name_lens[r], &handles[r]);
        if (rc < 0) {
            fprintf(stderr, "hm-bench: resolve %s: %s\n", w->names[r], hm_last_error(w->store));
            atomic_store(&w->sh->failed, 1);
            break;
        }
    }
    atomic_fetch_add(&w->sh->ready, 1);
    while (!atomic_load_explicit(&w->sh->go, memory_order_acquire)) sched_yield();
    thread_result *res = w->res;
    uint64_t *tally = w->tally;
    uint64_t n = 0, errors = 0, dropped = 0;
    const double bpn = c->bytes_per_ns;
    uint64_t start = mono_ns();
    if (c->read != READ_NONE && !atomic_load(&w->sh->failed)) {
        n = read_loop(w, handles, sreg, c->records ? c->records : UINT64_MAX,
                      c->records ? UINT64_MAX : start + (uint64_t)(c->duration * 1e9), &res->hits, &res->answers);
    } else if (!atomic_load(&w->sh->failed)) {
        uint64_t limit = c->records ? c->records : UINT64_MAX;
        uint64_t deadline = c->records ? UINT64_MAX : start + (uint64_t)(c->duration * 1e9);
        const double ns_per_record = c->rate > 0 ? 1e9 / c->rate : 0;
        for (; n < limit; n++) {
            if ((n & 4095) == 0 && !c->records && mono_ns() >= deadline) break;
            if (ns_per_record > 0 && (n & 63) == 0) { /* pace like a driver dispatching at --rate */
                uint64_t due = start + (uint64_t)((double)n * ns_per_record);
                uint64_t now = mono_ns();
                if (due >= deadline) break; /* the next record is due after the end of the run */
                if (now < due) {
                    struct timespec pause = {(time_t)((due - now) / 1000000000u), (long)((due - now) % 1000000000u)};
                    nanosleep(&pause, NULL);
                }
            }
            uint32_t i = (uint32_t)(n & (SAMPLES - 1));
            uint32_t r = sreg[i];
            uint64_t ns = sns[i];
            uint64_t bytes = (uint64_t)((double)ns * bpn);
            int rc = handles ? hm_region_add(handles[r], ns, bytes)
                             : hm_record(w->store, w->names[r], w->name_lens[r], ns, bytes);
            if (rc == HM_OK) {
                tally[3 * r] += 1;
                tally[3 * r + 1] += ns;
                tally[3 * r + 2] += bytes;
            } else if (rc == HM_DROPPED) {
                dropped++;
            } else {
                errors++;
            }
        }
    }
    res->end_ns = mono_ns();
    res->start_ns = start;
    res->records = n;
    res->errors = errors;
    res->dropped = dropped;
    for (uint32_t r = 0; handles && r < c->regions; r++) hm_region_free(handles[r]);
    free(handles);
    free(sreg);
    free(sns);
    return NULL;
}

/* One process: open its own store, run T threads. Returns 0 on success. */
static int run_process(const config *c, int proc, const double *cdf, char **names, size_t *lens,
                       const uint8_t *expect_hot, shared *sh, thread_result *results, uint64_t *tallies) {
    hm_options o;
    hm_options_init(&o);
    if (c->capacity_set) hm_options_set_capacity(&o, c->capacity);
    hm_store *s;
    char err[512];
    int orc = hm_open_ex(c->path, &o, &s, err, sizeof err);
    if (orc < 0) {
        fprintf(stderr, "hm-bench: %s: %s\n", hm_strerror(orc), err);
        atomic_store(&sh->failed, 1);
        atomic_fetch_add(&sh->ready, c->threads);
        return 1;
    }
    pthread_t *tids = calloc((size_t)c->threads, sizeof *tids);
    worker *ws = calloc((size_t)c->threads, sizeof *ws);
    if (!tids || !ws) {
        atomic_store(&sh->failed, 1);
        atomic_fetch_add(&sh->ready, c->threads);
        return 1;
    }
    for (int t = 0; t < c->threads; t++) {
        int g = proc * c->threads + t;
        ws[t] = (worker){c, s, cdf, names, lens, sh, &results[g], tallies + (size_t)g * 3 * c->regions, g,
                         c->disjoint ? (uint32_t)g * c->span : 0, expect_hot};
        if (pthread_create(&tids[t], NULL, worker_main, &ws[t]) != 0) {
            fprintf(stderr, "hm-bench: pthread_create: %s\n", strerror(errno));
            atomic_store(&sh->failed, 1);
            atomic_fetch_add(&sh->ready, 1);
            tids[t] = 0;
        }
    }
    for (int t = 0; t < c->threads; t++)
        if (tids[t]) pthread_join(tids[t], NULL);
    free(tids);
    free(ws);
    return hm_close(s) < 0;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* --stuck: ns per sample dropped on a slot lock held by a live (paused) child, after the first
 * give-up. Each run records into the stuck region for ~200 ms. Returns the exit status. */
static int run_stuck(const config *c) {
    hm_options o;
    hm_options_init(&o);
    hm_options_set_capacity(&o, 16);
    hm_store *s;
    char err[512];
    int rc = hm_open_ex(c->path, &o, &s, err, sizeof err);
    if (rc < 0) {
        fprintf(stderr, "hm-bench: %s: %s\n", hm_strerror(rc), err);
        return 1;
    }
    if (hm_record(s, "stuck", 5, 1, 1) != HM_OK) {
        fprintf(stderr, "hm-bench: cannot record the stuck region: %s\n", hm_last_error(s));
        return 1;
    }
    int fds[2];
    if (pipe(fds) != 0) { perror("hm-bench: pipe"); return 1; }
    fflush(NULL);
    pid_t child = fork();
    if (child < 0) { perror("hm-bench: fork"); return 1; }
    if (child == 0) {
        close(fds[0]);
        hm_store *cs;
        if (hm_open(c->path, NULL, &cs) != HM_OK || hm_test_hold_slot_lock(cs, "stuck", 5) != HM_OK) _exit(1);
        if (write(fds[1], "h", 1) != 1) _exit(2);
        for (;;) pause(); /* alive, holding the lock, until killed */
    }
    close(fds[1]);
    char ch;
    int held = read(fds[0], &ch, 1) == 1;
    close(fds[0]);
    int status = 1;
    if (!held) {
        fprintf(stderr, "hm-bench: the child could not take the lock\n");
        goto out;
    }
    hm_test_set_lock_wait_limit_ns(s, 20000000); /* the first give-up after 20 ms, not 5 s */
    uint64_t t0 = mono_ns();
    rc = hm_record(s, "stuck", 5, 1, 1);
    if (rc != HM_DROPPED) {
        fprintf(stderr, "hm-bench: first record into the held region returned %d, not HM_DROPPED\n", rc);
        goto out;
    }
    printf("stuck first_giveup_ms=%.1f\n", (double)(mono_ns() - t0) / 1e6);
    double *per = calloc((size_t)c->stuck_runs, sizeof *per);
    if (per == NULL) goto out;
    status = 0;
    for (int run = 0; run < c->stuck_runs && status == 0; run++) {
        uint64_t n = 0, start = mono_ns(), now = start;
        while (now - start < 200000000u) {
            for (int i = 0; i < 64; i++, n++)
                if (hm_record(s, "stuck", 5, 1, 1) != HM_DROPPED) status = 1;
            now = mono_ns();
        }
        per[run] = (double)(now - start) / (double)n;
        printf("stuck run=%d dropped=%" PRIu64 " ns_per_dropped=%.1f\n", run, n, per[run]);
    }
    if (status == 0) {
        qsort(per, (size_t)c->stuck_runs, sizeof *per, cmp_double);
        printf("stuck runs=%d ns_per_dropped_median=%.1f min=%.1f max=%.1f\n", c->stuck_runs, per[c->stuck_runs / 2],
               per[0], per[c->stuck_runs - 1]);
    } else {
        fprintf(stderr, "hm-bench: a record into the held region was not dropped\n");
    }
    free(per);
out:
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    hm_close(s);
    if (!c->keep) unlink(c->path);
    return status;
}

static void usage(FILE *f) {
    fprintf(f,
            "usage: hm-bench [options]\n"
            "  -f, --file PATH        hint file (default /dev/shm/hm-bench.<pid>.hm, removed afterwards)\n"
            "      --keep             keep the file (always kept when -f is given)\n"
            "      --shared           other processes record into the file too: skip the file-delta verify\n"
            "  -t, --threads N        threads per process (1)\n"
            "  -p, --processes P      processes, forked, each with its own store (1)\n"
            "  -r, --regions R        regions, named <prefix>%%05d (64)\n"
            "      --disjoint         each thread records into its own R regions (R x threads x processes in all)\n"
            "  -P, --prefix P         region name prefix, at most 18 bytes (region-)\n"
            "      --name-bytes N     names of exactly N bytes (40..65536), as templated C++ kernels have them:\n"
            "                         void cutlass::Kernel2<PREFIX00042, cute::tuple<int, int>, ...> (default: short)\n"
            "      --max-name-bytes M max_name_bytes when creating the file (33..1024, default 256); a longer name is\n"
            "                         recorded in its stored form (FORMAT section 1.1)\n"
            "  -R, --rate N           records per second per thread, paced (0: as fast as possible)\n"
            "  -s, --zipf S           Zipf skew of region popularity, 0 = uniform (1.0)\n"
            "  -n, --records N        records per thread (1000000)\n"
            "  -d, --duration SEC     run for SEC seconds instead of -n\n"
            "  -c, --capacity C       capacity when creating the file (max(256, R))\n"
            "  -k, --kernel DIST      lognormal:MEDIAN_NS:SIGMA | uniform:MIN_NS:MAX_NS | fixed:NS\n"
            "                         (lognormal:20000:1.0)\n"
            "  -B, --bytes-per-ns F   bytes touched per kernel ns (8)\n"
            "  -S, --seed N           RNG seed (1)\n"
            "  -H, --handles          record (or --read) through pre-resolved handles\n"
            "      --read QUERY       read instead of record, QUERY is-hot | dispatch-count | record: each\n"
            "                         region is recorded once first (odd regions hot), then read by name\n"
            "                         (hm_is_hot, hm_lookup) or with -H through handles (hm_region_lookup)\n"
            "  -q, --quiet            no per-region lines\n"
            "      --stuck[=RUNS]     measure ns per sample dropped on a lock held by a live child (7 runs)\n"
            "  -h, --help\n");
}

static int parse_dist(config *c, const char *s) {
    char kind[24];
    double a = 0, b = 0;
    int n = sscanf(s, "%15[a-z]:%lf:%lf", kind, &a, &b);
    if (n >= 3 && strcmp(kind, "lognormal") == 0 && a > 0 && b >= 0) { c->dist = DIST_LOGNORMAL; }
    else if (n >= 3 && strcmp(kind, "uniform") == 0 && a >= 0 && b >= a) { c->dist = DIST_UNIFORM; }
    else if (n >= 2 && strcmp(kind, "fixed") == 0 && a >= 0) { c->dist = DIST_FIXED; }
    else return -1;
    c->d1 = a;
    c->d2 = b;
    return 0;
}

int main(int argc, char **argv) {
    config c = {0};
    c.threads = 1;
    c.processes = 1;
    c.regions = 64;
    c.zipf = 1.0;
    c.records = 1000000;
    c.dist = DIST_LOGNORMAL;
    c.d1 = 20000;
    c.d2 = 1.0;
    c.bytes_per_ns = 8;
    c.seed = 1;
    c.print_regions = 1;
    c.prefix = "region-";
    static const struct option longopts[] = {
        {"file", required_argument, 0, 'f'},      {"keep", no_argument, 0, 'K'}, {"shared", no_argument, 0, 'X'},
        {"threads", required_argument, 0, 't'},   {"processes", required_argument, 0, 'p'},
        {"regions", required_argument, 0, 'r'},   {"zipf", required_argument, 0, 's'},
        {"records", required_argument, 0, 'n'},   {"duration", required_argument, 0, 'd'},
        {"capacity", required_argument, 0, 'c'},  {"kernel", required_argument, 0, 'k'},
        {"bytes-per-ns", required_argument, 0, 'B'}, {"seed", required_argument, 0, 'S'},
        {"handles", no_argument, 0, 'H'},         {"quiet", no_argument, 0, 'q'},
        {"prefix", required_argument, 0, 'P'},    {"rate", required_argument, 0, 'R'},
        {"name-bytes", required_argument, 0, 'N'}, {"max-name-bytes", required_argument, 0, 'M'},
        {"stuck", optional_argument, 0, 'U'},     {"disjoint", no_argument, 0, 'J'},
        {"read", required_argument, 0, 'Q'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    int opt;
    char *end;
    while ((opt = getopt_long(argc, argv, "f:t:p:r:s:n:d:c:k:B:S:P:R:Hqh", longopts, NULL)) != -1) {
        errno = 0;
        switch (opt) {
        case 'f': c.path = optarg; c.keep = 1; break;
        case 'K': c.keep = 1; break;
        case 'X': c.shared = 1; break;
        case 'J': c.disjoint = 1; break;
        case 't': c.threads = (int)strtol(optarg, &end, 10); if (*end || c.threads < 1 || c.threads > 1024) goto bad; break;
        case 'p': c.processes = (int)strtol(optarg, &end, 10); if (*end || c.processes < 1 || c.processes > 256) goto bad; break;
        case 'r': c.regions = (uint32_t)strtoul(optarg, &end, 10); if (*end || c.regions < 1 || c.regions > 99999) goto bad; break;
        case 's': c.zipf = strtod(optarg, &end); if (*end || c.zipf < 0) goto bad; break;
        case 'n': c.records = strtoull(optarg, &end, 10); if (*end || c.records == 0) goto bad; c.duration = 0; break;
        case 'd': c.duration = strtod(optarg, &end); if (*end || c.duration <= 0) goto bad; c.records = 0; break;
        case 'c': c.capacity = (uint32_t)strtoul(optarg, &end, 10); if (*end) goto bad; c.capacity_set = 1; break;
        case 'k': if (parse_dist(&c, optarg) < 0) goto bad; break;
        case 'B': c.bytes_per_ns = strtod(optarg, &end); if (*end || c.bytes_per_ns < 0) goto bad; break;
        case 'S': c.seed = strtoull(optarg, &end, 10); if (*end) goto bad; break;
        case 'H': c.handles = 1; break;
        case 'P': c.prefix = optarg; if (strlen(optarg) > 18) goto bad; break;
        case 'N': c.name_bytes = (uint32_t)strtoul(optarg, &end, 10); if (*end || c.name_bytes < 40 || c.name_bytes > 65536) goto bad; break;
        case 'M': c.max_name_bytes = (uint32_t)strtoul(optarg, &end, 10); if (*end || c.max_name_bytes < HM_MIN_NAME_BYTES || c.max_name_bytes > HM_MAX_NAME_BYTES_LIMIT) goto bad; break;
        case 'R': c.rate = strtod(optarg, &end); if (*end || c.rate < 0) goto bad; break;
        case 'q': c.print_regions = 0; break;
        case 'U': c.stuck_runs = optarg ? (int)strtol(optarg, &end, 10) : 7; if ((optarg && *end) || c.stuck_runs < 1 || c.stuck_runs > 1000) goto bad; break;
        case 'Q':
            c.read = READ_NONE;
            for (int q = READ_IS_HOT; q <= READ_RECORD; q++)
                if (strcmp(optarg, READ_QUERY_NAMES[q]) == 0) c.read = (read_query)q;
            if (c.read == READ_NONE) goto bad;
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
        continue;
    bad:
        fprintf(stderr, "hm-bench: bad value for -%c: %s\n", opt, optarg);
        return 2;
    }
    char defpath[256];
    if (c.path == NULL) {
        snprintf(defpath, sizeof defpath, "/dev/shm/hm-bench.%ld.hm", (long)getpid());
        c.path = defpath;
    }
    if (c.stuck_runs > 0) return run_stuck(&c);
    if (c.read != READ_NONE && c.rate > 0) {
        fprintf(stderr, "hm-bench: --read reads as fast as it can: --rate is for records\n");
        return 2;
    }
    int nthreads = c.threads * c.processes;
    c.span = c.regions;
    if (c.disjoint) {
        if ((uint64_t)c.span * (uint64_t)nthreads > 99999) {
            fprintf(stderr, "hm-bench: --disjoint: %u regions x %d threads is over 99999 region names\n", c.span, nthreads);
            return 2;
        }
        c.regions = c.span * (uint32_t)nthreads;
    }
    if (!c.capacity_set) {
        c.capacity = c.regions > 256 ? c.regions : 256;
        c.capacity_set = access(c.path, F_OK) != 0; /* only explicit when we create the file */
    }

    /* region names and Zipf CDF */
    char **names = calloc(c.regions, sizeof *names);
    size_t *lens = calloc(c.regions, sizeof *lens);
    double *cdf = calloc(c.span, sizeof *cdf);
    if (!names || !lens || !cdf) { fprintf(stderr, "hm-bench: out of memory\n"); return 1; }
    double sum = 0;
    for (uint32_t i = 0; i < c.regions; i++) {
        size_t cap = c.name_bytes ? c.name_bytes + 1 : 24;
        names[i] = malloc(cap);
        if (!names[i]) { fprintf(stderr, "hm-bench: out of memory\n"); return 1; }
        if (c.name_bytes == 0) {
            snprintf(names[i], cap, "%s%05u", c.prefix, i);
        } else { /* a CUTLASS-like head, then template arguments up to the length, then '>' */
            static const char more[] = "cutlass::epilogue::collective::DefaultEpilogue<float, 8>, ";
            int n = snprintf(names[i], cap, "void cutlass::Kernel2<%s%05u, cute::tuple<int, int>, ", c.prefix, i);
            for (size_t k = 0, at = (size_t)n; at < c.name_bytes - 1; at++, k++) names[i][at] = more[k % (sizeof more - 1)];
            names[i][c.name_bytes - 1] = '>';
            names[i][c.name_bytes] = '\0';
        }
        lens[i] = strlen(names[i]);
    }
    for (uint32_t i = 0; i < c.span; i++) {
        sum += 1.0 / pow((double)(i + 1), c.zipf);
        cdf[i] = sum;
    }
    for (uint32_t i = 0; i < c.span; i++) cdf[i] /= sum;
    cdf[c.span - 1] = 1.0;

    size_t shared_bytes = sizeof(shared_area) + (size_t)nthreads * sizeof(thread_result) +
                          (size_t)nthreads * 3 * c.regions * sizeof(uint64_t);
    void *mem = mmap(NULL, shared_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) { perror("hm-bench: mmap"); return 1; }
    shared_area *area = mem;
    shared *sh = &area->sh;
    thread_result *results = area->results;
    uint64_t *tallies = (uint64_t *)(void *)(results + nthreads); /* sizeof(thread_result) is a multiple of 8 */

    /* open once in the parent: creates the file and takes the baseline for verification */
    hm_options o;
    hm_options_init(&o);
    if (c.capacity_set) hm_options_set_capacity(&o, c.capacity);
    if (c.max_name_bytes) hm_options_set_max_name_bytes(&o, c.max_name_bytes);
    hm_store *s;
    char err[512];
    int orc = hm_open_ex(c.path, &o, &s, err, sizeof err);
    if (orc < 0) { fprintf(stderr, "hm-bench: %s: %s\n", hm_strerror(orc), err); return 1; }
    uint8_t *expect_hot = calloc(c.regions, 1);
    if (!expect_hot) return 1;
    if (c.read != READ_NONE) { /* the regions to read: one sample each, odd ones hot */
        uint64_t thr = hm_hot_threshold_ns(s);
        for (uint32_t i = 0; i < c.regions; i++) {
            uint64_t ns = i & 1 ? (thr > HM_VALUE_MAX / 2 ? HM_VALUE_MAX : 2 * thr) : thr / 2;
            if (hm_record(s, names[i], lens[i], ns, 8) < 0) {
                fprintf(stderr, "hm-bench: record %s: %s\n", names[i], hm_last_error(s));
                return 1;
            }
            hm_region_record r;
            expect_hot[i] = hm_lookup(s, names[i], lens[i], &r) == HM_OK &&
                            hm_record_hot(r.dispatch_count, r.kernel_ns_total, thr);
        }
    }
    hm_region_record *before = calloc(c.regions, sizeof *before);
    if (!before) return 1;
    for (uint32_t i = 0; i < c.regions; i++)
        if (hm_lookup(s, names[i], lens[i], &before[i]) != HM_OK) memset(&before[i], 0, sizeof before[i]);
    hm_stats st0, st1;
    hm_stats_get(s, &st0);
    c.capacity = hm_capacity(s);

    printf("config file=%s processes=%d threads=%d regions=%u disjoint=%d zipf=%.3f kernel=%s:%g:%g handles=%d capacity=%u seed=%" PRIu64
           " %s=%g%s%s\n",
           c.path, c.processes, c.threads, c.regions, c.disjoint, c.zipf,
           c.dist == DIST_LOGNORMAL ? "lognormal" : c.dist == DIST_UNIFORM ? "uniform" : "fixed", c.d1, c.d2, c.handles,
           c.capacity, c.seed, c.records ? "records_per_thread" : "duration_s", c.records ? (double)c.records : c.duration,
           c.read != READ_NONE ? " read=" : "", READ_QUERY_NAMES[c.read]);
    fflush(stdout);

    /* every writer process is a forked child (also for -p 1), so that all configurations
     * measure the same thing; the parent only holds the baseline store open */
    int rc = 0;
    pid_t *pids = calloc((size_t)c.processes, sizeof *pids);
    if (!pids) return 1;
    fflush(NULL);
    const pid_t parent = getpid();
    for (int p = 0; p < c.processes; p++) {
        pids[p] = fork();
        if (pids[p] < 0) {
            perror("hm-bench: fork");
            atomic_store(&sh->failed, 1);
            break;
        }
        if (pids[p] == 0) {
            /* a worker never outlives hm-bench: a test that kills hm-bench leaves no writer recording on */
            if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(1);
            _exit(run_process(&c, p, cdf, names, lens, expect_hot, sh, results, tallies));
        }
    }
    while (atomic_load(&sh->ready) < nthreads && !atomic_load(&sh->failed)) sched_yield();
    atomic_store_explicit(&sh->go, 1, memory_order_release);
    for (int p = 0; p < c.processes; p++) {
        int wst;
        if (pids[p] > 0 && (waitpid(pids[p], &wst, 0) != pids[p] || !WIFEXITED(wst) || WEXITSTATUS(wst) != 0)) rc = 1;
    }
    free(pids);
    if (atomic_load(&sh->failed)) rc = 1;

    uint64_t records = 0, tmin = UINT64_MAX, tmax = 0, tsum = 0, errors = 0, dropped = 0, hits = 0, answers = 0;
    for (int g = 0; g < nthreads; g++) {
        records += results[g].records;
        hits += results[g].hits;
        answers += results[g].answers;
        errors += results[g].errors;
        dropped += results[g].dropped;
        if (results[g].start_ns < tmin) tmin = results[g].start_ns;
        if (results[g].end_ns > tmax) tmax = results[g].end_ns;
        tsum += results[g].end_ns - results[g].start_ns;
    }
    double secs = tmax > tmin ? (double)(tmax - tmin) / 1e9 : 0;
    printf("result records=%" PRIu64 " seconds=%.6f records_per_s=%.0f ns_per_record=%.2f thread_ns_per_record=%.2f errors=%" PRIu64
           " dropped=%" PRIu64 "\n",
           records, secs, secs > 0 ? (double)records / secs : 0, records ? secs * 1e9 / (double)records : 0,
           records ? (double)tsum / (double)records : 0, errors, dropped);
    if (c.read != READ_NONE) {
        printf("read query=%s handles=%d reads=%" PRIu64 " hits=%" PRIu64 " answers=%" PRIu64 " %s\n", READ_QUERY_NAMES[c.read],
               c.handles, records, hits, answers, hits == records ? "ok" : "FAILED");
        if (hits != records) rc = 1;
    }

    uint64_t tc = 0, tk = 0, tb = 0;
    uint64_t *sum3 = calloc((size_t)c.regions * 3, sizeof *sum3);
    for (uint32_t r = 0; r < c.regions; r++) {
        for (int g = 0; g < nthreads; g++)
            for (int f = 0; f < 3; f++) sum3[3 * r + f] += tallies[((size_t)g * c.regions + r) * 3 + f];
        if (c.print_regions && c.read == READ_NONE)
            printf("region %s %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", names[r], sum3[3 * r], sum3[3 * r + 1], sum3[3 * r + 2]);
        tc += sum3[3 * r];
        tk += sum3[3 * r + 1];
        tb += sum3[3 * r + 2];
    }
    printf("total regions=%u count=%" PRIu64 " kernel_ns_total=%" PRIu64 " bytes_total=%" PRIu64 "\n", c.regions, tc, tk, tb);
    hm_stats_get(s, &st1);
    printf("store live=%" PRIu64 " evictions=%" PRIu64 " dropped=%" PRIu64 " recoveries=%" PRIu64 " stolen_locks=%" PRIu64 "\n",
           st1.live_count, st1.evictions, st1.dropped_inserts, st1.recoveries, st1.stolen_locks);
    if (c.shared) {
        printf("verify skipped (shared file: other writers)\n");
    } else if (st1.evictions != st0.evictions || st1.dropped_inserts != st0.dropped_inserts) {
        printf("verify skipped (evictions=%" PRIu64 " dropped=%" PRIu64 " during the run)\n", st1.evictions - st0.evictions,
               st1.dropped_inserts - st0.dropped_inserts);
    } else {
        uint64_t bad = 0;
        for (uint32_t r = 0; r < c.regions; r++) {
            hm_region_record now;
            if (hm_lookup(s, names[r], lens[r], &now) != HM_OK) memset(&now, 0, sizeof now);
            if (now.dispatch_count - before[r].dispatch_count != sum3[3 * r] ||
                now.kernel_ns_total - before[r].kernel_ns_total != sum3[3 * r + 1] ||
                now.bytes_total - before[r].bytes_total != sum3[3 * r + 2]) {
                if (bad++ < 5)
                    fprintf(stderr, "hm-bench: %s: file delta count=%" PRIu64 " ns=%" PRIu64 ", recorded %" PRIu64 " %" PRIu64 "\n",
                            names[r], now.dispatch_count - before[r].dispatch_count,
                            now.kernel_ns_total - before[r].kernel_ns_total, sum3[3 * r], sum3[3 * r + 1]);
            }
        }
        if (bad) {
            printf("verify FAILED regions=%" PRIu64 "\n", bad);
            rc = 1;
        } else {
            printf("verify ok\n");
        }
    }
    if (errors) rc = 1;
    hm_close(s);
    if (!c.keep) unlink(c.path);
    free(sum3);
    free(before);
    free(expect_hot);
    for (uint32_t i = 0; i < c.regions; i++) free(names[i]);
    free(names);
    free(lens);
    free(cdf);
    munmap(mem, shared_bytes);
    return rc;
}
