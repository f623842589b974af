/*
 * test_load - libhintmap_cupti.so loads with dlopen and InitializeInjection returns cleanly where
 * it cannot record (no CUDA driver here; CUPTI missing; a bad option; a file it cannot open):
 * it returns 1, prints exactly one "hintmap-cupti: " line to stderr per EXPECT, the first
 * containing the first EXPECT and so on (HINTMAP_VERBOSE=1 adds "loaded into pid N" first), and
 * the process exits normally. A second call prints nothing more (one set-up per process).
 *
 * usage: test_load LIB.so EXPECT... [--preload]
 *   without --preload CUDA_INJECTION64_PATH is set, so set-up happens in InitializeInjection;
 *   with it, at dlopen (the LD_PRELOAD path).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: test_load LIB.so EXPECT... [--preload]\n");
        return 2;
    }
    int preload = strcmp(argv[argc - 1], "--preload") == 0;
    int expected = argc - 2 - preload;
    if (expected < 1 || expected > 4) {
        fprintf(stderr, "usage: test_load LIB.so EXPECT... [--preload] (1 to 4 EXPECT)\n");
        return 2;
    }
    if (preload) unsetenv("CUDA_INJECTION64_PATH");
    else setenv("CUDA_INJECTION64_PATH", argv[1], 1);
    char log[] = "/tmp/hmc-load-XXXXXX";
    int fd = mkstemp(log);
    if (fd < 0) { perror("mkstemp"); return 1; }
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    int r1 = -1, r2 = -1;
    const char *why = NULL;
    if (h == NULL) why = dlerror();
    else {
        int (*init)(void);
        *(void **)&init = dlsym(h, "InitializeInjection");
        if (init == NULL) why = "no InitializeInjection symbol";
        else { r1 = init(); r2 = init(); }
    }
    fflush(stderr);
    dup2(saved, 2);
    FILE *f = fopen(log, "r");
    char line[1024], seen[4][1024] = {"", "", "", ""};
    int lines = 0, ours = 0, matched = 0;
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (lines < 4) snprintf(seen[lines], sizeof seen[lines], "%s", line);
        if (lines < expected && strstr(line, argv[2 + lines]) != NULL) matched++;
        lines++;
        if (strncmp(line, "hintmap-cupti: ", 15) == 0) ours++;
    }
    if (f) fclose(f);
    unlink(log);
    int ok = why == NULL && r1 == 1 && r2 == 1 && lines == expected && ours == expected && matched == expected;
    for (int i = 0; i < expected; i++)
        printf("%s %s: %s%s -> \"%s\"\n", ok ? "ok  " : "FAIL", preload ? "dlopen (LD_PRELOAD path)" : "InitializeInjection",
               argv[2 + i], why ? why : "", seen[i]);
    if (!ok)
        fprintf(stderr, "test_load: returned %d/%d, %d stderr lines (%d ours, %d as expected), expected %d, the first containing \"%s\"\n",
                r1, r2, lines, ours, matched, expected, argv[2]);
    return ok ? 0 : 1;
}
