/*
 * hintmap_opencl.c - libhintmap_opencl.so: an OpenCL loader layer (cl_loader_layers) that records one
 * hintmap sample per kernel enqueue of any OpenCL program, with no change to the program.
 *
 *   OPENCL_LAYERS=/path/libhintmap_opencl.so HINTMAP_FILE=/dev/shm/app.hints ./app
 *
 * Environment (docs/OPENCL.md "Options"): HINTMAP_FILE, HINTMAP_CAPACITY,
 * HINTMAP_NAME_BYTES, HINTMAP_HOT_THRESHOLD_NS (collect/hmc_options.h, as every collector),
 * HINTMAP_NAME (opencl/hmo_naming.h), HINTMAP_EXIT_FLUSH_MS, HINTMAP_VERBOSE.
 *
 * Design notes
 * - The way in. The ICD loader (ocl-icd >= 2.3, or the Khronos loader built with layers) dlopens
 *   every library of OPENCL_LAYERS once it has found a platform, and calls clInitLayer with the
 *   dispatch table of what lies below (the loader's own, or the next layer's). The layer hands back
 *   its own table: its functions in the entries it watches, NULL elsewhere (both loaders fill a NULL
 *   entry from the table below). Each function of the layer does its bookkeeping around a call
 *   through the table below, so every object the program sees is the driver's own: nothing is
 *   wrapped, and an entry the layer does not watch costs nothing.
 * - Global state. clInitLayer takes no user pointer, so the layer's state is the one static `hmo`
 *   below; the library exports clGetLayerInfo and clInitLayer only (a version script hides the
 *   rest, libhintmap's hm_* included).
 * - Never break the program: a bad variable or a hint file that cannot be opened is one line
 *   "hintmap-opencl: ...; passing every call through" on stderr, and the layer's table is then all
 *   NULL (the loader calls the driver directly). clInitLayer always succeeds. Whatever the layer
 *   changes, it changes back on failure: a queue the driver refuses to create with profiling is
 *   created again with the program's own properties.
 * - One sample per kernel enqueue (clEnqueueNDRangeKernel, clEnqueueTask): the layer asks the
 *   driver for the command's event (the program's own when it asked for one, then the layer takes
 *   a reference of its own, so the program's event stays valid whatever it does with it), and sets a
 *   CL_COMPLETE callback on it. The callback (the driver's thread) reads the command's profiling info
 *   (END - START) and records the sample; the program is never blocked. Kernel ns need a profiling
 *   queue: the layer adds CL_QUEUE_PROFILING_ENABLE to every queue it sees created, and masks the bit
 *   from CL_QUEUE_PROPERTIES for a program that did not ask for it.
 * - Names and bytes are taken at the enqueue, as the program set them then: the kernel's function
 *   name (and the HINTMAP_NAME parts, hmo_naming.h), and the sum of the sizes of its arguments that
 *   are memory objects (hmo_kernel_args.h; each memory object's size is read once, when the program
 *   creates it). A pending enqueue holds its region (interned, never freed before exit), its bytes,
 *   its event reference and its queue (for matching only: never called).
 * - Flushes. A pending enqueue is recorded exactly once, by the first of: its callback; clFinish of
 *   its queue (which returns after the command completed, but maybe before the driver ran the
 *   callback); clReleaseCommandQueue of its queue (what has completed by then); the exit flush. A
 *   flush claims under the lock; a record is freed when the last of its references goes (the list's,
 *   the callback's, a flush's), and its event reference is released then.
 * - Exit: an atexit handler (registered in clInitLayer, after the driver loaded and registered its
 *   own, so it runs before the driver tears down) stops tracking, then polls the events still
 *   pending until they complete, HINTMAP_EXIT_FLUSH_MS (default 5 s) at most, and records them;
 *   what is still running then is counted on stderr as not recorded. Then the store is closed under
 *   the lock: a callback that comes later finds it closed. A forked child never records, flushes or
 *   closes (pthread_atfork).
 * - Locking: one mutex guards the tables, the pending list, the counters and the store's handles
 *   (an hm_region handle is single-threaded). No OpenCL function is called with it held: a driver may
 *   run a callback, which takes it, inside any call.
 */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_0_APIS
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_2_0_APIS
#include <CL/cl_layer.h>

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hintmap.h"
#include "hmc_name.h"
#include "hmc_options.h"
#include "hmo_kernel_args.h"
#include "hmo_map.h"
#include "hmo_naming.h"
#include "hmo_queue_props.h"

#define HMO_EXPORT __attribute__((visibility("default")))
HMO_EXPORT CL_API_ENTRY cl_int CL_API_CALL clGetLayerInfo(cl_layer_info param_name, size_t param_value_size,
                                                          void *param_value, size_t *param_value_size_ret);
HMO_EXPORT CL_API_ENTRY cl_int CL_API_CALL clInitLayer(cl_uint num_entries, const cl_icd_dispatch *target_dispatch,
                                                       cl_uint *num_entries_ret,
                                                       const cl_icd_dispatch **layer_dispatch_ret);

static const hmc_voice voice = {"hintmap-opencl", "passing every call through"};
#define say(...) hmc_say(&voice, __VA_ARGS__)

/* A region the layer records into: its handle (NULL when none could be made: recorded by name). */
typedef struct hmo_region {
    hm_region *handle;
    size_t len;
    char name[];
} hmo_region;

/* A kernel part of a name (function name, and build tag), interned: shapes key on its address. */
typedef struct hmo_base {
    hmo_region *plain; /* the region of the part alone (names without a shape), made on first use */
    char text[];
} hmo_base;

/* What the layer knows of one cl_kernel. */
typedef struct hmo_kernel {
    hmo_base *base; /* NULL until its first enqueue */
    hmo_kernel_args args;
} hmo_kernel;

/* The key of a shape's region: the part's address and the sizes (zeroed padding: compared as bytes). */
typedef struct hmo_shape_key {
    const hmo_base *base;
    uint64_t dims, has_local;
    uint64_t global[3], local[3];
} hmo_shape_key;

