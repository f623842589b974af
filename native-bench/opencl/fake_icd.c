/*
 * fake_icd.c - libhm_fake_icd.so, a stand-in OpenCL platform for the layer's tests: an ICD that the
 * real loader finds (OCL_ICD_VENDORS: a folder with a .icd file naming this library; the Khronos
 * loader: OCL_ICD_FILENAMES), with one device, whose commands take a known time. No OpenCL
 * implementation is needed. It does what the tests call, and checks what the layer relies on.
 *
 * Behaviour, from the environment (read when the loader first asks for platforms):
 *   FAKE_CL_COMPLETE=enqueue  a command completes inside its enqueue call (default)
 *                    thread   a driver thread completes commands in order, FAKE_CL_DELAY_MS after their enqueue
 *                    finish   commands complete in clFinish / clWaitForEvents only
 *                    never    commands never complete (clFinish returns at once)
 *   FAKE_CL_CALLBACKS=0       CL_COMPLETE callbacks are never run (a driver that runs them late)
 *   FAKE_CL_REFUSE_CALLBACKS=1 clSetEventCallback fails (CL_OUT_OF_HOST_MEMORY)
 *   FAKE_CL_NO_PROFILING=1    a queue asked with CL_QUEUE_PROFILING_ENABLE is refused (CL_INVALID_QUEUE_PROPERTIES)
 *   FAKE_CL_NS_PER_ITEM=N     a kernel runs N ns per global work-item (default 10): its profiling END - START
 * Profiling info exists only for commands of a profiling queue, once complete (else
 * CL_PROFILING_INFO_NOT_AVAILABLE), as the specification says. A command holds its queue and its
 * kernel until it completes, and a sub-buffer its buffer: a kernel the program releases while its
 * command runs, or a buffer released before its sub-buffer, dies later, inside the driver, where
 * the layer does not see it. A callback runs with a reference to
 * its event held, so that it may release the last reference of its own. Destroyed kernels and
 * memory objects go to a free list that the next creation takes first (LIFO): a new object gets
 * the address of the last one destroyed, as drivers' allocators do.
 *
 * Programs: a kernel exists when the source has "__kernel void NAME" (clCreateKernel refuses other
 * names; clCreateKernelsInProgram makes them all). Kernels take 16 arguments of any size.
 *
 * For the tests (dlsym on this library): fake_cl_live_events() counts events not destroyed yet;
 * fake_cl_queue_properties(queue) is what the queue was really created with.
 */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_0_APIS
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_2_0_APIS
#include <CL/cl_icd.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

typedef struct callback {
    void(CL_CALLBACK *fn)(cl_event, cl_int, void *);
    void *data;
    struct callback *next;
} callback;

/* Every object starts with the dispatch table (the ICD rule the loader dispatches through). */
struct _cl_platform_id { cl_icd_dispatch *dispatch; };
struct _cl_device_id { cl_icd_dispatch *dispatch; };
struct _cl_context { cl_icd_dispatch *dispatch; int refs; };
struct _cl_command_queue {
    cl_icd_dispatch *dispatch;
    int refs;       /* the program's, and one per command not complete yet */
    int busy;       /* commands not complete yet */
    cl_command_queue_properties props;
};
struct _cl_program {
    cl_icd_dispatch *dispatch;
    int refs;
    char *source, *options;
};
/* Kernels and memory objects share one shape, so that both come from the one free list. */
typedef struct fake_obj {
    cl_icd_dispatch *dispatch;
    int refs;
    struct fake_obj *free_next;
    char name[256];     /* a kernel's function name */
    cl_program program; /* a kernel's program */
    size_t size;        /* a memory object's size */
    struct fake_obj *parent; /* a sub-buffer's buffer, held until the sub-buffer dies */
} fake_obj;
struct _cl_event {
    cl_icd_dispatch *dispatch;
    int refs;
    cl_int status;
    cl_command_queue queue;
    cl_kernel kernel;  /* held until the command completes, as drivers do */
    int profiled;
    cl_ulong ns;
    cl_ulong start, end;
    double due_ms;
    callback *callbacks;
    struct _cl_event *run_next; /* the driver thread's queue */
};

static cl_icd_dispatch table;
static struct _cl_platform_id platform = {&table};
static struct _cl_device_id device = {&table};

