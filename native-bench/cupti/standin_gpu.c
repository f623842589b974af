/*
 * standin_gpu.c - build/hm-standin-gpu: a GPU-free stand-in for the two CUDA programs of the GPU
 * run, so that `native-bench/gpu-run.sh --stand-in` takes every branch of that script here
 * (summaries, comparisons, mismatches, step timeouts, the archive) before the one GPU command.
 *
 *   hm-standin-gpu driver [-f FILE] [-n N] [-s SIZES] [-q]       as hm-cuda-driver (bench/hm_driver_core.h:
 *                                                                the same arguments and output lines)
 *   hm-standin-gpu torch --steps N [--warmup W] [--out F.json] [--profile F.json]
 *                                                                as gpu/torch_workload.py (the same JSON)
 *
 * CUDA's part is played like this. "cuInit": CUDA_INJECTION64_PATH is dlopen'ed and its
 * InitializeInjection called, as libcuda does. Each launch becomes a CUpti_ActivityKernel10 record
 * (memcpys: CUpti_ActivityMemcpy6) queued in the stand-in libcupti that the collector loaded too
 * (HINTMAP_CUPTI_LIB=build/libfake_cupti.so; one dlopen'ed instance) and delivered in buffers of 64
 * records, as CUPTI's worker does; the collector's exit flush delivers the rest. Kernel names are
 * handed over mangled; the torch "profiler" reports them demangled (written out here, not by a
 * demangler, so the collector's demangling is checked against them), one of them over the
 * 1024-byte name limit. Durations and step times are synthetic and deterministic: nothing here
 * measures anything (with the collector loaded each torch step "takes" 2 % longer, so the
 * overhead arithmetic has a known answer: 1.020).
 *
 *   HM_STANDIN_FAULT  comma-separated: count   (driver) one launch more reaches the collector than
 *                                               the driver records: gpu-check must report COUNT
 *                                      profile (torch) the profile counts one launch more of one
 *                                               kernel than ran: the comparison must name it
 *                                      hang    never exits after the work: the step timeout must
 *                                               end it
 *   HM_STANDIN_US     microseconds slept per launch (driver) or step (torch) (default 0)
 *   HM_STANDIN_WAIT_FOR  a path: after its work (all records delivered) the driver waits until it
 *                     exists (at most 120 s), so that a live reader sees a running program without
 *                     a race against time; gpu-check.sh's reader creates it (live-seen)
 */
#define _GNU_SOURCE
#include <cupti.h>
#include <dlfcn.h>
#include <signal.h>
#include <time.h>

#include "hm_driver_core.h"

#define FAKE_BATCH 64 /* fake_cupti.c queues at most 64 records per buffer */

typedef struct standin {
    void (*queue)(const void *, size_t);
    int (*deliver)(void);
    int injected; /* the collector was loaded: launches produce records */
    size_t queued;
    uint64_t clock_ns; /* the fake GPU's timestamps */
    uint64_t rng;
    unsigned sleep_us;
    int fault_count, fault_profile, fault_hang;
} standin;

static int has_fault(const char *list, const char *what) {
    size_t n = strlen(what);
    for (const char *p = list; p && *p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == n && strncmp(p, what, n) == 0) return 1;
        p = comma ? comma + 1 : NULL;
    }
    return 0;
}

