/*
 * hintmap_cupti.c - libhintmap_cupti.so: records one hintmap sample per kernel execution of any
 * CUDA program, with no change to the program, through the CUPTI Activity API.
 *
 *   CUDA_INJECTION64_PATH=/path/libhintmap_cupti.so HINTMAP_FILE=/dev/shm/app.hints ./app
 *   (or LD_PRELOAD=/path/libhintmap_cupti.so)
 *
 * Environment (native-bench/README.md "CUPTI collector"): HINTMAP_FILE, HINTMAP_CAPACITY,
 * HINTMAP_NAME_BYTES, HINTMAP_HOT_THRESHOLD_NS (collect/hmc_options.h, as every collector), HINTMAP_NAME, HINTMAP_TRANSFERS, HINTMAP_FLUSH_MS, HINTMAP_EXIT_FLUSH_MS,
 * HINTMAP_BUFFER_KB, HINTMAP_VERBOSE, HINTMAP_CUPTI_LIB.
 *
 * Design notes
 * - Global state. CUDA's injection model forces it: the driver calls InitializeInjection() with
 *   no argument, and CUPTI's buffer callbacks (cuptiActivityRegisterCallbacks) carry no user
 *   pointer. Everything lives in the one static `hmc` below; the only exported symbol is
 *   InitializeInjection (a version script hides the rest, libhintmap's hm_* included, so the
 *   collector cannot clash with an application that links its own libhintmap).
 * - Never break the application: libcupti is dlopen'ed (a missing CUPTI is one line, not a loader
 *   error), every failure before recording starts prints one line "hintmap-cupti: ..." to stderr
 *   and leaves the process as if the library were absent; InitializeInjection always returns 1
 *   (success for the driver), whatever happened.
 * - Hot path: CUPTI's completion callback (its worker thread, or the thread of a flush) walks a
 *   buffer; each kernel record finds its hm_region handle in a small open-addressing table keyed
 *   by the record's name pointer (CUPTI shares one name string across the records of a kernel)
 *   plus, in demangled+grid mode, the launch shape, each hit confirmed by a strcmp with our copy
 *   of the name (CUPTI documents no lifetime for the string; see record_kernel): no string
 *   hashing per dispatch; names are built and resolved once per key. A mutex serialises
 *   completions (hm_region handles are single-threaded); it is uncontended except while the exit
 *   flush overlaps the worker. No CUPTI function is called with it held.
 * - The application is never blocked: buffers are malloc'ed on request (HINTMAP_BUFFER_KB, default
 *   4 MiB, about 17,000 kernel records each), CUPTI fills and hands them back asynchronously,
 *   HINTMAP_FLUSH_MS (default 200 ms) makes CUPTI's worker deliver partly filled buffers so readers
 *   see live data; a refused allocation only makes CUPTI drop records (counted, reported at exit).
 * - Exit: an atexit handler runs cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) on a
 *   helper thread and waits for it at most HINTMAP_EXIT_FLUSH_MS (default 5 s; exit() from a CUDA
 *   callback must not hang), then closes the store under the lock, so a completion running
 *   concurrently on CUPTI's worker either finishes first or finds the store closed. A forked
 *   child never flushes or closes its parent's store, nor takes the lock. Without atexit
 *   (_exit, a signal, abort) the samples already recorded are in the file (a MAP_SHARED mapping),
 *   the records still in CUPTI's buffers (at most HINTMAP_FLUSH_MS old) are lost.
 */
#define _GNU_SOURCE
#include "hmc_options.h"
#include "hmc_translate.h"

#include <cupti.h>
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define HMC_EXPORT __attribute__((visibility("default")))
HMC_EXPORT int InitializeInjection(void);

/* ---- the CUPTI functions used, resolved from libcupti at run time */
typedef struct hmc_cupti {
    void *lib;
    CUptiResult (*get_version)(uint32_t *);
    CUptiResult (*register_callbacks)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc);
    CUptiResult (*enable)(CUpti_ActivityKind);
    CUptiResult (*disable)(CUpti_ActivityKind);
    CUptiResult (*next_record)(uint8_t *, size_t, CUpti_Activity **);
    CUptiResult (*flush_all)(uint32_t);
    CUptiResult (*flush_period)(uint32_t);
    CUptiResult (*dropped)(CUcontext, uint32_t, size_t *);
    CUptiResult (*result_string)(CUptiResult, const char **);
} hmc_cupti;