static struct {
    pthread_mutex_t lock;
    pthread_cond_t work;
    pthread_once_t once;
    enum { AT_ENQUEUE, ON_THREAD, AT_FINISH, NEVER } complete;
    int callbacks, refuse_callbacks, no_profiling;
    unsigned delay_ms;
    cl_ulong ns_per_item, clock;
    fake_obj *free_list;
    struct _cl_event *run_head, *run_tail;
    struct _cl_event **waiting; /* AT_FINISH: commands not complete yet */
    size_t n_waiting, cap_waiting;
    int busy; /* commands not complete yet, all queues */
    atomic_int live_events;
} fake = {.lock = PTHREAD_MUTEX_INITIALIZER, .work = PTHREAD_COND_INITIALIZER, .once = PTHREAD_ONCE_INIT};

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static cl_int info(const void *src, size_t size, size_t value_size, void *value, size_t *size_ret) {
    if (value != NULL) {
        if (value_size < size) return CL_INVALID_VALUE;
        memcpy(value, src, size);
    }
    if (size_ret != NULL) *size_ret = size;
    return CL_SUCCESS;
}
#define INFO_OF(x) info(&(x), sizeof(x), value_size, value, size_ret)
#define INFO_STR(s) info((s), strlen(s) + 1, value_size, value, size_ret)

/* ---- objects from the free list */
static fake_obj *obj_new(void) {
    pthread_mutex_lock(&fake.lock);
    fake_obj *o = fake.free_list;
    if (o != NULL) fake.free_list = o->free_next;
    pthread_mutex_unlock(&fake.lock);
    if (o == NULL) o = malloc(sizeof *o);
    if (o != NULL) {
        memset(o, 0, sizeof *o);
        o->dispatch = &table;
        o->refs = 1;
    }
    return o;
}

/* Drops one reference: 1 when that destroyed the object, 0 when it lives on, -1 for NULL. */
static int obj_release(fake_obj *o) {
    if (o == NULL) return -1;
    pthread_mutex_lock(&fake.lock);
    int last = --o->refs == 0;
    if (last) {
        o->dispatch = NULL; /* a use after release crashes in the loader: what a test wants to see */
        o->free_next = fake.free_list;
        fake.free_list = o;
    }
    pthread_mutex_unlock(&fake.lock);
    return last;
}

static cl_int obj_retain(fake_obj *o) {
    if (o == NULL) return CL_INVALID_VALUE;
    pthread_mutex_lock(&fake.lock);
    o->refs++;
    pthread_mutex_unlock(&fake.lock);
    return CL_SUCCESS;
}

/* ---- platform and device */
static cl_int CL_API_CALL fake_GetPlatformInfo(cl_platform_id p, cl_platform_info what, size_t value_size, void *value,
                                               size_t *size_ret) {
    (void)p;
    switch (what) {
    case CL_PLATFORM_EXTENSIONS: return INFO_STR("cl_khr_icd");
    case CL_PLATFORM_ICD_SUFFIX_KHR: return INFO_STR("HMFAKE");
    case CL_PLATFORM_NAME: return INFO_STR("hintmap stand-in platform");
    case CL_PLATFORM_VENDOR: return INFO_STR("hintmap tests");
    case CL_PLATFORM_VERSION: return INFO_STR("OpenCL 3.0 stand-in");
    case CL_PLATFORM_PROFILE: return INFO_STR("FULL_PROFILE");
    default: return CL_INVALID_VALUE;
    }
}

static cl_int CL_API_CALL fake_GetDeviceIDs(cl_platform_id p, cl_device_type type, cl_uint n, cl_device_id *out, cl_uint *n_ret) {
    (void)p;
    if (!(type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_DEFAULT))) return CL_DEVICE_NOT_FOUND;
    if (out != NULL && n > 0) out[0] = &device;
    if (n_ret != NULL) *n_ret = 1;
    return CL_SUCCESS;
}

static cl_int CL_API_CALL fake_GetDeviceInfo(cl_device_id d, cl_device_info what, size_t value_size, void *value, size_t *size_ret) {
    (void)d;
    cl_device_type type = CL_DEVICE_TYPE_GPU;
    cl_platform_id p = &platform;
    switch (what) {
    case CL_DEVICE_NAME: return INFO_STR("hintmap stand-in device");
    case CL_DEVICE_TYPE: return INFO_OF(type);
    case CL_DEVICE_PLATFORM: return INFO_OF(p);
    case CL_DEVICE_VERSION: return INFO_STR("OpenCL 3.0 stand-in");
    default: return CL_INVALID_VALUE;
    }
}

