/*
 * test_collector - the collector's real buffer path, with build/libfake_cupti.so standing in for
 * libcupti (HINTMAP_CUPTI_LIB): each scenario runs in a child process that loads the collector,
 * has the fake CUPTI hand it hand-built CUpti_ActivityKernel10 / Memcpy6 records, and ends with
 * exit() or _exit(); the parent then reads the hint file and the child's stderr. No GPU.
 *   main     handles cached per name; a name address reused by another kernel (module unloaded)
 *            gets its own region; memcpy bytes; CUPTI's dropped count; the exit flush delivers
 *            what was still queued; a forked child neither records nor flushes
 *   hang     a flush that never returns: exit still ends within HINTMAP_EXIT_FLUSH_MS, one line
 *   _exit    no exit flush: what was delivered is in the file, what was queued is not
 *   badfile  the file cannot be opened after CUPTI accepted: one line, no fd or mapping left
 *   refuse   CUPTI refuses: one line, no file
 *   longname a 300-byte kernel name into a file of max_name_bytes 64: stored in the format's stored
 *            form (FORMAT §1.1) and found by the whole name
 * usage: test_collector COLLECTOR.so FAKE_CUPTI.so DIR [longname]   (run by `make cupti-test`; with
 *        `longname`, only that scenario, leaving DIR/longname.hints for the Java side to read)
 */
#define _GNU_SOURCE
#include <cupti.h>
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hintmap.h"
#include "hmc_check.h"

static const char *collector, *fake, *dir;
static void (*q)(const void *, size_t);
static int (*deliver)(void);
static void (*drop)(size_t);


static void kernel(const char *name, uint64_t ns) {
    CUpti_ActivityKernel10 k;
    memset(&k, 0, sizeof k);
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.name = name;
    k.start = 1000;
    k.end = 1000 + ns;
    k.gridX = k.gridY = k.gridZ = k.blockX = k.blockY = k.blockZ = 1;
    q(&k, sizeof k);
}

static int count_fds(void) {
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) n += e->d_name[0] != '.';
    if (d) closedir(d);
    return n;
}

static int maps_mention(const char *what) {
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    int n = 0;
    while (f && fgets(line, sizeof line, f)) n += strstr(line, what) != NULL;
    if (f) fclose(f);
    return n;
}

/* In the child: load the fake CUPTI, then the collector (InitializeInjection, as the driver does). */
static void child_setup(const char *scenario) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s.err", dir, scenario);
    if (freopen(path, "w", stderr) == NULL) _exit(90);
    setvbuf(stderr, NULL, _IONBF, 0);
    void *f = dlopen(fake, RTLD_NOW | RTLD_LOCAL);
    if (f == NULL) _exit(91);
    *(void **)&q = dlsym(f, "fake_cupti_queue");
    *(void **)&deliver = dlsym(f, "fake_cupti_deliver");
    *(void **)&drop = dlsym(f, "fake_cupti_drop");
    snprintf(path, sizeof path, "%s/%s.hints", dir, scenario);
    if (getenv("HINTMAP_FILE") == NULL) setenv("HINTMAP_FILE", path, 1);
    setenv("HINTMAP_CUPTI_LIB", fake, 1); /* the collector's dlopen finds the one loaded above */
    setenv("HINTMAP_NAME", "mangled", 1);
    setenv("HINTMAP_VERBOSE", "1", 1);
    setenv("CUDA_INJECTION64_PATH", collector, 1);
}

static void child_start(void) {
    void *c = dlopen(collector, RTLD_NOW | RTLD_LOCAL);
    if (c == NULL) _exit(92);
    int (*init)(void);
    *(void **)&init = dlsym(c, "InitializeInjection");
    if (init == NULL || init() != 1) _exit(93);
}

static void *deliver_main(void *arg) { (void)arg; return deliver() == 0 ? NULL : (void *)1; }

