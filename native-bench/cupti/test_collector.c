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
 * usage: test_collector COLLECTOR.so FAKE_CUPTI.so DIR        (run by `make cupti-test`)
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

static void scenario_hang(void) {
    setenv("FAKE_CUPTI_FLUSH_HANG", "1", 1);
    setenv("HINTMAP_EXIT_FLUSH_MS", "300", 1);
    child_start();
    kernel("_Z4zetav", 5);
    if (deliver() != 0) _exit(95);
    kernel("_Z3epsv", 5); /* the hung flush never delivers it */
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

/* Runs one scenario in a child; its exit status must be 0 within 20 s. */
static void run(const char *scenario, void (*body)(void)) {
    pid_t p = fork();
    if (p == 0) {
        child_setup(scenario);
        body();
        _exit(99);
    }
    int st = 0;
    pid_t w = 0;
    for (int i = 0; i < 2000 && (w = waitpid(p, &st, WNOHANG)) == 0; i++) nanosleep(&(struct timespec){0, 10000000}, NULL);
    if (w == 0) {
        kill(p, SIGKILL);
        waitpid(p, &st, 0);
        CHECK(0, "%s: the child did not exit within 20 s (a hang at exit?)", scenario);
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

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: test_collector COLLECTOR.so FAKE_CUPTI.so DIR\n");
        return 2;
    }
    collector = argv[1], fake = argv[2], dir = argv[3];
    unsetenv("HINTMAP_FILE");

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

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    run("hang", scenario_hang);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    CHECK(secs < 5, "hang: exit took %.1f s with HINTMAP_EXIT_FLUSH_MS=300", secs);
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

    printf("test_collector: %s (main, hang, _exit, badfile, refuse)\n", failures ? "FAILED" : "ok");
    return failures != 0;
}
