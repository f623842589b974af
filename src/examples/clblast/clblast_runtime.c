/*
 * clblast_runtime.c - the runtime side of the PGO loop of docs/PGO.md: a fixed BLAS workload (the
 * GEMMs, GEMVs and AXPYs of a few transformer or MLP layers) run through CLBlast's C API on the first
 * OpenCL device, every call timed and recorded into a hint file, with tuned kernel parameters applied
 * from a parameters file that the optimizer (com.example.tuner.ClblastOptimizer) wrote.
 *
 *   clblast-runtime --mix serve|transformer|mlp|smoke|smoke-mlp [--passes N] [--hints FILE] [--params FILE]
 *                   [--verify] [--report] [--strict] [--trace] [--list] [--quiet]
 *   clblast-runtime --defaults
 *
 * Region names say routine, precision, shape and layout as CLBlast's tuners key kernels:
 * "clblast:Xgemm:f32:m=256,n=2048,k=512:NN", "clblast:Xgemv:f32:m=1536,n=512:N",
 * "clblast:Xaxpy:f32:n=131072" (docs/PGO.md, "Region names"; the optimizer parses them back).
 *
 * Timing: each call is bounded by clFinish (clock_gettime(CLOCK_MONOTONIC) before the call and after
 * clFinish of the queue): the whole routine as the caller waits for it, its helper kernels (padding,
 * transposes) and launch included. One warm-up pass first compiles every kernel (PoCL compiles each
 * program once per parameter set, ~0.1-1 s) and is neither timed nor recorded. With --verify, the
 * warm-up pass also checks the first result of every call site against a reference computed on the
 * host in double precision (relative error at most 1e-3 of the largest reference value): tuned
 * parameters must change the speed, never the result.
 *
 * Parameters file (written by the optimizer; pgo_params.h): one line per tuned (region, kernel),
 * "REGION<TAB>KERNEL<TAB>NAME=VALUE NAME=VALUE ...". CLBlast keeps one parameter set per (device, kernel,
 * precision); before each call the runtime sets, for each kernel the routine reads (GEMM: Xgemm, XgemmDirect and
 * GemmRoutine, the routine choice; GEMV: Xgemv, XgemvFast, XgemvFastRot; AXPY: Xaxpy), the region's own entry, else
 * CLBlast's defaults for the device, which it reads once at start (RetrieveParameters, clblast_retrieve.cpp): an
 * untuned call runs exactly what it runs without a parameters file. Switching sets costs a lookup after the first
 * use (CLBlast caches a program per parameter values). A line that cannot be used is named on stderr and skipped.
 *
 * Which kernel ran (docs/PGO.md): at its first call each call site asks CLBlast for the sets it holds and works
 * out, as CLBlast does (pgo_choice.h), which kernel runs and with whose parameters: the region's own, CLBlast's
 * defaults, or another's. --report prints it per region; a region the parameters file tunes whose running kernel
 * does not have its parameters (the GEMM tuned for Xgemm that runs XgemmDirect, say) is named on stderr, counted
 * as untuned=N in the summary, and with --strict makes the exit status 5. --trace prints the expected kernel and
 * local size before each warm-up call on stderr, where PoCL's debug output (POCL_DEBUG=general: "Preparing kernel
 * NAME with local size X x Y") can confirm it (check.sh). --defaults prints CLBlast's sets for the device.
 *
 * Exit status: 0 done, 1 a CLBlast or OpenCL call failed, 2 bad usage, 3 no OpenCL device, 4 the hint
 * or parameters file cannot be used (its error is printed), 5 with --strict: a tuned region ran untuned parameters.
 */
#define _POSIX_C_SOURCE 200809L
#define CL_TARGET_OPENCL_VERSION 120

#include "pgo_params.h"

#include <clblast_c.h>
#include <hintmap.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------ the workload */

typedef enum routine { GEMM, GEMV, AXPY } routine;