/* One enqueue whose sample is not recorded yet. */
typedef struct hmo_pending {
    struct hmo_pending *prev, *next;
    cl_event event;         /* a reference of the layer's own, released with the record */
    cl_command_queue queue; /* to match clFinish / clReleaseCommandQueue; never called */
    hmo_region *region;
    uint64_t bytes;
    atomic_int refs;        /* the list's, the callback's, each flush's that looks at it */
    atomic_int claimed;     /* recorded or given up (set under the lock; read outside as a hint) */
} hmo_pending;

typedef struct hmo_stats {
    uint64_t enqueues, recorded, untimed, failed, negative, lost_at_exit, untracked, callbacks_refused,
        profiling_refused, store_dropped, store_errors, by_name, truncated_names, regions;
} hmo_stats;

static struct hmo {
    cl_icd_dispatch table;       /* handed to the loader: the layer's entries, NULL elsewhere */
    const cl_icd_dispatch *next; /* the table below (the loader's, or the next layer's) */
    cl_uint next_entries;
    pthread_mutex_t lock;        /* guards everything below `lock` */
    atomic_int tracking;         /* recording: set up, not exiting, not a forked child */
    int initialised, active, forked;
    int name_mode;
    int verbose;
    uint32_t exit_flush_ms;      /* bound on the exit flush's wait; 0: none */
    const char *path;
    hm_store *store;
    uint32_t max_name_bytes;
    int closed;
    hmo_ptrmap kernels;          /* cl_kernel -> hmo_kernel * */
    hmo_ptrmap mems;             /* cl_mem -> CL_MEM_SIZE */
    hmo_ptrmap queues;           /* cl_command_queue -> 1 when the layer turned profiling on */
    hmo_blobmap bases;           /* kernel part -> hmo_base * */
    hmo_blobmap shapes;          /* hmo_shape_key -> hmo_region * */
    hmo_pending pending;         /* sentinel of the pending enqueues */
    hmo_stats stats;
} hmo = {.lock = PTHREAD_MUTEX_INITIALIZER};

#define NEXT hmo.next
static int tracking(void) { return atomic_load_explicit(&hmo.tracking, memory_order_acquire); }

/* ---- pending enqueues */
static void pending_put(hmo_pending *p) {
    if (atomic_fetch_sub_explicit(&p->refs, 1, memory_order_acq_rel) != 1) return;
    NEXT->clReleaseEvent(p->event);
    free(p);
}

static void pending_unlink_locked(hmo_pending *p) {
    p->prev->next = p->next;
    p->next->prev = p->prev;
    p->prev = p->next = p;
}

static void count_store(int rc) {
    if (rc == HM_DROPPED) hmo.stats.store_dropped++;
    else if (rc < 0) hmo.stats.store_errors++;
    else hmo.stats.recorded++;
}

/* The sample of a completed (or failed) command, under the lock. */
static void account_locked(const hmo_pending *p, cl_int status, int timed, cl_ulong start, cl_ulong end) {
    uint64_t ns;
    int rc = timed ? hmc_duration_ns(start, end, &ns) : HMC_SKIP_UNTIMED;
    if (status < 0) hmo.stats.failed++;
    else if (rc == HMC_SKIP_UNTIMED) hmo.stats.untimed++;
    else if (rc == HMC_SKIP_NEGATIVE) hmo.stats.negative++;
    else if (p->region->handle != NULL) count_store(hm_region_add(p->region->handle, ns, p->bytes));
    else {
        hmo.stats.by_name++;
        count_store(hm_record(hmo.store, p->region->name, p->region->len, ns, p->bytes));
    }
}

/* Records p unless another party did: its profiling info is read first, outside the lock. */
static void complete(hmo_pending *p, cl_int status) {
    cl_ulong start = 0, end = 0;
    int timed = 0;
    if (status == CL_COMPLETE && !atomic_load_explicit(&p->claimed, memory_order_relaxed))
        timed = NEXT->clGetEventProfilingInfo(p->event, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL) == CL_SUCCESS &&
                NEXT->clGetEventProfilingInfo(p->event, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) == CL_SUCCESS;
    int mine = 0;
    pthread_mutex_lock(&hmo.lock);
    if (!hmo.closed && !atomic_load_explicit(&p->claimed, memory_order_relaxed)) {
        atomic_store_explicit(&p->claimed, 1, memory_order_relaxed);
        pending_unlink_locked(p);
        account_locked(p, status, timed, start, end);
        mine = 1;
    }
    pthread_mutex_unlock(&hmo.lock);
    if (mine) pending_put(p); /* the list's reference */
}

static void CL_CALLBACK on_complete(cl_event event, cl_int status, void *data) {
    (void)event;
    hmo_pending *p = data;
    if (hmo.forked) return; /* a forked child has no driver threads: cannot happen; never touch the parent's store */
    complete(p, status);
    pending_put(p); /* the callback's reference */
}

/* The pending enqueues of `queue` (NULL: all) not yet claimed, each with a reference taken: *n of them. */
static hmo_pending **pending_snapshot(cl_command_queue queue, size_t *n) {
    *n = 0;
    pthread_mutex_lock(&hmo.lock);
    size_t count = 0;
    for (hmo_pending *p = hmo.pending.next; p != &hmo.pending; p = p->next) count += queue == NULL || p->queue == queue;
    hmo_pending **all = count && !hmo.closed ? malloc(count * sizeof *all) : NULL;
    for (hmo_pending *p = hmo.pending.next; all != NULL && p != &hmo.pending; p = p->next) {
        if (queue != NULL && p->queue != queue) continue;
        atomic_fetch_add_explicit(&p->refs, 1, memory_order_relaxed);
        all[(*n)++] = p;
    }
    pthread_mutex_unlock(&hmo.lock);
    return all;
}

