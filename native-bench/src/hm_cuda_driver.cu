// hm-cuda-driver - launches real CUDA kernels, times every dispatch with cudaEvents and
// records the samples into a hint file through pre-resolved handles.
//
// Regions are (kernel, problem size) pairs named "saxpy_n<N>" / "scale_n<N>". Built by `make`
// whenever nvcc exists (warnings are errors); `make cupti-test` checks its argument handling
// without a GPU (CUDA_VISIBLE_DEVICES= : "no CUDA device", exit 1, no file created).
//
// usage: hm-cuda-driver [-f FILE] [-n DISPATCHES_PER_REGION] [-s SIZES] [-q]
//   -s: comma-separated element counts, 1..2^28 (default 4096,65536,1048576,16777216)
//
// Exit status: 0 done, 1 no CUDA device / CUDA or hint-file failure, 2 usage.
//
// Output, one tab-separated line per region (unless -q), so that a run can be compared with what
// the file holds and with what the CUPTI collector recorded (HINTMAP_NAME=demangled+grid names):
//   region <name> <cupti name> <dispatches> <event_ns_total> <file_count> <file_ns_total> <file_mean_ns> <hot>
// (gpu-check.sh reads these columns.) dispatches counts the samples the file accepted (HM_OK);
// event_ns_total sums the cudaEvent-timed samples this run recorded; file_* are read back from the
// file (they include earlier runs into the same file).

#include "hintmap.h"

#include <cuda_runtime.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <unistd.h>

#define CUDA_OK(call)                                                                        \
    do {                                                                                     \
        cudaError_t e_ = (call);                                                             \
        if (e_ != cudaSuccess) {                                                             \
            std::fprintf(stderr, "hm-cuda-driver: %s: %s\n", #call, cudaGetErrorString(e_)); \
            return 1;                                                                        \
        }                                                                                    \
    } while (0)

__global__ void saxpy(int n, float a, const float *x, float *y) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = a * x[i] + y[i];
}

__global__ void scale(int n, float a, float *y) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = a * y[i];
}

struct Region {
    std::string name;
    int kernel;  // 0 saxpy, 1 scale
    int n;
    int blocks, threads;
    hm_region *handle;
    uint64_t count, ns_total;
};

static void usage(FILE *to) {
    std::fprintf(to, "usage: hm-cuda-driver [-f FILE] [-n DISPATCHES 1..10000000] [-s N1,N2,... (1..268435456)] [-q]\n");
}

// Whole decimal in [lo, hi], or -1.
static long parse_long(const char *text, long lo, long hi) {
    char *end = nullptr;
    errno = 0;
    long v = std::strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v < lo || v > hi) return -1;
    return v;
}

