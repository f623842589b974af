/*
 * pgo_workload.h - the FFTW runtime's workload: transforms (pgo_spec.h) and how many times each is called per
 * pass, from a file a user writes or one of the built-in mixes (docs/PGO.md, "The workload file"):
 *
 *   # a comment: from '#' at the start of a field to the end of the line
 *   cof256x256   40        one transform per line: the spec, then the calls per pass (1 to 1000000),
 *   rof1024x768   4        separated by spaces or tabs; blank lines are skipped
 *
 * Every problem is an error naming FILE:LINE and what is wrong (a bad spec with the parser's reason, a spec
 * past the bound, a missing or bad count, a third field, a spec listed twice, a line over 255 bytes, more than
 * PGO_WORKLOAD_MAX transforms, a file without any). Needs no FFTW header.
 */
#ifndef PGO_WORKLOAD_H
#define PGO_WORKLOAD_H

#include "pgo_spec.h"

#include <stdio.h>

#define PGO_WORKLOAD_MAX 256
#define PGO_WORKLOAD_MAX_CALLS 1000000

typedef struct pgo_entry {
    pgo_spec spec;
    int calls; /* per pass */
} pgo_entry;

typedef struct pgo_workload {
    char name[64]; /* the mix's name, or the file's */
    size_t count;
    pgo_entry entries[PGO_WORKLOAD_MAX];
} pgo_workload;

/* Reads a workload from f (named path in messages): 0, or -1 with "PATH:LINE: reason" in err. */
int pgo_workload_read(FILE *f, const char *path, pgo_workload *out, char *err, size_t err_len);

/* One of the built-in mixes by name: 0, or -1 when there is none of that name. */
int pgo_workload_builtin(const char *name, pgo_workload *out);

/* The built-in mixes' names, separated by '|', for usage lines. */
const char *pgo_workload_builtin_names(void);

#endif
