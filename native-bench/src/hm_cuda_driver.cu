// hm-cuda-driver - launches real CUDA kernels, times every dispatch with cudaEvents and
// records the samples into a hint file through pre-resolved handles.
//
// Regions are (kernel, problem size) pairs named "saxpy_n<N>" / "scale_n<N>". Built only
// when nvcc exists (make cuda); not part of the tests.
//
// usage: hm-cuda-driver [-f FILE] [-n DISPATCHES_PER_REGION] [-s SIZES] [-q]
//   -s: comma-separated element counts (default 4096,65536,1048576,16777216)

#include "hintmap.h"

#include <cuda_runtime.h>

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
    hm_region *handle;
    uint64_t count, ns_total;
};

int main(int argc, char **argv) {
    const char *path = "/dev/shm/hm-cuda.hm";
    int dispatches = 200;
    int quiet = 0;
    std::vector<int> sizes = {4096, 65536, 1048576, 16777216};
    int opt;
    while ((opt = getopt(argc, argv, "f:n:s:qh")) != -1) {
        switch (opt) {
        case 'f': path = optarg; break;
        case 'n': dispatches = std::atoi(optarg); break;
        case 's': {
            sizes.clear();
            for (char *tok = std::strtok(optarg, ","); tok; tok = std::strtok(nullptr, ",")) sizes.push_back(std::atoi(tok));
            break;
        }
        case 'q': quiet = 1; break;
        default:
            std::fprintf(stderr, "usage: hm-cuda-driver [-f FILE] [-n DISPATCHES] [-s N1,N2,...] [-q]\n");
            return opt == 'h' ? 0 : 2;
        }
    }
    int maxn = 0;
    for (int n : sizes) maxn = n > maxn ? n : maxn;
    if (dispatches < 1 || maxn < 1) return 2;

    hm_store *s = nullptr;
    char err[512];
    if (hm_open_ex(path, nullptr, &s, err, sizeof err) < 0) {
        std::fprintf(stderr, "hm-cuda-driver: %s\n", err);
        return 1;
    }
    std::vector<Region> regions;
    for (int k = 0; k < 2; k++)
        for (int n : sizes) {
            Region r{std::string(k == 0 ? "saxpy_n" : "scale_n") + std::to_string(n), k, n, nullptr, 0, 0};
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
            int threads = 256, blocks = (r.n + threads - 1) / threads;
            if (blocks > 65535) blocks = 65535;
            CUDA_OK(cudaEventRecord(start));
            if (r.kernel == 0) saxpy<<<blocks, threads>>>(r.n, 2.0f, x, y);
            else scale<<<blocks, threads>>>(r.n, 0.5f, y);
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
    for (Region &r : regions) {
        hm_region_record rec;
        int hot = hm_is_hot(s, r.name.data(), r.name.size());
        if (!quiet && hm_region_lookup(r.handle, &rec) == HM_OK)
            std::printf("region %s %" PRIu64 " %" PRIu64 " mean_ns=%" PRIu64 " max_ns=%" PRIu64 " hot=%d\n", r.name.c_str(),
                        r.count, r.ns_total, rec.kernel_ns_total / rec.dispatch_count, rec.kernel_ns_max, hot);
        hm_region_free(r.handle);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaFree(x);
    cudaFree(y);
    return hm_close(s) < 0;
}
