/*
 * process_identity.c - processes named by pid and start time (the writer token of FORMAT §3.5) and
 * whether they still run (§6.3, §5 step 1), from /proc/<pid>/stat and /proc/<pid>/status.
 * Twin of the Java class dev.hintmap.os.ProcessIdentity.
 *
 * Section references (§n) are to docs/FORMAT.md. Every atomic access to the mapping names its
 * memory order; the one-line comment next to it says why. Decisions that FORMAT.md leaves open
 * are marked "DECISION:". The library's internal interface is src/hm_internal.h.
 */
#define _GNU_SOURCE 1
#define HM_LIBRARY_SOURCE 1 /* this file is part of the library: hm_internal.h declares its internals */

#include "hm_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Reads state (field 3) and starttime (field 22) of /proc/<pid>/stat.
 * Returns 1 found, 0 no such process, -1 cannot tell. */
static int proc_stat_read(uint64_t pid, char *state, uint64_t *start_ticks) {
    char path[48];
    char buf[1024];
    snprintf(path, sizeof path, "/proc/%llu/stat", (unsigned long long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return (errno == ENOENT || errno == ESRCH) ? 0 : -1;
    size_t got = 0;
    while (got < sizeof buf - 1) {
        ssize_t r = read(fd, buf + got, sizeof buf - 1 - got);
        if (r < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            close(fd);
            return e == ESRCH ? 0 : -1;
        }
        if (r == 0) break;
        got += (size_t)r;
    }
    close(fd);
    buf[got] = '\0';
    return hmi_stat_parse(buf, got, state, start_ticks);
}

/* The fields of a /proc/<pid>/stat text (§3.5): 1 parsed, -1 cannot tell -- no ')', fewer than 22
 * fields, an empty text included (§6.3: the owner is then alive, no lock is taken on a guess: an
 * empty file can be a read racing the exit of a live process). */
int hmi_stat_parse(char *buf, size_t got, char *state, uint64_t *start_ticks) {
    if (got == 0) return -1;
    /* Field 2 (comm) may contain spaces and ')': fields 3.. start after the LAST ')'. */
    char *p = memrchr(buf, ')', got);
    if (p == NULL) return -1;
    p++;
    for (int field = 3; field <= 22; field++) {
        while (*p == ' ') p++;
        if (*p == '\0') return -1;
        if (field == 3) {
            *state = *p;
        } else if (field == 22) {
            char *end;
            errno = 0;
            unsigned long long v = strtoull(p, &end, 10);
            if (end == p || errno != 0) return -1;
            *start_ticks = (uint64_t)v;
            return 1;
        }
        while (*p != ' ' && *p != '\0') p++;
    }
    return -1;
}

/* Threads of process pid from the "Threads:" line of /proc/<pid>/status: 0 when it is gone,
 * 2 ("more than one") when it cannot be read, so that a lock is never taken on a guess. */
static long proc_thread_count(uint64_t pid) {
    char path[64];
    char buf[4096];
    snprintf(path, sizeof path, "/proc/%llu/status", (unsigned long long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return (errno == ENOENT || errno == ESRCH) ? 0 : 2;
    size_t got = 0;
    while (got < sizeof buf - 1) {
        ssize_t r = read(fd, buf + got, sizeof buf - 1 - got);
        if (r < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (r == 0) break;
        got += (size_t)r;
    }
    close(fd);
    buf[got] = '\0';
    const char *line = strstr(buf, "\nThreads:");
    if (line == NULL) return 2;
    return strtol(line + strlen("\nThreads:"), NULL, 10);
}

/* §6.3. Slow path only (lock waits after the spins, writer-entry reclaim at open). maps_rule 0:
 * without §6.3's last rule, for the writer-table reclaim (§6.1): its CAS compares the token alone,
 * and a writer that closes and reopens the file between our check and our CAS claims the same
 * entry with the same token; judged by its mappings (none in that gap) it would lose its claim. */
int hmi_token_alive(hm_store *s, uint64_t token, int maps_rule) {
    if (token == 0) return 0;
    if (token == s->token) return 1; /* this process (it maps the file: s is its mapping) */
    const uint64_t pid = token >> HM_TOKEN_START_BITS;
    char state = 0;
    uint64_t start = 0;
    int r = proc_stat_read(pid, &state, &start);
    if (r < 0) return 1; /* cannot tell: never take a lock from a process that may be alive */
    if (r == 0) return 0;
    if (state == 'X') return 0;
    if ((start & HM_TOKEN_START_MASK) != (token & HM_TOKEN_START_MASK)) return 0; /* pid reused */
    /* A zombie leader whose other threads still run (main called pthread_exit) is alive; its
     * maps read empty, so the maps rule does not apply to it. */
    if (state == 'Z') return proc_thread_count(pid) > 1;
    if (!maps_rule) return 1;
    /* Last rule: a process that does not map THIS file is not its writer: the token came with a
     * copy of a live file (cp), or names a reused pid whose start time matches. */
    return hmi_pid_maps_this_file(s, pid);
}

/* Whether process pid may still be running (§5 step 1): a creator's temporary file is removed
 * only when this says no. A zombie leader whose other threads run is running; a /proc that
 * cannot be read means "maybe", so nothing is removed on a guess. */
int hmi_pid_running(uint64_t pid) {
    if (pid == (uint64_t)getpid()) return 1;
    char state = 0;
    uint64_t start = 0;
    int r = proc_stat_read(pid, &state, &start);
    if (r < 0) return 1;
    if (r == 0 || state == 'X') return 0;
    return state != 'Z' || proc_thread_count(pid) > 1;
}

int hmi_self_token(hm_open_ctx *ctx, uint64_t *token) {
    pid_t pid = getpid();
    char state;
    uint64_t start;
    if ((uint64_t)pid >= (UINT64_C(1) << (64 - HM_TOKEN_START_BITS)))
        return OFAIL(ctx, HM_EIO, "pid %ld does not fit a writer token", (long)pid);
    if (proc_stat_read((uint64_t)pid, &state, &start) != 1)
        return OFAIL(ctx, HM_EIO, "cannot read /proc/%ld/stat: hintmap writers need Linux /proc (%s)", (long)pid, strerror(errno));
    *token = (uint64_t)pid << HM_TOKEN_START_BITS | (start & HM_TOKEN_START_MASK);
    return HM_OK;
}