static cl_context CL_API_CALL fake_CreateContext(const cl_context_properties *props, cl_uint n, const cl_device_id *devices,
                                                 void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *), void *data,
                                                 cl_int *err) {
    (void)props, (void)n, (void)devices, (void)notify, (void)data;
    cl_context c = calloc(1, sizeof *c);
    c->dispatch = &table;
    c->refs = 1;
    if (err) *err = CL_SUCCESS;
    return c;
}

static cl_int CL_API_CALL fake_ReleaseContext(cl_context c) {
    if (--c->refs == 0) free(c);
    return CL_SUCCESS;
}

/* ---- queues */
static cl_command_queue queue_new(cl_command_queue_properties props, cl_int *err) {
    if (fake.no_profiling && (props & CL_QUEUE_PROFILING_ENABLE)) {
        if (err) *err = CL_INVALID_QUEUE_PROPERTIES;
        return NULL;
    }
    cl_command_queue q = calloc(1, sizeof *q);
    q->dispatch = &table;
    q->refs = 1;
    q->props = props;
    if (err) *err = CL_SUCCESS;
    return q;
}

static cl_command_queue CL_API_CALL fake_CreateCommandQueue(cl_context c, cl_device_id d, cl_command_queue_properties props,
                                                            cl_int *err) {
    (void)c, (void)d;
    return queue_new(props, err);
}

static cl_command_queue CL_API_CALL fake_CreateCommandQueueWithProperties(cl_context c, cl_device_id d, const cl_queue_properties *props,
                                                                          cl_int *err) {
    (void)c, (void)d;
    cl_command_queue_properties p = 0;
    for (size_t i = 0; props != NULL && props[i] != 0; i += 2)
        if (props[i] == CL_QUEUE_PROPERTIES) p = props[i + 1];
    return queue_new(p, err);
}

static cl_int CL_API_CALL fake_GetCommandQueueInfo(cl_command_queue q, cl_command_queue_info what, size_t value_size, void *value,
                                                   size_t *size_ret) {
    pthread_mutex_lock(&fake.lock);
    cl_uint refs = (cl_uint)q->refs;
    pthread_mutex_unlock(&fake.lock);
    switch (what) {
    case CL_QUEUE_REFERENCE_COUNT: return INFO_OF(refs);
    case CL_QUEUE_PROPERTIES: return INFO_OF(q->props);
    default: return CL_INVALID_VALUE;
    }
}

static cl_int CL_API_CALL fake_RetainCommandQueue(cl_command_queue q) {
    pthread_mutex_lock(&fake.lock);
    q->refs++;
    pthread_mutex_unlock(&fake.lock);
    return CL_SUCCESS;
}

static cl_int CL_API_CALL fake_ReleaseCommandQueue(cl_command_queue q) {
    pthread_mutex_lock(&fake.lock);
    int last = --q->refs == 0;
    pthread_mutex_unlock(&fake.lock);
    if (last) {
        q->dispatch = NULL;
        free(q);
    }
    return CL_SUCCESS;
}

/* ---- memory objects */
static cl_mem CL_API_CALL fake_CreateBuffer(cl_context c, cl_mem_flags f, size_t size, void *host, cl_int *err) {
    (void)c, (void)f, (void)host;
    fake_obj *o = obj_new();
    o->size = size;
    if (err) *err = CL_SUCCESS;
    return (cl_mem)o;
}

static cl_mem CL_API_CALL fake_CreateSubBuffer(cl_mem b, cl_mem_flags f, cl_buffer_create_type t, const void *region, cl_int *err) {
    (void)b, (void)f, (void)t;
    fake_obj *o = obj_new();
    o->size = ((const cl_buffer_region *)region)->size;
    o->parent = (fake_obj *)b;
    obj_retain(o->parent);
    if (err) *err = CL_SUCCESS;
    return (cl_mem)o;
}

