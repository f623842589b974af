/*
 * hm_driver_core.h - what hm-cuda-driver (src/hm_cuda_driver.cu, real kernels) and its GPU-free
 * stand-in (cupti/standin_gpu.c, records handed to the stand-in CUPTI) share: the arguments, the
 * regions (kernel x problem size), recording one timed dispatch, and the output lines that
 * gpu-check.sh reads. One copy, so that the stand-in rehearses the very parsing and output the
 * GPU run depends on. Header-only (static functions); compiles as C11 and as C++ (nvcc).
 *
 *   usage: PROG [-f FILE] [-n DISPATCHES_PER_REGION] [-s SIZES] [-q]
 *   -s: comma-separated element counts, 1..2^28 (default 4096,65536,1048576,16777216)
 *
 * Output, one tab-separated line per region (unless -q):
 *   region <name> <cupti name> <dispatches> <event_ns_total> <file_count> <file_ns_total> <file_mean_ns> <hot>
 * dispatches counts the samples the file accepted (HM_OK); event_ns_total sums the timed samples
 * this run recorded; file_* are read back from the file (they include earlier runs into it).
 * <cupti name> is the name the CUPTI collector gives the launch under HINTMAP_NAME=demangled+grid.
 */
#ifndef HM_DRIVER_CORE_H
#define HM_DRIVER_CORE_H

#include "hintmap.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HMD_KERNELS 2     /* 0 saxpy, 1 scale */
#define HMD_MAX_SIZES 64
#define HMD_MAX_REGIONS (HMD_KERNELS * HMD_MAX_SIZES)

/* Region name prefixes, and the kernels' symbols as the compiler mangles them and as the
   collector demangles them (the stand-in hands the mangled ones to the collector). */
static const char *const hmd_prefix[HMD_KERNELS] = {"saxpy_n", "scale_n"};
static const char *const hmd_mangled[HMD_KERNELS] = {"_Z5saxpyifPKfPf", "_Z5scaleifPf"};
static const char *const hmd_demangled[HMD_KERNELS] = {"saxpy(int, float, float const*, float*)",
                                                       "scale(int, float, float*)"};

typedef struct hmd_config {
    const char *prog; /* for messages: "hm-cuda-driver" */
    const char *path;
    int dispatches;
    int quiet;
    int sizes[HMD_MAX_SIZES];
    int nsizes;
    int maxn;
} hmd_config;

typedef struct hmd_region {
    char name[32];
    int kernel;
    int n;
    int blocks, threads;
    hm_region *handle;
    uint64_t count, ns_total;
} hmd_region;

static void hmd_usage(const hmd_config *c, FILE *to) {
    fprintf(to, "usage: %s [-f FILE] [-n DISPATCHES 1..10000000] [-s N1,N2,... (1..268435456)] [-q]\n", c->prog);
}

/* Whole decimal in [lo, hi], or -1. */
static long hmd_parse_long(const char *text, long lo, long hi) {
    char *end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v < lo || v > hi) return -1;
    return v;
}

/* -s N1,N2,...: 0, or 2 after a message. */
static int hmd_parse_sizes(hmd_config *c, const char *list) {
    c->nsizes = 0;
    for (const char *at = list;;) {
        const char *comma = strchr(at, ',');
        size_t len = comma ? (size_t)(comma - at) : strlen(at);
        char tok[32];
        long v = -1;
        if (len < sizeof tok) {
            memcpy(tok, at, len);
            tok[len] = '\0';
            v = hmd_parse_long(tok, 1, 1L << 28);
        } else {
            snprintf(tok, sizeof tok, "%.20s...", at);
        }
        if (v < 0) {
            fprintf(stderr, "%s: -s %s: '%s' is not an element count in 1..268435456\n", c->prog, list, tok);
            return 2;
        }
        if (c->nsizes == HMD_MAX_SIZES) {
            fprintf(stderr, "%s: -s %s: at most %d sizes\n", c->prog, list, HMD_MAX_SIZES);
            return 2;
        }
        c->sizes[c->nsizes++] = (int)v;
        if (comma == NULL) return 0;
        at = comma + 1;
    }
}

