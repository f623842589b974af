/*
 * test_file_change.c - files changed under the mapping: grown, replaced, removed, truncated, header
 * rewritten (FORMAT §5.1; Java: FileChangeTest).
 * Registered by the runner, test_unit.c; run under ASan+UBSan (build/test_unit_asan).
 *
 * Processes that must die or hit a limit are forked children; they report through their
 * exit status, never through CHECK.
 */
#define _GNU_SOURCE 1
#include "test_cases.h"
#include "test_support.h"

#include "hintmap.h"
#include "hintmap_format.h"
#include "hm_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

static void test_check_detects_file_grown_replaced_or_removed(void) {
    char p[1024], q[1024];
    snprintf(p, sizeof p, "%s", tpath("chk.hm"));
    snprintf(q, sizeof q, "%s", tpath("chk-other.hm"));
    hm_options o = opts(16, 0, 0), ro = opts(HM_DEFAULT_CAPACITY, 1, 0);
    hm_store *s, *r;
    OPEN_OK(s, p, &o);
    OPEN_OK(r, p, &ro);
    CHECK_EQ(t_rec(s, "x", 1, 1), HM_OK);
    CHECK_EQ(hm_check(s), HM_OK);
    CHECK_EQ(hm_check(r), HM_OK);
    struct stat st;
    CHECK(stat(p, &st) == 0);
    /* grown */
    CHECK(truncate(p, st.st_size + 4096) == 0);
    CHECK_EQ(hm_check(s), HM_ECHANGED);
    CHECK(strstr(hm_last_error(s), "resized") != NULL);
    CHECK(strstr(hm_last_error(s), p) != NULL);
    CHECK_EQ(hm_check(r), HM_ECHANGED);
    CHECK(truncate(p, st.st_size) == 0);
    CHECK_EQ(hm_check(s), HM_OK);
    /* replaced: another file renamed onto the path */
    hm_store *t;
    OPEN_OK(t, q, &o);
    CHECK_EQ(hm_close(t), HM_OK);
    CHECK(rename(q, p) == 0);
    CHECK_EQ(hm_check(s), HM_ECHANGED);
    CHECK(strstr(hm_last_error(s), "replaced") != NULL);
    CHECK_EQ(hm_check(r), HM_ECHANGED);
    CHECK(strstr(hm_last_error(r), "replaced") != NULL);
    /* the old stores still work on the old inode: nothing faults */
    CHECK_EQ(t_rec(s, "x", 1, 1), HM_OK);
    hm_region_record rr;
    CHECK_EQ(t_look(r, "x", &rr), HM_OK);
    CHECK_EQ(rr.dispatch_count, 2);
    CHECK_EQ(hm_close(s), HM_OK);
    CHECK_EQ(hm_close(r), HM_OK);
    /* removed */
    OPEN_OK(s, p, &o);
    CHECK(unlink(p) == 0);
    CHECK_EQ(hm_check(s), HM_ECHANGED);
    CHECK(strstr(hm_last_error(s), "removed") != NULL);
    CHECK_EQ(hm_close(s), HM_OK);
    /* replaced by a symbolic link to the same file */
    OPEN_OK(s, p, &o);
    CHECK(rename(p, q) == 0);
    CHECK(symlink(q, p) == 0);
    CHECK_EQ(hm_check(s), HM_ECHANGED);
    CHECK(strstr(hm_last_error(s), "symbolic link") != NULL);
    CHECK_EQ(hm_close(s), HM_OK);
    unlink(p);
    unlink(q);
    /* truncated: reported before any access; close checks the size before touching its entry */
    OPEN_OK(s, p, &o);
    OPEN_OK(r, p, &ro);
    CHECK_EQ(t_rec(s, "x", 1, 1), HM_OK);
    CHECK(truncate(p, 8192) == 0); /* the writer table's first page survives */
    CHECK_EQ(hm_check(s), HM_ECHANGED);
    CHECK(strstr(hm_last_error(s), "truncated") != NULL);
    CHECK(strstr(hm_last_error(s), "SIGBUS") != NULL);
    CHECK_EQ(hm_check(r), HM_ECHANGED);
    CHECK_EQ(hm_close(s), HM_OK); /* its entry is still in the file: released */
    {
        char e[512];
        hm_store *x;
        CHECK_EQ(hm_open_ex(p, &o, &x, e, sizeof e), HM_ETRUNCATED); /* a reopen refuses it */
        CHECK(strstr(e, "file_bytes") != NULL);
    }
    OPEN_OK(s, q, &o); /* a writer whose entry page is then cut off entirely */
    CHECK(truncate(q, 2048) == 0);
    CHECK_EQ(hm_check(s), HM_ECHANGED);
    CHECK_EQ(hm_close(s), HM_ECHANGED); /* no SIGBUS: the entry is left for reclaim */
    CHECK_EQ(hm_close(r), HM_OK);
    unlink(p);
    unlink(q);
    CHECK_EQ(hm_check(NULL), HM_EINVAL);
}