static cl_int CL_API_CALL fake_GetMemObjectInfo(cl_mem m, cl_mem_info what, size_t value_size, void *value, size_t *size_ret) {
    fake_obj *o = (fake_obj *)m;
    pthread_mutex_lock(&fake.lock);
    cl_uint refs = (cl_uint)o->refs;
    pthread_mutex_unlock(&fake.lock);
    switch (what) {
    case CL_MEM_SIZE: return INFO_OF(o->size);
    case CL_MEM_REFERENCE_COUNT: return INFO_OF(refs);
    default: return CL_INVALID_VALUE;
    }
}

static cl_int CL_API_CALL fake_RetainMemObject(cl_mem m) { return obj_retain((fake_obj *)m); }
static cl_int CL_API_CALL fake_ReleaseMemObject(cl_mem m) {
    fake_obj *o = (fake_obj *)m, *parent = o != NULL ? o->parent : NULL;
    int destroyed = obj_release(o);
    if (destroyed > 0 && parent != NULL) obj_release(parent); /* may destroy it: inside the driver, unseen by a layer */
    return destroyed < 0 ? CL_INVALID_MEM_OBJECT : CL_SUCCESS;
}

/* ---- programs and kernels */
static cl_program CL_API_CALL fake_CreateProgramWithSource(cl_context c, cl_uint n, const char **strings, const size_t *lengths,
                                                           cl_int *err) {
    (void)c;
    size_t total = 0;
    for (cl_uint i = 0; i < n; i++) total += lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
    cl_program p = calloc(1, sizeof *p);
    p->dispatch = &table;
    p->refs = 1;
    p->source = malloc(total + 1);
    size_t at = 0;
    for (cl_uint i = 0; i < n; i++) {
        size_t len = lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
        memcpy(p->source + at, strings[i], len);
        at += len;
    }
    p->source[at] = '\0';
    if (err) *err = CL_SUCCESS;
    return p;
}

static cl_int CL_API_CALL fake_BuildProgram(cl_program p, cl_uint n, const cl_device_id *d, const char *options,
                                            void(CL_CALLBACK *notify)(cl_program, void *), void *data) {
    (void)n, (void)d, (void)notify, (void)data;
    free(p->options);
    p->options = strdup(options ? options : "");
    return CL_SUCCESS;
}

static cl_int CL_API_CALL fake_GetProgramInfo(cl_program p, cl_program_info what, size_t value_size, void *value, size_t *size_ret) {
    cl_device_id d = &device;
    switch (what) {
    case CL_PROGRAM_SOURCE: return INFO_STR(p->source);
    case CL_PROGRAM_DEVICES: return INFO_OF(d);
    case CL_PROGRAM_IL: return info("", 0, value_size, value, size_ret);
    default: return CL_INVALID_VALUE;
    }
}

static cl_int CL_API_CALL fake_GetProgramBuildInfo(cl_program p, cl_device_id d, cl_program_build_info what, size_t value_size,
                                                   void *value, size_t *size_ret) {
    (void)d;
    if (what != CL_PROGRAM_BUILD_OPTIONS) return CL_INVALID_VALUE;
    return INFO_STR(p->options ? p->options : "");
}

static cl_int CL_API_CALL fake_ReleaseProgram(cl_program p) {
    pthread_mutex_lock(&fake.lock);
    int last = --p->refs == 0;
    pthread_mutex_unlock(&fake.lock);
    if (last) {
        free(p->source);
        free(p->options);
        free(p);
    }
    return CL_SUCCESS;
}

/* The next "__kernel void NAME" of the source from *at: its name into name[256], or 0 at the end. */
static int next_kernel(const char **at, char name[256]) {
    const char *k = strstr(*at, "__kernel void ");
    if (k == NULL) return 0;
    k += strlen("__kernel void ");
    size_t n = 0;
    while (n < 255 && (k[n] == '_' || (k[n] >= 'a' && k[n] <= 'z') || (k[n] >= 'A' && k[n] <= 'Z') || (k[n] >= '0' && k[n] <= '9'))) n++;
    memcpy(name, k, n);
    name[n] = '\0';
    *at = k + n;
    return 1;
}

static cl_kernel kernel_new(cl_program p, const char *name) {
    fake_obj *o = obj_new();
    snprintf(o->name, sizeof o->name, "%s", name);
    o->program = p;
    pthread_mutex_lock(&fake.lock);
    p->refs++;
    pthread_mutex_unlock(&fake.lock);
    return (cl_kernel)o;
}

