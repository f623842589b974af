/*
 * hmo_kernel_args.h - the bytes a kernel's arguments touch, as the OpenCL layer counts them: the
 * arguments the program set (clSetKernelArg) that are memory objects the layer saw created, each
 * distinct object counted once with its whole size (CL_MEM_SIZE). Pure: no OpenCL call.
 */
#ifndef HMO_KERNEL_ARGS_H
#define HMO_KERNEL_ARGS_H

#include <stdint.h>

/** Arguments past this index are not tracked (OpenCL devices allow a few hundred at most). */
#define HMO_MAX_ARGS 4096u

typedef struct hmo_arg {
    const void *mem; /* the memory object, or NULL: anything else (a scalar, local memory, an SVM pointer) */
    uint64_t bytes;  /* its size */
} hmo_arg;

typedef struct hmo_kernel_args {
    hmo_arg *v;
    uint32_t n;     /* arguments set so far: v[0..n) (unset ones in between are NULL) */
    int dirty;      /* total is stale */
    uint64_t total; /* the sum, each distinct memory object once */
} hmo_kernel_args;

/** Argument `index` is `mem` (NULL: not a memory object) of `bytes`: 0, or -1 (no memory, index too large; the argument then counts 0). */
int hmo_kernel_args_set(hmo_kernel_args *a, uint32_t index, const void *mem, uint64_t bytes);
/** The bytes of the arguments now set (each distinct memory object once, clamped to 2^63-1). */
uint64_t hmo_kernel_args_bytes(hmo_kernel_args *a);
/** dst becomes a copy of src (clCloneKernel): 0, or -1 (no memory; dst is then empty). */
int hmo_kernel_args_copy(hmo_kernel_args *dst, const hmo_kernel_args *src);
void hmo_kernel_args_free(hmo_kernel_args *a);

#endif /* HMO_KERNEL_ARGS_H */
