/*
 * hmc_translate.h - the CUPTI collector's translation from CUPTI activity records to hintmap
 * samples: pure functions (no global state, no CUPTI or driver call), tested without a GPU by
 * cupti/test_translate.c with hand-built records.
 *
 * Region names (native-bench/README.md "CUPTI collector"; composed and shortened by the rules every
 * collector shares, collect/hmc_name.h):
 *   mangled         the kernel's symbol as CUPTI reports it:      _Z5saxpyifPKfPf
 *   demangled       its demangled form (default):                 saxpy(int, float, float const*, float*)
 *   demangled+grid  demangled, then the launch shape:              saxpy(int, float, float const*, float*)<<<16,256>>>
 *                   (a dimension whose y and z are 1 prints as x alone, else as XxYxZ)
 * A name that the demangler refuses stays mangled.
 */
#ifndef HMC_TRANSLATE_H
#define HMC_TRANSLATE_H

#include <cupti_activity.h>
#include <stddef.h>
#include <stdint.h>

#include "hintmap.h"
#include "hmc_name.h"

/* The kernel record this build reads: the newest in CUDA 13.0's cupti_activity.h. */
typedef CUpti_ActivityKernel10 hmc_kernel_record;
typedef CUpti_ActivityMemcpy6 hmc_memcpy_record;
typedef CUpti_ActivityMemset4 hmc_memset_record;

typedef enum hmc_name_mode { HMC_NAME_MANGLED = 0, HMC_NAME_DEMANGLED = 1, HMC_NAME_DEMANGLED_GRID = 2 } hmc_name_mode;

/** Parses "mangled", "demangled" or "demangled+grid"; -1 for anything else. */
int hmc_name_mode_parse(const char *text);

/**
 * A demangler: returns a malloc'd NUL-terminated demangled form of `mangled`, or NULL when it is
 * not a mangled name (or no demangler is available). The collector passes __cxa_demangle's.
 */
typedef char *(*hmc_demangle_fn)(const char *mangled, void *ctx);

typedef struct hmc_naming {
    hmc_name_mode mode;
    uint32_t max_name_bytes;  /* the file's limit, HM_MIN_NAME_BYTES..HM_MAX_NAME_BYTES_LIMIT */
    hmc_demangle_fn demangle; /* NULL: names stay mangled */
    void *demangle_ctx;
} hmc_naming;

/* Outcomes of hmc_kernel_sample and the others: hmc_duration_ns's (collect/hmc_name.h); a timestamp
   CUPTI_TIMESTAMP_UNKNOWN (0) is HMC_SKIP_UNTIMED. */
_Static_assert(CUPTI_TIMESTAMP_UNKNOWN == 0, "hmc_duration_ns takes 0 for an unknown timestamp");

typedef struct hmc_sample {
    uint64_t kernel_ns; /* end - start, clamped to 2^63-1 (the store's clamp)                        */
    uint64_t bytes;     /* kernels: 0 (a kernel record carries no byte count); transfers: their bytes */
} hmc_sample;

/** The sample of one kernel execution (its duration, bytes 0). Returns as hmc_duration_ns, or HMC_EINVAL. */
int hmc_kernel_sample(const hmc_kernel_record *k, hmc_sample *out);

/** The sample of one memcpy / memset (duration and bytes). Returns as hmc_duration_ns, or HMC_EINVAL. */
int hmc_memcpy_sample(const hmc_memcpy_record *m, hmc_sample *out);
int hmc_memset_sample(const hmc_memset_record *m, hmc_sample *out);

/**
 * The region name of a kernel record under `naming` (rules above), into name[HMC_NAME_CAP]:
 * *name_len gets its length (1..max_name_bytes), *truncated whether the truncation rule applied.
 * A NULL or empty kernel name is named "<unnamed kernel>". Allocates only inside the demangler.
 * Returns 0 or HMC_EINVAL.
 */
int hmc_kernel_region_name(const hmc_kernel_record *k, const hmc_naming *naming, char name[HMC_NAME_CAP],
                           size_t *name_len, int *truncated);

/** The same from the parts (what hmc_kernel_region_name reads from the record). */
int hmc_region_name(const char *kernel_name, const int32_t grid[3], const int32_t block[3], const hmc_naming *naming,
                    char name[HMC_NAME_CAP], size_t *name_len, int *truncated);

/** The region of a memcpy record: "[memcpy HtoD]", "[memcpy DtoH]", ... ("[memcpy other]"); of a memset: "[memset]". */
const char *hmc_memcpy_region(const hmc_memcpy_record *m);
#define HMC_MEMSET_REGION "[memset]"

#endif /* HMC_TRANSLATE_H */
