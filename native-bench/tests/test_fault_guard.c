/*
 * test_fault_guard.c - the fault guard (HM_OPEN_FAULT_GUARD, hm_fault_guard_install; src/fault_guard.c):
 * a file truncated under a guarded store makes the call that meets a lost page return HM_ECHANGED
 * and the store unusable, never kill the process; every fault the guard does not take still goes
 * where it went without it. Registered by the runner, test_unit.c; run under ASan+UBSan.
 *
 * The guard is installed once per process and changes SIGBUS's disposition, so every test runs its
 * body in a forked child (the runner itself never installs it), which reports through its exit
 * status: a child killed by a signal is a call that was not guarded. A child that should live ends
 * with exit(), so that LeakSanitizer checks that an abandoned call leaked nothing.
 */
#define _GNU_SOURCE 1
#include "test_cases.h"
#include "test_concurrent.h"
#include "test_support.h"

#include "hintmap.h"
#include "hintmap_format.h"
#include "hm_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* In a child: a failed expectation ends it with status 1, naming the line. */
#define EXPECT(cond)                                                                               \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "  %s:%d: in the child: %s\n", __FILE__, __LINE__, #cond);             \
            fflush(stderr);                                                                        \
            _exit(1);                                                                              \
        }                                                                                          \
    } while (0)
#define EXPECT_EQ(a, b)                                                                            \
    do {                                                                                           \
        long long a_ = (long long)(a), b_ = (long long)(b);                                        \
        if (a_ != b_) {                                                                            \
            fprintf(stderr, "  %s:%d: in the child: %s == %lld, want %s == %lld\n", __FILE__, __LINE__, #a, a_, #b, b_); \
            fflush(stderr);                                                                        \
            _exit(1);                                                                              \
        }                                                                                          \
    } while (0)

static const char *const KERNELS[] = {
    "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>(Params const&)",
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 3> >"
    "(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3>)",
    "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64, 64, 4, false, false, cutlass::half_t> >"
    "(Flash_fwd_params)",
};
#define NKERNELS (sizeof KERNELS / sizeof KERNELS[0])
static const char *const NEW_KERNEL = "void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 4, 4, "
                                      "false, false>(float const*, float*, int)";

/* Runs body(arg) in a forked child and returns its wait status (a hang ends by SIGALRM). */
static int in_child(int (*body)(void *arg), void *arg) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        alarm(120);
        int rc = body(arg);
        fflush(NULL);
        exit(rc); /* exit, not _exit: LeakSanitizer runs at exit */
    }
    return wait_status(pid);
}

/* What a child's status says, for a failure message. */
static const char *status_text(int st, char *buf, size_t len) {
    if (WIFSIGNALED(st)) snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
    else if (WIFEXITED(st)) snprintf(buf, len, "exit status %d", WEXITSTATUS(st));
    else snprintf(buf, len, "status 0x%x", st);
    return buf;
}

#define CHECK_CHILD_EXITS(st, code, what)                                                          \
    do {                                                                                           \
        char b_[128];                                                                              \
        if (!WIFEXITED(st) || WEXITSTATUS(st) != (code))                                           \
            fprintf(stderr, "  %s:%d: %s: %s, want exit status %d\n", __FILE__, __LINE__, (what),   \
                    status_text((st), b_, sizeof b_), (code));                                     \
        CHECK(WIFEXITED(st));                                                                      \
        CHECK_EQ(WEXITSTATUS(st), (code));                                                         \
    } while (0)

#define CHECK_CHILD_DIES_BY(st, sig, what)                                                         \
    do {                                                                                           \
        char b_[128];                                                                              \
        if (!WIFSIGNALED(st) || WTERMSIG(st) != (sig))                                             \
            fprintf(stderr, "  %s:%d: %s: %s, want death by signal %d\n", __FILE__, __LINE__, (what), \
                    status_text((st), b_, sizeof b_), (sig));                                      \
        CHECK(WIFSIGNALED(st));                                                                    \
        CHECK_EQ(WTERMSIG(st), (sig));                                                             \
    } while (0)

/* A writer's store on a fresh file with three regions recorded and a handle on the first, and the
 * file's geometry read from its header. */
typedef struct fixture {
    char path[1024];
    hm_store *s;
    hm_region *h;
    uint64_t file_bytes, slots_offset;
} fixture;