/* The stand-in libcupti, then the collector: 0, or 1 after a message. */
static int standin_init(standin *g, const char *prog) {
    memset(g, 0, sizeof *g);
    g->rng = 0x9E3779B97F4A7C15ULL;
    g->clock_ns = 1000000;
    const char *us = getenv("HM_STANDIN_US");
    g->sleep_us = us ? (unsigned)strtoul(us, NULL, 10) : 0;
    const char *faults = getenv("HM_STANDIN_FAULT");
    g->fault_count = has_fault(faults, "count");
    g->fault_profile = has_fault(faults, "profile");
    g->fault_hang = has_fault(faults, "hang");
    const char *fake = getenv("HINTMAP_CUPTI_LIB");
    if (fake == NULL || fake[0] == '\0') {
        fprintf(stderr, "%s: HINTMAP_CUPTI_LIB must name the stand-in libcupti (build/libfake_cupti.so)\n", prog);
        return 1;
    }
    void *f = dlopen(fake, RTLD_NOW | RTLD_LOCAL);
    if (f == NULL) {
        fprintf(stderr, "%s: %s\n", prog, dlerror());
        return 1;
    }
    *(void **)&g->queue = dlsym(f, "fake_cupti_queue");
    *(void **)&g->deliver = dlsym(f, "fake_cupti_deliver");
    if (g->queue == NULL || g->deliver == NULL) {
        fprintf(stderr, "%s: %s is not the stand-in libcupti (no fake_cupti_queue)\n", prog, fake);
        return 1;
    }
    const char *inj = getenv("CUDA_INJECTION64_PATH");
    if (inj != NULL && inj[0] != '\0') {
        void *c = dlopen(inj, RTLD_NOW | RTLD_LOCAL);
        int (*init)(void) = NULL;
        if (c != NULL) *(void **)&init = dlsym(c, "InitializeInjection");
        if (init == NULL) { /* libcuda would go on without it; a stand-in run would prove nothing */
            fprintf(stderr, "%s: cannot load CUDA_INJECTION64_PATH=%s: %s\n", prog, inj, c ? "no InitializeInjection" : dlerror());
            return 1;
        }
        init();
        g->injected = 1;
    }
    return 0;
}

static uint64_t standin_rand(standin *g) {
    g->rng ^= g->rng << 13;
    g->rng ^= g->rng >> 7;
    g->rng ^= g->rng << 17;
    return g->rng;
}

static void standin_flush(standin *g) {
    if (g->queued) g->deliver();
    g->queued = 0;
}

static void standin_push(standin *g, const void *record, size_t size) {
    if (!g->injected) return;
    g->queue(record, size);
    if (++g->queued == FAKE_BATCH) standin_flush(g);
}

/* One kernel execution of `ns` on the fake GPU. */
static void standin_kernel(standin *g, const char *name, int grid, int block, uint64_t ns) {
    CUpti_ActivityKernel10 k;
    memset(&k, 0, sizeof k);
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.name = name;
    k.start = g->clock_ns;
    k.end = g->clock_ns + ns;
    g->clock_ns += ns + 1000;
    k.gridX = grid;
    k.gridY = k.gridZ = 1;
    k.blockX = block;
    k.blockY = k.blockZ = 1;
    standin_push(g, &k, sizeof k);
}

static void standin_memcpy(standin *g, uint8_t kind, uint64_t bytes) {
    CUpti_ActivityMemcpy6 m;
    memset(&m, 0, sizeof m);
    m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    m.copyKind = kind;
    m.bytes = bytes;
    m.start = g->clock_ns;
    m.end = g->clock_ns + 500 + bytes / 1000;
    g->clock_ns = m.end + 1000;
    standin_push(g, &m, sizeof m);
}

static void standin_sleep(unsigned us) {
    if (us == 0) return;
    struct timespec t = {(time_t)(us / 1000000u), (long)(us % 1000000u) * 1000L};
    nanosleep(&t, NULL);
}

/* The end of a run: a hang when asked for, else exit() (the collector's exit flush). */
static int standin_end(standin *g, int status) {
    fflush(NULL);
    if (g->fault_hang)
        for (;;) pause();
    return status;
}

/* ---- driver: hm-cuda-driver's loop, the kernel "taking" 1.5 us + 1 ns per 64 elements (+-10 %),
   the event around it 2-3 us more (launch latency), as events bracket a kernel on a GPU. */
