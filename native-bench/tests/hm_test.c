/* hm_test.c - the runner of hm_test.h. */
#define _GNU_SOURCE 1
#include "hm_test.h"

#include "hintmap_format.h"
#include "hm_internal.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int hm_t_failures;
int hm_t_skipped;
char hm_t_dir[512];
static char hm_t_skip_why[512];

void hm_t_skip(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(hm_t_skip_why, sizeof hm_t_skip_why, fmt, ap);
    va_end(ap);
    hm_t_skipped = 1;
}

const char *tpath(const char *name) {
    static char bufs[64][1024];
    static int next;
    char *b = bufs[next++ & 63];
    snprintf(b, sizeof bufs[0], "%s/%s", hm_t_dir, name);
    return b;
}

int t_await_liveness_checks(hm_store *s, uint64_t checks, _Atomic int *done) {
    double limit = t_now_ms() + T_HANG_MS;
    while (hm_test_liveness_checks(s) < checks && !atomic_load(done)) {
        if (t_now_ms() > limit) return -1;
        usleep(1000);
    }
    return 0;
}

int t_write_file(const char *path, const void *data, size_t len) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) return -1;
    const unsigned char *p = data;
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, p + done, len - done);
        if (w <= 0) { close(fd); return -1; }
        done += (size_t)w;
    }
    return close(fd);
}

unsigned char *t_read_file(const char *path, size_t *len) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) return NULL;
    struct stat st;
    if (fstat(fd, &st) != 0) { close(fd); return NULL; }
    size_t n = (size_t)st.st_size;
    unsigned char *buf = malloc(n + 1);
    size_t done = 0;
    while (buf && done < n) {
        ssize_t r = read(fd, buf + done, n - done);
        if (r <= 0) break;
        done += (size_t)r;
    }
    close(fd);
    if (buf) buf[done] = 0;
    *len = done;
    return buf;
}

static void clean_dir(void) {
    DIR *d = opendir(hm_t_dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", hm_t_dir, e->d_name);
        unlink(p);
    }
    closedir(d);
}

int hm_run_tests(const hm_test_case *cases, size_t n, const char *filter) {
    const char *base = getenv("TMPDIR");
    snprintf(hm_t_dir, sizeof hm_t_dir, "%s/hm-test-XXXXXX", base && *base ? base : "/tmp");
    if (mkdtemp(hm_t_dir) == NULL) {
        perror("mkdtemp");
        return 2;
    }
    int passed = 0, failed = 0, skipped = 0;
    /* Test names say the behaviour, so they are long: pad to the longest, keeping the times in
     * one column. */
    int width = 0;
    for (size_t i = 0; i < n; i++) {
        int len = (int)strlen(cases[i].name);
        if (len > width) width = len;
    }
    for (size_t i = 0; i < n; i++) {
        if (filter && !strstr(cases[i].name, filter)) continue;
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        hm_t_failures = 0;
        hm_t_skipped = 0;
        cases[i].fn();
        clock_gettime(CLOCK_MONOTONIC, &b);
        double ms = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
        if (hm_t_failures == 0 && hm_t_skipped) {
            skipped++;
            printf("SKIP %s: %s\n", cases[i].name, hm_t_skip_why);
        } else if (hm_t_failures == 0) {
            passed++;
            printf("ok   %-*s %8.1f ms\n", width, cases[i].name, ms);
        } else {
            failed++;
            printf("FAIL %-*s %8.1f ms\n", width, cases[i].name, ms);
        }
        fflush(stdout);
        clean_dir();
    }
    rmdir(hm_t_dir);
    if (skipped) printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
    else printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}

uint64_t t_token_of(long pid) {
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (f == NULL) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    if (p == NULL) return 0;
    p++;
    for (int field = 3; field < 22; field++) {
        while (*p == ' ') p++;
        while (*p && *p != ' ') p++;
    }
    return (uint64_t)pid << HM_TOKEN_START_BITS | (strtoull(p, NULL, 10) & HM_TOKEN_START_MASK);
}

uint64_t t_plant_owner(hm_store *s, uint32_t i, long pid) {
    hm_writer_entry *w = (hm_writer_entry *)((unsigned char *)hm_test_mapping(s) + HM_HEADER_BYTES) + i;
    uint64_t gen = atomic_load(&w->generation) + 1;
    atomic_store(&w->generation, gen);
    atomic_store(&w->token, t_token_of(pid));
    return (gen & 0xFFFFFFFFu) << 32 | ((uint64_t)i + 1);
}

int t_rec(hm_store *s, const char *name, uint64_t ns, uint64_t bytes) {
    return hm_record(s, name, strlen(name), ns, bytes);
}

int t_look(hm_store *s, const char *name, hm_region_record *r) {
    return hm_lookup(s, name, strlen(name), r);
}

double t_now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}
