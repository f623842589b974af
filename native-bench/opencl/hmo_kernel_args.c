/*
 * hmo_kernel_args.c - the bytes a kernel's arguments touch (see hmo_kernel_args.h).
 */
#include "hmo_kernel_args.h"

#include <stdlib.h>
#include <string.h>

int hmo_kernel_args_set(hmo_kernel_args *a, uint32_t index, const void *mem, uint64_t bytes) {
    a->dirty = 1;
    if (index >= HMO_MAX_ARGS) return -1;
    if (index >= a->n) {
        hmo_arg *v = realloc(a->v, (size_t)(index + 1) * sizeof *v);
        if (v == NULL) return -1;
        memset(v + a->n, 0, (size_t)(index + 1 - a->n) * sizeof *v);
        a->v = v;
        a->n = index + 1;
    }
    a->v[index] = (hmo_arg){mem, mem != NULL ? bytes : 0};
    return 0;
}

uint64_t hmo_kernel_args_bytes(hmo_kernel_args *a) {
    if (!a->dirty) return a->total;
    /* Quadratic in the arguments, once per change: kernels take a handful, and a buffer bound to
       two arguments (in and out of an in-place kernel) is one buffer's bytes, not two. */
    uint64_t total = 0;
    for (uint32_t i = 0; i < a->n; i++) {
        if (a->v[i].mem == NULL) continue;
        int seen = 0;
        for (uint32_t j = 0; j < i && !seen; j++) seen = a->v[j].mem == a->v[i].mem;
        if (!seen) total = a->v[i].bytes > INT64_MAX - total ? (uint64_t)INT64_MAX : total + a->v[i].bytes;
    }
    a->total = total;
    a->dirty = 0;
    return total;
}

int hmo_kernel_args_copy(hmo_kernel_args *dst, const hmo_kernel_args *src) {
    hmo_kernel_args_free(dst);
    if (src->n == 0) return 0;
    dst->v = malloc((size_t)src->n * sizeof *dst->v);
    if (dst->v == NULL) return -1;
    memcpy(dst->v, src->v, (size_t)src->n * sizeof *dst->v);
    dst->n = src->n;
    dst->dirty = 1;
    return 0;
}

void hmo_kernel_args_free(hmo_kernel_args *a) {
    free(a->v);
    memset(a, 0, sizeof *a);
}