static void fixture_open(fixture *f, const char *file, uint32_t flags) {
    snprintf(f->path, sizeof f->path, "%s", tpath(file));
    unlink(f->path);
    hm_options o = opts(64, 0, flags);
    char e[512];
    int rc = hm_open_ex(f->path, &o, &f->s, e, sizeof e);
    if (rc != HM_OK) fprintf(stderr, "  open %s: %d %s\n", f->path, rc, e);
    EXPECT_EQ(rc, HM_OK);
    for (size_t i = 0; i < NKERNELS; i++) EXPECT_EQ(t_rec(f->s, KERNELS[i], 200000, 64), HM_OK);
    EXPECT_EQ(hm_region_resolve(f->s, KERNELS[0], strlen(KERNELS[0]), &f->h), HM_OK);
    hm_file_header hdr;
    int fd = open(f->path, O_RDONLY);
    EXPECT(fd >= 0);
    EXPECT(pread(fd, &hdr, sizeof hdr, 0) == (ssize_t)sizeof hdr);
    close(fd);
    f->file_bytes = hdr.file_bytes;
    f->slots_offset = hdr.slots_offset;
}

/* ------------------------------------------------------------------ every entry point */

static hm_hot_region hot_regions[64];
static char hot_names[64 * HM_DEFAULT_MAX_NAME_BYTES];

static int call_record(fixture *f) { return t_rec(f->s, KERNELS[1], 300000, 1); }
static int call_record_new(fixture *f) { return t_rec(f->s, NEW_KERNEL, 300000, 1); }
static int call_lookup(fixture *f) {
    hm_region_record r;
    return t_look(f->s, KERNELS[2], &r);
}
static int call_is_hot(fixture *f) { return hm_is_hot(f->s, KERNELS[1], strlen(KERNELS[1])); }
static int call_region_at(fixture *f) {
    char name[HM_DEFAULT_MAX_NAME_BYTES];
    size_t len;
    hm_region_record r;
    return hm_region_at(f->s, 0, name, sizeof name, &len, &r);
}
static int call_size(fixture *f) {
    uint64_t n = 0;
    int rc = hm_size(f->s, &n);
    return rc < 0 ? rc : (int)n;
}
static int call_high_water(fixture *f) { return (int)hm_high_water(f->s); }
static int call_stats(fixture *f) {
    hm_stats st;
    int rc = hm_stats_get(f->s, &st);
    return rc < 0 ? rc : (int)st.live_count;
}
static int call_hot_set(fixture *f) {
    hm_hot_set_info info;
    return hm_hot_set(f->s, 0.95, 1, hot_regions, 64, hot_names, sizeof hot_names, &info);
}
static int call_resolve(fixture *f) {
    hm_region *r = NULL;
    int rc = hm_region_resolve(f->s, KERNELS[2], strlen(KERNELS[2]), &r);
    hm_region_free(r);
    return rc;
}
static int call_region_add(fixture *f) { return hm_region_add(f->h, 300000, 1); }
static int call_region_lookup(fixture *f) {
    hm_region_record r;
    return hm_region_lookup(f->h, &r);
}

typedef struct entry {
    const char *name;
    int (*call)(fixture *f);
    int at_zero;       /* its result on a file truncated to 0 bytes */
    int without_slots; /* on a file cut where the slots begin: header, writer table and index remain */
} entry;

/* A call that reads only the header answers while the header page remains (hm_size reads
 * live_count); a call that reaches a lost page returns HM_ECHANGED; hm_high_water, which has no
 * error code, answers 0 for a store that faulted. */
static const entry ENTRIES[] = {
    {"hm_record", call_record, HM_ECHANGED, HM_ECHANGED},
    {"hm_record (insert)", call_record_new, HM_ECHANGED, HM_ECHANGED},
    {"hm_lookup", call_lookup, HM_ECHANGED, HM_ECHANGED},
    {"hm_is_hot", call_is_hot, HM_ECHANGED, HM_ECHANGED},
    {"hm_region_at", call_region_at, HM_ECHANGED, HM_ECHANGED},
    {"hm_size", call_size, HM_ECHANGED, (int)NKERNELS},
    {"hm_high_water", call_high_water, 0, (int)NKERNELS},
    {"hm_stats_get", call_stats, HM_ECHANGED, (int)NKERNELS},
    {"hm_hot_set", call_hot_set, HM_ECHANGED, HM_ECHANGED},
    {"hm_region_resolve", call_resolve, HM_ECHANGED, HM_ECHANGED},
    {"hm_region_add", call_region_add, HM_ECHANGED, HM_ECHANGED},
    {"hm_region_lookup", call_region_lookup, HM_ECHANGED, HM_ECHANGED},
};
#define NENTRIES (sizeof ENTRIES / sizeof ENTRIES[0])