/* Records the ones that have completed (or failed) and sets them to NULL; returns how many are left. */
static size_t flush_pass(hmo_pending **all, size_t n) {
    size_t left = 0;
    for (size_t i = 0; i < n; i++) {
        hmo_pending *p = all[i];
        if (p == NULL) continue;
        if (!atomic_load_explicit(&p->claimed, memory_order_relaxed)) {
            cl_int status = CL_QUEUED; /* unreadable: left to its callback */
            (void)NEXT->clGetEventInfo(p->event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
            if (status > CL_COMPLETE) { /* queued, submitted or running */
                left++;
                continue;
            }
            complete(p, status);
        }
        pending_put(p);
        all[i] = NULL;
    }
    return left;
}

static void flush_release(hmo_pending **all, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (all[i] != NULL) pending_put(all[i]);
    free(all);
}

/* clFinish / clReleaseCommandQueue: record what of `queue` has completed, without waiting. */
static void flush_queue(cl_command_queue queue) {
    size_t n;
    hmo_pending **all = pending_snapshot(queue, &n);
    if (all == NULL) return;
    (void)flush_pass(all, n);
    flush_release(all, n);
}

/* ---- regions */
static hmo_region *region_new_locked(const char *kernel, const char *suffix) {
    char name[HMC_NAME_CAP];
    size_t len = 0;
    int truncated = 0;
    if (hmc_compose_name(kernel, suffix, hmo.max_name_bytes, name, &len, &truncated) != 0) return NULL;
    hmo_region *r = malloc(sizeof *r + len);
    if (r == NULL) return NULL;
    memcpy(r->name, name, len);
    r->len = len;
    if (hm_region_resolve(hmo.store, name, len, &r->handle) != HM_OK) r->handle = NULL; /* recorded by name */
    hmo.stats.truncated_names += (uint64_t)truncated;
    hmo.stats.regions++;
    return r;
}

static hmo_region *region_locked(hmo_base *base, cl_uint dims, const size_t *global, const size_t *local) {
    if (!(hmo.name_mode & HMO_NAME_SHAPE)) {
        if (base->plain == NULL) base->plain = region_new_locked(base->text, "");
        return base->plain;
    }
    hmo_shape_key key;
    memset(&key, 0, sizeof key);
    key.base = base;
    key.dims = dims;
    key.has_local = local != NULL;
    for (cl_uint d = 0; d < dims && d < 3; d++) {
        key.global[d] = global[d];
        key.local[d] = local != NULL ? local[d] : 0;
    }
    hmo_region *r = hmo_blobmap_get(&hmo.shapes, &key, sizeof key);
    if (r != NULL) return r;
    char suffix[HMO_SHAPE_CAP];
    hmo_shape_suffix(suffix, dims, global, local);
    r = region_new_locked(base->text, suffix);
    if (r != NULL && hmo_blobmap_put(&hmo.shapes, &key, sizeof key, r) < 0) {
        hm_region_free(r->handle);
        free(r);
        r = NULL;
    }
    return r;
}

/* ---- the names of kernels (OpenCL calls: outside the lock) */

/* A malloc'd copy of a string-valued info query, or NULL. */
static char *query_text(cl_int (*get)(void *obj, cl_uint what, size_t size, void *value, size_t *size_ret), void *obj,
                        cl_uint what, size_t *len) {
    size_t size = 0;
    if (get(obj, what, 0, NULL, &size) != CL_SUCCESS || size == 0) return NULL;
    char *text = malloc(size + 1);
    if (text != NULL && get(obj, what, size, text, NULL) != CL_SUCCESS) {
        free(text);
        return NULL;
    }
    if (text != NULL) text[size] = '\0';
    if (len != NULL && text != NULL) *len = strnlen(text, size);
    return text;
}

static cl_int get_kernel_info(void *o, cl_uint w, size_t s, void *v, size_t *r) { return NEXT->clGetKernelInfo(o, w, s, v, r); }
static cl_int get_program_info(void *o, cl_uint w, size_t s, void *v, size_t *r) { return NEXT->clGetProgramInfo(o, w, s, v, r); }

/* The build tag of the program a kernel comes from (hmo_naming.h). */
static void build_tag(cl_kernel kernel, char tag[HMO_BUILD_TAG_BYTES]) {
    cl_program program = NULL;
    size_t code_len = 0;
    char *code = NULL, *options = NULL;
    if (NEXT->clGetKernelInfo(kernel, CL_KERNEL_PROGRAM, sizeof program, &program, NULL) == CL_SUCCESS && program != NULL) {
        code = query_text(get_program_info, program, CL_PROGRAM_SOURCE, &code_len);
        if (code == NULL || code_len == 0) {
            free(code);
            size_t il = 0; /* SPIR-V: binary, so its size is the query's, not strlen's */
            code = NULL;
            if (NEXT->clGetProgramInfo(program, CL_PROGRAM_IL, 0, NULL, &il) == CL_SUCCESS && il > 0 && (code = malloc(il)) != NULL &&
                NEXT->clGetProgramInfo(program, CL_PROGRAM_IL, il, code, NULL) != CL_SUCCESS) {
                free(code);
                code = NULL;
            }
            code_len = code != NULL ? il : 0;
        }
        size_t devices_size = 0;
        cl_device_id *devices = NULL;
        if (NEXT->clGetProgramInfo(program, CL_PROGRAM_DEVICES, 0, NULL, &devices_size) == CL_SUCCESS &&
            devices_size >= sizeof *devices && (devices = malloc(devices_size)) != NULL &&
            NEXT->clGetProgramInfo(program, CL_PROGRAM_DEVICES, devices_size, devices, NULL) == CL_SUCCESS) {
            size_t size = 0; /* the options of the first device: a program is built with one set of options */
            if (NEXT->clGetProgramBuildInfo(program, devices[0], CL_PROGRAM_BUILD_OPTIONS, 0, NULL, &size) == CL_SUCCESS &&
                size > 0 && (options = calloc(size + 1, 1)) != NULL &&
                NEXT->clGetProgramBuildInfo(program, devices[0], CL_PROGRAM_BUILD_OPTIONS, size, options, NULL) != CL_SUCCESS)
                options[0] = '\0';
        }
        free(devices);
    }
    hmo_build_tag(tag, code, code_len, options);
    if (hmo.verbose)
        say("build %s: %zu bytes of %s, options '%s'", tag, code_len, code_len ? "code" : "code (none readable)",
            options ? options : "");
    free(code);
    free(options);
}

/* The interned kernel part of a kernel's names: its function name, and its build tag (HINTMAP_NAME). */
static hmo_base *base_of(cl_kernel kernel) {
    size_t len = 0;
    char *fname = query_text(get_kernel_info, kernel, CL_KERNEL_FUNCTION_NAME, &len);
    char tag[HMO_BUILD_TAG_BYTES] = "";
    if (hmo.name_mode & HMO_NAME_BUILD) build_tag(kernel, tag);
    size_t tlen = strlen(tag);
    hmo_base *b = malloc(sizeof *b + len + tlen + 1);
    if (b == NULL) {
        free(fname);
        return NULL;
    }
    b->plain = NULL;
    if (len) memcpy(b->text, fname, len);
    memcpy(b->text + len, tag, tlen + 1);
    free(fname);
    pthread_mutex_lock(&hmo.lock);
    hmo_base *known = hmo_blobmap_get(&hmo.bases, b->text, len + tlen);
    if (known == NULL && !hmo.closed && hmo_blobmap_put(&hmo.bases, b->text, len + tlen, b) == 0) {
        known = b;
        b = NULL;
    }
    pthread_mutex_unlock(&hmo.lock);
    free(b);
    return known;
}

/* ---- kernels */
static void kernel_free(hmo_kernel *k) {
    if (k == NULL) return;
    hmo_kernel_args_free(&k->args);
    free(k);
}

static void kernel_forget_locked(const void *kernel) {
    uint64_t v;
    if (hmo_ptrmap_del(&hmo.kernels, kernel, &v)) kernel_free((hmo_kernel *)(uintptr_t)v);
}

static hmo_kernel *kernel_locked(const void *kernel) {
    uint64_t v;
    if (hmo.closed) return NULL;
    if (hmo_ptrmap_get(&hmo.kernels, kernel, &v)) return (hmo_kernel *)(uintptr_t)v;
    hmo_kernel *k = calloc(1, sizeof *k);
    if (k != NULL && hmo_ptrmap_put(&hmo.kernels, kernel, (uintptr_t)k) < 0) {
        free(k);
        k = NULL;
    }
    return k;
}

/* A handle the driver just returned may be the address of one that died: forget what it held. */
static void kernels_new(const cl_kernel *kernels, cl_uint n) {
    pthread_mutex_lock(&hmo.lock);
    for (cl_uint i = 0; i < n; i++) kernel_forget_locked(kernels[i]);
    pthread_mutex_unlock(&hmo.lock);
}

static cl_kernel CL_API_CALL hmo_clCreateKernel(cl_program program, const char *name, cl_int *err) {
    cl_kernel k = NEXT->clCreateKernel(program, name, err);
    if (k != NULL && tracking()) kernels_new(&k, 1);
    return k;
}

static cl_int CL_API_CALL hmo_clCreateKernelsInProgram(cl_program program, cl_uint num, cl_kernel *kernels, cl_uint *num_ret) {
    cl_uint made = 0, *out = num_ret != NULL ? num_ret : &made;
    cl_int rc = NEXT->clCreateKernelsInProgram(program, num, kernels, out);
    if (rc == CL_SUCCESS && kernels != NULL && tracking()) kernels_new(kernels, *out < num ? *out : num);
    return rc;
}

static cl_kernel CL_API_CALL hmo_clCloneKernel(cl_kernel source, cl_int *err) {
    cl_kernel k = NEXT->clCloneKernel(source, err);
    if (k == NULL || !tracking()) return k;
    pthread_mutex_lock(&hmo.lock);
    kernel_forget_locked(k);
    uint64_t v;
    if (hmo_ptrmap_get(&hmo.kernels, source, &v)) { /* the clone has the source's arguments */
        const hmo_kernel *src = (const hmo_kernel *)(uintptr_t)v;
        hmo_kernel *dst = kernel_locked(k);
        if (dst == NULL || hmo_kernel_args_copy(&dst->args, &src->args) < 0) hmo.stats.untracked++;
        else dst->base = src->base;
    }
    pthread_mutex_unlock(&hmo.lock);
    return k;
}

/* The object's reference count, 0 when unreadable. Read before the program's release: when it is 1,
   this release destroys the object (a concurrent retain would be the program's own race). */
static cl_uint refcount(cl_int (*get)(void *, cl_uint, size_t, void *, size_t *), void *obj, cl_uint what) {
    cl_uint n = 0;
    return get(obj, what, sizeof n, &n, NULL) == CL_SUCCESS ? n : 0;
}

static cl_int get_mem_info(void *o, cl_uint w, size_t s, void *v, size_t *r) { return NEXT->clGetMemObjectInfo(o, w, s, v, r); }
static cl_int get_queue_info(void *o, cl_uint w, size_t s, void *v, size_t *r) { return NEXT->clGetCommandQueueInfo(o, w, s, v, r); }

static cl_int CL_API_CALL hmo_clReleaseKernel(cl_kernel kernel) {
    if (kernel != NULL && tracking() && refcount(get_kernel_info, kernel, CL_KERNEL_REFERENCE_COUNT) == 1) {
        pthread_mutex_lock(&hmo.lock);
        kernel_forget_locked(kernel);
        pthread_mutex_unlock(&hmo.lock);
    }
    return NEXT->clReleaseKernel(kernel);
}

static void arg_set(cl_kernel kernel, cl_uint index, const void *mem_value) {
    pthread_mutex_lock(&hmo.lock);
    const void *mem = NULL;
    uint64_t bytes = 0;
    if (mem_value != NULL) {
        cl_mem m;
        memcpy(&m, mem_value, sizeof m);
        if (m != NULL && hmo_ptrmap_get(&hmo.mems, m, &bytes)) mem = m;
    }
    hmo_kernel *k = kernel_locked(kernel);
    if (!hmo.closed && (k == NULL || hmo_kernel_args_set(&k->args, index, mem, bytes) < 0)) hmo.stats.untracked++;
    pthread_mutex_unlock(&hmo.lock);
}

static cl_int CL_API_CALL hmo_clSetKernelArg(cl_kernel kernel, cl_uint index, size_t size, const void *value) {
    cl_int rc = NEXT->clSetKernelArg(kernel, index, size, value);
    /* A memory object is passed as a pointer to its handle: an argument of that size whose value is
       the handle of a memory object the layer saw created. */
    if (rc == CL_SUCCESS && tracking()) arg_set(kernel, index, size == sizeof(cl_mem) ? value : NULL);
    return rc;
}

static cl_int CL_API_CALL hmo_clSetKernelArgSVMPointer(cl_kernel kernel, cl_uint index, const void *value) {
    cl_int rc = NEXT->clSetKernelArgSVMPointer(kernel, index, value);
    if (rc == CL_SUCCESS && tracking()) arg_set(kernel, index, NULL); /* SVM: no size known; 0 bytes */
    return rc;
}

/* ---- memory objects: their sizes, for the bytes of the kernels' arguments */
static cl_mem mem_new(cl_mem mem) {
    if (mem == NULL || !tracking()) return mem;
    size_t size = 0;
    if (NEXT->clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof size, &size, NULL) != CL_SUCCESS) size = 0;
    pthread_mutex_lock(&hmo.lock);
    if (!hmo.closed && hmo_ptrmap_put(&hmo.mems, mem, size) < 0) hmo.stats.untracked++;
    pthread_mutex_unlock(&hmo.lock);
    return mem;
}

