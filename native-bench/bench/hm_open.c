/* hm-open: opens (or creates) one hint file through the C library and reports the outcome as
 * one line on stdout, for tests that drive the C side from another process or language
 * (creation races, permissions, symlinks, foreign owners):
 *
 *   hm-open [--read-only] [--group-shared] [--follow-symlinks] [--allow-foreign-owner]
 *           [--capacity N] [--check] [--record NAME NS BYTES]... [--hold-ms N]
 *           [--start-at EPOCH_MS] PATH
 *
 * With --start-at it first waits until the wall clock reaches EPOCH_MS (so that processes of both
 * languages, started apart, open at the same moment: the creation-race tests). In order: hm_open_ex(PATH) with those options and flags; hm_check() if --check; each
 * --record as hm_record(NAME, NS, BYTES) (HM_DROPPED counts as success); then the line
 *
 *   OK
 *   ERR <code> <HM_ENAME> <message>       (code negative, message = the library's message)
 *
 * is printed and flushed; with --hold-ms the store stays open N ms more (its writer entry
 * held); then hm_close(). Exit status: 0 for OK, otherwise the negated code (e.g. 19 for
 * HM_ESYMLINK, 23 for HM_ESPARSE, 21 for HM_ENOSPC); 64 for a usage error (nothing opened, a usage line on stderr). An error of
 * hm_close() after OK goes to stderr and sets the exit status the same way.
 *
 * hm-open ignores SIGXFSZ (the library never touches signals), so that under a file-size limit
 * (`ulimit -f`) creation reports ERR -21 HM_ENOSPC instead of the process being killed. */
#define _GNU_SOURCE 1
#include "hintmap.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_RECORDS 64

static const char *code_name(int code) {
    switch (code) {
    case HM_OK: return "HM_OK";
    case HM_DROPPED: return "HM_DROPPED";
    case HM_EINVAL: return "HM_EINVAL";
    case HM_ENAMETOOLONG: return "HM_ENAMETOOLONG";
    case HM_EEMPTYNAME: return "HM_EEMPTYNAME";
    case HM_EBADNAME: return "HM_EBADNAME";
    case HM_ENOTHINT: return "HM_ENOTHINT";
    case HM_ETRUNCATED: return "HM_ETRUNCATED";
    case HM_EUNFINISHED: return "HM_EUNFINISHED";
    case HM_EVERSION: return "HM_EVERSION";
    case HM_ECHECKSUM: return "HM_ECHECKSUM";
    case HM_ELAYOUT: return "HM_ELAYOUT";
    case HM_EINCONSISTENT: return "HM_EINCONSISTENT";
    case HM_EOPTIONS: return "HM_EOPTIONS";
    case HM_EIO: return "HM_EIO";
    case HM_ENOMEM: return "HM_ENOMEM";
    case HM_ENOTFOUND: return "HM_ENOTFOUND";
    case HM_EWRITERS: return "HM_EWRITERS";
    case HM_EREADONLY: return "HM_EREADONLY";
    case HM_ECLOSED: return "HM_ECLOSED";
    case HM_ESYMLINK: return "HM_ESYMLINK";
    case HM_EOWNER: return "HM_EOWNER";
    case HM_ENOSPC: return "HM_ENOSPC";
    case HM_ECHANGED: return "HM_ECHANGED";
    case HM_ESPARSE: return "HM_ESPARSE";
    case HM_EMISSING: return "HM_EMISSING";
    default: return "HM_UNKNOWN";
    }
}

static int usage(const char *why) {
    fprintf(stderr,
            "hm-open: %s\n"
            "usage: hm-open [--read-only] [--group-shared] [--follow-symlinks] [--allow-foreign-owner]\n"
            "               [--capacity N] [--check] [--record NAME NS BYTES]... [--hold-ms N]\n"
            "               [--start-at EPOCH_MS] PATH\n",
            why);
    return 64;
}

static int parse_u64(const char *s, unsigned long long *out) {
    char *end;
    errno = 0;
    if (s[0] == '-') return 0;
    *out = strtoull(s, &end, 10);
    return errno == 0 && end != s && *end == '\0';
}