typedef struct entry_case {
    const entry *e;
    int to_zero; /* 1: truncated to 0 bytes; 0: to slots_offset */
} entry_case;

/* Every call on a store that faulted returns its code, even once the file has its size again
 * (its pages then read as zeros: a call that used them would answer, not fail). */
static void expect_unusable(fixture *f) {
    EXPECT(truncate(f->path, (off_t)f->file_bytes) == 0);
    hm_region_record r;
    uint64_t n;
    hm_stats st;
    hm_hot_set_info info;
    hm_region *h2 = NULL;
    EXPECT_EQ(t_rec(f->s, KERNELS[0], 1, 1), HM_ECHANGED);
    EXPECT_EQ(t_look(f->s, KERNELS[0], &r), HM_ECHANGED);
    EXPECT_EQ(hm_is_hot(f->s, KERNELS[0], strlen(KERNELS[0])), HM_ECHANGED);
    EXPECT_EQ(hm_size(f->s, &n), HM_ECHANGED);
    EXPECT_EQ(hm_stats_get(f->s, &st), HM_ECHANGED);
    EXPECT_EQ(hm_high_water(f->s), 0);
    EXPECT_EQ(hm_hot_set(f->s, 0.5, 1, hot_regions, 64, hot_names, sizeof hot_names, &info), HM_ECHANGED);
    EXPECT_EQ(hm_region_resolve(f->s, KERNELS[0], strlen(KERNELS[0]), &h2), HM_ECHANGED);
    EXPECT(h2 == NULL);
    EXPECT_EQ(hm_region_add(f->h, 1, 1), HM_ECHANGED);
    EXPECT_EQ(hm_region_lookup(f->h, &r), HM_ECHANGED);
    EXPECT_EQ(hm_check(f->s), HM_ECHANGED);
    EXPECT_EQ(hm_flush(f->s), HM_ECHANGED);
    EXPECT(strstr(hm_last_error(f->s), "faulted (SIGBUS, caught by the fault guard)") != NULL);
    EXPECT(strstr(hm_last_error(f->s), f->path) != NULL);
}

static int entry_child(void *arg) {
    const entry_case *c = arg;
    fixture f;
    fixture_open(&f, "guard-entry.hm", HM_OPEN_FAULT_GUARD);
    uint64_t cut = c->to_zero ? 0 : f.slots_offset;
    EXPECT(truncate(f.path, (off_t)cut) == 0);
    int want = c->to_zero ? c->e->at_zero : c->e->without_slots;
    int got = c->e->call(&f);
    if (got != want) fprintf(stderr, "  %s on a file cut to %llu bytes: %d (%s), want %d\n", c->e->name,
                             (unsigned long long)cut, got, hm_last_error(f.s), want);
    EXPECT_EQ(got, want);
    int faulted = want == HM_ECHANGED || (c->to_zero && c->e->call == call_high_water);
    if (faulted) {
        char msg[256];
        snprintf(msg, sizeof msg, "truncated under the mapping to %llu bytes", (unsigned long long)cut);
        if (want == HM_ECHANGED) EXPECT(strstr(hm_last_error(f.s), msg) != NULL);
        expect_unusable(&f);
        EXPECT_EQ(hm_close(f.s), HM_ECHANGED); /* unmapped and freed; the writer entry left */
    } else {
        EXPECT_EQ(hm_close(f.s), HM_OK); /* the writer table's page remains: released */
    }
    hm_region_free(f.h);
    unlink(f.path);
    return 0;
}

/* Every public call that touches the mapping, on a guarded store whose file was truncated to 0
 * bytes, or cut where the slots begin: HM_ECHANGED (or the answer, from the pages that remain),
 * then HM_ECHANGED from every call; the process lives and the store closes cleanly. */
static void test_every_guarded_call_on_a_truncated_file_returns_echanged_and_the_store_stays_unusable(void) {
    for (int to_zero = 1; to_zero >= 0; to_zero--) {
        for (size_t i = 0; i < NENTRIES; i++) {
            entry_case c = {&ENTRIES[i], to_zero};
            int st = in_child(entry_child, &c);
            char what[128];
            snprintf(what, sizeof what, "%s on a file cut to %s", ENTRIES[i].name, to_zero ? "0 bytes" : "its slots");
            CHECK_CHILD_EXITS(st, 0, what);
        }
    }
}