static void scenario_main(void) {
    child_start();
    static char name[32] = "_Z5alphav"; /* one address, reused below for another kernel */
    kernel(name, 100); kernel(name, 200); kernel("_Z4betav", 50); kernel(name, 300); kernel("_Z4betav", 50);
    pthread_t t; /* CUPTI delivers from its worker thread */
    void *r = (void *)1;
    if (pthread_create(&t, NULL, deliver_main, NULL) != 0 || pthread_join(t, &r) != 0 || r != NULL) _exit(94);
    strcpy(name, "_Z5gammav"); /* the module of alpha unloaded, its name's memory reused */
    kernel(name, 1000);
    CUpti_ActivityMemcpy6 m;
    memset(&m, 0, sizeof m);
    m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
    m.bytes = 4096; m.start = 10; m.end = 30;
    q(&m, sizeof m);
    drop(5);
    if (deliver() != 0) _exit(95);
    kernel("_Z5deltav", 7); /* still queued at exit: only the exit flush delivers it */
    pid_t p = fork();
    if (p == 0) { /* a forked child: delivers a copy of the queue, exits through exit() */
        deliver();
        kernel("_Z5deltav", 7);
        exit(0);
    }
    int st = 0;
    if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st) != 0) _exit(96);
    exit(0);
}

/* The hang scenario's exit, timed inside the child (shared with the parent): from the call of
 * exit() to the last exit handler, which runs after the collector's. Only the bounded wait is in
 * it, not the child's start-up, which a loaded machine can stretch. */
static struct exit_times {
    double called_ms, done_ms;
} *exit_times;

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void exit_done(void) { exit_times->done_ms = now_ms(); }

static void scenario_hang(void) {
    setenv("FAKE_CUPTI_FLUSH_HANG", "1", 1);
    setenv("HINTMAP_EXIT_FLUSH_MS", "300", 1);
    if (atexit(exit_done) != 0) _exit(98); /* before the collector's: runs after it */
    child_start();
    kernel("_Z4zetav", 5);
    if (deliver() != 0) _exit(95);
    kernel("_Z3epsv", 5); /* the hung flush never delivers it */
    exit_times->called_ms = now_ms();
    exit(0);
}

static void scenario_underscore_exit(void) {
    child_start();
    kernel("_Z3etav", 5);
    if (deliver() != 0) _exit(95);
    kernel("_Z5thetav", 5);
    _exit(0);
}

static void scenario_badfile(void) {
    char path[512];
    snprintf(path, sizeof path, "%s/no-such-dir/x.hints", dir);
    setenv("HINTMAP_FILE", path, 1);
    int before = count_fds();
    child_start();
    int after = count_fds();
    if (after != before || maps_mention("x.hints")) _exit(97);
    exit(0);
}

static void scenario_refuse(void) {
    setenv("FAKE_CUPTI_REFUSE", "1", 1);
    child_start();
    exit(0);
}

/* A kernel name as templated C++ code has them: 300 bytes, spaces and punctuation. */
static const char *long_name(void) {
    static char name[301];
    const char *head = "void cute::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, int>, ";
    const char *more = "cutlass::epilogue::collective::DefaultEpilogue<float, 8>, ";
    size_t n = strlen(head), m = strlen(more);
    memcpy(name, head, n);
    for (size_t i = 0; n < 299; n++, i++) name[n] = more[i % m];
    name[299] = ')';
    name[300] = '\0';
    return name;
}

static void scenario_longname(void) {
    setenv("HINTMAP_NAME_BYTES", "64", 1);
    child_start();
    kernel(long_name(), 150000); kernel(long_name(), 250000); kernel(long_name(), 200000);
    if (deliver() != 0) _exit(95);
    exit(0);
}