/* One call site: a routine at one shape, called `times` per pass. */
typedef struct call_site {
    routine r;
    size_t m, n, k; /* GEMM m,n,k; GEMV m,n; AXPY n */
    int times;
} call_site;

/* The measurement's mix (docs/PGO.md, "The CLBlast workload"): a serving step whose time goes to GEMMs with 128
 * rows called often, while the two largest GEMMs (prefill-like) run once a pass; every GEMM is under 896³, so on
 * PoCL's CPU device every one runs XgemmDirect. */
static const call_site MIX_SERVE[] = {
    {GEMM, 128, 2048, 512, 6}, {GEMM, 128, 512, 2048, 6}, {GEMM, 128, 512, 512, 12}, {GEMM, 768, 768, 512, 1},
    {GEMM, 512, 1024, 512, 1}, {GEMM, 64, 128, 128, 32},  {GEMV, 2048, 512, 0, 16},  {GEMV, 512, 2048, 0, 16},
    {AXPY, 131072, 0, 0, 8},
};

/* A transformer block (hidden 512, 256 tokens, FFN 2048) for a prefill, the projections of a decode step
 * as GEMVs, the residual AXPYs, and a tail of small adapter GEMMs: a few shapes hold most of the time. */
static const call_site MIX_TRANSFORMER[] = {
    {GEMM, 256, 1536, 512, 2}, {GEMM, 256, 512, 512, 2},  {GEMM, 256, 2048, 512, 2}, {GEMM, 256, 512, 2048, 2},
    {GEMM, 128, 128, 128, 6},  {GEMM, 128, 256, 128, 4},  {GEMM, 256, 128, 256, 4},  {GEMM, 128, 128, 512, 4},
    {GEMV, 1536, 512, 0, 16},  {GEMV, 512, 512, 0, 16},   {GEMV, 2048, 512, 0, 8},   {GEMV, 512, 2048, 0, 8},
    {AXPY, 131072, 0, 0, 8},   {AXPY, 4096, 0, 0, 32},
};

/* Another model's shape: a wide MLP (hidden 1024, 128 tokens, FFN 4096): other GEMMs dominate. */
static const call_site MIX_MLP[] = {
    {GEMM, 128, 4096, 1024, 2}, {GEMM, 128, 1024, 4096, 2}, {GEMM, 128, 1024, 1024, 2}, {GEMM, 128, 128, 128, 6},
    {GEMM, 128, 256, 128, 4},   {GEMM, 256, 128, 256, 2},   {GEMV, 4096, 1024, 0, 8},   {GEMV, 1024, 4096, 0, 8},
    {GEMV, 512, 512, 0, 8},     {AXPY, 131072, 0, 0, 8},    {AXPY, 4096, 0, 0, 32},
};

/* Seconds, not minutes: for trying the loop end to end, and its mix change. */
static const call_site MIX_SMOKE[] = {
    {GEMM, 256, 256, 128, 2}, {GEMM, 128, 128, 128, 2}, {GEMV, 256, 256, 0, 4}, {AXPY, 4096, 0, 0, 4},
};
static const call_site MIX_SMOKE_MLP[] = {
    {GEMM, 128, 512, 128, 2}, {GEMM, 128, 128, 128, 2}, {GEMV, 512, 128, 0, 4}, {AXPY, 4096, 0, 0, 4},
};

typedef struct mix {
    const char *name;
    const call_site *sites;
    size_t count;
} mix;

static const mix MIXES[] = {
    {"serve", MIX_SERVE, sizeof MIX_SERVE / sizeof MIX_SERVE[0]},
    {"transformer", MIX_TRANSFORMER, sizeof MIX_TRANSFORMER / sizeof MIX_TRANSFORMER[0]},
    {"mlp", MIX_MLP, sizeof MIX_MLP / sizeof MIX_MLP[0]},
    {"smoke", MIX_SMOKE, sizeof MIX_SMOKE / sizeof MIX_SMOKE[0]},
    {"smoke-mlp", MIX_SMOKE_MLP, sizeof MIX_SMOKE_MLP / sizeof MIX_SMOKE_MLP[0]},
};