/* ------------------------------------------------------------------ faults the guard leaves alone */

typedef enum {
    OWN_MAPPING,      /* the program's own mapping of another truncated file */
    STORE_OUTSIDE,    /* the guarded store's mapping, touched by the program outside any call */
    UNGUARDED_STORE,  /* a store opened without HM_OPEN_FAULT_GUARD, in a process with the guard */
} stray_fault;

/* Opens a guarded store (installing the guard), then faults as `how` says; returns only if the
 * fault did not kill it. SIGBUS's disposition before the guard is SIG_DFL (the sanitizer's handler
 * would turn the death into a report). */
static int stray_fault_child(void *arg) {
    stray_fault how = *(const stray_fault *)arg;
    signal(SIGBUS, SIG_DFL);
    fixture f;
    fixture_open(&f, "guard-stray.hm", HM_OPEN_FAULT_GUARD);
    volatile const uint64_t *word;
    if (how == OWN_MAPPING) {
        const char *p = tpath("guard-plain.bin");
        int fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0600);
        EXPECT(fd >= 0 && ftruncate(fd, 8192) == 0);
        void *m = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 0);
        EXPECT(m != MAP_FAILED);
        EXPECT(ftruncate(fd, 0) == 0);
        word = (volatile const uint64_t *)m;
    } else if (how == STORE_OUTSIDE) {
        EXPECT(truncate(f.path, 0) == 0);
        word = (volatile const uint64_t *)hm_test_mapping(f.s);
    } else {
        fixture u;
        fixture_open(&u, "guard-unguarded.hm", 0);
        EXPECT(truncate(u.path, 0) == 0);
        t_rec(u.s, KERNELS[0], 1, 1); /* unguarded: dies here */
        return 3;
    }
    uint64_t v = *word; /* dies here */
    return v == 0 ? 3 : 4;
}

/* A fault outside a guarded call (the program's own mapping, the store's mapping touched by the
 * program itself, a store opened without the flag) still kills the process by SIGBUS. */
static void test_a_fault_outside_a_guarded_call_still_kills_by_sigbus(void) {
    static const stray_fault hows[] = {OWN_MAPPING, STORE_OUTSIDE, UNGUARDED_STORE};
    static const char *const names[] = {"the program's own mapping", "the store's mapping outside a call",
                                        "a store opened without HM_OPEN_FAULT_GUARD"};
    for (size_t i = 0; i < sizeof hows / sizeof hows[0]; i++) {
        int st = in_child(stray_fault_child, (void *)&hows[i]);
        CHECK_CHILD_DIES_BY(st, SIGBUS, names[i]);
    }
}

static void *expected_fault_addr;

/* The handler a program had before the guard: ends the process with 42 for the fault it expects. */
static void earlier_handler(int sig, siginfo_t *info, void *context) {
    (void)context;
    _exit(sig == SIGBUS && info != NULL && info->si_addr == expected_fault_addr ? 42 : 43);
}

static int chained_handler_child(void *arg) {
    (void)arg;
    struct sigaction act;
    memset(&act, 0, sizeof act);
    act.sa_sigaction = earlier_handler;
    act.sa_flags = SA_SIGINFO;
    sigemptyset(&act.sa_mask);
    EXPECT(sigaction(SIGBUS, &act, NULL) == 0);
    fixture f;
    fixture_open(&f, "guard-chain.hm", HM_OPEN_FAULT_GUARD);
    EXPECT(truncate(f.path, 0) == 0);
    EXPECT_EQ(call_lookup(&f), HM_ECHANGED); /* the guard comes first for its own calls */
    expected_fault_addr = hm_test_mapping(f.s);
    return *(volatile const uint64_t *)expected_fault_addr == 0 ? 3 : 4; /* the earlier handler ends it */
}

/* A fault the guard does not take reaches the handler installed before it, with its siginfo. */
static void test_a_fault_the_guard_does_not_take_reaches_the_handler_installed_before_it(void) {
    int st = in_child(chained_handler_child, NULL);
    CHECK_CHILD_EXITS(st, 42, "a fault outside a guarded call, with a handler installed before the guard");
}