static cl_mem CL_API_CALL hmo_clCreateBuffer(cl_context c, cl_mem_flags f, size_t size, void *host, cl_int *err) {
    return mem_new(NEXT->clCreateBuffer(c, f, size, host, err));
}
static cl_mem CL_API_CALL hmo_clCreateSubBuffer(cl_mem b, cl_mem_flags f, cl_buffer_create_type t, const void *info, cl_int *err) {
    return mem_new(NEXT->clCreateSubBuffer(b, f, t, info, err));
}
static cl_mem CL_API_CALL hmo_clCreateImage(cl_context c, cl_mem_flags f, const cl_image_format *fmt, const cl_image_desc *d,
                                            void *host, cl_int *err) {
    return mem_new(NEXT->clCreateImage(c, f, fmt, d, host, err));
}
static cl_mem CL_API_CALL hmo_clCreateImage2D(cl_context c, cl_mem_flags f, const cl_image_format *fmt, size_t w, size_t h,
                                              size_t pitch, void *host, cl_int *err) {
    return mem_new(NEXT->clCreateImage2D(c, f, fmt, w, h, pitch, host, err));
}
static cl_mem CL_API_CALL hmo_clCreateImage3D(cl_context c, cl_mem_flags f, const cl_image_format *fmt, size_t w, size_t h,
                                              size_t d, size_t rp, size_t sp, void *host, cl_int *err) {
    return mem_new(NEXT->clCreateImage3D(c, f, fmt, w, h, d, rp, sp, host, err));
}
static cl_mem CL_API_CALL hmo_clCreatePipe(cl_context c, cl_mem_flags f, cl_uint ps, cl_uint pm, const cl_pipe_properties *p,
                                           cl_int *err) {
    return mem_new(NEXT->clCreatePipe(c, f, ps, pm, p, err));
}
static cl_mem CL_API_CALL hmo_clCreateBufferWithProperties(cl_context c, const cl_mem_properties *p, cl_mem_flags f, size_t size,
                                                           void *host, cl_int *err) {
    return mem_new(NEXT->clCreateBufferWithProperties(c, p, f, size, host, err));
}
static cl_mem CL_API_CALL hmo_clCreateImageWithProperties(cl_context c, const cl_mem_properties *p, cl_mem_flags f,
                                                          const cl_image_format *fmt, const cl_image_desc *d, void *host,
                                                          cl_int *err) {
    return mem_new(NEXT->clCreateImageWithProperties(c, p, f, fmt, d, host, err));
}