/* The region name of a call site (docs/PGO.md "Region names"). */
static void region_name(const call_site *c, char *out, size_t len) {
    switch (c->r) {
    case GEMM: snprintf(out, len, "clblast:Xgemm:f32:m=%zu,n=%zu,k=%zu:NN", c->m, c->n, c->k); break;
    case GEMV: snprintf(out, len, "clblast:Xgemv:f32:m=%zu,n=%zu:N", c->m, c->n); break;
    case AXPY: snprintf(out, len, "clblast:Xaxpy:f32:n=%zu", c->m); break;
    }
}

/* Bytes a call reads and writes (the hint's bytes touched): operands and result, 4 bytes each. */
static uint64_t call_bytes(const call_site *c) {
    switch (c->r) {
    case GEMM: return 4u * (uint64_t)(c->m * c->k + c->k * c->n + 2 * c->m * c->n);
    case GEMV: return 4u * (uint64_t)(c->m * c->n + c->n + 2 * c->m);
    case AXPY: return 4u * (uint64_t)(3 * c->m);
    }
    return 0;
}

/* The parameters CLBlast holds for a kernel (clblast_retrieve.cpp): 0, or CLBlast's status. */
int pgo_clblast_retrieve(cl_device_id device, const char *kernel, pgo_set *out);

static pgo_routine routine_of(routine r) { return r == GEMM ? PGO_GEMM : r == GEMV ? PGO_GEMV : PGO_AXPY; }

/* Sets kernel k's parameters in CLBlast: 0, or CLBlast's status. */
static int apply_set(cl_device_id device, int k, const pgo_set *set) {
    const char *names[PGO_SET_MAX];
    for (size_t i = 0; i < set->count; i++) names[i] = set->names[i];
    return (int)CLBlastOverrideParameters(device, PGO_KERNEL_NAMES[k], CLBlastPrecisionSingle, set->count, names,
                                          set->values);
}

/* ------------------------------------------------------------------ OpenCL and the calls */

typedef struct device_ctx {
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    cl_mem a, b, c, x, y;
    float *host[5];  /* the initial contents of a, b, c, x, y (the inputs a, b, x are never written) */
    size_t floats[5];
} device_ctx;

static int opencl_open(device_ctx *d, size_t a_floats, size_t b_floats, size_t c_floats, size_t v_floats) {
    cl_platform_id platform;
    cl_uint platforms = 0;
    if (clGetPlatformIDs(1, &platform, &platforms) != CL_SUCCESS || platforms == 0) {
        fprintf(stderr, "clblast-runtime: no OpenCL platform (install an ICD, e.g. the Debian package pocl-opencl-icd)\n");
        return 3;
    }
    cl_uint devices = 0;
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &d->device, &devices) != CL_SUCCESS || devices == 0) {
        fprintf(stderr, "clblast-runtime: the first OpenCL platform has no device\n");
        return 3;
    }
    cl_int err;
    d->context = clCreateContext(NULL, 1, &d->device, NULL, NULL, &err);
    if (err != CL_SUCCESS) return fprintf(stderr, "clblast-runtime: clCreateContext: %d\n", err), 1;
    d->queue = clCreateCommandQueue(d->context, d->device, 0, &err);
    if (err != CL_SUCCESS) return fprintf(stderr, "clblast-runtime: clCreateCommandQueue: %d\n", err), 1;
    size_t sizes[] = {a_floats, b_floats, c_floats, v_floats, v_floats};
    cl_mem *bufs[] = {&d->a, &d->b, &d->c, &d->x, &d->y};
    for (int i = 0; i < 5; i++) {
        size_t n = sizes[i] ? sizes[i] : 1;
        float *host = malloc(n * sizeof *host);
        if (host == NULL) return fprintf(stderr, "clblast-runtime: out of memory\n"), 1;
        uint32_t seed = 12345u + (uint32_t)i; /* fixed inputs: every run computes the same */
        for (size_t j = 0; j < n; j++) {
            seed = seed * 1664525u + 1013904223u;
            host[j] = (float)(seed >> 8) / 16777216.0f - 0.5f;
        }
        *bufs[i] = clCreateBuffer(d->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof *host, host, &err);
        d->host[i] = host;
        d->floats[i] = n;
        if (err != CL_SUCCESS) return fprintf(stderr, "clblast-runtime: clCreateBuffer: %d\n", err), 1;
    }
    return 0;
}