static cl_kernel CL_API_CALL fake_CreateKernel(cl_program p, const char *name, cl_int *err) {
    char k[256];
    for (const char *at = p->source; next_kernel(&at, k);)
        if (strcmp(k, name) == 0) {
            if (err) *err = CL_SUCCESS;
            return kernel_new(p, name);
        }
    if (err) *err = CL_INVALID_KERNEL_NAME;
    return NULL;
}

static cl_int CL_API_CALL fake_CreateKernelsInProgram(cl_program p, cl_uint n, cl_kernel *out, cl_uint *n_ret) {
    char k[256];
    cl_uint count = 0;
    for (const char *at = p->source; next_kernel(&at, k);) {
        if (out != NULL && count >= n) return CL_INVALID_VALUE;
        if (out != NULL) out[count] = kernel_new(p, k);
        count++;
    }
    if (n_ret != NULL) *n_ret = count;
    return CL_SUCCESS;
}

static cl_kernel CL_API_CALL fake_CloneKernel(cl_kernel source, cl_int *err) {
    fake_obj *s = (fake_obj *)source;
    if (err) *err = CL_SUCCESS;
    return kernel_new(s->program, s->name);
}

static cl_int CL_API_CALL fake_GetKernelInfo(cl_kernel k, cl_kernel_info what, size_t value_size, void *value, size_t *size_ret) {
    fake_obj *o = (fake_obj *)k;
    pthread_mutex_lock(&fake.lock);
    cl_uint refs = (cl_uint)o->refs, args = 16;
    pthread_mutex_unlock(&fake.lock);
    switch (what) {
    case CL_KERNEL_FUNCTION_NAME: return INFO_STR(o->name);
    case CL_KERNEL_REFERENCE_COUNT: return INFO_OF(refs);
    case CL_KERNEL_PROGRAM: return INFO_OF(o->program);
    case CL_KERNEL_NUM_ARGS: return INFO_OF(args);
    default: return CL_INVALID_VALUE;
    }
}

static cl_int CL_API_CALL fake_SetKernelArg(cl_kernel k, cl_uint index, size_t size, const void *value) {
    (void)k, (void)size, (void)value;
    return index < 16 ? CL_SUCCESS : CL_INVALID_ARG_INDEX;
}

static cl_int CL_API_CALL fake_RetainKernel(cl_kernel k) { return obj_retain((fake_obj *)k); }

static cl_int CL_API_CALL fake_ReleaseKernel(cl_kernel k) {
    fake_obj *o = (fake_obj *)k;
    cl_program p = o != NULL ? o->program : NULL;
    int destroyed = obj_release(o);
    if (destroyed > 0) fake_ReleaseProgram(p); /* the kernel's reference to its program */
    return destroyed < 0 ? CL_INVALID_KERNEL : CL_SUCCESS;
}

/* ---- events and commands */
static void event_free(cl_event e) {
    for (callback *c = e->callbacks, *n; c != NULL; c = n) {
        n = c->next;
        free(c);
    }
    e->dispatch = NULL;
    free(e);
    atomic_fetch_sub(&fake.live_events, 1);
}

static cl_int CL_API_CALL fake_RetainEvent(cl_event e) {
    pthread_mutex_lock(&fake.lock);
    e->refs++;
    pthread_mutex_unlock(&fake.lock);
    return CL_SUCCESS;
}

static cl_int CL_API_CALL fake_ReleaseEvent(cl_event e) {
    pthread_mutex_lock(&fake.lock);
    int last = --e->refs == 0;
    pthread_mutex_unlock(&fake.lock);
    if (last) event_free(e);
    return CL_SUCCESS;
}

/* Completes e (its lock not held): its profiling times from the fake clock, then its callbacks,
   each run with a reference held. */
static void event_complete(cl_event e) {
    pthread_mutex_lock(&fake.lock);
    e->start = fake.clock;
    e->end = e->start + e->ns;
    fake.clock = e->end + 1000;
    e->status = CL_COMPLETE;
    e->refs++;
    e->queue->busy--;
    fake.busy--;
    callback *cbs = fake.callbacks ? e->callbacks : NULL;
    e->callbacks = NULL;
    pthread_mutex_unlock(&fake.lock);
    for (callback *c = cbs, *n; c != NULL; c = n) {
        n = c->next;
        c->fn(e, CL_COMPLETE, c->data);
        free(c);
    }
    fake_ReleaseCommandQueue(e->queue); /* the command's references */
    fake_ReleaseKernel(e->kernel);
    fake_ReleaseEvent(e); /* the driver's reference, taken at the enqueue */
    fake_ReleaseEvent(e); /* the one held during the callbacks */
}

