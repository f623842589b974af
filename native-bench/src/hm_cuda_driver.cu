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
// The arguments, the regions and the output lines (which gpu-check.sh reads) are in
// bench/hm_driver_core.h, shared with the GPU-free stand-in cupti/standin_gpu.c; this file has
// what needs CUDA: the kernels, the device check and the timed launches.

#include "hm_driver_core.h"

#include <cuda_runtime.h>

#define CUDA_OK(call)                                                                   \
    do {                                                                                \
        cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) {                                                        \
            fprintf(stderr, "hm-cuda-driver: %s: %s\n", #call, cudaGetErrorString(e_)); \
            return 1;                                                                   \
        }                                                                               \
    } while (0)

__global__ void saxpy(int n, float a, const float *x, float *y) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = a * x[i] + y[i];
}

__global__ void scale(int n, float a, float *y) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = a * y[i];
}

int main(int argc, char **argv) {
    hmd_config c;
    c.prog = "hm-cuda-driver";
    int st = hmd_parse(&c, argc, argv);
    if (st >= 0) return st;

    // A device first: without one, say so and touch no file.
    int devices = 0;
    cudaError_t de = cudaGetDeviceCount(&devices);
    if (de != cudaSuccess || devices < 1) {
        fprintf(stderr, "hm-cuda-driver: no CUDA device (%s)\n",
                de != cudaSuccess ? cudaGetErrorString(de) : "cudaGetDeviceCount found 0");
        return 1;
    }

    hm_store *s = nullptr;
    static hmd_region regions[HMD_MAX_REGIONS];
    int nregions = 0;
    if (hmd_open(&c, &s, regions, &nregions) != 0) return 1;

    float *x = nullptr, *y = nullptr;
    CUDA_OK(cudaMalloc(&x, sizeof(float) * (size_t)c.maxn));
    CUDA_OK(cudaMalloc(&y, sizeof(float) * (size_t)c.maxn));
    CUDA_OK(cudaMemset(x, 0, sizeof(float) * (size_t)c.maxn));
    CUDA_OK(cudaMemset(y, 0, sizeof(float) * (size_t)c.maxn));
    cudaEvent_t start, stop;
    CUDA_OK(cudaEventCreate(&start));
    CUDA_OK(cudaEventCreate(&stop));
    for (int d = 0; d < c.dispatches; d++) {
        for (int i = 0; i < nregions; i++) {
            hmd_region &r = regions[i];
            CUDA_OK(cudaEventRecord(start));
            if (r.kernel == 0) saxpy<<<r.blocks, r.threads>>>(r.n, 2.0f, x, y);
            else scale<<<r.blocks, r.threads>>>(r.n, 0.5f, y);
            CUDA_OK(cudaGetLastError());
            CUDA_OK(cudaEventRecord(stop));
            CUDA_OK(cudaEventSynchronize(stop));
            float ms = 0;
            CUDA_OK(cudaEventElapsedTime(&ms, start, stop));
            if (hmd_record(&c, &r, (uint64_t)((double)ms * 1e6)) != 0) return 1;
        }
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaFree(x);
    cudaFree(y);
    return hmd_report(&c, s, regions, nregions);
}