typedef struct hmc_key {
    const char *name; /* CUPTI's shared name string; NULL marks an empty entry */
    int32_t grid[3], block[3];
} hmc_key;

typedef struct hmc_entry {
    hmc_key key;
    char *text;        /* our copy of the name the key's pointer held when the handle was made */
    hm_region *region;
} hmc_entry;

#define HMC_TABLE_MAX ((size_t)1 << 20) /* cached handles: 1 Mi keys at most, 48 MiB + the names */
#define HMC_TRANSFER_REGIONS 12 /* 11 memcpy names + memset */

typedef struct hmc_stats {
    uint64_t kernels, transfers, untimed, negative, store_dropped, store_errors, cupti_dropped, truncated_names,
        by_name, name_reused, incomplete;
    _Atomic uint64_t buffers_refused; /* counted in buffer_requested, outside the lock */
} hmc_stats;

static struct hmc {
    pthread_once_t once;
    int active;            /* recording was set up; read only after `once` */
    pid_t pid;             /* the process that set it up */
    hmc_cupti cupti;
    pthread_mutex_t lock;  /* guards everything below */
    int closed;
    hm_store *store;
    hmc_naming naming;
    void *demangler;       /* __cxa_demangle, or NULL */
    int transfers;
    size_t buffer_bytes;
    uint32_t flush_ms;
    uint32_t exit_flush_ms; /* bound on the exit flush; 0: none */
    int verbose;
    hmc_entry *table;
    size_t table_size, table_used; /* power of two; grows at half full */
    hm_region *transfer_regions[HMC_TRANSFER_REGIONS];
    const char *transfer_names[HMC_TRANSFER_REGIONS];
    hmc_stats stats;
    /* the exit flush runs on a helper thread so that at_exit can bound its wait */
    pthread_mutex_t flush_lock;
    pthread_cond_t flush_done_cv;
    int flush_done;
} hmc = {.once = PTHREAD_ONCE_INIT, .lock = PTHREAD_MUTEX_INITIALIZER, .flush_lock = PTHREAD_MUTEX_INITIALIZER};

static const char *cupti_error(CUptiResult r) {
    const char *s = NULL;
    if (hmc.cupti.result_string == NULL || hmc.cupti.result_string(r, &s) != CUPTI_SUCCESS || s == NULL)
        return "unknown CUPTI error";
    return s;
}

/* The one line of a failure (and of HINTMAP_VERBOSE): collect/hmc_options.h, as every collector speaks. */
static const hmc_voice voice = {"hintmap-cupti", "not recording"};
#define say(...) hmc_say(&voice, __VA_ARGS__)

/* ---- demangling through the C++ runtime's __cxa_demangle (libstdc++ / libc++), found at run time */
typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);

static char *demangle_cxa(const char *mangled, void *ctx) {
    cxa_demangle_fn fn;
    *(void **)&fn = ctx;
    int status = 0;
    char *out = fn(mangled, NULL, NULL, &status);
    if (status != 0) {
        free(out);
        return NULL;
    }
    return out;
}

static void *find_demangler(void) {
    void *f = dlsym(RTLD_DEFAULT, "__cxa_demangle");
    if (f == NULL) {
        void *cxx = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_GLOBAL);
        if (cxx != NULL) f = dlsym(cxx, "__cxa_demangle");
    }
    return f;
}

/* ---- environment: collect/hmc_options.h (the hint file and its options, as every collector reads them) */
static int env_u64(const char *var, uint64_t lo, uint64_t hi, uint64_t dflt, uint64_t *out) {
    return hmc_env_u64(&voice, var, lo, hi, dflt, out, NULL);
}