static int sent_sigbus_child(void *arg) {
    int ignored = *(const int *)arg;
    signal(SIGBUS, ignored ? SIG_IGN : SIG_DFL);
    EXPECT_EQ(hm_fault_guard_install(), HM_OK);
    EXPECT_EQ(hm_fault_guard_install(), HM_OK); /* once: a second call changes nothing */
    fixture f;
    fixture_open(&f, "guard-sent.hm", HM_OPEN_FAULT_GUARD);
    raise(SIGBUS); /* a SIGBUS sent, not a fault: SIG_DFL dies of it, SIG_IGN ignores it */
    EXPECT_EQ(hm_close(f.s), HM_OK);
    hm_region_free(f.h);
    return 0;
}

/* A SIGBUS that was sent (kill, raise), not raised by a fault, is not the guard's: it is delivered
 * to the disposition before the guard: the default kills, an ignored one stays ignored. */
static void test_a_sent_sigbus_keeps_the_disposition_it_had_before_the_guard(void) {
    int dfl = 0, ign = 1;
    int st = in_child(sent_sigbus_child, &dfl);
    CHECK_CHILD_DIES_BY(st, SIGBUS, "raise(SIGBUS) with SIG_DFL before the guard");
    st = in_child(sent_sigbus_child, &ign);
    CHECK_CHILD_EXITS(st, 0, "raise(SIGBUS) with SIG_IGN before the guard");
}

/* ------------------------------------------------------------------ threads, locks, nesting, open */

static int threads_child(void *arg) {
    (void)arg;
    hm_t_concurrent_truncated_guarded(4);
    return hm_t_failures != 0;
}

/* Threads that keep recording and reading through one guarded store when its file is truncated to
 * 0: each thread's next call returns HM_ECHANGED (its own fault, or the store's code), none dies. */
static void test_threads_calling_a_guarded_store_each_get_echanged_when_its_file_is_truncated(void) {
    int st = in_child(threads_child, NULL);
    CHECK_CHILD_EXITS(st, 0, "four threads on a guarded store truncated under them");
}

typedef struct waiter_arg {
    hm_store *s;
    _Atomic int done;
    int code;
} waiter_arg;

static void *insert_behind_held_lock(void *p) {
    waiter_arg *a = p;
    a->code = t_rec(a->s, NEW_KERNEL, 1, 1); /* an insert: waits for struct_lock */
    atomic_store(&a->done, 1);
    return NULL;
}

static int held_lock_child(void *arg) {
    (void)arg;
    fixture f;
    fixture_open(&f, "guard-lock.hm", HM_OPEN_FAULT_GUARD);
    hm_test_set_lock_wait_limit_ns(f.s, T_NO_GIVEUP_NS);
    EXPECT_EQ(hm_test_hold_struct_lock(f.s), HM_OK); /* as a call abandoned at a fault would leave it */
    waiter_arg w = {f.s, 0, 0};
    pthread_t t;
    EXPECT(pthread_create(&t, NULL, insert_behind_held_lock, &w) == 0);
    EXPECT_EQ(t_await_liveness_checks(f.s, 1, &w.done), 0); /* the waiter found the holder alive */
    EXPECT(truncate(f.path, (off_t)f.slots_offset) == 0);   /* the header, with struct_lock, remains */
    EXPECT_EQ(call_lookup(&f), HM_ECHANGED);                /* another call faults: the store is done */
    EXPECT(pthread_join(t, NULL) == 0);                     /* the waiter gave up at once */
    EXPECT_EQ(w.code, HM_ECHANGED);
    EXPECT_EQ(hm_close(f.s), HM_ECHANGED);
    hm_region_free(f.h);
    return 0;
}

/* A call waiting for a lock of the file (here struct_lock, held by the store's own owner word, as a
 * call abandoned at a fault may leave it) stops waiting when another call of the store faults, and
 * returns the store's code instead of waiting out lock_wait_limit. */
static void test_a_call_waiting_for_a_lock_stops_when_its_store_faults(void) {
    int st = in_child(held_lock_child, NULL);
    CHECK_CHILD_EXITS(st, 0, "a waiter for struct_lock when its store faults");
}

typedef struct nest_arg {
    fixture *f;
    int inner;
    int calls;
} nest_arg;

/* The hot set's scan hook: at the first slot, truncates the file and records (a guarded call
 * inside the guarded hot set). */
static void truncate_and_record(void *p, uint32_t slot) {
    nest_arg *a = p;
    if (a->calls++ != 0 || slot != 0) return;
    if (truncate(a->f->path, 0) != 0) _exit(5);
    a->inner = t_rec(a->f->s, KERNELS[0], 1, 1);
}