static cl_int CL_API_CALL hmo_clReleaseMemObject(cl_mem mem) {
    if (mem != NULL && tracking() && refcount(get_mem_info, mem, CL_MEM_REFERENCE_COUNT) == 1) {
        pthread_mutex_lock(&hmo.lock);
        (void)hmo_ptrmap_del(&hmo.mems, mem, NULL);
        pthread_mutex_unlock(&hmo.lock);
    }
    return NEXT->clReleaseMemObject(mem);
}

/* ---- command queues: profiling on */
static cl_command_queue queue_new(cl_command_queue q, int added) {
    if (q == NULL) return q;
    pthread_mutex_lock(&hmo.lock);
    if (!hmo.closed && hmo_ptrmap_put(&hmo.queues, q, (uint64_t)added) < 0) hmo.stats.untracked++;
    pthread_mutex_unlock(&hmo.lock);
    return q;
}

static void profiling_refused(void) {
    pthread_mutex_lock(&hmo.lock);
    hmo.stats.profiling_refused++;
    pthread_mutex_unlock(&hmo.lock);
}

static cl_command_queue CL_API_CALL hmo_clCreateCommandQueue(cl_context c, cl_device_id d, cl_command_queue_properties props,
                                                             cl_int *err) {
    if (!tracking()) return NEXT->clCreateCommandQueue(c, d, props, err);
    int added = !(props & CL_QUEUE_PROFILING_ENABLE);
    cl_int rc = CL_SUCCESS;
    cl_command_queue q = NEXT->clCreateCommandQueue(c, d, props | CL_QUEUE_PROFILING_ENABLE, &rc);
    if (q == NULL && added) { /* refused with profiling: what the program asked for, as it asked */
        profiling_refused();
        added = 0;
        q = NEXT->clCreateCommandQueue(c, d, props, &rc);
    }
    if (err != NULL) *err = rc;
    return queue_new(q, added);
}

