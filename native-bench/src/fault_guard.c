/*
 * fault_guard.c - the fault guard (HM_OPEN_FAULT_GUARD, hm_fault_guard_install; include/hintmap.h
 * "Fault guard"): a SIGBUS raised by an access to a guarded store's mapping, inside a call of the
 * library on that store, becomes an error code of that call and leaves the store unusable, instead
 * of killing the process. C only: no Java twin, because the JVM does the same itself for every
 * MemorySegment access (a fault on a mapped file becomes an InternalError, which the Java library
 * reports as TRUNCATED).
 *
 * Why a handler and not a check: another program may truncate the file between any check (fstat,
 * hm_check) and the next load from the mapping; only the fault itself cannot be raced.
 *
 * How (the JVM's technique):
 *   - a guarded call runs its accesses to the mapping inside hmi_guard_run, which takes a frame on
 *     the caller's stack (a sigjmp_buf, the mapping's range, the enclosing guarded call's frame) and
 *     makes it the thread's innermost frame while the body runs;
 *   - the handler takes a SIGBUS that the kernel raised for a memory access (si_code > 0: not a
 *     kill, raise or sigqueue) at an address inside the thread's innermost frame's mapping, notes
 *     the address, unblocks SIGBUS and siglongjmp's to that frame; hmi_guard_run then marks the store
 *     faulted (the first fault's code wins), sets its message and returns the code;
 *   - every other SIGBUS goes on to the disposition SIGBUS had when the guard was installed, as the
 *     kernel would have delivered it: a handler is called with the same arguments (its sa_mask
 *     blocked, SA_NODEFER and SA_RESETHAND honoured), the default action kills the process (an
 *     ignored SIGBUS that a program sent stays ignored; the kernel never ignores a fault).
 *
 * Why abandoning a call at a fault is safe: the library touches the mapping only with none of its
 * process mutexes held (err_mu, giveup_mu and map_mu guard process memory, and nothing under them
 * reads the file), no descriptor open and no allocation pending (hm_region_resolve allocates
 * before its guarded part and frees on a fault), so the jump leaks nothing of the process. What it
 * may leave in the FILE is a lock word, the journal or a half-made change of this process: the
 * store never touches the mapping again (CHECK_STORE returns fault_code; hm_close only unmaps), so
 * they stay as a crashed writer's would, and other processes recover them (§6.3, §8) once this one
 * has exited. Usually the pages that held them went with the truncation.
 *
 * Nesting: a guarded call inside another (the hot set's test hook records) pushes its own frame;
 * a fault goes to the innermost frame only if the address is in that frame's mapping, since
 * jumping past a frame would abandon a call that did not fault, on a store that was not marked.
 *
 * Global state, and why: a signal handler receives only the signal, its siginfo and the context,
 * so what it needs must be reachable without arguments:
 *   - the thread's innermost frame: a _Thread_local pointer (per thread, not shared), of the
 *     initial-exec TLS model, so that the handler reads it with one load relative to the thread
 *     pointer (the general-dynamic model of a dlopen'ed library may call __tls_get_addr, which may
 *     allocate: not async-signal-safe). It costs 8 bytes of the static TLS surplus that glibc
 *     keeps for libraries loaded with dlopen;
 *   - the disposition to chain to: one per process, as SIGBUS's disposition is; written once
 *     (pthread_once) before sigaction installs the handler, and never changed after, so the
 *     handler reads a complete value. The library is linked -z nodelete, so the handler's code is
 *     never unloaded while the kernel may call it.
 *
 * No alternate signal stack (SA_ONSTACK): the faults guarded are data accesses of the library on a
 * stack in normal use, not stack overflows (those are SIGSEGV, which the guard leaves alone).
 *
 * Signal mask: frames are taken with sigsetjmp(env, 0), which saves no mask (saving it costs a
 * system call per guarded call); the handler runs with SIGBUS added to the call's mask and nothing
 * else (sa_mask empty, no SA_NODEFER), so unblocking SIGBUS before the jump restores the call's
 * mask. A synchronous SIGBUS that finds SIGBUS blocked kills the process, hence the unblocking.
 */
#define _GNU_SOURCE 1
#define HM_LIBRARY_SOURCE 1 /* this file is part of the library: hm_internal.h declares its internals */

#include "hm_internal.h"

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>

/* A guarded call's frame, on the stack of hmi_guard_run. Every field but fault_addr is written
 * before sigsetjmp and not after, so it is still determinate when the jump lands (C11 7.13.2.1). */
typedef struct hmi_guard {
    sigjmp_buf env;
    hm_store *s;
    uintptr_t lo;                 /* the mapping: [lo, lo + len) */
    size_t len;
    struct hmi_guard *outer;      /* the enclosing guarded call's frame on this thread, or NULL */
    volatile uintptr_t fault_addr; /* written by the handler */
} hmi_guard;

/* The thread's innermost guarded call (see the header comment for the TLS model). */
static _Thread_local hmi_guard *innermost __attribute__((tls_model("initial-exec")));

/* SIGBUS's disposition when the guard was installed, and whether installing failed (errno). */
static struct sigaction chained;
static int install_errno;
static pthread_once_t install_once = PTHREAD_ONCE_INIT;

/* Passes a SIGBUS the guard does not take on, as the kernel would have delivered it to `chained`.
 * Async-signal-safe: sigaction, pthread_sigmask and raise only. */