static int run_driver(int argc, char **argv) {
    hmd_config c;
    c.prog = "hm-standin-gpu driver";
    int st = hmd_parse(&c, argc, argv);
    if (st >= 0) return st;
    standin g;
    if (standin_init(&g, c.prog) != 0) return 1;
    hm_store *s = NULL;
    static hmd_region regions[HMD_MAX_REGIONS];
    int nregions = 0;
    if (hmd_open(&c, &s, regions, &nregions) != 0) return 1;
    for (int d = 0; d < c.dispatches; d++) {
        for (int i = 0; i < nregions; i++) {
            hmd_region *r = &regions[i];
            uint64_t base = 1500 + (uint64_t)r->n / 64;
            uint64_t ns = base - base / 10 + standin_rand(&g) % (base / 5 + 1);
            uint64_t event = ns + 2000 + standin_rand(&g) % 1000;
            standin_kernel(&g, hmd_mangled[r->kernel], r->blocks, r->threads, ns);
            if (g.fault_count && d == 0 && i == 0)
                standin_kernel(&g, hmd_mangled[r->kernel], r->blocks, r->threads, ns);
            if (hmd_record(&c, r, event) != 0) return 1;
            standin_sleep(g.sleep_us);
        }
    }
    standin_flush(&g);
    const char *wait_for = getenv("HM_STANDIN_WAIT_FOR");
    for (int i = 0; wait_for && wait_for[0] && i < 1200 && access(wait_for, F_OK) != 0; i++) standin_sleep(100000);
    return standin_end(&g, hmd_report(&c, s, regions, nregions));
}

/* ---- torch: what torch_workload.py's transformer steps launch, by (mangled) name */
typedef struct tkernel {
    const char *mangled;   /* what CUPTI reports */
    const char *demangled; /* what the profiler reports (NULL: the same) */
    int once, per_step;    /* launches at set-up, and per step */
    int grid, block;
} tkernel;

/* The 30-parameter pack makes a demangled name of 1,054 bytes: over the 1,024-byte limit. (libstdc++ 12
   refuses the 40-parameter one: it would stay mangled.) */
#define TILE_ARGS 30
static char tile_mangled[64 + TILE_ARGS * 48], tile_demangled[64 + TILE_ARGS * 48];

static void make_tile_names(void) {
    size_t m = (size_t)snprintf(tile_mangled, sizeof tile_mangled, "_ZN2at6native11tile_kernelIJ");
    size_t d = (size_t)snprintf(tile_demangled, sizeof tile_demangled, "void at::native::tile_kernel<");
    for (int i = 0; i < TILE_ARGS; i++) {
        m += (size_t)snprintf(tile_mangled + m, sizeof tile_mangled - m, "NS0_9TileShapeILi%dELi%dELi%dEEE", i, i + 1, i + 2);
        d += (size_t)snprintf(tile_demangled + d, sizeof tile_demangled - d, "%sat::native::TileShape<%d, %d, %d>",
                              i ? ", " : "", i, i + 1, i + 2);
    }
    snprintf(tile_mangled + m, sizeof tile_mangled - m, "EEEvv");
    snprintf(tile_demangled + d, sizeof tile_demangled - d, " >()");
}

static tkernel tkernels[] = {
    {"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_",
     "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> >"
     "(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)",
     3, 2, 1024, 128},
    {"_ZN2at6native13reduce_kernelILi512ELi1ENS0_8ReduceOpIfNS0_14func_wrapper_tIfNS0_11sum_functorIfffEEEEjfLi4ELi4EEEEEvT1_",
     "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, "
     "at::native::sum_functor<float, float, float> >, unsigned int, float, 4, 4> >(at::native::ReduceOp<float, "
     "at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float> >, unsigned int, float, 4, 4>)",
     0, 4, 132, 512},
    {"_ZN7cutlass7Kernel2I68cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8EEvNT_6ParamsE",
     "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>"
     "(cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8::Params)",
     0, 6, 264, 128},
    {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
     NULL, 0, 3, 132, 384},
    {tile_mangled, tile_demangled, 0, 1, 16, 256},
};
#define TKERNELS (sizeof tkernels / sizeof tkernels[0])

static void json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
        else if (ch < 0x20) fprintf(f, "\\u%04x", ch);
        else fputc(ch, f);
    }
    fputc('"', f);
}