static void *driver_thread(void *arg) {
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&fake.lock);
        while (fake.run_head == NULL) pthread_cond_wait(&fake.work, &fake.lock);
        cl_event e = fake.run_head;
        fake.run_head = e->run_next;
        if (fake.run_head == NULL) fake.run_tail = NULL;
        pthread_mutex_unlock(&fake.lock);
        double wait = e->due_ms - now_ms();
        if (wait > 0) {
            struct timespec t = {(time_t)(wait / 1000), (long)((wait - 1000 * (double)(time_t)(wait / 1000)) * 1e6)};
            nanosleep(&t, NULL);
        }
        event_complete(e);
    }
    return NULL;
}

static cl_int CL_API_CALL fake_ReleaseKernel(cl_kernel k);

static cl_int enqueue(cl_command_queue q, cl_kernel k, cl_uint dims, const size_t *global, cl_event *out) {
    if (dims < 1 || dims > 3 || global == NULL) return CL_INVALID_WORK_DIMENSION;
    cl_ulong items = 1;
    for (cl_uint d = 0; d < dims; d++) items *= global[d];
    cl_event e = calloc(1, sizeof *e);
    if (e == NULL) return CL_OUT_OF_HOST_MEMORY;
    atomic_fetch_add(&fake.live_events, 1);
    e->dispatch = &table;
    e->refs = 1 + (out != NULL); /* the driver's until complete, and the program's */
    e->status = CL_QUEUED;
    e->queue = q;
    e->kernel = k;
    obj_retain((fake_obj *)k);
    e->profiled = (q->props & CL_QUEUE_PROFILING_ENABLE) != 0;
    e->ns = items * fake.ns_per_item;
    pthread_mutex_lock(&fake.lock);
    q->refs++;
    q->busy++;
    fake.busy++;
    pthread_mutex_unlock(&fake.lock);
    if (out != NULL) *out = e;
    switch (fake.complete) {
    case AT_ENQUEUE: event_complete(e); break;
    case ON_THREAD:
        pthread_mutex_lock(&fake.lock);
        e->due_ms = now_ms() + fake.delay_ms;
        if (fake.run_tail) fake.run_tail->run_next = e;
        else fake.run_head = e;
        fake.run_tail = e;
        pthread_cond_signal(&fake.work);
        pthread_mutex_unlock(&fake.lock);
        break;
    case AT_FINISH:
        pthread_mutex_lock(&fake.lock);
        if (fake.n_waiting == fake.cap_waiting) {
            fake.cap_waiting = fake.cap_waiting ? 2 * fake.cap_waiting : 64;
            fake.waiting = realloc(fake.waiting, fake.cap_waiting * sizeof *fake.waiting);
        }
        fake.waiting[fake.n_waiting++] = e;
        pthread_mutex_unlock(&fake.lock);
        break;
    case NEVER: break;
    }
    return CL_SUCCESS;
}

static cl_int CL_API_CALL fake_EnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dims, const size_t *offset,
                                                    const size_t *global, const size_t *local, cl_uint n_wait, const cl_event *wait,
                                                    cl_event *event) {
    (void)offset, (void)local, (void)n_wait, (void)wait;
    return enqueue(q, k, dims, global, event);
}

static cl_int CL_API_CALL fake_EnqueueTask(cl_command_queue q, cl_kernel k, cl_uint n_wait, const cl_event *wait, cl_event *event) {
    (void)n_wait, (void)wait;
    static const size_t one = 1;
    return enqueue(q, k, 1, &one, event);
}