static int load_cupti(void) {
    const char *path = getenv("HINTMAP_CUPTI_LIB");
    const char *tried[] = {path, "libcupti.so.13", "libcupti.so", HMC_CUPTI_FALLBACK};
    const char *err = "no path";
    for (size_t i = 0; i < sizeof tried / sizeof tried[0] && hmc.cupti.lib == NULL; i++) {
        if (tried[i] == NULL || tried[i][0] == '\0') continue;
        hmc.cupti.lib = dlopen(tried[i], RTLD_NOW | RTLD_LOCAL);
        if (hmc.cupti.lib == NULL) err = dlerror();
        if (path != NULL && path[0] != '\0') break; /* an explicit path is the only one tried */
    }
    if (hmc.cupti.lib == NULL) {
        say("CUPTI not found (%s; set HINTMAP_CUPTI_LIB to libcupti.so's path); not recording", err ? err : "?");
        return -1;
    }
#define HMC_SYM(field, sym)                                                                  \
    do {                                                                                     \
        *(void **)&hmc.cupti.field = dlsym(hmc.cupti.lib, #sym);                            \
        if (hmc.cupti.field == NULL) {                                                       \
            say("CUPTI library lacks %s; not recording", #sym);                              \
            dlclose(hmc.cupti.lib);                                                          \
            memset(&hmc.cupti, 0, sizeof hmc.cupti);                                         \
            return -1;                                                                       \
        }                                                                                    \
    } while (0)
    HMC_SYM(result_string, cuptiGetResultString);
    HMC_SYM(get_version, cuptiGetVersion);
    HMC_SYM(register_callbacks, cuptiActivityRegisterCallbacks);
    HMC_SYM(enable, cuptiActivityEnable);
    HMC_SYM(disable, cuptiActivityDisable);
    HMC_SYM(next_record, cuptiActivityGetNextRecord);
    HMC_SYM(flush_all, cuptiActivityFlushAll);
    HMC_SYM(flush_period, cuptiActivityFlushPeriod);
    HMC_SYM(dropped, cuptiActivityGetNumDroppedRecords);
#undef HMC_SYM
    return 0;
}

/* ---- handle cache */
static uint64_t mix(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static uint64_t key_hash(const hmc_key *k) {
    uint64_t h = mix((uint64_t)(uintptr_t)k->name);
    for (int i = 0; i < 3; i++) h = mix(h ^ ((uint64_t)(uint32_t)k->grid[i] << 32 | (uint32_t)k->block[i]));
    return h;
}

static int key_eq(const hmc_key *a, const hmc_key *b) {
    return a->name == b->name && memcmp(a->grid, b->grid, sizeof a->grid) == 0 && memcmp(a->block, b->block, sizeof a->block) == 0;
}

static hmc_entry *table_slot(hmc_entry *t, size_t size, const hmc_key *k) {
    size_t mask = size - 1;
    for (size_t i = (size_t)key_hash(k) & mask;; i = (i + 1) & mask)
        if (t[i].key.name == NULL || key_eq(&t[i].key, k)) return &t[i];
}

static int table_grow(void) {
    size_t size = hmc.table_size ? hmc.table_size * 2 : 256;
    hmc_entry *t = calloc(size, sizeof *t);
    if (t == NULL) return -1;
    for (size_t i = 0; i < hmc.table_size; i++)
        if (hmc.table[i].key.name != NULL) *table_slot(t, size, &hmc.table[i].key) = hmc.table[i];
    free(hmc.table);
    hmc.table = t;
    hmc.table_size = size;
    return 0;
}

static void count_add(int rc) {
    if (rc == HM_DROPPED) hmc.stats.store_dropped++;
    else if (rc < 0) hmc.stats.store_errors++;
}

/*
 * Records one kernel sample: through the cached handle, or by name where no handle could be made.
 * The cache is keyed by CUPTI's name pointer (one string per kernel, shared by its records), but
 * CUPTI documents no lifetime for that string: a module unloaded (cuModuleUnload, a JIT cache,
 * Triton, NVRTC) may free it and a later kernel's name may reuse the address. So a hit is
 * confirmed by comparing the text with our copy (strcmp, no hashing); a mismatch re-makes the entry.
 */
static void record_kernel(const hmc_kernel_record *k) {
    hmc_sample smp;
    int rc = hmc_kernel_sample(k, &smp);
    if (rc == HMC_SKIP_UNTIMED) { hmc.stats.untimed++; return; }
    if (rc == HMC_SKIP_NEGATIVE) { hmc.stats.negative++; return; }
    if (rc != HMC_SAMPLE) return;
    hmc.stats.kernels++;
    const char *kname = k->name ? k->name : "";
    hmc_key key = {.name = kname, .grid = {0, 0, 0}, .block = {0, 0, 0}};
    if (hmc.naming.mode == HMC_NAME_DEMANGLED_GRID) {
        key.grid[0] = k->gridX; key.grid[1] = k->gridY; key.grid[2] = k->gridZ;
        key.block[0] = k->blockX; key.block[1] = k->blockY; key.block[2] = k->blockZ;
    }
    /* Grow at half full (up to HMC_TABLE_MAX); a table that cannot grow is still used for the
       keys it holds, and never gets its last empty entry filled (lookups end on an empty one). */
    if (hmc.table_used * 2 >= hmc.table_size && hmc.table_size < HMC_TABLE_MAX) (void)table_grow();
    hmc_entry *e = NULL;
    int stale = 0;
    if (hmc.table_size != 0) {
        e = table_slot(hmc.table, hmc.table_size, &key);
        if (e->key.name == NULL && hmc.table_used + 1 >= hmc.table_size) e = NULL;
    }
    if (e != NULL && e->key.name != NULL) {
        if (strcmp(e->text, kname) == 0) {
            count_add(hm_region_add(e->region, smp.kernel_ns, 0));
            return;
        }
        stale = 1; /* the address now holds another kernel's name */
    }
    char name[HMC_NAME_CAP];
    size_t len;
    int truncated;
    if (hmc_kernel_region_name(k, &hmc.naming, name, &len, &truncated) != 0) { hmc.stats.store_errors++; return; }
    hm_region *r = NULL;
    char *text = e != NULL ? strdup(kname) : NULL;
    if (text != NULL && hm_region_resolve(hmc.store, name, len, &r) == HM_OK) {
        if (stale) {
            hm_region_free(e->region);
            free(e->text);
            hmc.stats.name_reused++;
        } else {
            hmc.table_used++;
        }
        e->key = key;
        e->text = text;
        e->region = r;
        hmc.stats.truncated_names += (uint64_t)truncated;
        count_add(hm_region_add(r, smp.kernel_ns, 0));
        return;
    }
    free(text);
    hmc.stats.by_name++; /* no memory for a handle: record by name (hashes the name) */
    count_add(hm_record(hmc.store, name, len, smp.kernel_ns, 0));
}

static void record_transfer(const char *region, const hmc_sample *smp) {
    int i = 0;
    while (i < HMC_TRANSFER_REGIONS && hmc.transfer_names[i] != NULL && hmc.transfer_names[i] != region) i++;
    if (i < HMC_TRANSFER_REGIONS && hmc.transfer_names[i] == NULL) {
        hm_region *r = NULL;
        size_t len = strlen(region);
        if (len > hmc.naming.max_name_bytes) len = hmc.naming.max_name_bytes; /* ASCII: any cut is a boundary */
        if (hm_region_resolve(hmc.store, region, len, &r) != HM_OK) { hmc.stats.store_errors++; return; }
        hmc.transfer_names[i] = region;
        hmc.transfer_regions[i] = r;
    }
    if (i == HMC_TRANSFER_REGIONS) { hmc.stats.store_errors++; return; }
    hmc.stats.transfers++;
    count_add(hm_region_add(hmc.transfer_regions[i], smp->kernel_ns, smp->bytes));
}

static void record_one(const CUpti_Activity *a) {
    hmc_sample smp;
    int rc;
    switch (a->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL:
        record_kernel((const hmc_kernel_record *)(const void *)a);
        return;
    case CUPTI_ACTIVITY_KIND_MEMCPY:
        rc = hmc_memcpy_sample((const hmc_memcpy_record *)(const void *)a, &smp);
        if (rc == HMC_SAMPLE) record_transfer(hmc_memcpy_region((const hmc_memcpy_record *)(const void *)a), &smp);
        return;
    case CUPTI_ACTIVITY_KIND_MEMSET:
        rc = hmc_memset_sample((const hmc_memset_record *)(const void *)a, &smp);
        if (rc == HMC_SAMPLE) record_transfer(HMC_MEMSET_REGION, &smp);
        return;
    default:
        return;
    }
}

/* ---- CUPTI callbacks */
static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
    *max_records = 0;
    *buffer = malloc(hmc.buffer_bytes); /* malloc's alignment (16) meets CUPTI's ACTIVITY_RECORD_ALIGNMENT (8) */
    *size = *buffer ? hmc.buffer_bytes : 0;
    if (*buffer == NULL) atomic_fetch_add_explicit(&hmc.stats.buffers_refused, 1, memory_order_relaxed);
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid) {
    (void)ctx;
    (void)stream;
    (void)size;
    /* A forked child: the store is its parent's, and hmc.lock may have been copied held. */
    if (getpid() != hmc.pid) {
        free(buffer);
        return;
    }
    /* CUPTI is called outside hmc.lock: a flush holding CUPTI's own locks may be waiting for
       hmc.lock in this callback on another thread. (The context argument is always NULL since
       CUDA 6: one global queue.) */
    size_t dropped = 0;
    if (hmc.cupti.dropped(NULL, 0, &dropped) != CUPTI_SUCCESS) dropped = 0;
    pthread_mutex_lock(&hmc.lock);
    if (!hmc.closed && hmc.store != NULL) {
        CUpti_Activity *a = NULL;
        CUptiResult r;
        while ((r = hmc.cupti.next_record(buffer, valid, &a)) == CUPTI_SUCCESS) record_one(a);
        if (r != CUPTI_ERROR_MAX_LIMIT_REACHED) hmc.stats.incomplete++; /* INVALID_KIND: the rest is lost */
        hmc.stats.cupti_dropped += dropped;
    }
    pthread_mutex_unlock(&hmc.lock);
    free(buffer);
}

static void report(const char *when) {
    const hmc_stats *t = &hmc.stats;
    uint64_t refused = atomic_load_explicit(&t->buffers_refused, memory_order_relaxed);
    int trouble = t->cupti_dropped || refused || t->store_dropped || t->store_errors || t->negative || t->incomplete;
    if (!hmc.verbose && !trouble) return;
    say("%s: kernels=%" PRIu64 " transfers=%" PRIu64 " regions=%zu truncated_names=%" PRIu64 " skipped_untimed=%" PRIu64
        " skipped_negative=%" PRIu64 " store_dropped=%" PRIu64 " store_errors=%" PRIu64 " cupti_dropped=%" PRIu64
        " buffers_refused=%" PRIu64 " incomplete_buffers=%" PRIu64 " by_name=%" PRIu64 " names_reused=%" PRIu64,
        when, t->kernels, t->transfers, hmc.table_used, t->truncated_names, t->untimed, t->negative, t->store_dropped,
        t->store_errors, t->cupti_dropped, refused, t->incomplete, t->by_name, t->name_reused);
}

static void *flush_main(void *arg) {
    (void)arg;
    hmc.cupti.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    pthread_mutex_lock(&hmc.flush_lock);
    hmc.flush_done = 1;
    pthread_cond_signal(&hmc.flush_done_cv);
    pthread_mutex_unlock(&hmc.flush_lock);
    return NULL;
}

/*
 * cuptiActivityFlushAll(FORCED), waiting at most exit_flush_ms: exit() may be called where the
 * flush cannot finish (from a CUDA host callback, or while another thread holds the driver), and
 * the collector must not turn that exit into a hang. The flush runs on a detached helper thread;
 * one that is still stuck when the wait ends is left behind (exit ends it), and any buffer it
 * delivers later finds the store closed and is freed unread. Returns 0 when the flush finished.
 */
static int exit_flush(void) {
    pthread_t t;
    pthread_attr_t attr;
    int started = hmc.exit_flush_ms != 0 && pthread_attr_init(&attr) == 0;
    if (started) {
        started = pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) == 0 &&
                  pthread_create(&t, &attr, flush_main, NULL) == 0;
        pthread_attr_destroy(&attr);
    }
    if (!started) { /* no bound asked for, or no thread: flush here */
        hmc.cupti.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        return 0;
    }
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += hmc.exit_flush_ms / 1000;
    until.tv_nsec += (long)(hmc.exit_flush_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) { until.tv_sec++; until.tv_nsec -= 1000000000L; }
    pthread_mutex_lock(&hmc.flush_lock);
    int rc = 0;
    while (!hmc.flush_done && rc != ETIMEDOUT) rc = pthread_cond_timedwait(&hmc.flush_done_cv, &hmc.flush_lock, &until);
    int done = hmc.flush_done;
    pthread_mutex_unlock(&hmc.flush_lock);
    return done ? 0 : -1;
}

static void at_exit(void) {
    if (!hmc.active || getpid() != hmc.pid) return; /* a forked child: the store is its parent's */
    int flushed = exit_flush();
    pthread_mutex_lock(&hmc.lock);
    if (!hmc.closed && hmc.store != NULL) {
        hmc.closed = 1;
        if (flushed != 0)
            say("exit flush not done after %u ms (HINTMAP_EXIT_FLUSH_MS): records still in CUPTI's buffers are lost",
                hmc.exit_flush_ms);
        report("exit");
        for (size_t i = 0; i < hmc.table_size; i++) {
            hm_region_free(hmc.table[i].region);
            free(hmc.table[i].text);
        }
        for (int i = 0; i < HMC_TRANSFER_REGIONS; i++) hm_region_free(hmc.transfer_regions[i]);
        free(hmc.table);
        hmc.table = NULL;
        hmc.table_size = hmc.table_used = 0;
        hm_close(hmc.store);
        hmc.store = NULL;
    }
    pthread_mutex_unlock(&hmc.lock);
}

/* ---- set-up: every failure is one line and leaves nothing enabled */
static const CUpti_ActivityKind kinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                           CUPTI_ACTIVITY_KIND_MEMSET};