static int run_torch(int argc, char **argv) {
    const char *prog = "hm-standin-gpu torch";
    int steps = 200, warmup = 20;
    const char *out = NULL, *profile = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v && strcmp(a, "--steps") == 0) steps = (int)hmd_parse_long(v, 1, 1000000);
        else if (v && strcmp(a, "--warmup") == 0) warmup = (int)hmd_parse_long(v, 0, 1000000);
        else if (v && strcmp(a, "--out") == 0) out = v;
        else if (v && strcmp(a, "--profile") == 0) profile = v;
        else {
            fprintf(stderr, "usage: %s --steps N [--warmup W] [--out F.json] [--profile F.json]\n", prog);
            return 2;
        }
        i++;
    }
    if (steps < 1 || warmup < 0 || warmup >= steps) {
        fprintf(stderr, "%s: need 0 <= warmup < steps\n", prog);
        return 2;
    }
    make_tile_names();
    standin g;
    if (standin_init(&g, prog) != 0) return 1;
    uint64_t counts[TKERNELS] = {0}, total_ns[TKERNELS] = {0}, htod = 0, dtoh = 0;
    for (size_t k = 0; k < TKERNELS; k++)
        for (int i = 0; i < tkernels[k].once; i++, counts[k]++) {
            uint64_t ns = 2000 + k * 100;
            total_ns[k] += ns;
            standin_kernel(&g, tkernels[k].mangled, tkernels[k].grid, tkernels[k].block, ns);
        }
    standin_memcpy(&g, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 1 << 20);
    htod++;
    FILE *f = out ? fopen(out, "w") : profile ? fopen(profile, "w") : NULL;
    if ((out || profile) && f == NULL) {
        fprintf(stderr, "%s: cannot write %s\n", prog, out ? out : profile);
        return 1;
    }
    if (f) fprintf(f, "{\"tool\": \"hm-standin-gpu\", \"torch\": \"stand-in\", \"device\": \"stand-in (no GPU)\", "
                      "\"mode\": \"%s\", \"collector\": %s, \"steps\": %d, \"warmup\": %d, \"step_ms\": [",
                   profile ? "profile" : "run", g.injected ? "true" : "false", steps, warmup);
    for (int s = 0; s < steps; s++) {
        for (size_t k = 0; k < TKERNELS; k++)
            for (int i = 0; i < tkernels[k].per_step; i++, counts[k]++) {
                uint64_t ns = 5000 + k * 1000 + standin_rand(&g) % 500;
                total_ns[k] += ns;
                standin_kernel(&g, tkernels[k].mangled, tkernels[k].grid, tkernels[k].block, ns);
            }
        standin_memcpy(&g, CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, 4);
        dtoh++;
        standin_sleep(g.sleep_us);
        double ms = (2.0 + 0.004 * (s % 5)) * (g.injected ? 1.02 : 1.0);
        if (f) fprintf(f, "%s%.4f", s ? ", " : "", ms);
    }
    standin_flush(&g);
    if (f && profile) {
        fprintf(f, "], \"kernels\": {");
        for (size_t k = 0; k < TKERNELS; k++) {
            fprintf(f, "%s", k ? ", " : "");
            json_string(f, tkernels[k].demangled ? tkernels[k].demangled : tkernels[k].mangled);
            uint64_t n = counts[k] + (g.fault_profile && k == 0);
            fprintf(f, ": {\"count\": %llu, \"total_us\": %.3f}", (unsigned long long)n, (double)total_ns[k] / 1000.0);
        }
        fprintf(f, "}, \"transfers\": {\"[memcpy HtoD]\": %llu, \"[memcpy DtoH]\": %llu}", (unsigned long long)htod,
                (unsigned long long)dtoh);
    } else if (f) {
        fprintf(f, "]");
    }
    if (f) {
        fprintf(f, ", \"libcupti\": []}\n");
        fclose(f);
    }
    return standin_end(&g, 0);
}

int main(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "driver") == 0) return run_driver(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "torch") == 0) return run_torch(argc - 2, argv + 2);
    fprintf(stderr, "usage: hm-standin-gpu driver [hm-cuda-driver's options] | torch --steps N [--warmup W] "
                    "[--out F.json] [--profile F.json]\n");
    return 2;
}