static cl_command_queue CL_API_CALL hmo_clCreateCommandQueueWithProperties(cl_context c, cl_device_id d,
                                                                           const cl_queue_properties *props, cl_int *err) {
    if (!tracking()) return NEXT->clCreateCommandQueueWithProperties(c, d, props, err);
    cl_queue_properties small[32], *with = small;
    size_t count = 0;
    int added = hmo_queue_props_profiled(props, small, sizeof small / sizeof small[0], &count);
    if (added < 0 && (with = malloc(count * sizeof *with)) != NULL) added = hmo_queue_props_profiled(props, with, count, &count);
    if (added < 0) { /* no memory for the longer list: the program's own */
        free(with);
        return NEXT->clCreateCommandQueueWithProperties(c, d, props, err);
    }
    cl_int rc = CL_SUCCESS;
    cl_command_queue q = NEXT->clCreateCommandQueueWithProperties(c, d, with, &rc);
    if (with != small) free(with);
    if (q == NULL && added) {
        profiling_refused();
        added = 0;
        q = NEXT->clCreateCommandQueueWithProperties(c, d, props, &rc);
    }
    if (err != NULL) *err = rc;
    return queue_new(q, added);
}

static cl_int CL_API_CALL hmo_clGetCommandQueueInfo(cl_command_queue q, cl_command_queue_info what, size_t size, void *value,
                                                    size_t *size_ret) {
    cl_int rc = NEXT->clGetCommandQueueInfo(q, what, size, value, size_ret);
    if (rc != CL_SUCCESS || value == NULL || !tracking()) return rc;
    if (what != CL_QUEUE_PROPERTIES && what != CL_QUEUE_PROPERTIES_ARRAY) return rc;
    uint64_t added = 0;
    pthread_mutex_lock(&hmo.lock);
    if (!hmo_ptrmap_get(&hmo.queues, q, &added)) added = 0;
    pthread_mutex_unlock(&hmo.lock);
    if (!added) return rc;
    /* The program sees what it asked for: the bit the layer added is masked. */
    if (what == CL_QUEUE_PROPERTIES && size >= sizeof(cl_command_queue_properties)) {
        cl_command_queue_properties p;
        memcpy(&p, value, sizeof p);
        p &= ~(cl_command_queue_properties)CL_QUEUE_PROFILING_ENABLE;
        memcpy(value, &p, sizeof p);
    } else if (what == CL_QUEUE_PROPERTIES_ARRAY) {
        cl_queue_properties *a = value;
        for (size_t i = 0; (i + 2) * sizeof *a <= size && a[i] != 0; i += 2)
            if (a[i] == CL_QUEUE_PROPERTIES) a[i + 1] &= ~(cl_queue_properties)CL_QUEUE_PROFILING_ENABLE;
    }
    return rc;
}

static cl_int CL_API_CALL hmo_clFinish(cl_command_queue q) {
    cl_int rc = NEXT->clFinish(q);
    if (rc == CL_SUCCESS && tracking()) flush_queue(q);
    return rc;
}

static cl_int CL_API_CALL hmo_clReleaseCommandQueue(cl_command_queue q) {
    int last = q != NULL && tracking() && refcount(get_queue_info, q, CL_QUEUE_REFERENCE_COUNT) == 1;
    if (last) {
        pthread_mutex_lock(&hmo.lock);
        (void)hmo_ptrmap_del(&hmo.queues, q, NULL);
        pthread_mutex_unlock(&hmo.lock);
    }
    cl_int rc = NEXT->clReleaseCommandQueue(q); /* an implicit flush of its commands */
    if (rc == CL_SUCCESS && tracking()) flush_queue(q);
    return rc;
}

/* ---- kernel enqueues */

/* One enqueue to record: `event` carries one reference for the layer (taken here when the program keeps the event). */
static void track(cl_command_queue queue, cl_kernel kernel, cl_uint dims, const size_t *global, const size_t *local,
                  cl_event event, int program_keeps) {
    if (event == NULL) return;
    if (program_keeps && NEXT->clRetainEvent(event) != CL_SUCCESS) return;
    hmo_pending *p = malloc(sizeof *p);
    pthread_mutex_lock(&hmo.lock);
    hmo.stats.enqueues++;
    hmo_kernel *k = p != NULL ? kernel_locked(kernel) : NULL;
    if (k != NULL && k->base == NULL) { /* its first enqueue: learn its name, outside the lock */
        pthread_mutex_unlock(&hmo.lock);
        hmo_base *base = base_of(kernel);
        pthread_mutex_lock(&hmo.lock);
        k = kernel_locked(kernel); /* it may have been forgotten meanwhile */
        if (k != NULL && k->base == NULL) k->base = base;
    }
    hmo_region *r = k != NULL && k->base != NULL ? region_locked(k->base, dims, global, local) : NULL;
    if (r == NULL) {
        if (!hmo.closed) hmo.stats.untracked++;
        pthread_mutex_unlock(&hmo.lock);
        free(p);
        NEXT->clReleaseEvent(event);
        return;
    }
    p->event = event;
    p->queue = queue;
    p->region = r;
    p->bytes = hmo_kernel_args_bytes(&k->args);
    atomic_init(&p->refs, 2); /* the list's and the callback's */
    atomic_init(&p->claimed, 0);
    p->next = &hmo.pending;
    p->prev = hmo.pending.prev;
    hmo.pending.prev->next = p;
    hmo.pending.prev = p;
    pthread_mutex_unlock(&hmo.lock);
    /* The callback may run before this returns (a command already complete): p is complete now. */
    if (NEXT->clSetEventCallback(event, CL_COMPLETE, on_complete, p) != CL_SUCCESS) {
        pthread_mutex_lock(&hmo.lock);
        hmo.stats.callbacks_refused++; /* left to clFinish, clReleaseCommandQueue or the exit flush */
        pthread_mutex_unlock(&hmo.lock);
        pending_put(p);
    }
}