static int nested_child(void *arg) {
    (void)arg;
    fixture f;
    fixture_open(&f, "guard-nested.hm", HM_OPEN_FAULT_GUARD);
    nest_arg a = {&f, 0, 0};
    hm_hot_set_info info;
    int rc = hm_test_hot_set_hooked(f.s, 0.95, 1, hot_regions, 64, hot_names, sizeof hot_names, &info,
                                    truncate_and_record, &a);
    EXPECT_EQ(a.inner, HM_ECHANGED); /* the inner call took its own fault */
    EXPECT_EQ(rc, HM_ECHANGED);      /* and the outer one its next */
    EXPECT_EQ(hm_close(f.s), HM_ECHANGED);
    hm_region_free(f.h);
    return 0;
}

/* A guarded call inside another (the hot set's scan hook records): each returns the error, the
 * inner one for its own fault, the outer one for its next access. */
static void test_a_guarded_call_inside_another_returns_the_error_and_so_does_the_outer_call(void) {
    int st = in_child(nested_child, NULL);
    CHECK_CHILD_EXITS(st, 0, "a record inside a guarded hot set");
}

static void truncate_at_map(void *arg, const char *path) {
    (void)arg;
    if (truncate(path, 4096) != 0) _exit(5);
}

static int open_child(void *arg) {
    (void)arg;
    char p[1024];
    snprintf(p, sizeof p, "%s", tpath("guard-open.hm"));
    unlink(p);
    hm_options o = opts(64, 0, HM_OPEN_FAULT_GUARD);
    hm_store *s;
    char e[512];
    EXPECT_EQ(hm_open_ex(p, &o, &s, e, sizeof e), HM_OK);
    EXPECT_EQ(hm_close(s), HM_OK);
    hm_test_create_hooks hooks = {.after_map = truncate_at_map};
    s = (hm_store *)1;
    int rc = hm_test_open_hooked(p, &o, &s, e, sizeof e, &hooks);
    if (rc != HM_ETRUNCATED) fprintf(stderr, "  open: %d %s\n", rc, e);
    EXPECT_EQ(rc, HM_ETRUNCATED);
    EXPECT(s == NULL);
    EXPECT(strstr(e, "while claiming a writer entry") != NULL);
    EXPECT(strstr(e, p) != NULL);
    unlink(p);
    return 0;
}

/* A guarded open whose file is truncated between its checks and the claim of its writer entry (the
 * one access an open makes to the mapping) fails with HM_ETRUNCATED, having unmapped and freed all. */
static void test_a_guarded_open_of_a_file_truncated_before_its_claim_is_etruncated(void) {
    int st = in_child(open_child, NULL);
    CHECK_CHILD_EXITS(st, 0, "a guarded open truncated after mapping");
}

static const hm_test_case CASES[] = {
    {"every_guarded_call_on_a_truncated_file_returns_echanged_and_the_store_stays_unusable",
     test_every_guarded_call_on_a_truncated_file_returns_echanged_and_the_store_stays_unusable},
    {"a_fault_outside_a_guarded_call_still_kills_by_sigbus", test_a_fault_outside_a_guarded_call_still_kills_by_sigbus},
    {"a_fault_the_guard_does_not_take_reaches_the_handler_installed_before_it",
     test_a_fault_the_guard_does_not_take_reaches_the_handler_installed_before_it},
    {"a_sent_sigbus_keeps_the_disposition_it_had_before_the_guard",
     test_a_sent_sigbus_keeps_the_disposition_it_had_before_the_guard},
    {"threads_calling_a_guarded_store_each_get_echanged_when_its_file_is_truncated",
     test_threads_calling_a_guarded_store_each_get_echanged_when_its_file_is_truncated},
    {"a_call_waiting_for_a_lock_stops_when_its_store_faults", test_a_call_waiting_for_a_lock_stops_when_its_store_faults},
    {"a_guarded_call_inside_another_returns_the_error_and_so_does_the_outer_call",
     test_a_guarded_call_inside_another_returns_the_error_and_so_does_the_outer_call},
    {"a_guarded_open_of_a_file_truncated_before_its_claim_is_etruncated",
     test_a_guarded_open_of_a_file_truncated_before_its_claim_is_etruncated},
};

const hm_test_case *hm_t_fault_guard_cases(size_t *n) {
    *n = sizeof CASES / sizeof CASES[0];
    return CASES;
}