/* A file truncated by another program while a writer records into it: the writer is killed by
 * SIGBUS at its next access to a lost page (the documented behaviour in C: the library installs
 * no signal handler); a store that polls hm_check() learns of it before touching anything. */
static void test_truncated_file_kills_writer_by_sigbus_and_check_sees_it_first(void) {
    char p[1024];
    snprintf(p, sizeof p, "%s", tpath("sigbus.hm"));
    hm_options o = opts(64, 0, 0), ro = opts(HM_DEFAULT_CAPACITY, 1, 0);
    hm_store *s;
    OPEN_OK(s, p, &o);
    CHECK_EQ(hm_close(s), HM_OK);
    hm_store *r;
    OPEN_OK(r, p, &ro);
    int fds[2];
    CHECK(pipe(fds) == 0);
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        signal(SIGBUS, SIG_DFL); /* the sanitizer's handler would turn the signal into a report */
        alarm(30);               /* a different signal if SIGBUS never came */
        hm_store *cs;
        if (hm_open(p, NULL, &cs) != HM_OK) _exit(70);
        char nb[16];
        for (unsigned long n = 0;; n++) {
            snprintf(nb, sizeof nb, "t-%lu", n % 48);
            if (t_rec(cs, nb, 1, 1) != HM_OK) _exit(71);
            if (n == 1000 && write(fds[1], "r", 1) != 1) _exit(72);
        }
    }
    close(fds[1]);
    char c;
    CHECK(read(fds[0], &c, 1) == 1);
    close(fds[0]);
    CHECK_EQ(hm_check(r), HM_OK);
    CHECK(truncate(p, 0) == 0);
    int st = wait_status(pid);
    if (!WIFSIGNALED(st)) fprintf(stderr, "  child status 0x%x\n", st);
    CHECK(WIFSIGNALED(st));
    CHECK_EQ(WTERMSIG(st), SIGBUS);
    CHECK_EQ(hm_check(r), HM_ECHANGED); /* without touching the mapping */
    CHECK(strstr(hm_last_error(r), "truncated") != NULL);
    CHECK_EQ(hm_close(r), HM_OK);
    unlink(p);
}

/* The header in the mapping changed under a live store: a hole punched over it (magic reads 0),
 * another magic, another layout fingerprint; hm_check reports each, and all is well again when
 * the header is restored. */
static void test_check_detects_header_changed_in_mapping(void) {
    char p[1024];
    snprintf(p, sizeof p, "%s", tpath("punched.hm"));
    hm_options o = opts(16, 0, 0);
    hm_store *s;
    OPEN_OK(s, p, &o);
    CHECK_EQ(t_rec(s, "x", 1, 1), HM_OK);
    hm_file_header h;
    int fd = open(p, O_RDWR);
    CHECK(fd >= 0);
    CHECK(pread(fd, &h, sizeof h, 0) == (ssize_t)sizeof h);
    if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 4096) != 0) {
        int e = errno;
        close(fd);
        CHECK_EQ(hm_close(s), HM_OK);
        CHECK(e == EOPNOTSUPP);
        hm_t_skip("the filesystem of %s cannot punch holes (%s)", hm_t_dir, strerror(e));
        return;
    }
    CHECK_EQ(hm_check(s), HM_EUNFINISHED);
    CHECK(strstr(hm_last_error(s), "changed under the store") != NULL);
    CHECK(strstr(hm_last_error(s), "magic is now 0") != NULL);
    hm_file_header bad = h;
    atomic_store(&bad.magic, UINT64_C(0x1234));
    CHECK(pwrite(fd, &bad, sizeof bad, 0) == (ssize_t)sizeof bad);
    CHECK_EQ(hm_check(s), HM_ENOTHINT);
    CHECK(strstr(hm_last_error(s), "changed under the store") != NULL);
    bad = h;
    bad.layout_fingerprint ^= 1;
    CHECK(pwrite(fd, &bad, sizeof bad, 0) == (ssize_t)sizeof bad);
    CHECK_EQ(hm_check(s), HM_ELAYOUT);
    CHECK(strstr(hm_last_error(s), "layout_fingerprint") != NULL);
    CHECK(pwrite(fd, &h, sizeof h, 0) == (ssize_t)sizeof h);
    CHECK_EQ(hm_check(s), HM_OK);
    close(fd);
    CHECK_EQ(hm_close(s), HM_OK);
}

const hm_test_case *hm_t_file_change_cases(size_t *n) {
    static const hm_test_case cases[] = {
        {"check_detects_file_grown_replaced_or_removed", test_check_detects_file_grown_replaced_or_removed},
        {"truncated_file_kills_writer_by_sigbus_and_check_sees_it_first",
         test_truncated_file_kills_writer_by_sigbus_and_check_sees_it_first},
        {"check_detects_header_changed_in_mapping", test_check_detects_header_changed_in_mapping},
    };
    *n = sizeof cases / sizeof cases[0];
    return cases;
}