/* Prints the one ERR line and returns the exit status. */
static int report(int code, const char *msg) {
    printf("ERR %d %s %s\n", code, code_name(code), msg && *msg ? msg : hm_strerror(code));
    fflush(stdout);
    return -code;
}

int main(int argc, char **argv) {
    signal(SIGXFSZ, SIG_IGN);
    hm_options o;
    hm_options_init(&o);
    int check = 0;
    unsigned long long hold_ms = 0;
    unsigned long long start_at_ms = 0;
    const char *path = NULL;
    struct {
        const char *name;
        unsigned long long ns, bytes;
    } recs[MAX_RECORDS];
    int nrec = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        unsigned long long v;
        if (strcmp(a, "--read-only") == 0) {
            o.read_only = 1;
        } else if (strcmp(a, "--group-shared") == 0) {
            o.flags |= HM_OPEN_GROUP_SHARED;
        } else if (strcmp(a, "--follow-symlinks") == 0) {
            o.flags |= HM_OPEN_FOLLOW_SYMLINKS;
        } else if (strcmp(a, "--allow-foreign-owner") == 0) {
            o.flags |= HM_OPEN_ALLOW_FOREIGN_OWNER;
        } else if (strcmp(a, "--check") == 0) {
            check = 1;
        } else if (strcmp(a, "--capacity") == 0) {
            if (i + 1 >= argc || !parse_u64(argv[++i], &v) || v > 0xFFFFFFFFull) return usage("--capacity needs a number");
            hm_options_set_capacity(&o, (uint32_t)v);
        } else if (strcmp(a, "--hold-ms") == 0) {
            if (i + 1 >= argc || !parse_u64(argv[++i], &hold_ms)) return usage("--hold-ms needs a number");
        } else if (strcmp(a, "--start-at") == 0) {
            if (i + 1 >= argc || !parse_u64(argv[++i], &start_at_ms)) return usage("--start-at needs a number");
        } else if (strcmp(a, "--record") == 0) {
            if (i + 3 >= argc) return usage("--record needs NAME NS BYTES");
            if (nrec == MAX_RECORDS) return usage("at most 64 --record");
            recs[nrec].name = argv[i + 1];
            if (!parse_u64(argv[i + 2], &recs[nrec].ns) || !parse_u64(argv[i + 3], &recs[nrec].bytes))
                return usage("--record NS and BYTES must be numbers");
            nrec++;
            i += 3;
        } else if (a[0] == '-' && a[1] == '-') {
            return usage("unknown option");
        } else if (path == NULL) {
            path = a;
        } else {
            return usage("only one PATH");
        }
    }
    if (path == NULL) return usage("PATH missing");
    for (;;) { /* a spin on the wall clock: the last milliseconds are what the race is about */
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        if ((unsigned long long)now.tv_sec * 1000u + (unsigned long long)now.tv_nsec / 1000000u >= start_at_ms) break;
    }

    hm_store *s;
    char err[1024];
    int rc = hm_open_ex(path, &o, &s, err, sizeof err);
    if (rc < 0) return report(rc, err);
    if (check) {
        rc = hm_check(s);
        if (rc < 0) {
            int status = report(rc, hm_last_error(s));
            hm_close(s);
            return status;
        }
    }
    for (int i = 0; i < nrec; i++) {
        rc = hm_record(s, recs[i].name, strlen(recs[i].name), recs[i].ns, recs[i].bytes);
        if (rc < 0) {
            int status = report(rc, hm_last_error(s));
            hm_close(s);
            return status;
        }
    }
    printf("OK\n");
    fflush(stdout);
    if (hold_ms > 0) {
        struct timespec ts = {(time_t)(hold_ms / 1000), (long)(hold_ms % 1000) * 1000000L};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
        }
    }
    rc = hm_close(s);
    if (rc < 0) {
        fprintf(stderr, "hm-open: close: %d %s %s\n", rc, code_name(rc), hm_strerror(rc)); /* s is freed */
        return -rc;
    }
    return 0;
}
