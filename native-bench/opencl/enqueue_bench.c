/*
 * hm-opencl-bench - the program the OpenCL layer's overhead is measured on (opencl/overhead.sh): it
 * knows nothing of hintmap; run it with and without OPENCL_LAYERS and compare.
 *
 * It builds two kernels on the first OpenCL device, `empty` and `busy` (a loop of REPS steps per
 * work-item), enqueues COUNT of one of them on one in-order queue, then clFinish, and prints
 *
 *   hm-opencl-bench: kernels=COUNT reps=REPS global=G wall_ns=W enqueue_ns=E finish_ns=F
 *
 * wall_ns = E + F: E the host time of the COUNT enqueue calls (what the layer adds per enqueue shows
 * here), F the wait for the queue to drain. One warm-up enqueue of each kernel, finished, comes
 * first (PoCL compiles on first use).
 *
 *   hm-opencl-bench [-n COUNT] [-r REPS] [-g GLOBAL] [-p] [-e]
 *   hm-opencl-bench --calibrate US [-g GLOBAL]    prints the REPS for which one `busy` kernel runs
 *                                                 about US microseconds (profiling info, median of 5)
 *   -p  the program creates its queue with CL_QUEUE_PROFILING_ENABLE itself (the cost of profiling alone)
 *   -e  the program asks for an event per enqueue and releases it at once
 * Exit status: 0, 1 for an OpenCL error (named), 2 for bad usage.
 */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *source =
    "__kernel void empty(__global float *y) {}\n"
    "__kernel void busy(__global float *y, const uint reps) {\n"
    "    size_t i = get_global_id(0);\n"
    "    float v = y[i];\n"
    "    for (uint r = 0; r < reps; r++) v = v * 0.999f + 0.5f;\n"
    "    y[i] = v;\n"
    "}\n";

#define OK(call)                                                         \
    do {                                                                 \
        cl_int rc_ = (call);                                             \
        if (rc_ != CL_SUCCESS) {                                         \
            fprintf(stderr, "hm-opencl-bench: %s: error %d\n", #call, rc_); \
            exit(1);                                                     \
        }                                                                \
    } while (0)

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static unsigned long number(const char *opt, const char *v, unsigned long lo, unsigned long hi) {
    char *end = NULL;
    unsigned long x = v != NULL ? strtoul(v, &end, 10) : 0;
    if (v == NULL || *v == '\0' || *end != '\0' || x < lo || x > hi) {
        fprintf(stderr, "hm-opencl-bench: %s needs a number in %lu..%lu\n", opt, lo, hi);
        exit(2);
    }
    return x;
}

static int cmp_ull(const void *a, const void *b) {
    unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    unsigned long count = 10000, reps = 0, global = 4096, calibrate_us = 0;
    int profiling = 0, events = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "-n") == 0) count = number(a, v, 1, 100000000), i++;
        else if (strcmp(a, "-r") == 0) reps = number(a, v, 0, 1000000000), i++;
        else if (strcmp(a, "-g") == 0) global = number(a, v, 1, 1 << 24), i++;
        else if (strcmp(a, "--calibrate") == 0) calibrate_us = number(a, v, 1, 10000000), i++;
        else if (strcmp(a, "-p") == 0) profiling = 1;
        else if (strcmp(a, "-e") == 0) events = 1;
        else {
            fprintf(stderr, "usage: hm-opencl-bench [-n COUNT] [-r REPS] [-g GLOBAL] [-p] [-e] | --calibrate US [-g GLOBAL]\n");
            return 2;
        }
    }
    cl_platform_id platform;
    cl_device_id device;
    OK(clGetPlatformIDs(1, &platform, NULL));
    OK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL));
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    OK(err);
    cl_command_queue q = clCreateCommandQueue(ctx, device, profiling || calibrate_us ? CL_QUEUE_PROFILING_ENABLE : 0, &err);
    OK(err);
    cl_program prg = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
    OK(err);
    OK(clBuildProgram(prg, 1, &device, "", NULL, NULL));
    cl_mem y = clCreateBuffer(ctx, CL_MEM_READ_WRITE, global * sizeof(float), NULL, &err);
    OK(err);
    cl_kernel empty = clCreateKernel(prg, "empty", &err);
    OK(err);
    cl_kernel busy = clCreateKernel(prg, "busy", &err);
    OK(err);
    OK(clSetKernelArg(empty, 0, sizeof y, &y));
    OK(clSetKernelArg(busy, 0, sizeof y, &y));
    size_t g = global;

    if (calibrate_us) { /* reps for about calibrate_us per kernel, from the device's own timing */
        cl_uint r = 1024;
        for (int round = 0; round < 12; round++) {
            OK(clSetKernelArg(busy, 1, sizeof r, &r));
            unsigned long long ns[5];
            for (int i = 0; i < 5; i++) {
                cl_event e;
                cl_ulong s, t;
                OK(clEnqueueNDRangeKernel(q, busy, 1, NULL, &g, NULL, 0, NULL, &e));
                OK(clWaitForEvents(1, &e));
                OK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof s, &s, NULL));
                OK(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof t, &t, NULL));
                OK(clReleaseEvent(e));
                ns[i] = t - s;
            }
            qsort(ns, 5, sizeof ns[0], cmp_ull);
            double scale = (double)calibrate_us * 1000.0 / (double)(ns[2] ? ns[2] : 1);
            cl_uint next = (cl_uint)((double)r * scale);
            if (next < 1) next = 1;
            if (scale > 0.95 && scale < 1.05) break;
            r = next;
        }
        printf("%u\n", r);
        return 0;
    }

    cl_uint creps = (cl_uint)reps;
    OK(clSetKernelArg(busy, 1, sizeof creps, &creps));
    cl_kernel k = reps ? busy : empty;
    OK(clEnqueueNDRangeKernel(q, empty, 1, NULL, &g, NULL, 0, NULL, NULL));
    OK(clEnqueueNDRangeKernel(q, busy, 1, NULL, &g, NULL, 0, NULL, NULL));
    OK(clFinish(q));
    long long t0 = now_ns();
    for (unsigned long i = 0; i < count; i++) {
        cl_event e = NULL;
        OK(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, events ? &e : NULL));
        if (e != NULL) OK(clReleaseEvent(e));
    }
    long long t1 = now_ns();
    OK(clFinish(q));
    long long t2 = now_ns();
    printf("hm-opencl-bench: kernels=%lu reps=%lu global=%lu wall_ns=%lld enqueue_ns=%lld finish_ns=%lld\n", count, reps, global,
           t2 - t0, t1 - t0, t2 - t1);
    clReleaseKernel(empty);
    clReleaseKernel(busy);
    clReleaseMemObject(y);
    clReleaseProgram(prg);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return 0;
}