static void opencl_close(device_ctx *d) {
    cl_mem bufs[] = {d->a, d->b, d->c, d->x, d->y};
    for (int i = 0; i < 5; i++)
        if (bufs[i]) clReleaseMemObject(bufs[i]);
    if (d->queue) clReleaseCommandQueue(d->queue);
    if (d->context) clReleaseContext(d->context);
    for (int i = 0; i < 5; i++) free(d->host[i]);
}

static CLBlastStatusCode run_call(device_ctx *d, const call_site *c) {
    switch (c->r) {
    case GEMM:
        return CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, c->m, c->n, c->k, 1.0f, d->a,
                            0, c->k, d->b, 0, c->n, 0.0f, d->c, 0, c->n, &d->queue, NULL);
    case GEMV:
        return CLBlastSgemv(CLBlastLayoutRowMajor, CLBlastTransposeNo, c->m, c->n, 1.0f, d->a, 0, c->n, d->x, 0, 1,
                            0.0f, d->y, 0, 1, &d->queue, NULL);
    case AXPY: return CLBlastSaxpy(c->m, 0.5f, d->x, 0, 1, d->y, 0, 1, &d->queue, NULL);
    }
    return CLBlastInvalidValue;
}

/* ------------------------------------------------------------------ --verify */

static float *read_back(device_ctx *d, cl_mem buf, size_t floats) {
    float *out = malloc(floats * sizeof *out);
    if (out != NULL && clEnqueueReadBuffer(d->queue, buf, CL_TRUE, 0, floats * sizeof *out, out, 0, NULL, NULL) != CL_SUCCESS) {
        free(out);
        out = NULL;
    }
    return out;
}

/* The largest |result - reference| relative to the largest |reference| of one call's output, the
 * reference computed on the host in double; y_before is y as the call found it (AXPY reads it). Below
 * 0: the result could not be read. */
static double verify_call(device_ctx *d, const call_site *c, const float *y_before) {
    const float *a = d->host[0], *b = d->host[1], *x = d->host[3];
    size_t rows = c->m, cols = c->r == GEMM ? c->n : 1; /* GEMV and AXPY: one column of m values */
    float *got = read_back(d, c->r == GEMM ? d->c : d->y, rows * cols);
    if (got == NULL) return -1;
    double worst = 0, scale = 1e-30;
    for (size_t i = 0; i < rows; i++) {
        for (size_t j = 0; j < cols; j++) {
            double ref = 0;
            if (c->r == GEMM) {
                for (size_t l = 0; l < c->k; l++) ref += (double)a[i * c->k + l] * (double)b[l * c->n + j];
            } else if (c->r == GEMV) {
                for (size_t l = 0; l < c->n; l++) ref += (double)a[i * c->n + l] * (double)x[l];
            } else {
                ref = (double)y_before[i] + 0.5 * (double)x[i];
            }
            double diff = got[i * cols + j] - ref;
            worst = diff < 0 ? (-diff > worst ? -diff : worst) : (diff > worst ? diff : worst);
            scale = ref < 0 ? (-ref > scale ? -ref : scale) : (ref > scale ? ref : scale);
        }
    }
    free(got);
    return worst / scale;
}

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------------------ main */