/* The arguments: -1 to go on, else the exit status (0 after -h, 2 after a usage error). */
static int hmd_parse(hmd_config *c, int argc, char **argv) {
    static const int defaults[] = {4096, 65536, 1048576, 16777216};
    c->path = "/dev/shm/hm-cuda.hm";
    c->dispatches = 200;
    c->quiet = 0;
    c->nsizes = 4;
    memcpy(c->sizes, defaults, sizeof defaults);
    int opt;
    while ((opt = getopt(argc, argv, "f:n:s:qh")) != -1) {
        switch (opt) {
        case 'f': c->path = optarg; break;
        case 'n': {
            long v = hmd_parse_long(optarg, 1, 10000000);
            if (v < 0) {
                fprintf(stderr, "%s: -n %s: expected 1..10000000 dispatches\n", c->prog, optarg);
                return 2;
            }
            c->dispatches = (int)v;
            break;
        }
        case 's':
            if (hmd_parse_sizes(c, optarg) != 0) return 2;
            break;
        case 'q': c->quiet = 1; break;
        case 'h': hmd_usage(c, stdout); return 0;
        default: hmd_usage(c, stderr); return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "%s: unexpected argument '%s'\n", c->prog, argv[optind]);
        hmd_usage(c, stderr);
        return 2;
    }
    c->maxn = 0;
    for (int i = 0; i < c->nsizes; i++) c->maxn = c->sizes[i] > c->maxn ? c->sizes[i] : c->maxn;
    return -1;
}

/* Opens the file and resolves one handle per region (kernel-major): 0, or 1 after a message. */
static int hmd_open(const hmd_config *c, hm_store **s, hmd_region *r, int *nregions) {
    char err[512];
    *nregions = 0;
    if (hm_open_ex(c->path, NULL, s, err, sizeof err) < 0) {
        fprintf(stderr, "%s: %s\n", c->prog, err);
        return 1;
    }
    for (int k = 0; k < HMD_KERNELS; k++)
        for (int i = 0; i < c->nsizes; i++) {
            hmd_region *x = &r[*nregions];
            memset(x, 0, sizeof *x);
            x->kernel = k;
            x->n = c->sizes[i];
            x->threads = 256;
            x->blocks = (x->n + x->threads - 1) / x->threads;
            if (x->blocks > 65535) x->blocks = 65535;
            snprintf(x->name, sizeof x->name, "%s%d", hmd_prefix[k], x->n);
            if (hm_region_resolve(*s, x->name, strlen(x->name), &x->handle) < 0) {
                fprintf(stderr, "%s: %s\n", c->prog, hm_last_error(*s));
                return 1;
            }
            (*nregions)++;
        }
    return 0;
}

/* Bytes one dispatch of the region touches: saxpy reads x, y and writes y; scale reads and writes y. */
static uint64_t hmd_bytes(const hmd_region *r) {
    return (uint64_t)r->n * sizeof(float) * (r->kernel == 0 ? 3u : 2u);
}

/* Records one timed dispatch into the driver's own file: 0, or 1 after a message. */
static int hmd_record(const hmd_config *c, hmd_region *r, uint64_t ns) {
    int rc = hm_region_add(r->handle, ns, hmd_bytes(r));
    if (rc < 0) {
        fprintf(stderr, "%s: record %s: %s\n", c->prog, r->name, hm_strerror(rc));
        return 1;
    }
    if (rc == HM_OK) {
        r->count++;
        r->ns_total += ns;
    }
    return 0;
}

/* Prints the region lines (unless quiet), frees the handles and closes: the exit status. */
static int hmd_report(const hmd_config *c, hm_store *s, hmd_region *r, int nregions) {
    if (!c->quiet)
        printf("# region\tcupti_name\tdispatches\tevent_ns_total\tfile_count\tfile_ns_total\tfile_mean_ns\thot\n");
    for (int i = 0; i < nregions; i++) {
        hm_region_record rec = {0, 0, 0, 0};
        int hot = hm_is_hot(s, r[i].name, strlen(r[i].name));
        int rc = hm_region_lookup(r[i].handle, &rec);
        if (!c->quiet)
            printf("region\t%s\t%s<<<%d,%d>>>\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%d\n",
                   r[i].name, hmd_demangled[r[i].kernel], r[i].blocks, r[i].threads, r[i].count, r[i].ns_total,
                   rc == HM_OK ? rec.dispatch_count : 0, rec.kernel_ns_total,
                   rc == HM_OK && rec.dispatch_count ? rec.kernel_ns_total / rec.dispatch_count : 0, hot);
        hm_region_free(r[i].handle);
        r[i].handle = NULL;
    }
    fflush(stdout);
    return hm_close(s) < 0;
}

#endif /* HM_DRIVER_CORE_H */