static void setup(void) {
    hmc.pid = getpid();
    hmc_store_options store;
    uint64_t transfers, flush_ms, exit_flush_ms, buffer_kb, verbose;
    const char *mode_text = getenv("HINTMAP_NAME");
    int mode = (mode_text == NULL || mode_text[0] == '\0') ? HMC_NAME_DEMANGLED : hmc_name_mode_parse(mode_text);
    if (mode < 0) {
        say("HINTMAP_NAME=%s: expected mangled, demangled or demangled+grid; not recording", mode_text);
        return;
    }
    if (hmc_store_options_from_env(&voice, "/dev/shm/hintmap-cupti.hints", &store) < 0 ||
        env_u64("HINTMAP_TRANSFERS", 0, 1, 1, &transfers) < 0 ||
        env_u64("HINTMAP_FLUSH_MS", 0, 3600000, 200, &flush_ms) < 0 ||
        env_u64("HINTMAP_EXIT_FLUSH_MS", 0, 3600000, 5000, &exit_flush_ms) < 0 ||
        env_u64("HINTMAP_BUFFER_KB", 64, 262144, 4096, &buffer_kb) < 0 ||
        env_u64("HINTMAP_VERBOSE", 0, 1, 0, &verbose) < 0)
        return;
    if (load_cupti() < 0) return;
    uint32_t version = 0;
    CUptiResult cr = hmc.cupti.get_version(&version);
    if (cr != CUPTI_SUCCESS) {
        say("cuptiGetVersion: %s; not recording", cupti_error(cr));
        return;
    }
    if (version / 10000 != CUPTI_API_VERSION / 10000) { /* activity record layouts are per major version */
        say("CUPTI API version %u, built for %u (another CUDA major): not recording", version, (unsigned)CUPTI_API_VERSION);
        return;
    }
    hmc.transfers = (int)transfers;
    hmc.buffer_bytes = (size_t)buffer_kb * 1024;
    hmc.flush_ms = (uint32_t)flush_ms;
    hmc.exit_flush_ms = (uint32_t)exit_flush_ms;
    hmc.verbose = (int)verbose;
    pthread_condattr_t ca;
    if (pthread_condattr_init(&ca) != 0 || pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) != 0 ||
        pthread_cond_init(&hmc.flush_done_cv, &ca) != 0) {
        say("pthread_cond_init failed; not recording");
        return;
    }
    pthread_condattr_destroy(&ca);

    /* CUPTI first, the file second: a process where CUPTI refuses (no driver, another profiler)
       gets no file. Until the store is open, a completed buffer is freed unread. */
    const char *step = "cuptiActivityRegisterCallbacks";
    cr = hmc.cupti.register_callbacks(buffer_requested, buffer_completed);
    size_t enabled = 0;
    if (cr == CUPTI_SUCCESS) {
        step = "cuptiActivityEnable";
        size_t want = hmc.transfers ? sizeof kinds / sizeof kinds[0] : 1;
        while (enabled < want && (cr = hmc.cupti.enable(kinds[enabled])) == CUPTI_SUCCESS) enabled++;
    }
    if (cr == CUPTI_SUCCESS && hmc.flush_ms > 0) {
        step = "cuptiActivityFlushPeriod";
        cr = hmc.cupti.flush_period(hmc.flush_ms);
    }
    if (cr != CUPTI_SUCCESS) {
        while (enabled > 0) hmc.cupti.disable(kinds[--enabled]);
        say("%s: %s (no CUDA driver, or another profiler holds CUPTI?); not recording", step, cupti_error(cr));
        return;
    }
    pthread_mutex_lock(&hmc.lock);
    int rc = hmc_store_open(&voice, &store, &hmc.store);
    if (rc == 0) {
        hmc.naming.mode = (hmc_name_mode)mode;
        hmc.naming.max_name_bytes = hm_max_name_bytes(hmc.store);
        hmc.demangler = mode == HMC_NAME_MANGLED ? NULL : find_demangler();
        hmc.naming.demangle = hmc.demangler ? demangle_cxa : NULL;
        hmc.naming.demangle_ctx = hmc.demangler;
    }
    pthread_mutex_unlock(&hmc.lock);
    if (rc < 0) {
        while (enabled > 0) hmc.cupti.disable(kinds[--enabled]);
        return;
    }
    if (atexit(at_exit) != 0) {
        say("atexit failed: recording without the exit flush");
    }
    hmc.active = 1;
    if (hmc.verbose)
        say("recording into %s (names %s, max %u bytes%s%s)", store.path, mode == HMC_NAME_MANGLED ? "mangled" : mode == HMC_NAME_DEMANGLED ? "demangled" : "demangled+grid",
            hmc.naming.max_name_bytes, hmc.naming.mode != HMC_NAME_MANGLED && !hmc.demangler ? ", no demangler: mangled" : "",
            hmc.transfers ? ", transfers" : "");
}