static cl_int CL_API_CALL hmo_clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dims, const size_t *offset,
                                                     const size_t *global, const size_t *local, cl_uint n_wait,
                                                     const cl_event *wait, cl_event *event) {
    if (!tracking()) return NEXT->clEnqueueNDRangeKernel(q, k, dims, offset, global, local, n_wait, wait, event);
    cl_event e = NULL;
    cl_int rc = NEXT->clEnqueueNDRangeKernel(q, k, dims, offset, global, local, n_wait, wait, &e);
    if (rc != CL_SUCCESS) return rc;
    if (event != NULL) *event = e;
    track(q, k, dims, global, local, e, event != NULL);
    return rc;
}

static cl_int CL_API_CALL hmo_clEnqueueTask(cl_command_queue q, cl_kernel k, cl_uint n_wait, const cl_event *wait, cl_event *event) {
    if (!tracking()) return NEXT->clEnqueueTask(q, k, n_wait, wait, event);
    cl_event e = NULL;
    cl_int rc = NEXT->clEnqueueTask(q, k, n_wait, wait, &e);
    if (rc != CL_SUCCESS) return rc;
    if (event != NULL) *event = e;
    static const size_t one[1] = {1}; /* a task is an NDRange of one work-item in one group */
    track(q, k, 1, one, one, e, event != NULL);
    return rc;
}