/* AT_FINISH: completes what is waiting (of queue q; NULL: all). ON_THREAD: waits for the driver. */
static void finish(cl_command_queue q) {
    if (fake.complete == ON_THREAD) {
        for (;;) {
            pthread_mutex_lock(&fake.lock);
            int busy = q != NULL ? q->busy : fake.busy;
            pthread_mutex_unlock(&fake.lock);
            if (!busy) break;
            usleep(200);
        }
        return;
    }
    if (fake.complete != AT_FINISH) return;
    for (;;) {
        cl_event e = NULL;
        pthread_mutex_lock(&fake.lock);
        for (size_t i = 0; i < fake.n_waiting && e == NULL; i++)
            if (q == NULL || fake.waiting[i]->queue == q) {
                e = fake.waiting[i];
                fake.waiting[i] = fake.waiting[--fake.n_waiting];
            }
        pthread_mutex_unlock(&fake.lock);
        if (e == NULL) break;
        event_complete(e);
    }
}

static cl_int CL_API_CALL fake_Finish(cl_command_queue q) {
    finish(q);
    return CL_SUCCESS;
}

static cl_int CL_API_CALL fake_Flush(cl_command_queue q) {
    (void)q;
    return CL_SUCCESS;
}

static cl_int CL_API_CALL fake_WaitForEvents(cl_uint n, const cl_event *events) {
    (void)n, (void)events;
    finish(NULL);
    return CL_SUCCESS;
}

static cl_int CL_API_CALL fake_GetEventInfo(cl_event e, cl_event_info what, size_t value_size, void *value, size_t *size_ret) {
    pthread_mutex_lock(&fake.lock);
    cl_int status = e->status;
    cl_uint refs = (cl_uint)e->refs;
    pthread_mutex_unlock(&fake.lock);
    switch (what) {
    case CL_EVENT_COMMAND_EXECUTION_STATUS: return INFO_OF(status);
    case CL_EVENT_REFERENCE_COUNT: return INFO_OF(refs);
    case CL_EVENT_COMMAND_QUEUE: return INFO_OF(e->queue);
    default: return CL_INVALID_VALUE;
    }
}

static cl_int CL_API_CALL fake_GetEventProfilingInfo(cl_event e, cl_profiling_info what, size_t value_size, void *value,
                                                     size_t *size_ret) {
    pthread_mutex_lock(&fake.lock);
    int available = e->status == CL_COMPLETE && e->profiled;
    cl_ulong start = e->start, end = e->end;
    pthread_mutex_unlock(&fake.lock);
    if (!available) return CL_PROFILING_INFO_NOT_AVAILABLE;
    switch (what) {
    case CL_PROFILING_COMMAND_QUEUED:
    case CL_PROFILING_COMMAND_SUBMIT:
    case CL_PROFILING_COMMAND_START: return INFO_OF(start);
    case CL_PROFILING_COMMAND_END:
    case CL_PROFILING_COMMAND_COMPLETE: return INFO_OF(end);
    default: return CL_INVALID_VALUE;
    }
}

static cl_int CL_API_CALL fake_SetEventCallback(cl_event e, cl_int type, void(CL_CALLBACK *fn)(cl_event, cl_int, void *), void *data) {
    if (type != CL_COMPLETE || fn == NULL) return CL_INVALID_VALUE;
    if (fake.refuse_callbacks) return CL_OUT_OF_HOST_MEMORY;
    callback *c = malloc(sizeof *c);
    if (c == NULL) return CL_OUT_OF_HOST_MEMORY;
    c->fn = fn;
    c->data = data;
    pthread_mutex_lock(&fake.lock);
    int done = e->status == CL_COMPLETE;
    if (!done) {
        c->next = e->callbacks;
        e->callbacks = c;
    } else {
        e->refs++;
    }
    pthread_mutex_unlock(&fake.lock);
    if (done) { /* already complete: run now, as the specification allows */
        if (fake.callbacks) fn(e, CL_COMPLETE, data);
        free(c);
        fake_ReleaseEvent(e);
    }
    return CL_SUCCESS;
}