int InitializeInjection(void) {
    pthread_once(&hmc.once, setup);
    return 1; /* always success for the driver: a collector that failed must not fail cuInit */
}

/* LD_PRELOAD: set up at load time, before the application initialises CUDA. Under
   CUDA_INJECTION64_PATH the driver calls InitializeInjection itself (from cuInit).
   With HINTMAP_VERBOSE=1 the first line is "loaded into pid N": CUDA loads an injection library
   only from a successful cuInit, so where no driver is (or the program never initialises CUDA, or
   the variable did not reach it) the collector is never loaded and prints nothing at all; that
   line tells "not loaded" from "loaded, not recording" (docs/GPU.md). Read here as exactly "1":
   the full check of the value, and its message, come with the set-up. */
__attribute__((constructor)) static void hmc_preload(void) {
    const char *inj = getenv("CUDA_INJECTION64_PATH");
    int injected = inj != NULL && inj[0] != '\0';
    const char *verbose = getenv("HINTMAP_VERBOSE");
    if (verbose != NULL && strcmp(verbose, "1") == 0)
        say("loaded into pid %ld (%s)", (long)getpid(),
            injected ? "CUDA_INJECTION64_PATH: CUDA calls InitializeInjection next" : "LD_PRELOAD: setting up now");
    if (!injected) InitializeInjection();
}
