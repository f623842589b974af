/*
 * test_load - libhintmap_cupti.so loads with dlopen and InitializeInjection returns cleanly where
 * it cannot record (no CUDA driver here; CUPTI missing; a bad option; a file it cannot open):
 * it returns 1, prints exactly one "hintmap-cupti: " line to stderr containing EXPECT, and
 * the process exits normally. A second call prints nothing more (one set-up per process).
 *
 * usage: test_load LIB.so EXPECT [--preload]
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
        fprintf(stderr, "usage: test_load LIB.so EXPECT [--preload]\n");
        return 2;
    }
    int preload = argc > 3 && strcmp(argv[3], "--preload") == 0;
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
    char line[1024], first[1024] = "";
    int lines = 0, ours = 0;
    while (f && fgets(line, sizeof line, f)) {
        if (lines++ == 0) snprintf(first, sizeof first, "%s", line);
        if (strncmp(line, "hintmap-cupti: ", 15) == 0) ours++;
    }
    if (f) fclose(f);
    unlink(log);
    first[strcspn(first, "\n")] = '\0';
    int ok = why == NULL && r1 == 1 && r2 == 1 && lines == 1 && ours == 1 && strstr(first, argv[2]) != NULL;
    printf("%s %s: %s%s -> \"%s\"\n", ok ? "ok  " : "FAIL", preload ? "dlopen (LD_PRELOAD path)" : "InitializeInjection",
           argv[2], why ? why : "", first);
    if (!ok) fprintf(stderr, "test_load: returned %d/%d, %d stderr lines (%d ours), expected one containing \"%s\"\n", r1, r2, lines, ours, argv[2]);
    return ok ? 0 : 1;
}