int main(int argc, char **argv) {
    const char *path = "/dev/shm/hm-cuda.hm";
    int dispatches = 200;
    int quiet = 0;
    std::vector<int> sizes = {4096, 65536, 1048576, 16777216};
    int opt;
    while ((opt = getopt(argc, argv, "f:n:s:qh")) != -1) {
        switch (opt) {
        case 'f': path = optarg; break;
        case 'n': {
            long v = parse_long(optarg, 1, 10000000);
            if (v < 0) {
                std::fprintf(stderr, "hm-cuda-driver: -n %s: expected 1..10000000 dispatches\n", optarg);
                return 2;
            }
            dispatches = (int)v;
            break;
        }
        case 's': {
            sizes.clear();
            std::string list(optarg);
            size_t at = 0;
            while (at <= list.size()) {
                size_t comma = list.find(',', at);
                std::string tok = list.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
                long v = parse_long(tok.c_str(), 1, 1L << 28);
                if (v < 0) {
                    std::fprintf(stderr, "hm-cuda-driver: -s %s: '%s' is not an element count in 1..268435456\n", optarg, tok.c_str());
                    return 2;
                }
                sizes.push_back((int)v);
                if (comma == std::string::npos) break;
                at = comma + 1;
            }
            break;
        }
        case 'q': quiet = 1; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc) {
        std::fprintf(stderr, "hm-cuda-driver: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        return 2;
    }
    int maxn = 0;
    for (int n : sizes) maxn = n > maxn ? n : maxn;

    // A device first: without one, say so and touch no file.
    int devices = 0;
    cudaError_t de = cudaGetDeviceCount(&devices);
    if (de != cudaSuccess || devices < 1) {
        std::fprintf(stderr, "hm-cuda-driver: no CUDA device (%s)\n",
                     de != cudaSuccess ? cudaGetErrorString(de) : "cudaGetDeviceCount found 0");
        return 1;
    }

    hm_store *s = nullptr;
    char err[512];
    if (hm_open_ex(path, nullptr, &s, err, sizeof err) < 0) {
        std::fprintf(stderr, "hm-cuda-driver: %s\n", err);
        return 1;
    }
    std::vector<Region> regions;
    for (int k = 0; k < 2; k++)
        for (int n : sizes) {
            int threads = 256, blocks = (n + threads - 1) / threads;
            if (blocks > 65535) blocks = 65535;
            Region r{std::string(k == 0 ? "saxpy_n" : "scale_n") + std::to_string(n), k, n, blocks, threads, nullptr, 0, 0};
            if (hm_region_resolve(s, r.name.data(), r.name.size(), &r.handle) < 0) {
                std::fprintf(stderr, "hm-cuda-driver: %s\n", hm_last_error(s));
                return 1;
            }
            regions.push_back(r);
        }

    float *x = nullptr, *y = nullptr;
    CUDA_OK(cudaMalloc(&x, sizeof(float) * (size_t)maxn));
    CUDA_OK(cudaMalloc(&y, sizeof(float) * (size_t)maxn));
    CUDA_OK(cudaMemset(x, 0, sizeof(float) * (size_t)maxn));
    CUDA_OK(cudaMemset(y, 0, sizeof(float) * (size_t)maxn));
    cudaEvent_t start, stop;
    CUDA_OK(cudaEventCreate(&start));
    CUDA_OK(cudaEventCreate(&stop));
    for (int d = 0; d < dispatches; d++) {
        for (Region &r : regions) {
            CUDA_OK(cudaEventRecord(start));
            if (r.kernel == 0) saxpy<<<r.blocks, r.threads>>>(r.n, 2.0f, x, y);
            else scale<<<r.blocks, r.threads>>>(r.n, 0.5f, y);
            CUDA_OK(cudaGetLastError());
            CUDA_OK(cudaEventRecord(stop));
            CUDA_OK(cudaEventSynchronize(stop));
            float ms = 0;
            CUDA_OK(cudaEventElapsedTime(&ms, start, stop));
            uint64_t ns = (uint64_t)((double)ms * 1e6);
            uint64_t bytes = (uint64_t)r.n * sizeof(float) * (r.kernel == 0 ? 3u : 2u);
            int rc = hm_region_add(r.handle, ns, bytes);
            if (rc < 0) {
                std::fprintf(stderr, "hm-cuda-driver: record %s: %s\n", r.name.c_str(), hm_strerror(rc));
                return 1;
            }
            if (rc == HM_OK) {
                r.count++;
                r.ns_total += ns;
            }
        }
    }
    // The names the CUPTI collector gives these launches under HINTMAP_NAME=demangled+grid.
    static const char *const demangled[2] = {"saxpy(int, float, float const*, float*)", "scale(int, float, float*)"};
    if (!quiet)
        std::printf("# region\tcupti_name\tdispatches\tevent_ns_total\tfile_count\tfile_ns_total\tfile_mean_ns\thot\n");
    for (Region &r : regions) {
        hm_region_record rec = {0, 0, 0, 0};
        int hot = hm_is_hot(s, r.name.data(), r.name.size());
        int rc = hm_region_lookup(r.handle, &rec);
        if (!quiet)
            std::printf("region\t%s\t%s<<<%d,%d>>>\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%d\n",
                        r.name.c_str(), demangled[r.kernel], r.blocks, r.threads, r.count, r.ns_total,
                        rc == HM_OK ? rec.dispatch_count : 0, rec.kernel_ns_total,
                        rc == HM_OK ? rec.kernel_ns_total / rec.dispatch_count : 0, hot);
        hm_region_free(r.handle);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaFree(x);
    cudaFree(y);
    return hm_close(s) < 0;
}