static void chain(int sig, siginfo_t *info, void *context) {
    int sent = info == NULL || info->si_code <= 0; /* kill, raise, sigqueue: not a fault */
    if (chained.sa_handler == SIG_IGN && sent) return; /* the program ignores sent SIGBUS */
    if (chained.sa_handler == SIG_DFL || chained.sa_handler == SIG_IGN) {
        /* The default action, as without the guard: a fault re-executes the access when this
         * handler returns and faults again, now fatally; a sent signal is sent again and delivered
         * (fatally) when this handler returns and SIGBUS is unblocked. */
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigemptyset(&dfl.sa_mask);
        sigaction(sig, &dfl, NULL);
        if (sent) raise(sig);
        return;
    }
    if (chained.sa_flags & SA_RESETHAND) { /* one-shot: the kernel would have reset it first */
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigemptyset(&dfl.sa_mask);
        sigaction(sig, &dfl, NULL);
    }
    sigset_t mask, before;
    mask = chained.sa_mask;
    pthread_sigmask(SIG_BLOCK, &mask, &before);
    if (chained.sa_flags & SA_NODEFER) {
        sigemptyset(&mask);
        sigaddset(&mask, sig);
        pthread_sigmask(SIG_UNBLOCK, &mask, NULL);
    }
    if (chained.sa_flags & SA_SIGINFO) chained.sa_sigaction(sig, info, context);
    else chained.sa_handler(sig);
    pthread_sigmask(SIG_SETMASK, &before, NULL);
}

static void on_sigbus(int sig, siginfo_t *info, void *context) {
    hmi_guard *g = innermost;
    if (g != NULL && info != NULL && info->si_code > 0 && (uintptr_t)info->si_addr - g->lo < g->len) {
        g->fault_addr = (uintptr_t)info->si_addr;
        sigset_t bus;
        sigemptyset(&bus);
        sigaddset(&bus, sig);
        pthread_sigmask(SIG_UNBLOCK, &bus, NULL);
        siglongjmp(g->env, 1);
    }
    chain(sig, info, context);
}

/* Once per process. The disposition to chain to is read before the handler is installed, so the
 * handler never reads it half-written; a handler another thread installs between the two calls is
 * replaced without being chained (install the guard before starting threads that install one). */
static void install(void) {
    if (sigaction(SIGBUS, NULL, &chained) != 0) {
        install_errno = errno;
        return;
    }
    struct sigaction act;
    memset(&act, 0, sizeof act);
    act.sa_sigaction = on_sigbus;
    sigemptyset(&act.sa_mask);
    act.sa_flags = SA_SIGINFO;
    if (sigaction(SIGBUS, &act, NULL) != 0) install_errno = errno;
}

int hm_fault_guard_install(void) {
    pthread_once(&install_once, install);
    return install_errno == 0 ? HM_OK : HM_EIO; /* pthread_once orders install's writes before this read */
}

/* The landing of a fault: marks the store faulted and says what happened. */
static int faulted(const hmi_guard *g) {
    hm_store *s = g->s;
    unsigned long long at = (unsigned long long)(g->fault_addr - g->lo);
    struct stat st;
    memset(&st, 0, sizeof st);
    int known = fstat(s->fd, &st) == 0;
    int code = known && (uint64_t)st.st_size < (uint64_t)s->map_bytes ? HM_ECHANGED : HM_EIO;
    int first = 0;
    /* relaxed: the code is all a later call needs; another thread's fault first: its code and message stand */
    if (!atomic_compare_exchange_strong_explicit(&s->fault_code, &first, code, RLX, RLX)) return first;
    if (code == HM_ECHANGED)
        return hmi_fail(s, code,
                        "truncated under the mapping to %lld bytes: an access at offset %llu faulted (SIGBUS, caught "
                        "by the fault guard) [check mapping, expected file_bytes %zu]; this store is unusable from "
                        "now on: close it and reopen the path",
                        (long long)st.st_size, at, s->map_bytes);
    return hmi_fail(s, code,
                    "an access at offset %llu of the mapping faulted (SIGBUS, caught by the fault guard) while the file "
                    "%s [check mapping, expected file_bytes %zu]: an I/O error, or a hole on a full filesystem; this "
                    "store is unusable from now on: close it and reopen the path",
                    at, known ? "still has its size" : "cannot be examined (fstat failed)", s->map_bytes);
}

int hmi_guard_run(hm_store *s, int (*body)(void *arg), void *arg) {
    hmi_guard g;
    g.s = s;
    g.lo = (uintptr_t)s->base;
    g.len = s->map_bytes;
    g.outer = innermost;
    g.fault_addr = 0;
    if (sigsetjmp(g.env, 0) != 0) {
        innermost = g.outer;
        return faulted(&g);
    }
    innermost = &g;
    atomic_signal_fence(memory_order_seq_cst); /* the frame is the thread's before the body's first access */
    int rc = body(arg);
    atomic_signal_fence(memory_order_seq_cst); /* and until its last */
    innermost = g.outer;
    /* A sample dropped because a lock was given up on after another thread's fault (owner_lock.c):
     * the store's code, as every call from now on returns. Relaxed: a hint, as every read of it. */
    if (rc == HM_DROPPED && atomic_load_explicit(&s->fault_code, RLX) != 0) return atomic_load_explicit(&s->fault_code, RLX);
    return rc;
}