typedef struct site_state {
    char region[PGO_REGION_MAX];
    hm_region *handle;                     /* NULL without a hint file */
    const pgo_set *own[PGO_KERNELS];       /* the parameters file's entry of this region per kernel, or NULL */
    int judged;                            /* the verdict below is set (at the site's first call) */
    pgo_verdict verdict;
    char running[512];                     /* the running kernel's parameters, formatted */
} site_state;

static int usage(void) {
    fprintf(stderr, "usage: clblast-runtime --mix serve|transformer|mlp|smoke|smoke-mlp [--passes N] [--hints FILE]"
                    " [--params FILE] [--verify] [--report] [--strict] [--trace] [--list] [--quiet]\n"
                    "       clblast-runtime --defaults\n");
    return 2;
}

/* Reads CLBlast's sets for every kernel into sets: 0, or 1 (named on stderr). */
static int retrieve_all(cl_device_id device, pgo_set sets[PGO_KERNELS]) {
    for (int k = 0; k < PGO_KERNELS; k++) {
        int s = pgo_clblast_retrieve(device, PGO_KERNEL_NAMES[k], &sets[k]);
        if (s != 0) return fprintf(stderr, "clblast-runtime: CLBlast cannot say its parameters of %s (%d)\n", PGO_KERNEL_NAMES[k], s), 1;
    }
    return 0;
}

/* Judges a call site at its call: the sets CLBlast holds now, against the region's own and the defaults. */
static int judge_site(cl_device_id device, const call_site *c, site_state *st, const pgo_set defaults[PGO_KERNELS]) {
    pgo_set held[PGO_KERNELS];
    if (retrieve_all(device, held) != 0) return 1;
    pgo_call call = {routine_of(c->r), c->m, c->n, c->k};
    st->verdict = pgo_judge(&call, held, st->own, defaults);
    pgo_set_format(&held[st->verdict.choice.params_of], st->running, sizeof st->running);
    st->judged = 1;
    return 0;
}