/* ---- exit */
static void report(const char *when) {
    const hmo_stats *t = &hmo.stats;
    int trouble = t->lost_at_exit || t->failed || t->untimed || t->negative || t->untracked || t->callbacks_refused ||
                  t->profiling_refused || t->store_dropped || t->store_errors;
    if (!hmo.verbose && !trouble) return;
    say("%s: enqueues=%" PRIu64 " recorded=%" PRIu64 " regions=%" PRIu64 " untimed=%" PRIu64 " failed=%" PRIu64
        " negative=%" PRIu64 " lost_at_exit=%" PRIu64 " untracked=%" PRIu64 " callbacks_refused=%" PRIu64
        " profiling_refused=%" PRIu64 " store_dropped=%" PRIu64 " store_errors=%" PRIu64 " by_name=%" PRIu64
        " truncated_names=%" PRIu64,
        when, t->enqueues, t->recorded, t->regions, t->untimed, t->failed, t->negative, t->lost_at_exit, t->untracked,
        t->callbacks_refused, t->profiling_refused, t->store_dropped, t->store_errors, t->by_name, t->truncated_names);
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Polls the pending enqueues until they complete or exit_flush_ms passed; returns how many are left. */
static size_t exit_flush(void) {
    size_t n;
    hmo_pending **all = pending_snapshot(NULL, &n);
    if (all == NULL) return 0;
    double until = now_ms() + hmo.exit_flush_ms;
    size_t left;
    while ((left = flush_pass(all, n)) > 0 && (hmo.exit_flush_ms == 0 || now_ms() < until)) {
        struct timespec pause = {0, 1000000}; /* 1 ms: commands of interest run 10 µs to seconds */
        nanosleep(&pause, NULL);
    }
    flush_release(all, n);
    return left;
}

static void free_region(void *value, void *ctx) {
    (void)ctx;
    hmo_region *r = value;
    hm_region_free(r->handle);
    free(r);
}

static void free_base(void *value, void *ctx) {
    hmo_base *b = value;
    if (b->plain != NULL) free_region(b->plain, ctx);
    free(b);
}

static void at_exit(void) {
    if (!hmo.active || hmo.forked) return; /* a forked child: the store is its parent's */
    atomic_store_explicit(&hmo.tracking, 0, memory_order_release); /* later enqueues pass through */
    (void)exit_flush();
    pthread_mutex_lock(&hmo.lock);
    if (!hmo.closed) {
        uint64_t lost = 0;
        for (hmo_pending *p = hmo.pending.next; p != &hmo.pending; p = p->next) lost++;
        hmo.stats.lost_at_exit = lost;
        hmo.closed = 1; /* a callback that comes later records nothing */
        if (lost)
            say("%" PRIu64 " kernel enqueue(s) still running %u ms into the exit flush: not recorded (HINTMAP_EXIT_FLUSH_MS)",
                lost, hmo.exit_flush_ms);
        report("exit");
        for (size_t i = 0; i < hmo.kernels.size; i++)
            if (hmo.kernels.keys[i] != NULL) kernel_free((hmo_kernel *)(uintptr_t)hmo.kernels.values[i]);
        hmo_ptrmap_free(&hmo.kernels);
        hmo_ptrmap_free(&hmo.mems);
        hmo_ptrmap_free(&hmo.queues);
        hmo_blobmap_each(&hmo.shapes, free_region, NULL);
        hmo_blobmap_free(&hmo.shapes);
        hmo_blobmap_each(&hmo.bases, free_base, NULL);
        hmo_blobmap_free(&hmo.bases);
        hm_close(hmo.store);
        hmo.store = NULL;
    }
    pthread_mutex_unlock(&hmo.lock);
}

static void at_fork_child(void) {
    hmo.forked = 1; /* the child is single-threaded here: the flag needs no lock */
    atomic_store_explicit(&hmo.tracking, 0, memory_order_relaxed);
}

/* ---- set-up: every failure is one line and leaves the table all NULL (pass-through) */
#define HMO_INDEX(f) (offsetof(cl_icd_dispatch, f) / sizeof(void *))
#define HMO_BELOW(f) (HMO_INDEX(f) < hmo.next_entries && NEXT->f != NULL)
#define HMO_WATCH(f)                        \
    do {                                    \
        if (HMO_BELOW(f)) hmo.table.f = hmo_##f; \
    } while (0)

static void watch_all(void) {
    HMO_WATCH(clCreateCommandQueue);
    HMO_WATCH(clCreateCommandQueueWithProperties);
    HMO_WATCH(clGetCommandQueueInfo);
    HMO_WATCH(clReleaseCommandQueue);
    HMO_WATCH(clFinish);
    HMO_WATCH(clCreateBuffer);
    HMO_WATCH(clCreateSubBuffer);
    HMO_WATCH(clCreateImage);
    HMO_WATCH(clCreateImage2D);
    HMO_WATCH(clCreateImage3D);
    HMO_WATCH(clCreatePipe);
    HMO_WATCH(clCreateBufferWithProperties);
    HMO_WATCH(clCreateImageWithProperties);
    HMO_WATCH(clReleaseMemObject);
    HMO_WATCH(clCreateKernel);
    HMO_WATCH(clCreateKernelsInProgram);
    HMO_WATCH(clCloneKernel);
    HMO_WATCH(clReleaseKernel);
    HMO_WATCH(clSetKernelArg);
    HMO_WATCH(clSetKernelArgSVMPointer);
    HMO_WATCH(clEnqueueNDRangeKernel);
    HMO_WATCH(clEnqueueTask);
}

static void setup(void) {
    uint64_t verbose, exit_flush_ms;
    if (hmc_env_u64(&voice, "HINTMAP_VERBOSE", 0, 1, 0, &verbose, NULL) < 0) return;
    hmo.verbose = (int)verbose;
    if (hmo.verbose) say("loaded into pid %ld (clInitLayer)", (long)getpid());
    const char *mode_text = getenv("HINTMAP_NAME");
    hmo.name_mode = (mode_text == NULL || mode_text[0] == '\0') ? 0 : hmo_name_mode_parse(mode_text);
    if (hmo.name_mode < 0) {
        say("HINTMAP_NAME=%s: expected kernel, kernel+shape, kernel+build or kernel+build+shape; %s", mode_text, voice.refusal);
        return;
    }
    hmc_store_options store;
    if (hmc_store_options_from_env(&voice, "/dev/shm/hintmap-opencl.hints", &store) < 0 ||
        hmc_env_u64(&voice, "HINTMAP_EXIT_FLUSH_MS", 0, 3600000, 5000, &exit_flush_ms, NULL) < 0)
        return;
    hmo.exit_flush_ms = (uint32_t)exit_flush_ms;
    /* What every enqueue needs from below: without one of them, nothing is recorded. */
    if (!HMO_BELOW(clEnqueueNDRangeKernel) || !HMO_BELOW(clSetEventCallback) || !HMO_BELOW(clGetEventProfilingInfo) ||
        !HMO_BELOW(clGetEventInfo) || !HMO_BELOW(clRetainEvent) || !HMO_BELOW(clReleaseEvent) || !HMO_BELOW(clGetKernelInfo) ||
        !HMO_BELOW(clGetMemObjectInfo) || !HMO_BELOW(clGetCommandQueueInfo) || !HMO_BELOW(clGetProgramInfo) ||
        !HMO_BELOW(clGetProgramBuildInfo)) {
        say("the loader's dispatch table (%u entries) lacks what the layer needs (an OpenCL 1.0 loader?); %s",
            hmo.next_entries, voice.refusal);
        return;
    }
    if (hmc_store_open(&voice, &store, &hmo.store) < 0) return;
    hmo.path = store.path;
    hmo.max_name_bytes = hm_max_name_bytes(hmo.store);
    hmo.pending.next = hmo.pending.prev = &hmo.pending;
    if (atexit(at_exit) != 0) say("atexit failed: recording without the exit flush");
    if (pthread_atfork(NULL, NULL, at_fork_child) != 0) {
        say("pthread_atfork failed; %s", voice.refusal);
        hm_close(hmo.store);
        hmo.store = NULL;
        return;
    }
    watch_all();
    hmo.active = 1;
    atomic_store_explicit(&hmo.tracking, 1, memory_order_release);
    if (hmo.verbose)
        say("recording into %s (names %s, max %u bytes; profiling turned on in every command queue)", hmo.path,
            hmo_name_mode_text(hmo.name_mode), hmo.max_name_bytes);
}

CL_API_ENTRY cl_int CL_API_CALL clGetLayerInfo(cl_layer_info param_name, size_t param_value_size, void *param_value,
                                               size_t *param_value_size_ret) {
    static const char name[] = "hintmap: one sample per kernel enqueue into a hint file";
    const void *src;
    size_t size;
    cl_layer_api_version version = CL_LAYER_API_VERSION_100;
    switch (param_name) {
    case CL_LAYER_API_VERSION:
        src = &version;
        size = sizeof version;
        break;
    case CL_LAYER_NAME:
        src = name;
        size = sizeof name;
        break;
    default:
        return CL_INVALID_VALUE;
    }
    if (param_value != NULL) {
        if (param_value_size < size) return CL_INVALID_VALUE;
        memcpy(param_value, src, size);
    }
    if (param_value_size_ret != NULL) *param_value_size_ret = size;
    return CL_SUCCESS;
}

CL_API_ENTRY cl_int CL_API_CALL clInitLayer(cl_uint num_entries, const cl_icd_dispatch *target_dispatch, cl_uint *num_entries_ret,
                                            const cl_icd_dispatch **layer_dispatch_ret) {
    if (target_dispatch == NULL || num_entries_ret == NULL || layer_dispatch_ret == NULL) return CL_INVALID_VALUE;
    /* The loader initialises layers once, under its own once-guard; a second call (a second loader
       in the process?) gets the same table, set up once. */
    if (!hmo.initialised) {
        hmo.initialised = 1;
        hmo.next = target_dispatch;
        hmo.next_entries = num_entries;
        setup();
    }
    *num_entries_ret = (cl_uint)(sizeof hmo.table / sizeof(void *));
    *layer_dispatch_ret = &hmo.table;
    return CL_SUCCESS;
}
