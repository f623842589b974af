/*
 * test_layer - libhintmap_opencl.so through the real ICD loader (libOpenCL), as a program loads it
 * (OPENCL_LAYERS): each scenario runs in a child process that sets the environment, calls OpenCL
 * and ends with exit(); the parent then reads the hint file and the child's stderr. The platform is
 * the stand-in build/libhm_fake_icd.so (opencl/fake_icd.c: commands of a known duration, completed
 * when and where a scenario says), or, for the scenarios named pocl*, the system's PoCL.
 *
 *   main         counts, names, ns from the driver's profiling info, bytes of buffer arguments (each
 *                buffer once, sub-buffers their own size, scalars none), a task, a long name in its
 *                stored form, the program's own event kept valid, profiling turned on but not shown,
 *                every event of the layer released, the file's options from the environment
 *   shape        HINTMAP_NAME=kernel+shape: one region per work size
 *   build        HINTMAP_NAME=kernel+build: one region per program source and build options
 *   finish       commands complete in clFinish, callbacks never run: clFinish's flush records them
 *   release      callbacks never run: clReleaseCommandQueue's flush records what completed
 *   in_flight    exit() with commands still running: the exit flush waits for them and records them
 *   never        exit() with commands that never complete: bounded wait, the count on stderr
 *   passthrough  a hint file that cannot be opened: one line, every call passes through untouched
 *   badenv       a malformed variable: one line, every call passes through untouched
 *   noprofiling  a device that refuses profiling queues: the program's queue as asked, nothing timed
 *   threads      4 threads enqueue 500 kernels each on their own queues: nothing lost or doubled
 *   fork         a forked child records nothing into its parent's file
 *   reuse        a kernel and a buffer destroyed inside the driver (a kernel released while its command
 *                ran, a buffer released before its sub-buffer), their addresses given to new ones: new
 *                names, new sizes; a clone keeps its source's arguments
 *   nocallback   a driver that refuses event callbacks: the flushes record instead
 *   pocl         PoCL: counts, names, bytes, and ns equal to the program's own profiling of the same events
 *   pocl_exit    PoCL: exit() with kernels running: all recorded
 *
 * usage: test_layer LAYER.so FAKE_ICD.so DIR [SCENARIO...]   (run by `make opencl-test`)
 * exit status 0: every check passed; 77: only pocl* scenarios were asked and no PoCL platform exists.
 */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

#include <dlfcn.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hintmap.h"
#include "hmc_check.h"
#include "hmo_naming.h"

static const char *layer, *fake, *dir;

/* ---- the child's side */
static cl_platform_id platform;
static cl_device_id device;
static cl_context ctx;

#define CL_OK(call)                                                                  \
    do {                                                                             \
        cl_int rc_ = (call);                                                         \
        CHECK(rc_ == CL_SUCCESS, "%s: %d", #call, rc_);                              \
        if (rc_ != CL_SUCCESS) exit(100);                                            \
    } while (0)

/* The kernels of the stand-in platform: what a BLAS library's program holds (the stand-in reads
   only the "__kernel void NAME" of each). */
static const char *blas_source =
    "__kernel void Xaxpy(const int n, const float alpha, const __global float* restrict xgm, __global float* ygm) {}\n"
    "__kernel void XgemmDirectTN(const int kSizeM, const ulong flags, const __global float* restrict agm,\n"
    "                            const __global float* restrict bgm, __global float* cgm, const __global float* agm2,\n"
    "                            const __global float* bias) {}\n"
    "__kernel void XgemvFast(const int m, const int n, const __global float* restrict agm, __global float* ygm) {}\n"
    "__kernel void reduce_final(__global float* partial, __global float* out) {}\n"
    "__kernel void xgemm_batched_strided_direct_kernel_generated_tn_float32_wgd32_mdimcd8_ndimcd8(__global float* c) {}\n";
#define LONG_KERNEL "xgemm_batched_strided_direct_kernel_generated_tn_float32_wgd32_mdimcd8_ndimcd8"

static int (*live_events)(void);
static cl_command_queue_properties (*driver_props)(cl_command_queue);

static void cl_setup(int pocl) {
    cl_uint n = 0;
    cl_platform_id all[8];
    if (pocl && clGetPlatformIDs(8, all, &n) != CL_SUCCESS) exit(77); /* no platform at all */
    CL_OK(clGetPlatformIDs(8, all, &n));
    platform = NULL;
    for (cl_uint i = 0; i < n && i < 8 && platform == NULL; i++) {
        char name[256] = "";
        clGetPlatformInfo(all[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
        if (!pocl || strstr(name, "Portable Computing Language") != NULL) platform = all[i];
    }
    if (platform == NULL) exit(77);
    CL_OK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL));
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
    cl_int err;
    ctx = clCreateContext(props, 1, &device, NULL, NULL, &err);
    CL_OK(err);
    if (!pocl) {
        void *f = dlopen(fake, RTLD_NOW | RTLD_NOLOAD);
        *(void **)&live_events = f ? dlsym(f, "fake_cl_live_events") : NULL;
        *(void **)&driver_props = f ? dlsym(f, "fake_cl_queue_properties") : NULL;
        if (live_events == NULL || driver_props == NULL) exit(101);
    }
}

static cl_command_queue queue(cl_command_queue_properties props) {
    cl_int err;
    cl_command_queue q = clCreateCommandQueue(ctx, device, props, &err);
    CL_OK(err);
    return q;
}

static cl_mem buffer(size_t size) {
    cl_int err;
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, size, NULL, &err);
    CL_OK(err);
    return m;
}