/* Runs one scenario in a child; its exit status must be 0 (within 120 s: a hang otherwise). */
static void run(const char *scenario, void (*body)(void)) {
    pid_t p = fork();
    if (p == 0) {
        child_setup(scenario);
        body();
        _exit(99);
    }
    int st = 0;
    pid_t w = 0;
    double limit = now_ms() + 120000;
    while ((w = waitpid(p, &st, WNOHANG)) == 0 && now_ms() < limit) nanosleep(&(struct timespec){0, 10000000}, NULL);
    if (w == 0) {
        kill(p, SIGKILL);
        waitpid(p, &st, 0);
        CHECK(0, "%s: the child did not exit within 120 s (a hang at exit?)", scenario);
        return;
    }
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: child status %d", scenario, st);
}

static char *slurp(const char *scenario) {
    static char buf[8192];
    char path[512];
    snprintf(path, sizeof path, "%s/%s.err", dir, scenario);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f) fclose(f);
    buf[n] = '\0';
    return buf;
}

static int lines(const char *s) {
    int n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

/* Expects region `name` with `count` dispatches, `ns` total and `bytes` (count 0: absent). */
static void expect(hm_store *s, const char *scenario, const char *name, uint64_t count, uint64_t ns, uint64_t bytes) {
    hm_region_record r;
    int rc = hm_lookup(s, name, strlen(name), &r);
    if (count == 0) {
        CHECK(rc == HM_ENOTFOUND, "%s: %s should be absent (rc %d, count %llu)", scenario, name, rc,
              rc == 0 ? (unsigned long long)r.dispatch_count : 0ULL);
        return;
    }
    CHECK(rc == HM_OK, "%s: %s absent (%s)", scenario, name, hm_strerror(rc));
    if (rc == HM_OK)
        CHECK(r.dispatch_count == count && r.kernel_ns_total == ns && r.bytes_total == bytes,
              "%s: %s: count %llu ns %llu bytes %llu, want %llu %llu %llu", scenario, name,
              (unsigned long long)r.dispatch_count, (unsigned long long)r.kernel_ns_total,
              (unsigned long long)r.bytes_total, (unsigned long long)count, (unsigned long long)ns,
              (unsigned long long)bytes);
}

static hm_store *open_file(const char *scenario) {
    char path[512], err[256];
    snprintf(path, sizeof path, "%s/%s.hints", dir, scenario);
    hm_store *s = NULL;
    int rc = hm_open_ex(path, NULL, &s, err, sizeof err);
    CHECK(rc == 0, "%s: %s", scenario, err);
    return rc == 0 ? s : NULL;
}

/* The collector's file holds the long name in its stored form; every C query finds it by the whole name. */
static void check_longname(void) {
    run("longname", scenario_longname);
    hm_store *s = open_file("longname");
    if (s == NULL) return;
    const char *name = long_name();
    size_t n = strlen(name);
    expect(s, "longname", name, 3, 600000, 0);
    CHECK(hm_max_name_bytes(s) == 64, "longname: max_name_bytes %u", hm_max_name_bytes(s));
    CHECK(hm_is_hot(s, name, n) == 1, "longname: not hot by the whole name");
    hm_region *h = NULL;
    hm_region_record r;
    CHECK(hm_region_resolve(s, name, n, &h) == HM_OK && hm_region_lookup(h, &r) == HM_OK && r.dispatch_count == 3,
          "longname: handle");
    hm_region_free(h);
    char stored[64], at[1024];
    size_t stored_len = 0, at_len = 0;
    CHECK(hm_name_canonical(name, n, 64, stored, sizeof stored, &stored_len) == HM_OK, "longname: canonical");
    CHECK(hm_region_at(s, 0, at, sizeof at, &at_len, &r) == HM_OK && at_len == stored_len && memcmp(at, stored, at_len) == 0,
          "longname: slot 0 holds '%.*s', want '%.*s'", (int)at_len, at, (int)stored_len, stored);
    hm_close(s);
}

int main(int argc, char **argv) {
    if (argc != 4 && !(argc == 5 && strcmp(argv[4], "longname") == 0)) {
        fprintf(stderr, "usage: test_collector COLLECTOR.so FAKE_CUPTI.so DIR [longname]\n");
        return 2;
    }
    collector = argv[1], fake = argv[2], dir = argv[3];
    unsetenv("HINTMAP_FILE");
    if (argc == 5) {
        check_longname();
        printf("test_collector: %s (longname)\n", failures ? "FAILED" : "ok");
        return failures != 0;
    }

    run("main", scenario_main);
    const char *err = slurp("main");
    CHECK(strstr(err, "hintmap-cupti: recording into") != NULL, "main: no start line: %s", err);
    CHECK(strstr(err, " cupti_dropped=5 ") != NULL && strstr(err, " names_reused=1") != NULL &&
              strstr(err, " kernels=7 ") != NULL && strstr(err, " transfers=1 ") != NULL,
          "main: exit line: %s", err);
    CHECK(lines(err) == 3 && strncmp(err, "hintmap-cupti: loaded into pid ", 31) == 0,
          "main: %d stderr lines (loaded, a start, one exit line; none from the forked child): %s", lines(err), err);
    hm_store *s = open_file("main");
    if (s) {
        expect(s, "main", "_Z5alphav", 3, 600, 0);
        expect(s, "main", "_Z4betav", 2, 100, 0);
        expect(s, "main", "_Z5gammav", 1, 1000, 0);
        expect(s, "main", "[memcpy HtoD]", 1, 20, 4096);
        expect(s, "main", "_Z5deltav", 1, 7, 0);
        hm_close(s);
    }

    exit_times = mmap(NULL, sizeof *exit_times, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(exit_times != MAP_FAILED, "mmap: %s", strerror(errno));
    if (exit_times == MAP_FAILED) return 1;
    run("hang", scenario_hang);
    double exit_ms = exit_times->done_ms - exit_times->called_ms;
    /* waited for the bound asked for (a lower bound the clock cannot break), and not for the
     * 5 s default: the upper bound leaves 4.7 s for a scheduler delay within exit() alone */
    CHECK(exit_times->called_ms > 0 && exit_times->done_ms > 0, "hang: exit not timed (%.1f, %.1f)",
          exit_times->called_ms, exit_times->done_ms);
    CHECK(exit_ms >= 299 && exit_ms < 5000, "hang: exit took %.1f ms with HINTMAP_EXIT_FLUSH_MS=300", exit_ms);
    err = slurp("hang");
    CHECK(strstr(err, "exit flush not done after 300 ms") != NULL, "hang: %s", err);
    if ((s = open_file("hang")) != NULL) {
        expect(s, "hang", "_Z4zetav", 1, 5, 0);
        expect(s, "hang", "_Z3epsv", 0, 0, 0);
        hm_close(s);
    }

    run("_exit", scenario_underscore_exit);
    if ((s = open_file("_exit")) != NULL) {
        expect(s, "_exit", "_Z3etav", 1, 5, 0);
        expect(s, "_exit", "_Z5thetav", 0, 0, 0);
        hm_close(s);
    }

    run("badfile", scenario_badfile);
    err = slurp("badfile");
    CHECK(lines(err) == 2 && strncmp(err, "hintmap-cupti: loaded into pid ", 31) == 0 &&
              strstr(err, "hintmap-cupti: cannot open ") != NULL && strstr(err, "not recording") != NULL,
          "badfile: %s", err);

    run("refuse", scenario_refuse);
    err = slurp("refuse");
    CHECK(lines(err) == 2 && strncmp(err, "hintmap-cupti: loaded into pid ", 31) == 0 &&
              strstr(err, "hintmap-cupti: cuptiActivityEnable: FAKE_CUPTI_ERROR") != NULL, "refuse: %s", err);
    char path[512];
    snprintf(path, sizeof path, "%s/refuse.hints", dir);
    CHECK(access(path, F_OK) != 0, "refuse: %s was created", path);

    check_longname();

    printf("test_collector: %s (main, hang, _exit, badfile, refuse, longname)\n", failures ? "FAILED" : "ok");
    return failures != 0;
}
