/*
 * pgo_params.h - the parameters file the optimizer (com.example.tuner.ClblastOptimizer) writes and the CLBlast
 * runtime reads: one line per tuned (region, kernel), "REGION<TAB>KERNEL<TAB>NAME=VALUE NAME=VALUE ...", '#'
 * comments. KERNEL is one of pgo_choice.h's (Xgemm, XgemmDirect, GemmRoutine, Xgemv, XgemvFast, XgemvFastRot,
 * Xaxpy). A line that cannot be used (no two tabs, an unknown kernel, a value that is not a non-negative integer,
 * a region name over the limit, a second line for the same region and kernel) is named on the warnings stream
 * and skipped: hints never make a result wrong, and a skipped line leaves its kernel at CLBlast's defaults.
 * Pure C, no OpenCL.
 */
#ifndef PGO_PARAMS_H
#define PGO_PARAMS_H

#include "pgo_choice.h"

#include <stdio.h>

#define PGO_REGION_MAX 160

typedef struct pgo_param_entry {
    char region[PGO_REGION_MAX];
    pgo_kernel kernel;
    pgo_set set;
} pgo_param_entry;

typedef struct pgo_params {
    pgo_param_entry *entries;
    size_t count;
} pgo_params;

/* Reads f (named path in messages) into p, naming each skipped line on warn: 0, or -1 out of memory. */
int pgo_params_read(FILE *f, const char *path, pgo_params *p, FILE *warn);

/* The entry of region for kernel k, or NULL. */
const pgo_set *pgo_params_find(const pgo_params *p, const char *region, pgo_kernel k);

void pgo_params_free(pgo_params *p);

#endif