static cl_program program(const char *source, const char *options) {
    cl_int err;
    cl_program p = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
    CL_OK(err);
    cl_int rc = clBuildProgram(p, 1, &device, options, NULL, NULL);
    if (rc != CL_SUCCESS) {
        char log[4096] = "";
        clGetProgramBuildInfo(p, device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        fprintf(stderr, "build log: %s\n", log);
    }
    CL_OK(rc);
    return p;
}

static cl_kernel kernel(cl_program p, const char *name) {
    cl_int err;
    cl_kernel k = clCreateKernel(p, name, &err);
    CL_OK(err);
    return k;
}

static void arg_mem(cl_kernel k, cl_uint i, cl_mem m) { CL_OK(clSetKernelArg(k, i, sizeof m, &m)); }

static void run(cl_command_queue q, cl_kernel k, cl_uint dims, size_t g0, size_t g1, size_t l0, size_t l1, cl_event *ev) {
    size_t global[2] = {g0, g1}, local[2] = {l0, l1};
    CL_OK(clEnqueueNDRangeKernel(q, k, dims, NULL, global, l0 ? local : NULL, 0, NULL, ev));
}

/* A record of the hint file as the child sees it now (0 dispatches: absent). */
static hm_region_record now(const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s", getenv("HINTMAP_FILE"));
    hm_options o;
    hm_options_init(&o);
    o.read_only = 1;
    hm_store *s = NULL;
    hm_region_record r = {0, 0, 0, 0};
    if (hm_open(path, &o, &s) == HM_OK) {
        if (hm_lookup(s, name, strlen(name), &r) != HM_OK) memset(&r, 0, sizeof r);
        hm_close(s);
    }
    return r;
}

/* Xaxpy with n, alpha and its two buffers set. */
static cl_kernel axpy(cl_program p, cl_mem x, cl_mem y) {
    cl_kernel k = kernel(p, "Xaxpy");
    int n = 1024;
    float alpha = 2.0f;
    CL_OK(clSetKernelArg(k, 0, sizeof n, &n));
    CL_OK(clSetKernelArg(k, 1, sizeof alpha, &alpha));
    arg_mem(k, 2, x);
    arg_mem(k, 3, y);
    return k;
}

static void child_main(void) {
    cl_setup(0);
    cl_command_queue q1 = queue(0);
    cl_command_queue_properties seen = 0;
    CL_OK(clGetCommandQueueInfo(q1, CL_QUEUE_PROPERTIES, sizeof seen, &seen, NULL));
    CHECK(seen == 0, "the program sees the properties it asked for: %#llx", (unsigned long long)seen);
    CHECK(driver_props(q1) & CL_QUEUE_PROFILING_ENABLE, "the layer turned profiling on");
    cl_queue_properties asked[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    cl_int err;
    cl_command_queue q2 = clCreateCommandQueueWithProperties(ctx, device, asked, &err);
    CL_OK(err);
    CL_OK(clGetCommandQueueInfo(q2, CL_QUEUE_PROPERTIES, sizeof seen, &seen, NULL));
    CHECK(seen == CL_QUEUE_PROFILING_ENABLE, "a program that asked for profiling sees it: %#llx", (unsigned long long)seen);

    cl_mem x = buffer(4096), y = buffer(4096), a = buffer(1 << 20), b = buffer(1 << 16), c = buffer(1 << 18);
    cl_buffer_region region = {0, 1024};
    cl_mem sub = clCreateSubBuffer(a, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
    CL_OK(err);
    cl_program p = program(blas_source, "");
    cl_kernel kx = axpy(p, x, y);
    for (int i = 0; i < 5; i++) run(q1, kx, 1, 1024, 0, 64, 0, NULL);

    cl_kernel kg = kernel(p, "XgemmDirectTN");
    int m = 256;
    cl_ulong flags = 123456789; /* 8 bytes, as a cl_mem: a scalar all the same */
    CL_OK(clSetKernelArg(kg, 0, sizeof m, &m));
    CL_OK(clSetKernelArg(kg, 1, sizeof flags, &flags));
    arg_mem(kg, 2, a);
    arg_mem(kg, 3, b);
    arg_mem(kg, 4, c);
    arg_mem(kg, 5, a); /* the same buffer twice: its bytes once */
    arg_mem(kg, 6, sub);
    cl_event mine = NULL;
    for (int i = 0; i < 3; i++) run(q2, kg, 2, 256, 256, 16, 16, i == 1 ? &mine : NULL);

    cl_kernel kt = kernel(p, "reduce_final");
    CL_OK(clEnqueueTask(q1, kt, 0, NULL, NULL));
    cl_kernel kl = kernel(p, LONG_KERNEL);
    for (int i = 0; i < 2; i++) run(q1, kl, 1, 64, 0, 0, 0, NULL);
    CL_OK(clFinish(q1));
    CL_OK(clFinish(q2));

    /* The program's own event: still valid, its profiling as the driver gave it. */
    cl_int status = -1;
    cl_ulong start = 0, end = 0;
    CL_OK(clGetEventInfo(mine, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
    CL_OK(clGetEventProfilingInfo(mine, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL));
    CL_OK(clGetEventProfilingInfo(mine, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL));
    CHECK(status == CL_COMPLETE && end - start == 655360, "the program's event: status %d, %llu ns", status,
          (unsigned long long)(end - start));
    CL_OK(clReleaseEvent(mine));
    /* Every event the layer asked for is released once its sample is in (the callbacks run on the
       driver's thread, maybe just after clFinish returned). */
    for (int i = 0; i < 2000 && live_events() != 0; i++) usleep(1000);
    CHECK(live_events() == 0, "%d events still alive: the layer leaks its references", live_events());
    exit(failures ? 1 : 0);
}

static void child_shape(void) {
    cl_setup(0);
    cl_command_queue q = queue(0);
    cl_mem x = buffer(4096), y = buffer(4096);
    cl_program p = program(blas_source, "");
    cl_kernel kx = axpy(p, x, y);
    run(q, kx, 1, 1024, 0, 64, 0, NULL);
    run(q, kx, 1, 1024, 0, 64, 0, NULL);
    run(q, kx, 1, 2048, 0, 64, 0, NULL);
    run(q, kx, 1, 1000, 0, 0, 0, NULL);
    run(q, kernel(p, "XgemmDirectTN"), 2, 256, 256, 16, 16, NULL);
    CL_OK(clEnqueueTask(q, kernel(p, "reduce_final"), 0, NULL, NULL));
    CL_OK(clFinish(q));
    exit(failures ? 1 : 0);
}

static const char *options_64 = "-DWGS=64 -cl-mad-enable", *options_128 = "-DWGS=128 -cl-mad-enable";

static void child_build(void) {
    cl_setup(0);
    cl_command_queue q = queue(0);
    cl_mem x = buffer(4096), y = buffer(4096);
    cl_kernel k64 = axpy(program(blas_source, options_64), x, y);
    cl_kernel k128 = axpy(program(blas_source, options_128), x, y);
    cl_kernel k64b = axpy(program(blas_source, options_64), x, y); /* the same build again */
    char other[4096];
    snprintf(other, sizeof other, "#define WPT 4\n%s", blas_source); /* other source, same options */
    cl_kernel kother = axpy(program(other, options_64), x, y);
    run(q, k64, 1, 1024, 0, 64, 0, NULL);
    run(q, k64, 1, 1024, 0, 64, 0, NULL);
    run(q, k128, 1, 1024, 0, 64, 0, NULL);
    run(q, k64b, 1, 1024, 0, 64, 0, NULL);
    run(q, kother, 1, 1024, 0, 64, 0, NULL);
    CL_OK(clFinish(q));
    exit(failures ? 1 : 0);
}

static void child_finish(void) {
    cl_setup(0);
    cl_command_queue q = queue(0);
    cl_kernel kx = axpy(program(blas_source, ""), buffer(4096), buffer(4096));
    for (int i = 0; i < 4; i++) run(q, kx, 1, 1024, 0, 64, 0, NULL);
    CHECK(now("Xaxpy").dispatch_count == 0, "nothing is complete before clFinish");
    CL_OK(clFinish(q));
    hm_region_record r = now("Xaxpy");
    CHECK(r.dispatch_count == 4 && r.kernel_ns_total == 4 * 10240, "recorded by clFinish itself: %" PRIu64 " dispatches",
          r.dispatch_count);
    exit(failures ? 1 : 0);
}

static void child_release(void) {
    cl_setup(0);
    cl_command_queue q = queue(0);
    cl_kernel kx = axpy(program(blas_source, ""), buffer(4096), buffer(4096));
    for (int i = 0; i < 3; i++) run(q, kx, 1, 1024, 0, 64, 0, NULL);
    CHECK(now("Xaxpy").dispatch_count == 0, "the driver runs no callback");
    CL_OK(clReleaseCommandQueue(q));
    hm_region_record r = now("Xaxpy");
    CHECK(r.dispatch_count == 3, "recorded by clReleaseCommandQueue: %" PRIu64 " dispatches", r.dispatch_count);
    exit(failures ? 1 : 0);
}

static void child_exit_with_work(void) {
    cl_setup(0);
    cl_command_queue q = queue(0);
    cl_kernel kx = axpy(program(blas_source, ""), buffer(4096), buffer(4096));
    int n = getenv("FAKE_CL_COMPLETE") && strcmp(getenv("FAKE_CL_COMPLETE"), "never") == 0 ? 3 : 6;
    for (int i = 0; i < n; i++) run(q, kx, 1, 1024, 0, 64, 0, NULL);
    exit(failures ? 1 : 0); /* no clFinish: the commands are still running */
}

static void child_untouched(void) {
    cl_setup(0);
    cl_command_queue q = queue(0);
    CHECK(driver_props(q) == 0, "passing through: the queue as the program asked (%#llx)", (unsigned long long)driver_props(q));
    cl_kernel kx = axpy(program(blas_source, ""), buffer(4096), buffer(4096));
    cl_event e = NULL;
    run(q, kx, 1, 1024, 0, 64, 0, &e);
    run(q, kx, 1, 1024, 0, 64, 0, NULL);
    CL_OK(clFinish(q));
    CL_OK(clReleaseEvent(e));
    CHECK(live_events() == 0, "passing through: no event of the layer's (%d alive)", live_events());
    exit(failures ? 1 : 0);
}

static void child_noprofiling(void) {
    cl_setup(0);
    cl_command_queue q = queue(0);
    CHECK(driver_props(q) == 0, "created again as the program asked");
    cl_kernel kx = axpy(program(blas_source, ""), buffer(4096), buffer(4096));
    run(q, kx, 1, 1024, 0, 64, 0, NULL);
    run(q, kx, 1, 1024, 0, 64, 0, NULL);
    CL_OK(clFinish(q));
    exit(failures ? 1 : 0);
}

static cl_program shared_program;
static atomic_int thread_failures; /* the threads' own count: CHECK's counters are the main thread's */

static void *thread_main(void *arg) {
    (void)arg;
    cl_int err = CL_SUCCESS, rc = CL_SUCCESS;
    cl_command_queue q = clCreateCommandQueue(ctx, device, 0, &err);
    cl_mem x = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096, NULL, &err), y = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096, NULL, &err);
    cl_kernel k = clCreateKernel(shared_program, "Xaxpy", &err);
    rc |= err;
    rc |= clSetKernelArg(k, 2, sizeof x, &x);
    rc |= clSetKernelArg(k, 3, sizeof y, &y);
    size_t global = 1024, local = 64;
    for (int i = 0; i < 500; i++) {
        cl_event e = NULL;
        rc |= clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, i % 10 == 0 ? &e : NULL);
        if (e != NULL) rc |= clReleaseEvent(e); /* released before its command completed, maybe */
    }
    rc |= clFinish(q);
    rc |= clReleaseKernel(k);
    rc |= clReleaseCommandQueue(q);
    if (rc != CL_SUCCESS) atomic_fetch_add(&thread_failures, 1);
    return NULL;
}

static void child_threads(void) {
    cl_setup(0);
    shared_program = program(blas_source, "");
    pthread_t t[4];
    for (int i = 0; i < 4; i++) CHECK(pthread_create(&t[i], NULL, thread_main, NULL) == 0, "thread %d", i);
    for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
    CHECK(atomic_load(&thread_failures) == 0, "%d threads saw an OpenCL error", atomic_load(&thread_failures));
    exit(failures ? 1 : 0);
}

static void child_fork(void) {
    cl_setup(0);
    cl_command_queue q = queue(0);
    cl_kernel kx = axpy(program(blas_source, ""), buffer(4096), buffer(4096));
    run(q, kx, 1, 1024, 0, 64, 0, NULL);
    run(q, kx, 1, 1024, 0, 64, 0, NULL);
    pid_t p = fork();
    if (p == 0) {
        for (int i = 0; i < 3; i++) run(q, kx, 1, 1024, 0, 64, 0, NULL);
        clFinish(q);
        exit(0);
    }
    int st = 0;
    CHECK(p > 0 && waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0, "the forked child ran");
    run(q, kx, 1, 1024, 0, 64, 0, NULL);
    CL_OK(clFinish(q));
    exit(failures ? 1 : 0);
}

static void child_reuse(void) {
    cl_setup(0);
    cl_command_queue q = queue(0);
    cl_program p = program(blas_source, "");
    cl_mem x = buffer(4096), y0 = buffer(4096);
    cl_kernel k1 = axpy(p, x, y0);
    run(q, k1, 1, 1024, 0, 64, 0, NULL);
    CL_OK(clReleaseMemObject(y0));
    CL_OK(clReleaseKernel(k1)); /* its command still holds it: it dies in clFinish, unseen by the layer */
    CL_OK(clFinish(q));
    CL_OK(clReleaseMemObject(x));
    cl_mem y = buffer(64); /* the stand-in hands out the last destroyed address first */
    cl_kernel k2 = kernel(p, "XgemvFast");
    if ((void *)y != (void *)x || (void *)k2 != (void *)k1) {
        fprintf(stderr, "FAIL the stand-in did not reuse the addresses: the scenario cannot test what it should\n");
        exit(102);
    }
    cl_int err;
    cl_mem big = buffer(1 << 20);
    cl_buffer_region region = {0, 1024};
    cl_mem sub = clCreateSubBuffer(big, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
    CL_OK(err);
    CL_OK(clReleaseMemObject(big)); /* its sub-buffer holds it */
    CL_OK(clReleaseMemObject(sub)); /* and lets it go: it dies inside the driver */
    cl_mem small = buffer(32);
    if ((void *)small != (void *)big) {
        fprintf(stderr, "FAIL the stand-in did not reuse the buffer's address\n");
        exit(102);
    }
    arg_mem(k2, 2, y);
    arg_mem(k2, 3, small);
    run(q, k2, 1, 512, 0, 64, 0, NULL);
    cl_kernel k3 = clCloneKernel(k2, &err); /* its arguments are k2's */
    CL_OK(err);
    run(q, k3, 1, 512, 0, 64, 0, NULL);
    CL_OK(clFinish(q));
    exit(failures ? 1 : 0);
}

static void child_nocallback(void) {
    cl_setup(0);
    cl_command_queue q = queue(0);
    cl_kernel kx = axpy(program(blas_source, ""), buffer(4096), buffer(4096));
    run(q, kx, 1, 1024, 0, 64, 0, NULL);
    run(q, kx, 1, 1024, 0, 64, 0, NULL);
    CL_OK(clFinish(q));
    CHECK(now("Xaxpy").dispatch_count == 2, "recorded by clFinish without callbacks");
    for (int i = 0; i < 2000 && live_events() != 0; i++) usleep(1000);
    CHECK(live_events() == 0, "%d events alive: a flush must release what no callback will", live_events());
    exit(failures ? 1 : 0);
}

/* ---- PoCL: real kernels */
static const char *pocl_source =
    "__kernel void saxpy(const float a, __global const float *x, __global float *y) {\n"
    "    size_t i = get_global_id(0);\n"
    "    y[i] += a * x[i];\n"
    "}\n"
    "__kernel void scale_repeat(__global float *y, const float s, const uint reps) {\n"
    "    size_t i = get_global_id(0);\n"
    "    float v = y[i];\n"
    "    for (uint r = 0; r < reps; r++) v = v * s + 1.0f / (1.0f + v * v);\n"
    "    y[i] = v;\n"
    "}\n";

static void child_pocl(void) {
    cl_setup(1);
    cl_command_queue q1 = queue(0);
    cl_command_queue q2 = queue(CL_QUEUE_PROFILING_ENABLE); /* the program times these itself */
    cl_mem x = buffer(16384), y = buffer(16384);
    float zero[4096] = {0};
    CL_OK(clEnqueueWriteBuffer(q1, x, CL_TRUE, 0, sizeof zero, zero, 0, NULL, NULL));
    CL_OK(clEnqueueWriteBuffer(q1, y, CL_TRUE, 0, sizeof zero, zero, 0, NULL, NULL));
    cl_program p = program(pocl_source, "");
    cl_kernel ks = kernel(p, "saxpy");
    float a = 0.5f;
    CL_OK(clSetKernelArg(ks, 0, sizeof a, &a));
    arg_mem(ks, 1, x);
    arg_mem(ks, 2, y);
    for (int i = 0; i < 20; i++) run(q1, ks, 1, 4096, 0, 64, 0, NULL);
    cl_kernel kr = kernel(p, "scale_repeat");
    float s = 0.999f;
    cl_uint reps = 2000;
    arg_mem(kr, 0, y);
    CL_OK(clSetKernelArg(kr, 1, sizeof s, &s));
    CL_OK(clSetKernelArg(kr, 2, sizeof reps, &reps));
    cl_event ev[7];
    for (int i = 0; i < 7; i++) run(q2, kr, 1, 4096, 0, 64, 0, &ev[i]);
    CL_OK(clFinish(q1));
    CL_OK(clFinish(q2));
    uint64_t own = 0;
    for (int i = 0; i < 7; i++) {
        cl_ulong start = 0, end = 0;
        CL_OK(clGetEventProfilingInfo(ev[i], CL_PROFILING_COMMAND_START, sizeof start, &start, NULL));
        CL_OK(clGetEventProfilingInfo(ev[i], CL_PROFILING_COMMAND_END, sizeof end, &end, NULL));
        own += end - start;
        CL_OK(clReleaseEvent(ev[i]));
    }
    hm_region_record rs = now("saxpy"), rr = now("scale_repeat");
    CHECK(rs.dispatch_count == 20 && rs.bytes_total == 20 * 32768 && rs.kernel_ns_total > 0,
          "saxpy: %" PRIu64 " dispatches, %" PRIu64 " bytes, %" PRIu64 " ns", rs.dispatch_count, rs.bytes_total, rs.kernel_ns_total);
    CHECK(rr.dispatch_count == 7 && rr.bytes_total == 7 * 16384, "scale_repeat: %" PRIu64 " dispatches, %" PRIu64 " bytes",
          rr.dispatch_count, rr.bytes_total);
    CHECK(rr.kernel_ns_total == own, "scale_repeat: %" PRIu64 " ns recorded, the program's own profiling %" PRIu64 " ns",
          rr.kernel_ns_total, own);
    exit(failures ? 1 : 0);
}

static void child_pocl_exit(void) {
    cl_setup(1);
    cl_command_queue q = queue(0);
    cl_mem y = buffer(16384);
    cl_program p = program(pocl_source, "");
    cl_kernel kr = kernel(p, "scale_repeat");
    float s = 0.999f;
    cl_uint reps = 4000;
    arg_mem(kr, 0, y);
    CL_OK(clSetKernelArg(kr, 1, sizeof s, &s));
    CL_OK(clSetKernelArg(kr, 2, sizeof reps, &reps));
    for (int i = 0; i < 4; i++) run(q, kr, 1, 4096, 0, 64, 0, NULL);
    CL_OK(clFlush(q));
    exit(failures ? 1 : 0); /* no clFinish: kernels still running */
}

/* ---- the parent's side */
typedef struct scenario {
    const char *name;
    void (*child)(void);
    const char *env; /* NAME=VALUE pairs separated by spaces; a value @X is the path DIR/X */
    int pocl;        /* on the system's platforms (PoCL), not the stand-in */
} scenario;

static const scenario scenarios[] = {
    {"main", child_main, "FAKE_CL_COMPLETE=thread HINTMAP_NAME_BYTES=64 HINTMAP_CAPACITY=64 HINTMAP_HOT_THRESHOLD_NS=5000", 0},
    {"shape", child_shape, "HINTMAP_NAME=kernel+shape", 0},
    {"build", child_build, "HINTMAP_NAME=kernel+build", 0},
    {"finish", child_finish, "FAKE_CL_COMPLETE=finish FAKE_CL_CALLBACKS=0", 0},
    {"release", child_release, "FAKE_CL_CALLBACKS=0", 0},
    {"in_flight", child_exit_with_work, "FAKE_CL_COMPLETE=thread FAKE_CL_DELAY_MS=300", 0},
    {"never", child_exit_with_work, "FAKE_CL_COMPLETE=never HINTMAP_EXIT_FLUSH_MS=200", 0},
    {"passthrough", child_untouched, "HINTMAP_VERBOSE=0 HINTMAP_FILE=@/no-such-dir/x.hints", 0},
    {"badenv", child_untouched, "HINTMAP_VERBOSE=0 HINTMAP_CAPACITY=12x", 0},
    {"noprofiling", child_noprofiling, "FAKE_CL_NO_PROFILING=1", 0},
    {"threads", child_threads, "FAKE_CL_COMPLETE=thread", 0},
    {"fork", child_fork, "", 0},
    {"reuse", child_reuse, "FAKE_CL_COMPLETE=finish", 0},
    {"nocallback", child_nocallback, "FAKE_CL_REFUSE_CALLBACKS=1", 0},
    {"pocl", child_pocl, "", 1},
    {"pocl_exit", child_pocl_exit, "HINTMAP_EXIT_FLUSH_MS=120000", 1}, /* a loaded machine runs PoCL slowly */
};

static char *slurp(const char *path) {
    FILE *f = fopen(path, "r");
    static char empty[] = "";
    if (f == NULL) return strdup(empty);
    char *buf = calloc(1, 1 << 16);
    size_t n = fread(buf, 1, (1 << 16) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static int lines(const char *s) {
    int n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void path_of(char *out, size_t len, const char *name, const char *ext) { snprintf(out, len, "%s/%s.%s", dir, name, ext); }

/* Runs one scenario's child; returns its exit status (-1: killed), its stderr in *err, its wall ms. */
static int spawn(const scenario *sc, char **err, double *ms) {
    char hints[512], errpath[512];
    path_of(hints, sizeof hints, sc->name, "hints");
    path_of(errpath, sizeof errpath, sc->name, "err");
    unlink(hints);
    double t0 = now_ms();
    fflush(stdout); /* else the child's exit() prints the parent's buffered lines again */
    pid_t p = fork();
    if (p == 0) {
        failures = checks = 0; /* the child's own */
        if (freopen(errpath, "w", stderr) == NULL) _exit(90);
        setvbuf(stderr, NULL, _IONBF, 0);
        char vendors[512];
        snprintf(vendors, sizeof vendors, "%s/vendors", dir);
        if (sc->pocl) {
            unsetenv("OCL_ICD_VENDORS");
            unsetenv("OCL_ICD_FILENAMES");
        } else {
            setenv("OCL_ICD_VENDORS", vendors, 1);
            setenv("OCL_ICD_FILENAMES", fake, 1);
        }
        setenv("OPENCL_LAYERS", layer, 1);
        setenv("HINTMAP_FILE", hints, 1);
        setenv("HINTMAP_VERBOSE", "1", 1);
        unsetenv("HINTMAP_NAME");
        char env[512];
        snprintf(env, sizeof env, "%s", sc->env);
        for (char *kv = strtok(env, " "); kv != NULL; kv = strtok(NULL, " ")) {
            char *eq = strchr(kv, '=');
            *eq = '\0';
            char value[512];
            if (eq[1] == '@') snprintf(value, sizeof value, "%s%s", dir, eq + 2); /* a path under DIR */
            else snprintf(value, sizeof value, "%s", eq + 1);
            setenv(kv, value, 1);
        }
        sc->child();
        _exit(99);
    }
    int st = 0;
    if (p < 0 || waitpid(p, &st, 0) != p) return -1;
    *ms = now_ms() - t0;
    *err = slurp(errpath);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static hm_store *open_hints(const char *name) {
    char path[512];
    path_of(path, sizeof path, name, "hints");
    hm_options o;
    hm_options_init(&o);
    o.read_only = 1;
    hm_store *s = NULL;
    int rc = hm_open(path, &o, &s);
    CHECK(rc == HM_OK, "%s: cannot open %s: %s", name, path, hm_strerror(rc));
    return rc == HM_OK ? s : NULL;
}

static hm_region_record rec(hm_store *s, const char *name) {
    hm_region_record r = {0, 0, 0, 0};
    if (s != NULL && hm_lookup(s, name, strlen(name), &r) != HM_OK) memset(&r, 0, sizeof r);
    return r;
}

static void expect(hm_store *s, const char *sc, const char *region, uint64_t count, uint64_t ns, uint64_t bytes) {
    hm_region_record r = rec(s, region);
    CHECK(r.dispatch_count == count && r.kernel_ns_total == ns && r.bytes_total == bytes,
          "%s: '%s': %" PRIu64 " dispatches, %" PRIu64 " ns, %" PRIu64 " bytes; want %" PRIu64 ", %" PRIu64 ", %" PRIu64, sc, region,
          r.dispatch_count, r.kernel_ns_total, r.bytes_total, count, ns, bytes);
}

static void expect_exit_line(const char *sc, const char *err, const char *want) {
    CHECK(strstr(err, want) != NULL, "%s: stderr lacks '%s':\n%s", sc, want, err);
}

static void check_main(hm_store *s, const char *err) {
    expect(s, "main", "Xaxpy", 5, 5 * 10240, 5 * 8192);
    expect(s, "main", "XgemmDirectTN", 3, 3 * 655360, 3 * (uint64_t)((1 << 20) + (1 << 16) + (1 << 18) + 1024));
    expect(s, "main", "reduce_final", 1, 10, 0);
    expect(s, "main", LONG_KERNEL, 2, 2 * 640, 0); /* found by its whole name: the library applies the stored form */
    char stored[64];
    size_t len = 0;
    CHECK(hm_name_canonical(LONG_KERNEL, strlen(LONG_KERNEL), 64, stored, sizeof stored, &len) == HM_OK && len == 64 &&
              stored[64 - HM_NAME_TAG_BYTES] == '~',
          "the long name's stored form");
    uint32_t regions = 0;
    for (uint32_t i = 0; s != NULL && i < hm_high_water(s); i++) {
        char name[1024];
        size_t nl = 0;
        hm_region_record r;
        if (hm_region_at(s, i, name, sizeof name, &nl, &r) != HM_OK) continue;
        regions++;
        if (r.dispatch_count == 2) CHECK(nl == len && memcmp(name, stored, len) == 0, "main: the long name stored as '%.*s'", (int)nl, name);
    }
    CHECK(regions == 4, "main: %u regions, want 4", regions);
    CHECK(s != NULL && hm_capacity(s) == 64 && hm_max_name_bytes(s) == 64, "main: the file's options from the environment");
    CHECK(s != NULL && hm_is_hot(s, "Xaxpy", 5) == 1 && hm_is_hot(s, "reduce_final", 12) == 0,
          "main: HINTMAP_HOT_THRESHOLD_NS=5000 is the file's threshold (Xaxpy's 10240 ns hot, 10 ns not)");
    expect_exit_line("main", err, "hintmap-opencl: recording into");
    expect_exit_line("main", err, "exit: enqueues=11 recorded=11 regions=4 untimed=0 failed=0 negative=0 lost_at_exit=0");
}

static void check_shape(hm_store *s, const char *err) {
    expect(s, "shape", "Xaxpy[1024/64]", 2, 2 * 10240, 2 * 8192);
    expect(s, "shape", "Xaxpy[2048/64]", 1, 20480, 8192);
    expect(s, "shape", "Xaxpy[1000]", 1, 10000, 8192);
    expect(s, "shape", "XgemmDirectTN[256x256/16x16]", 1, 655360, 0);
    expect(s, "shape", "reduce_final[1/1]", 1, 10, 0);
    expect(s, "shape", "Xaxpy", 0, 0, 0);
    expect_exit_line("shape", err, "(names kernel+shape,");
}

static void check_build(hm_store *s, const char *err) {
    char t64[HMO_BUILD_TAG_BYTES], t128[HMO_BUILD_TAG_BYTES], tother[HMO_BUILD_TAG_BYTES], other[4096], name[64];
    snprintf(other, sizeof other, "#define WPT 4\n%s", blas_source);
    hmo_build_tag(t64, blas_source, strlen(blas_source), options_64);
    hmo_build_tag(t128, blas_source, strlen(blas_source), options_128);
    hmo_build_tag(tother, other, strlen(other), options_64);
    CHECK(strcmp(t64, t128) != 0 && strcmp(t64, tother) != 0 && strlen(t64) == 13, "three tags: %s %s %s", t64, t128, tother);
    snprintf(name, sizeof name, "Xaxpy%s", t64);
    expect(s, "build", name, 3, 3 * 10240, 3 * 8192);
    snprintf(name, sizeof name, "Xaxpy%s", t128);
    expect(s, "build", name, 1, 10240, 8192);
    snprintf(name, sizeof name, "Xaxpy%s", tother);
    expect(s, "build", name, 1, 10240, 8192);
    expect(s, "build", "Xaxpy", 0, 0, 0);
    expect_exit_line("build", err, "exit: enqueues=5 recorded=5 regions=3");
}

static void check_finish(hm_store *s, const char *err) {
    expect(s, "finish", "Xaxpy", 4, 4 * 10240, 4 * 8192);
    expect_exit_line("finish", err, "exit: enqueues=4 recorded=4");
}

static void check_release(hm_store *s, const char *err) {
    expect(s, "release", "Xaxpy", 3, 3 * 10240, 3 * 8192);
    expect_exit_line("release", err, "exit: enqueues=3 recorded=3");
}

static void check_in_flight(hm_store *s, const char *err) {
    expect(s, "in_flight", "Xaxpy", 6, 6 * 10240, 6 * 8192);
    expect_exit_line("in_flight", err, "exit: enqueues=6 recorded=6 regions=1 untimed=0 failed=0 negative=0 lost_at_exit=0");
}

static void check_never(hm_store *s, const char *err) {
    expect(s, "never", "Xaxpy", 0, 0, 0);
    expect_exit_line("never", err, "hintmap-opencl: 3 kernel enqueue(s) still running 200 ms into the exit flush: not recorded");
    expect_exit_line("never", err, "lost_at_exit=3");
}

static void check_untouched(const char *sc, const char *err, const char *want) {
    CHECK(lines(err) == 1 && strncmp(err, "hintmap-opencl: ", 16) == 0 && strstr(err, want) != NULL &&
              strstr(err, "; passing every call through\n") != NULL,
          "%s: want one line with '%s', got:\n%s", sc, want, err);
    char path[512];
    path_of(path, sizeof path, sc, "hints");
    CHECK(access(path, F_OK) != 0, "%s: a hint file was created", sc);
}

static void check_noprofiling(hm_store *s, const char *err) {
    expect(s, "noprofiling", "Xaxpy", 0, 0, 0);
    expect_exit_line("noprofiling", err, "exit: enqueues=2 recorded=0 regions=1 untimed=2");
    expect_exit_line("noprofiling", err, "profiling_refused=1");
}

static void check_threads(hm_store *s, const char *err) {
    expect(s, "threads", "Xaxpy", 2000, 2000 * 10240, 2000 * 8192);
    expect_exit_line("threads", err, "exit: enqueues=2000 recorded=2000");
}

static void check_fork(hm_store *s, const char *err) {
    expect(s, "fork", "Xaxpy", 3, 3 * 10240, 3 * 8192);
    const char *first = strstr(err, "exit: ");
    CHECK(first != NULL && strstr(first + 1, "exit: ") == NULL, "fork: one exit line (the parent's):\n%s", err);
    expect_exit_line("fork", err, "exit: enqueues=3 recorded=3");
}

static void check_reuse(hm_store *s, const char *err) {
    expect(s, "reuse", "Xaxpy", 1, 10240, 8192);
    expect(s, "reuse", "XgemvFast", 2, 2 * 5120, 2 * (64 + 32));
    expect_exit_line("reuse", err, "exit: enqueues=3 recorded=3 regions=2");
}

static void check_nocallback(hm_store *s, const char *err) {
    expect(s, "nocallback", "Xaxpy", 2, 2 * 10240, 2 * 8192);
    expect_exit_line("nocallback", err, "callbacks_refused=2");
}

static void check_pocl(hm_store *s, const char *err) {
    (void)s;
    expect_exit_line("pocl", err, "exit: enqueues=27 recorded=27 regions=2 untimed=0 failed=0 negative=0 lost_at_exit=0");
}

static void check_pocl_exit(hm_store *s, const char *err) {
    hm_region_record r = rec(s, "scale_repeat");
    CHECK(r.dispatch_count == 4 && r.kernel_ns_total > 0, "pocl_exit: %" PRIu64 " dispatches recorded, want 4", r.dispatch_count);
    expect_exit_line("pocl_exit", err, "exit: enqueues=4 recorded=4 regions=1 untimed=0 failed=0 negative=0 lost_at_exit=0");
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: test_layer LAYER.so FAKE_ICD.so DIR [SCENARIO...]\n");
        return 2;
    }
    layer = argv[1], fake = argv[2], dir = argv[3];
    char vendors[512], icd[600];
    snprintf(vendors, sizeof vendors, "%s/vendors", dir);
    mkdir(vendors, 0700);
    snprintf(icd, sizeof icd, "%s/hm_fake.icd", vendors);
    FILE *f = fopen(icd, "w");
    if (f == NULL || fprintf(f, "%s\n", fake) < 0 || fclose(f) != 0) {
        perror(icd);
        return 1;
    }
    int asked = argc > 4, ran = 0, pocl_missing = 0;
    for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++) {
        const scenario *sc = &scenarios[i];
        int wanted = !asked;
        for (int a = 4; a < argc; a++) wanted |= strcmp(argv[a], sc->name) == 0;
        if (!wanted) continue;
        char *err = NULL;
        double ms = 0;
        int before = failures;
        int rc = spawn(sc, &err, &ms);
        if (rc == 77) {
            pocl_missing = 1;
            free(err);
            continue;
        }
        ran++;
        CHECK(rc == 0, "%s: the program failed (exit %d):\n%s", sc->name, rc, err);
        hm_store *s = NULL;
        if (strcmp(sc->name, "passthrough") == 0) check_untouched(sc->name, err, "cannot open ");
        else if (strcmp(sc->name, "badenv") == 0)
            check_untouched(sc->name, err, "HINTMAP_CAPACITY=12x: expected an integer in 1..67108864");
        else s = open_hints(sc->name);
        if (strcmp(sc->name, "main") == 0) check_main(s, err);
        else if (strcmp(sc->name, "shape") == 0) check_shape(s, err);
        else if (strcmp(sc->name, "build") == 0) check_build(s, err);
        else if (strcmp(sc->name, "finish") == 0) check_finish(s, err);
        else if (strcmp(sc->name, "release") == 0) check_release(s, err);
        else if (strcmp(sc->name, "in_flight") == 0) check_in_flight(s, err);
        else if (strcmp(sc->name, "never") == 0) {
            check_never(s, err);
            CHECK(ms < 3000, "never: exit took %.0f ms (HINTMAP_EXIT_FLUSH_MS=200)", ms);
        } else if (strcmp(sc->name, "noprofiling") == 0) check_noprofiling(s, err);
        else if (strcmp(sc->name, "threads") == 0) check_threads(s, err);
        else if (strcmp(sc->name, "fork") == 0) check_fork(s, err);
        else if (strcmp(sc->name, "reuse") == 0) check_reuse(s, err);
        else if (strcmp(sc->name, "nocallback") == 0) check_nocallback(s, err);
        else if (strcmp(sc->name, "pocl") == 0) check_pocl(s, err);
        else if (strcmp(sc->name, "pocl_exit") == 0) check_pocl_exit(s, err);
        if (s != NULL) hm_close(s);
        printf("%s %s (%.0f ms)\n", failures == before ? "ok  " : "FAIL", sc->name, ms);
        free(err);
    }
    if (pocl_missing && ran == 0) return 77; /* the caller says so, in one line */
    printf("test_layer: %d checks, %d failures, %d scenarios%s\n", checks, failures, ran,
           pocl_missing ? "; no PoCL platform: the pocl scenarios not run" : "");
    return failures ? 1 : 0;
}
