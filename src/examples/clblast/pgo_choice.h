/*
 * pgo_choice.h - which CLBlast kernel a call of the runtime runs, with which parameter set, and whether that is
 * the set the parameters file tuned for its region (docs/PGO.md, "Which kernel ran"). Pure C, no OpenCL: the
 * runtime feeds it the sets CLBlast holds (RetrieveParameters, through clblast_retrieve.cpp) and the unit tests
 * feed it sets by hand.
 *
 * The choice replicates CLBlast 1.5.3 for this runtime's calls (row-major, no transposes, offsets 0):
 *   GEMM  XgemmDirect when m*n*k < XGEMM_MIN_INDIRECT_SIZE^3 (Xgemm::UseDirectKernel; GemmRoutine's parameter),
 *         else Xgemm (with its helper kernels); local size MDIMCD x NDIMCD, or MDIMC x NDIMC
 *   GEMV  row-major without transpose is CLBlast's "rotated" case: XgemvFastRot when m % (WGS3*WPT3) == 0,
 *         n % WGS3 == 0 and the leading dimension n % VW3 == 0 (Xgemv::MatVec), else Xgemv; local WGS3 or WGS1
 *   AXPY  XaxpyFastest when n % (WGS*WPT*VW) == 0, XaxpyFaster when n % (WPT*VW) == 0, else Xaxpy (all with
 *         Xaxpy's parameters); local WGS
 */
#ifndef PGO_CHOICE_H
#define PGO_CHOICE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The CLBlast "kernels" (database entries) whose parameters the runtime sets, and GemmRoutine (the routine
 * choice). The runtime's parameters file names them so. */
typedef enum pgo_kernel {
    PGO_XGEMM, PGO_XGEMM_DIRECT, PGO_GEMM_ROUTINE, PGO_XGEMV, PGO_XGEMV_FAST, PGO_XGEMV_FAST_ROT, PGO_XAXPY, PGO_KERNELS
} pgo_kernel;

extern const char *const PGO_KERNEL_NAMES[PGO_KERNELS];

/* The kernel of this name, or -1. */
int pgo_kernel_of(const char *name);

typedef enum pgo_routine { PGO_GEMM, PGO_GEMV, PGO_AXPY } pgo_routine;

/* Whether routine r reads the parameters of kernel k (and so the runtime sets k before each call). */
int pgo_routine_uses(pgo_routine r, pgo_kernel k);

#define PGO_SET_MAX 24
#define PGO_NAME_MAX 32

/* A parameter set: NAME=VALUE pairs, in any order. */
typedef struct pgo_set {
    size_t count;
    char names[PGO_SET_MAX][PGO_NAME_MAX];
    size_t values[PGO_SET_MAX];
} pgo_set;

/* Adds NAME=value: 0, or -1 when the set is full or the name too long. */
int pgo_set_put(pgo_set *s, const char *name, size_t value);
/* The value of name, or `otherwise` when the set has none. */
size_t pgo_set_get(const pgo_set *s, const char *name, size_t otherwise);
/* Whether a and b hold the same names with the same values. */
int pgo_set_equal(const pgo_set *a, const pgo_set *b);
/* "NAME=VALUE NAME=VALUE ..." sorted by name, into out. */
void pgo_set_format(const pgo_set *s, char *out, size_t len);

typedef struct pgo_call {
    pgo_routine routine;
    size_t m, n, k; /* GEMM m,n,k; GEMV m,n; AXPY n in m */
} pgo_call;

/* What a call runs: the OpenCL kernel (the name PoCL reports, up to its layout suffix), the database kernel
 * whose parameters it runs with, its local size (y = 1 for 1-D kernels). */
typedef struct pgo_choice {
    const char *kernel;   /* "XgemmDirect", "Xgemm", "XgemvFastRot", "Xgemv", "XaxpyFastest", ... */
    pgo_kernel params_of; /* PGO_XGEMM_DIRECT, PGO_XGEMM, PGO_XGEMV_FAST_ROT, PGO_XGEMV or PGO_XAXPY */
    int direct;           /* GEMM: 1 direct, 0 indirect; -1 for the other routines */
    size_t local_x, local_y;
} pgo_choice;

/* The kernel call c runs when CLBlast holds sets[k] for every kernel k the routine uses. */
pgo_choice pgo_choose(const pgo_call *c, const pgo_set sets[PGO_KERNELS]);

/* Whose parameters the running kernel has. */
typedef enum pgo_source {
    PGO_FROM_OWN,      /* the parameters file's entry for this region and kernel */
    PGO_FROM_DEFAULTS, /* CLBlast's defaults for the device */
    PGO_FROM_OTHER     /* neither: a bug in the runtime (a set left from another call) */
} pgo_source;

extern const char *const PGO_SOURCE_NAMES[3];

typedef struct pgo_verdict {
    pgo_choice choice;
    pgo_source source;
    int tuned;   /* the parameters file has an entry of this region (for any kernel the routine uses) */
    int untuned; /* tuned, but the running kernel's parameters are not this region's: the check fails */
} pgo_verdict;

/* Judges a call: held[] the sets CLBlast holds at the call, own[k] the region's entry for kernel k or NULL,
 * defaults[] CLBlast's defaults. */
pgo_verdict pgo_judge(const pgo_call *c, const pgo_set held[PGO_KERNELS], const pgo_set *const own[PGO_KERNELS],
                      const pgo_set defaults[PGO_KERNELS]);

#ifdef __cplusplus
}
#endif

#endif