/* ---- the ICD entry points */
static void setup(void) {
    const char *mode = getenv("FAKE_CL_COMPLETE");
    fake.complete = mode == NULL || strcmp(mode, "enqueue") == 0 ? AT_ENQUEUE
                    : strcmp(mode, "thread") == 0              ? ON_THREAD
                    : strcmp(mode, "finish") == 0              ? AT_FINISH
                                                               : NEVER;
    const char *v;
    fake.callbacks = !((v = getenv("FAKE_CL_CALLBACKS")) && strcmp(v, "0") == 0);
    fake.refuse_callbacks = (v = getenv("FAKE_CL_REFUSE_CALLBACKS")) && strcmp(v, "1") == 0;
    fake.no_profiling = (v = getenv("FAKE_CL_NO_PROFILING")) && strcmp(v, "1") == 0;
    fake.delay_ms = (v = getenv("FAKE_CL_DELAY_MS")) ? (unsigned)atoi(v) : 0;
    fake.ns_per_item = (v = getenv("FAKE_CL_NS_PER_ITEM")) ? (cl_ulong)atoll(v) : 10;
    fake.clock = 1000000;
    pthread_t t;
    if (fake.complete == ON_THREAD && pthread_create(&t, NULL, driver_thread, NULL) == 0) pthread_detach(t);

    table.clGetPlatformInfo = fake_GetPlatformInfo;
    table.clGetDeviceIDs = fake_GetDeviceIDs;
    table.clGetDeviceInfo = fake_GetDeviceInfo;
    table.clCreateContext = fake_CreateContext;
    table.clReleaseContext = fake_ReleaseContext;
    table.clCreateCommandQueue = fake_CreateCommandQueue;
    table.clCreateCommandQueueWithProperties = fake_CreateCommandQueueWithProperties;
    table.clGetCommandQueueInfo = fake_GetCommandQueueInfo;
    table.clRetainCommandQueue = fake_RetainCommandQueue;
    table.clReleaseCommandQueue = fake_ReleaseCommandQueue;
    table.clCreateBuffer = fake_CreateBuffer;
    table.clCreateSubBuffer = fake_CreateSubBuffer;
    table.clGetMemObjectInfo = fake_GetMemObjectInfo;
    table.clRetainMemObject = fake_RetainMemObject;
    table.clReleaseMemObject = fake_ReleaseMemObject;
    table.clCreateProgramWithSource = fake_CreateProgramWithSource;
    table.clBuildProgram = fake_BuildProgram;
    table.clGetProgramInfo = fake_GetProgramInfo;
    table.clGetProgramBuildInfo = fake_GetProgramBuildInfo;
    table.clReleaseProgram = fake_ReleaseProgram;
    table.clCreateKernel = fake_CreateKernel;
    table.clCreateKernelsInProgram = fake_CreateKernelsInProgram;
    table.clCloneKernel = fake_CloneKernel;
    table.clGetKernelInfo = fake_GetKernelInfo;
    table.clSetKernelArg = fake_SetKernelArg;
    table.clRetainKernel = fake_RetainKernel;
    table.clReleaseKernel = fake_ReleaseKernel;
    table.clEnqueueNDRangeKernel = fake_EnqueueNDRangeKernel;
    table.clEnqueueTask = fake_EnqueueTask;
    table.clFinish = fake_Finish;
    table.clFlush = fake_Flush;
    table.clWaitForEvents = fake_WaitForEvents;
    table.clGetEventInfo = fake_GetEventInfo;
    table.clGetEventProfilingInfo = fake_GetEventProfilingInfo;
    table.clSetEventCallback = fake_SetEventCallback;
    table.clRetainEvent = fake_RetainEvent;
    table.clReleaseEvent = fake_ReleaseEvent;
}

EXPORT cl_int CL_API_CALL clIcdGetPlatformIDsKHR(cl_uint n, cl_platform_id *out, cl_uint *n_ret) {
    pthread_once(&fake.once, setup);
    if (out != NULL && n > 0) out[0] = &platform;
    if (n_ret != NULL) *n_ret = 1;
    return CL_SUCCESS;
}

EXPORT cl_int CL_API_CALL clGetPlatformInfo(cl_platform_id p, cl_platform_info what, size_t value_size, void *value, size_t *size_ret) {
    return fake_GetPlatformInfo(p, what, value_size, value, size_ret);
}

EXPORT void *CL_API_CALL clGetExtensionFunctionAddress(const char *name) {
    if (strcmp(name, "clIcdGetPlatformIDsKHR") == 0) return (void *)clIcdGetPlatformIDsKHR;
    if (strcmp(name, "clGetPlatformInfo") == 0) return (void *)clGetPlatformInfo;
    return NULL;
}

EXPORT int fake_cl_live_events(void) { return atomic_load(&fake.live_events); }

EXPORT cl_command_queue_properties fake_cl_queue_properties(cl_command_queue q) { return q->props; }