int main(int argc, char **argv) {
    const char *mix_name = NULL, *hints = NULL, *params = NULL;
    int passes = 3, list = 0, quiet = 0, verify = 0, report = 0, strict = 0, trace = 0, show_defaults = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--mix") == 0 && i + 1 < argc) mix_name = argv[++i];
        else if (strcmp(argv[i], "--passes") == 0 && i + 1 < argc) passes = atoi(argv[++i]);
        else if (strcmp(argv[i], "--hints") == 0 && i + 1 < argc) hints = argv[++i];
        else if (strcmp(argv[i], "--params") == 0 && i + 1 < argc) params = argv[++i];
        else if (strcmp(argv[i], "--list") == 0) list = 1;
        else if (strcmp(argv[i], "--verify") == 0) verify = 1;
        else if (strcmp(argv[i], "--report") == 0) report = 1;
        else if (strcmp(argv[i], "--strict") == 0) strict = 1;
        else if (strcmp(argv[i], "--trace") == 0) trace = 1;
        else if (strcmp(argv[i], "--defaults") == 0) show_defaults = 1;
        else if (strcmp(argv[i], "--quiet") == 0) quiet = 1;
        else return usage();
    }
    const mix *mx = NULL;
    for (size_t i = 0; mix_name != NULL && i < sizeof MIXES / sizeof MIXES[0]; i++)
        if (strcmp(MIXES[i].name, mix_name) == 0) mx = &MIXES[i];
    if (show_defaults) {
        if (mix_name != NULL) return usage();
        device_ctx d;
        memset(&d, 0, sizeof d);
        int rc = opencl_open(&d, 1, 1, 1, 1);
        pgo_set defaults[PGO_KERNELS];
        if (rc == 0) rc = retrieve_all(d.device, defaults);
        for (int k = 0; rc == 0 && k < PGO_KERNELS; k++) {
            char text[512];
            pgo_set_format(&defaults[k], text, sizeof text);
            printf("%s\t%s\n", PGO_KERNEL_NAMES[k], text);
        }
        opencl_close(&d);
        return rc;
    }
    if (mx == NULL || passes < 1) return usage();

    site_state *st = calloc(mx->count, sizeof *st);
    if (st == NULL) return 1;
    size_t a_max = 1, b_max = 1, c_max = 1, v_max = 1;
    for (size_t i = 0; i < mx->count; i++) {
        const call_site *c = &mx->sites[i];
        region_name(c, st[i].region, sizeof st[i].region);
        if (list) printf("%s\t%d\n", st[i].region, c->times);
        size_t a = c->r == GEMM ? c->m * c->k : c->r == GEMV ? c->m * c->n : 0;
        size_t b = c->r == GEMM ? c->k * c->n : 0, cc = c->r == GEMM ? c->m * c->n : 0;
        size_t v = c->r == GEMV ? (c->m > c->n ? c->m : c->n) : c->r == AXPY ? c->m : 0;
        a_max = a > a_max ? a : a_max;
        b_max = b > b_max ? b : b_max;
        c_max = cc > c_max ? cc : c_max;
        v_max = v > v_max ? v : v_max;
    }
    if (list) return free(st), 0;

    pgo_params pf = {0};
    if (params != NULL) {
        FILE *f = fopen(params, "r");
        if (f == NULL) {
            fprintf(stderr, "clblast-runtime: cannot read parameters file %s: %s\n", params, strerror(errno));
            return free(st), 4;
        }
        int r = pgo_params_read(f, params, &pf, stderr);
        fclose(f);
        if (r != 0) return free(st), 1;
    }
    for (size_t i = 0; i < mx->count; i++)
        for (int k = 0; k < PGO_KERNELS; k++)
            st[i].own[k] = pgo_routine_uses(routine_of(mx->sites[i].r), (pgo_kernel)k)
                               ? pgo_params_find(&pf, st[i].region, (pgo_kernel)k) : NULL;

    hm_store *store = NULL;
    int rc = 0;
    if (hints != NULL) {
        char err[512];
        if (hm_open_ex(hints, NULL, &store, err, sizeof err) != HM_OK) {
            fprintf(stderr, "clblast-runtime: %s\n", err);
            rc = 4;
        }
        for (size_t i = 0; rc == 0 && i < mx->count; i++)
            if (hm_region_resolve(store, st[i].region, strlen(st[i].region), &st[i].handle) != HM_OK) {
                fprintf(stderr, "clblast-runtime: %s\n", hm_last_error(store));
                rc = 4;
            }
    }

    device_ctx d;
    memset(&d, 0, sizeof d);
    if (rc == 0) rc = opencl_open(&d, a_max, b_max, c_max, v_max);
    pgo_set defaults[PGO_KERNELS];
    if (rc == 0) rc = retrieve_all(d.device, defaults); /* before any override: CLBlast's own sets for the device */
    const pgo_set *applied[PGO_KERNELS];               /* what CLBlast holds: a file entry, or &defaults[k] */
    for (int k = 0; k < PGO_KERNELS; k++) applied[k] = &defaults[k];
    uint64_t overrides = 0, wall_ns = 0, calls = 0, untuned = 0;
    double worst_error = 0;
    for (int pass = 0; rc == 0 && pass <= passes; pass++) { /* pass 0: warm-up, neither timed nor recorded */
        uint64_t pass_start = now_ns();
        for (size_t i = 0; rc == 0 && i < mx->count; i++) {
            const call_site *c = &mx->sites[i];
            for (int k = 0; k < PGO_KERNELS; k++) { /* this region's parameters, else the defaults, when they differ */
                if (!pgo_routine_uses(routine_of(c->r), (pgo_kernel)k)) continue;
                const pgo_set *want = st[i].own[k] != NULL ? st[i].own[k] : &defaults[k];
                if (want == applied[k]) continue;
                int s = apply_set(d.device, k, want);
                if (s != 0) { /* a set CLBlast refuses: named once, the defaults from then on */
                    fprintf(stderr, "clblast-runtime: %s: parameters of %s for %s refused by CLBlast (%d): skipped\n",
                            params, PGO_KERNEL_NAMES[k], st[i].region, s);
                    for (size_t j = 0; j < mx->count; j++)
                        if (st[j].own[k] == want) st[j].own[k] = NULL;
                    if (apply_set(d.device, k, &defaults[k]) != 0) rc = 1;
                    want = &defaults[k];
                }
                applied[k] = want;
                overrides++;
            }
            if (rc == 0 && !st[i].judged) {
                rc = judge_site(d.device, c, &st[i], defaults);
                if (rc == 0 && st[i].verdict.untuned) {
                    untuned++;
                    fprintf(stderr, "clblast-runtime: %s is tuned by %s but runs %s with %s parameters\n", st[i].region,
                            params, st[i].verdict.choice.kernel,
                            st[i].verdict.source == PGO_FROM_DEFAULTS ? "CLBlast's default" : "another region's");
                }
            }
            for (int t = 0; rc == 0 && t < c->times; t++) {
                float *y_before = NULL;
                if (verify && pass == 0 && t == 0 && c->r == AXPY && (y_before = read_back(&d, d.y, c->m)) == NULL) rc = 1;
                if (trace && pass == 0)
                    fprintf(stderr, "trace %s kernel=%s local=%zux%zu\n", st[i].region, st[i].verdict.choice.kernel,
                            st[i].verdict.choice.local_x, st[i].verdict.choice.local_y);
                uint64_t t0 = now_ns();
                CLBlastStatusCode s = run_call(&d, c);
                cl_int f = clFinish(d.queue);
                uint64_t ns = now_ns() - t0;
                if (s != CLBlastSuccess || f != CL_SUCCESS) {
                    fprintf(stderr, "clblast-runtime: %s failed: CLBlast status %d, clFinish %d\n", st[i].region, (int)s,
                            (int)f);
                    rc = 1;
                } else if (pass > 0) {
                    calls++;
                    if (st[i].handle != NULL) hm_region_add(st[i].handle, ns, call_bytes(c));
                } else if (verify && t == 0) {
                    double e = verify_call(&d, c, y_before);
                    if (e < 0 || e > 1e-3) {
                        fprintf(stderr, "clblast-runtime: %s: result differs from the host reference (relative error %g)\n",
                                st[i].region, e);
                        rc = 1;
                    }
                    worst_error = e > worst_error ? e : worst_error;
                }
                free(y_before);
            }
        }
        if (pass > 0) {
            uint64_t pass_ns = now_ns() - pass_start;
            wall_ns += pass_ns;
            if (!quiet) printf("pass %d: %.3f s\n", pass, (double)pass_ns / 1e9);
        }
    }
    if (rc == 0 && verify) printf("verify sites=%zu max_rel_err=%.3g ok\n", mx->count, worst_error);
    if (rc == 0 && report)
        for (size_t i = 0; i < mx->count; i++)
            printf("region %s kernel=%s local=%zux%zu params=%s tuned=%s set=%s\n", st[i].region,
                   st[i].verdict.choice.kernel, st[i].verdict.choice.local_x, st[i].verdict.choice.local_y,
                   PGO_SOURCE_NAMES[st[i].verdict.source], st[i].verdict.tuned ? "yes" : "no", st[i].running);
    if (rc == 0)
        printf("workload mix=%s passes=%d calls=%llu wall_s=%.6f params=%s entries=%zu overrides=%llu untuned=%llu\n",
               mx->name, passes, (unsigned long long)calls, (double)wall_ns / 1e9, params ? params : "-", pf.count,
               (unsigned long long)overrides, (unsigned long long)untuned);
    if (rc == 0 && strict && untuned > 0) rc = 5;
    opencl_close(&d);
    for (size_t i = 0; i < mx->count; i++) hm_region_free(st[i].handle);
    if (store != NULL && hm_close(store) != HM_OK && rc == 0) rc = 4;
    pgo_params_free(&pf);
    free(st);
    return rc;
}
