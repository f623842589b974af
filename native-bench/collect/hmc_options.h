/*
 * hmc_options.h - what every collector (the CUPTI collector, the OpenCL layer) reads from the
 * environment and how it speaks: the hint file and its creation options, numbers that are exactly
 * decimal digits or refused, and one stderr line per message, prefixed with the collector's name.
 *
 *   HINTMAP_FILE              the hint file (the collector's default when unset or empty)
 *   HINTMAP_CAPACITY          1..2^26          used when the file is created; set, it must match the file
 *   HINTMAP_NAME_BYTES        33..1024         likewise (longer names: FORMAT §1.1's stored form)
 *   HINTMAP_HOT_THRESHOLD_NS  0..2^63-1        likewise (the file's is-hot threshold)
 *
 * No global state: a collector passes its voice (name and what a refusal means for it) to each call.
 */
#ifndef HMC_OPTIONS_H
#define HMC_OPTIONS_H

#include <stdint.h>

#include "hintmap.h"

/** Who speaks, and what follows a refusal ("not recording", "passing every call through"). */
typedef struct hmc_voice {
    const char *name;
    const char *refusal;
} hmc_voice;

/** One line "NAME: message" on stderr (a line of at most 767 bytes; longer ones are cut). */
void hmc_say(const hmc_voice *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/**
 * Reads the decimal number in environment variable `var`: `dflt` when unset or empty (*given = 0),
 * the number when it is digits only and within lo..hi (*given = 1; `given` may be NULL), else one
 * line "VAR=VALUE: expected an integer in LO..HI; REFUSAL" and -1. Leading blanks, a sign, hex and
 * trailing text are refused, never read as a number.
 */
int hmc_env_u64(const hmc_voice *v, const char *var, uint64_t lo, uint64_t hi, uint64_t dflt, uint64_t *out, int *given);

/** The hint file and its creation options, as the environment gives them. */
typedef struct hmc_store_options {
    const char *path;  /* HINTMAP_FILE, or the default given (a pointer into the environment: not copied) */
    hm_options open;   /* the options set explicitly are those the environment gave */
} hmc_store_options;

/** Reads HINTMAP_FILE, HINTMAP_CAPACITY, HINTMAP_NAME_BYTES, HINTMAP_HOT_THRESHOLD_NS: 0, or -1 after one line. */
int hmc_store_options_from_env(const hmc_voice *v, const char *default_path, hmc_store_options *out);

/** Opens (or creates) the hint file: 0, or -1 after one line "cannot open PATH: WHY; REFUSAL". */
int hmc_store_open(const hmc_voice *v, const hmc_store_options *o, hm_store **out);

#endif /* HMC_OPTIONS_H */
