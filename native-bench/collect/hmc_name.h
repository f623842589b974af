/*
 * hmc_name.h - the region names and durations of every collector (the CUPTI collector, the OpenCL
 * layer): pure functions, no global state, no GPU API call.
 *
 * A region name is composed of a kernel part and a suffix the collector formats (a launch shape,
 * a build tag, or nothing). Bytes of the kernel part that are not well-formed UTF-8 become '?'
 * (the library's one UTF-8 rule, hm_utf8.h); a NULL or empty kernel part is "<unnamed kernel>".
 * A composed name longer than the file's max_name_bytes is written in the format's stored form
 * (FORMAT §1.1, hm_name_canonical() of the library, the one rule every API applies): a prefix cut on
 * a UTF-8 boundary, '~' and the 32 hex digits of the first 16 bytes of SHA-256 over the whole
 * composed name (suffix included, so that shape variants of one long kernel stay apart). The
 * optimizer asks by the whole name and finds it.
 */
#ifndef HMC_NAME_H
#define HMC_NAME_H

#include <stddef.h>
#include <stdint.h>

#include "hintmap.h"

/** Longest region name a collector writes (the format's largest max_name_bytes). */
#define HMC_NAME_CAP HM_MAX_NAME_BYTES_LIMIT

/* Outcomes of hmc_duration_ns (and of the CUPTI translation built on it). */
#define HMC_SAMPLE         0  /* a sample to record                                              */
#define HMC_SKIP_UNTIMED   1  /* start or end is 0 (unknown): nothing recorded                    */
#define HMC_SKIP_NEGATIVE  2  /* end < start: nothing recorded (counted by the collector)         */
#define HMC_EINVAL        -1  /* NULL argument, or max_name_bytes out of range                    */

/**
 * end - start in ns: HMC_SAMPLE with *ns set (clamped to 2^63-1, the store's clamp), or
 * HMC_SKIP_UNTIMED (a timestamp is 0: CUPTI_TIMESTAMP_UNKNOWN; no profiled command has one) or
 * HMC_SKIP_NEGATIVE (then *ns = 0).
 */
int hmc_duration_ns(uint64_t start, uint64_t end, uint64_t *ns);

/**
 * The region name of kernel part `kernel` and suffix `suffix` ("" or NULL: none; at most 255 bytes,
 * ASCII) under the rules above, into name[HMC_NAME_CAP]: *name_len gets its length
 * (1..max_name_bytes), *truncated whether the stored form applied. A kernel part longer than 64 KiB
 * is cut to that (on a character boundary) before composing: the digest still tells such names
 * apart unless they share those 64 KiB. Returns 0 or HMC_EINVAL (NULL output, limit out of
 * HM_MIN_NAME_BYTES..HMC_NAME_CAP, suffix too long).
 */
int hmc_compose_name(const char *kernel, const char *suffix, uint32_t max_name_bytes, char name[HMC_NAME_CAP],
                     size_t *name_len, int *truncated);

#endif /* HMC_NAME_H */
