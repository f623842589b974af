/*
 * pgo_spec.h - a transform in fftwf-wisdom's own problem syntax, as the FFTW runtime of docs/PGO.md names
 * its regions ("fftw:" + spec) and reads its workload files. The same rules as the Java optimizer's
 * com.example.tuner.FftwSpec (shared vectors: src/test/resources/vectors/fftw-specs.txt):
 *
 *   <type><place><direction><sizes>   type c (complex), r (real: r2c forward, c2r backward), k (r2r);
 *                                     place i (in place) or o (out of place); direction f or b, none for k;
 *                                     1 to 3 sizes joined by 'x', positive decimals without leading zeros,
 *                                     at most 9 digits; for k each size followed by its kind
 *                                     (f R2HC, b HC2R, h DHT, e00..e11 REDFT, o00..o11 RODFT).
 *
 * Only the canonical spelling parses, so one transform has one region name. No FFTW header is needed here:
 * the parser and its tests build anywhere.
 */
#ifndef PGO_SPEC_H
#define PGO_SPEC_H

#include <stddef.h>
#include <stdint.h>

#define PGO_SPEC_MAX_RANK 3
/* The most points a spec may have: 2^24 (128 MiB per single-precision complex array). */
#define PGO_SPEC_MAX_POINTS (1ull << 24)
/* Room for the longest canonical spec: "k" "o" and three sizes of 9 digits with a kind each, separators. */
#define PGO_SPEC_TEXT_MAX 48

typedef enum pgo_kind {
    PGO_KIND_R2HC, PGO_KIND_HC2R, PGO_KIND_DHT,
    PGO_KIND_REDFT00, PGO_KIND_REDFT01, PGO_KIND_REDFT10, PGO_KIND_REDFT11,
    PGO_KIND_RODFT00, PGO_KIND_RODFT01, PGO_KIND_RODFT10, PGO_KIND_RODFT11
} pgo_kind;

typedef struct pgo_spec {
    char text[PGO_SPEC_TEXT_MAX + 1]; /* the spec as written (canonical) */
    char type;                        /* 'c', 'r' or 'k' */
    int in_place;
    int forward;                      /* 1 for k */
    int rank;
    int dims[PGO_SPEC_MAX_RANK];      /* outermost first */
    pgo_kind kinds[PGO_SPEC_MAX_RANK]; /* k only */
} pgo_spec;

/* text's first n bytes for a message: control characters as \xHH (as the Java side prints them), into out. */
void pgo_printable(char *out, size_t len, const char *text, size_t n);

/* Parses text: 0, or -1 with the reason in why (the Java optimizer's words). */
int pgo_spec_parse(const char *text, pgo_spec *out, char *why, size_t why_len);

/* The product of the sizes, saturating at INT64_MAX (as the Java side's long). */
uint64_t pgo_spec_points(const pgo_spec *s);

/* 0 when the spec is within PGO_SPEC_MAX_POINTS, else -1 with the reason in why. */
int pgo_spec_check_bound(const pgo_spec *s, char *why, size_t why_len);

/* The conventional flop count of one transform (benchFFT's "mflops"): 5 N log2 N for complex, 2.5 N log2 N
 * for real and r2r transforms, N the number of points. The same unit for every size, so throughputs of two
 * mixes compare. */
double pgo_spec_flops(const pgo_spec *s);

/* Floats one array of the transform holds: its input (or, for in-place, the whole padded array) and its output
 * (out-of-place). */
size_t pgo_spec_in_floats(const pgo_spec *s);
size_t pgo_spec_out_floats(const pgo_spec *s);

#endif
