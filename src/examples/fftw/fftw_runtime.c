/*
 * fftw_runtime.c - the runtime side of the FFTW loop of docs/PGO.md: a workload of FFTW transforms (single
 * precision, one thread) run pass after pass, each execution timed and recorded into a hint file as one sample
 * of its region ("fftw:" + the transform in fftwf-wisdom's syntax, e.g. "fftw:cof256x256"), with plans from a
 * wisdom file that the optimizer (com.example.tuner.FftwOptimizer) wrote.
 *
 *   fftw-runtime (--mix NAME | --workload FILE) [--passes N] [--hints FILE] [--wisdom FILE] [--verify]
 *                [--report] [--list] [--quiet]
 *                [--live SECONDS [--switch-at SECONDS (--mix2 NAME | --workload2 FILE)] [--log FILE]]
 *
 * Plans: with a wisdom file, each transform is planned from wisdom alone (FFTW_WISDOM_ONLY, trying the
 * EXHAUSTIVE, PATIENT and MEASURE levels, so the report says which one the wisdom held), else with
 * FFTW_ESTIMATE; a wisdom file that is missing or cannot be imported is named on stderr and every transform is
 * planned with ESTIMATE: wisdom is an optimisation, never a condition. The planner flags are fftwf-wisdom's
 * (FFTW_PRESERVE_INPUT, except FFTW_DESTROY_INPUT for multi-dimensional out-of-place c2r), and the arrays come
 * from fftwf_malloc, as fftwf-wisdom's, so its wisdom matches these problems.
 *
 * Verification (--verify): before any wisdom is loaded, each transform's output on fixed inputs is computed
 * with an ESTIMATE plan (the reference); after planning (and after every pick-up of new wisdom) each plan's
 * output on the same input must agree with it within a relative error of 1e-4 (the largest difference over the
 * largest reference value; single precision rounding of two FFT algorithms differs by ~1e-6). Inputs of c2r
 * transforms are the r2c of real data (Hermitian), so every algorithm computes the same transform.
 *
 * Timing: clock_gettime(CLOCK_MONOTONIC) around fftwf_execute alone; inputs that a transform overwrites
 * (in place, or c2r that destroys its input) are restored outside the timed span. One warm-up pass is neither
 * timed nor recorded. The workload's time is the wall time of its timed passes.
 *
 * --live SECONDS: the loop live. Passes run until SECONDS have passed; at --switch-at the workload becomes the
 * second one; between passes the wisdom file is checked (inode, size, modification time) and, when it changed,
 * wisdom is forgotten, imported again and every transform planned again, without a restart. Every second (at a
 * pass boundary) a line "EPOCH rate interval_s=... transforms=... mflops=... mix=... from_wisdom=K/N" goes to
 * --log (else stdout), and "EPOCH event shift ..." / "EPOCH event pickup ..." mark the changes; EPOCH is Unix
 * time in seconds, as in the optimizer's log. mflops uses benchFFT's convention (5 N log2 N flops per complex
 * transform, 2.5 N log2 N per real one), so two mixes' throughputs compare.
 *
 * Exit status: 0 done, 1 an FFTW plan could not be made or a result differs from the reference, 2 bad usage
 * or a bad workload file (its line and reason are printed), 4 the hint file cannot be used.
 */
#define _POSIX_C_SOURCE 200809L

#include "pgo_workload.h"

#include <fftw3.h>
#include <hintmap.h>

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define VERIFY_BOUND 1e-4

/* One transform of a workload, with its arrays, plan and reference. */
typedef struct xform {
    const pgo_spec *spec;
    int calls;
    char region[8 + PGO_SPEC_TEXT_MAX];
    hm_region *handle;   /* NULL without a hint file */
    float *in, *out;     /* out == in for in-place */
    float *saved;        /* the input, restored before each execution that overwrites it */
    float *reference;    /* the ESTIMATE plan's output on the input, for --verify */
    size_t in_floats, out_floats;
    int overwrites;      /* in place, or destroys its input */
    fftwf_plan plan;
    const char *effort;  /* "exhaustive", "patient", "measure" (from wisdom) or "estimate" */
    uint64_t executions, ns;
} xform;

typedef struct program {
    xform *x;
    size_t count;
} program;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double epoch_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int fftw_kind(pgo_kind k) {
    static const int KINDS[] = {FFTW_R2HC,    FFTW_HC2R,    FFTW_DHT,     FFTW_REDFT00, FFTW_REDFT01, FFTW_REDFT10,
                                FFTW_REDFT11, FFTW_RODFT00, FFTW_RODFT01, FFTW_RODFT10, FFTW_RODFT11};
    return KINDS[k];
}

/* The flags fftwf-wisdom plans with (tests/fftw-bench.c, preserve_input_flags), besides the effort. */
static unsigned input_flags(const pgo_spec *s) {
    return s->type == 'r' && !s->forward && !s->in_place && s->rank > 1 ? FFTW_DESTROY_INPUT : FFTW_PRESERVE_INPUT;
}

static fftwf_plan make_plan(const xform *x, float *in, float *out, unsigned flags) {
    const pgo_spec *s = x->spec;
    flags |= input_flags(s);
    switch (s->type) {
    case 'c':
        return fftwf_plan_dft(s->rank, s->dims, (fftwf_complex *)in, (fftwf_complex *)out,
                              s->forward ? FFTW_FORWARD : FFTW_BACKWARD, flags);
    case 'r':
        return s->forward ? fftwf_plan_dft_r2c(s->rank, s->dims, in, (fftwf_complex *)out, flags)
                          : fftwf_plan_dft_c2r(s->rank, s->dims, (fftwf_complex *)in, out, flags);
    default: {
        fftwf_r2r_kind kinds[PGO_SPEC_MAX_RANK];
        for (int i = 0; i < s->rank; i++) kinds[i] = (fftwf_r2r_kind)fftw_kind(s->kinds[i]);
        return fftwf_plan_r2r(s->rank, s->dims, in, out, kinds, flags);
    }
    }
}

/* Fills the input: fixed pseudo-random values; for c2r the r2c of real data (Hermitian, a valid c2r input). */
static int fill_input(xform *x) {
    uint32_t seed = 12345u;
    for (size_t i = 0; i < x->in_floats; i++) {
        seed = seed * 1664525u + 1013904223u;
        x->in[i] = (float)(seed >> 8) / 16777216.0f - 0.5f;
    }
    if (x->spec->type == 'r' && !x->spec->forward) {
        size_t n = (size_t)pgo_spec_points(x->spec);
        float *real = fftwf_malloc(n * sizeof *real);
        if (real == NULL) return -1;
        for (size_t i = 0; i < n; i++) real[i] = x->in[i % x->in_floats];
        fftwf_plan r2c = fftwf_plan_dft_r2c(x->spec->rank, x->spec->dims, real, (fftwf_complex *)x->in, FFTW_ESTIMATE);
        if (r2c == NULL) return fftwf_free(real), -1;
        fftwf_execute(r2c);
        fftwf_destroy_plan(r2c);
        fftwf_free(real);
        float scale = 1.0f / (float)n;
        for (size_t i = 0; i < x->in_floats; i++) x->in[i] *= scale;
    }
    memcpy(x->saved, x->in, x->in_floats * sizeof *x->in);
    return 0;
}

/* The floats of the output to compare: all, except the padding of an in-place c2r's rows. */
static int output_index_valid(const xform *x, size_t i) {
    const pgo_spec *s = x->spec;
    if (!(s->type == 'r' && !s->forward && s->in_place)) return 1;
    size_t row = 2 * ((size_t)s->dims[s->rank - 1] / 2 + 1);
    return i % row < (size_t)s->dims[s->rank - 1];
}

static float *output_of(xform *x) { return x->out; }
static size_t output_floats(const xform *x) { return x->spec->in_place ? x->in_floats : x->out_floats; }

static void execute_fresh(xform *x, fftwf_plan p) {
    memcpy(x->in, x->saved, x->in_floats * sizeof *x->in);
    fftwf_execute(p);
}

/* The largest |result - reference| over the largest |reference|. */
static double compare(const xform *x, const float *got) {
    double worst = 0, scale = 1e-30;
    for (size_t i = 0; i < output_floats(x); i++) {
        if (!output_index_valid(x, i)) continue;
        double d = fabs((double)got[i] - (double)x->reference[i]), r = fabs((double)x->reference[i]);
        worst = d > worst ? d : worst;
        scale = r > scale ? r : scale;
    }
    return worst / scale;
}

static int xform_init(xform *x, const pgo_entry *e, int references) {
    x->spec = &e->spec;
    x->calls = e->calls;
    snprintf(x->region, sizeof x->region, "fftw:%s", e->spec.text);
    x->in_floats = pgo_spec_in_floats(&e->spec);
    x->out_floats = pgo_spec_out_floats(&e->spec);
    x->in = fftwf_malloc(x->in_floats * sizeof(float));
    x->out = e->spec.in_place ? x->in : fftwf_malloc(x->out_floats * sizeof(float));
    x->saved = malloc(x->in_floats * sizeof(float));
    x->overwrites = e->spec.in_place || input_flags(&e->spec) == FFTW_DESTROY_INPUT;
    if (x->in == NULL || x->out == NULL || x->saved == NULL || fill_input(x) != 0) return -1;
    if (references) { /* before any wisdom exists in this process: a plain ESTIMATE plan */
        fftwf_plan p = make_plan(x, x->in, x->out, FFTW_ESTIMATE);
        x->reference = malloc(output_floats(x) * sizeof(float));
        if (p == NULL || x->reference == NULL) return -1;
        execute_fresh(x, p);
        memcpy(x->reference, output_of(x), output_floats(x) * sizeof(float));
        fftwf_destroy_plan(p);
        memcpy(x->in, x->saved, x->in_floats * sizeof *x->in);
    }
    return 0;
}

static void xform_free(xform *x) {
    if (x->plan) fftwf_destroy_plan(x->plan);
    if (x->out != x->in) fftwf_free(x->out);
    fftwf_free(x->in);
    free(x->saved);
    free(x->reference);
    hm_region_free(x->handle);
}

/* Plans x: from wisdom (the strongest level that has it) when wisdom is loaded, else ESTIMATE. */
static int xform_plan(xform *x, int have_wisdom) {
    static const unsigned LEVELS[] = {FFTW_EXHAUSTIVE, FFTW_PATIENT, FFTW_MEASURE};
    static const char *const NAMES[] = {"exhaustive", "patient", "measure"};
    if (x->plan) fftwf_destroy_plan(x->plan);
    x->plan = NULL;
    for (int i = 0; have_wisdom && x->plan == NULL && i < 3; i++) {
        x->plan = make_plan(x, x->in, x->out, LEVELS[i] | FFTW_WISDOM_ONLY);
        x->effort = NAMES[i];
    }
    if (x->plan == NULL) {
        x->plan = make_plan(x, x->in, x->out, FFTW_ESTIMATE);
        x->effort = "estimate";
    }
    memcpy(x->in, x->saved, x->in_floats * sizeof *x->in); /* planning may use the arrays */
    return x->plan ? 0 : -1;
}

/* Loads wisdom (after forgetting any): 1 when imported, 0 when there is none to use (named on stderr). */
static int load_wisdom(const char *path, int quiet_missing) {
    fftwf_forget_wisdom();
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        if (!quiet_missing)
            fprintf(stderr, "fftw-runtime: no wisdom from %s (%s): every transform planned with FFTW_ESTIMATE\n", path,
                    strerror(errno));
        return 0;
    }
    int ok = fftwf_import_wisdom_from_file(f);
    fclose(f);
    if (!ok) fprintf(stderr, "fftw-runtime: %s is not FFTW single-precision wisdom: every transform planned with FFTW_ESTIMATE\n", path);
    return ok;
}

static int plan_all(program *pr, int have_wisdom, int verify, size_t *from_wisdom) {
    *from_wisdom = 0;
    for (size_t i = 0; i < pr->count; i++) {
        xform *x = &pr->x[i];
        if (xform_plan(x, have_wisdom) != 0) {
            fprintf(stderr, "fftw-runtime: FFTW cannot plan %s\n", x->region);
            return -1;
        }
        *from_wisdom += strcmp(x->effort, "estimate") != 0;
        if (verify) {
            execute_fresh(x, x->plan);
            double e = compare(x, output_of(x));
            memcpy(x->in, x->saved, x->in_floats * sizeof *x->in);
            if (!(e <= VERIFY_BOUND)) {
                fprintf(stderr, "fftw-runtime: %s (%s plan) differs from the ESTIMATE reference: relative error %g > %g\n",
                        x->region, x->effort, e, VERIFY_BOUND);
                return -1;
            }
        }
    }
    return 0;
}

/* One pass over the transforms [first, first + count) of the program; recorded unless warm-up. */
static void run_pass(program *pr, size_t first, size_t count, int record, uint64_t *transforms, double *flops) {
    for (size_t i = first; i < first + count; i++) {
        xform *x = &pr->x[i];
        uint64_t bytes = (uint64_t)(x->in_floats + x->out_floats) * sizeof(float);
        for (int t = 0; t < x->calls; t++) {
            if (x->overwrites) memcpy(x->in, x->saved, x->in_floats * sizeof *x->in);
            uint64_t t0 = now_ns();
            fftwf_execute(x->plan);
            uint64_t ns = now_ns() - t0;
            if (!record) continue;
            x->executions++;
            x->ns += ns;
            if (x->handle != NULL) hm_region_add(x->handle, ns, bytes);
            *transforms += 1;
            *flops += pgo_spec_flops(x->spec);
        }
    }
}

static int usage(void) {
    fprintf(stderr, "usage: fftw-runtime (--mix %s | --workload FILE) [--passes N] [--hints FILE] [--wisdom FILE]"
                    " [--verify] [--report] [--list] [--quiet] [--live SECONDS [--switch-at SECONDS (--mix2 NAME |"
                    " --workload2 FILE)] [--log FILE]]\n", pgo_workload_builtin_names());
    return 2;
}

/* Reads --mix NAME or --workload FILE into w: 0, or the exit status. */
static int load_workload(const char *mix_name, const char *file, pgo_workload *w) {
    if (mix_name != NULL) {
        if (pgo_workload_builtin(mix_name, w) == 0) return 0;
        fprintf(stderr, "fftw-runtime: no built-in mix '%s' (%s)\n", mix_name, pgo_workload_builtin_names());
        return 2;
    }
    FILE *f = fopen(file, "r");
    if (f == NULL) return fprintf(stderr, "fftw-runtime: cannot read workload %s: %s\n", file, strerror(errno)), 2;
    char err[512];
    int rc = pgo_workload_read(f, file, w, err, sizeof err);
    fclose(f);
    if (rc != 0) return fprintf(stderr, "fftw-runtime: %s\n", err), 2;
    return 0;
}

static int parse_count(const char *text, long min, long *out) {
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno != 0 || *end != '\0' || v < min) return -1;
    *out = v;
    return 0;
}

int main(int argc, char **argv) {
    const char *mix1 = NULL, *file1 = NULL, *mix2 = NULL, *file2 = NULL, *hints = NULL, *wisdom = NULL, *log_path = NULL;
    long passes = 3, live_s = 0, switch_s = -1;
    int verify = 0, report = 0, list = 0, quiet = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = 1;
        if (strcmp(a, "--mix") == 0 && v) mix1 = v;
        else if (strcmp(a, "--workload") == 0 && v) file1 = v;
        else if (strcmp(a, "--mix2") == 0 && v) mix2 = v;
        else if (strcmp(a, "--workload2") == 0 && v) file2 = v;
        else if (strcmp(a, "--hints") == 0 && v) hints = v;
        else if (strcmp(a, "--wisdom") == 0 && v) wisdom = v;
        else if (strcmp(a, "--log") == 0 && v) log_path = v;
        else if (strcmp(a, "--passes") == 0 && v) { if (parse_count(v, 1, &passes) != 0) return usage(); }
        else if (strcmp(a, "--live") == 0 && v) { if (parse_count(v, 1, &live_s) != 0) return usage(); }
        else if (strcmp(a, "--switch-at") == 0 && v) { if (parse_count(v, 0, &switch_s) != 0) return usage(); }
        else {
            takes = 0;
            if (strcmp(a, "--verify") == 0) verify = 1;
            else if (strcmp(a, "--report") == 0) report = 1;
            else if (strcmp(a, "--list") == 0) list = 1;
            else if (strcmp(a, "--quiet") == 0) quiet = 1;
            else return usage();
        }
        i += takes;
    }
    if ((mix1 == NULL) == (file1 == NULL) || (mix2 != NULL && file2 != NULL)) return usage();
    int second = mix2 != NULL || file2 != NULL;
    if (second != (switch_s >= 0) || (second && live_s == 0) || (log_path && live_s == 0)) return usage();

    pgo_workload *w = calloc(2, sizeof *w); /* the workloads; the second for --live's shift */
    if (w == NULL) return 1;
    int rc = load_workload(mix1, file1, &w[0]);
    if (rc == 0 && second) rc = load_workload(mix2, file2, &w[1]);
    if (rc != 0 || list) {
        for (int k = 0; rc == 0 && k <= second; k++)
            for (size_t i = 0; i < w[k].count; i++) printf("fftw:%s\t%d\n", w[k].entries[i].spec.text, w[k].entries[i].calls);
        return free(w), rc;
    }

    program pr = {calloc(w[0].count + w[1].count, sizeof(xform)), w[0].count + (second ? w[1].count : 0)};
    if (pr.x == NULL) return free(w), 1;
    for (size_t i = 0; rc == 0 && i < pr.count; i++) {
        const pgo_entry *e = i < w[0].count ? &w[0].entries[i] : &w[1].entries[i - w[0].count];
        if (xform_init(&pr.x[i], e, verify) != 0) {
            fprintf(stderr, "fftw-runtime: cannot set up fftw:%s (out of memory, or FFTW cannot plan it)\n", e->spec.text);
            rc = 1;
        }
    }
    hm_store *store = NULL;
    if (rc == 0 && hints != NULL) {
        char err[512];
        if (hm_open_ex(hints, NULL, &store, err, sizeof err) != HM_OK) {
            fprintf(stderr, "fftw-runtime: %s\n", err);
            rc = 4;
        }
        for (size_t i = 0; rc == 0 && i < pr.count; i++)
            if (hm_region_resolve(store, pr.x[i].region, strlen(pr.x[i].region), &pr.x[i].handle) != HM_OK) {
                fprintf(stderr, "fftw-runtime: %s\n", hm_last_error(store));
                rc = 4;
            }
    }
    FILE *log = stdout;
    if (rc == 0 && log_path != NULL && (log = fopen(log_path, "a")) == NULL) {
        fprintf(stderr, "fftw-runtime: cannot write log %s: %s\n", log_path, strerror(errno));
        rc = 2;
    }

    struct stat seen = {0};
    int have_wisdom = 0;
    size_t from_wisdom = 0;
    if (rc == 0 && wisdom != NULL) {
        if (stat(wisdom, &seen) != 0) memset(&seen, 0, sizeof seen);
        have_wisdom = load_wisdom(wisdom, live_s > 0);
    }
    if (rc == 0 && plan_all(&pr, have_wisdom, verify, &from_wisdom) != 0) rc = 1;
    if (rc == 0 && verify) printf("verify transforms=%zu bound=%g ok\n", pr.count, VERIFY_BOUND);

    uint64_t transforms = 0, wall_ns = 0;
    double flops = 0;
    if (rc == 0 && live_s == 0) {
        run_pass(&pr, 0, w[0].count, 0, &transforms, &flops); /* warm-up */
        for (long p = 0; p < passes; p++) {
            uint64_t t0 = now_ns();
            run_pass(&pr, 0, w[0].count, 1, &transforms, &flops);
            uint64_t ns = now_ns() - t0;
            wall_ns += ns;
            if (!quiet) printf("pass %ld: %.3f s\n", p + 1, (double)ns / 1e9);
        }
        printf("workload mix=%s passes=%ld transforms=%llu wall_s=%.6f mflops=%.1f wisdom=%s from_wisdom=%zu/%zu\n",
               w[0].name, passes, (unsigned long long)transforms, (double)wall_ns / 1e9, flops / ((double)wall_ns / 1e3),
               wisdom ? wisdom : "-", from_wisdom, pr.count);
    } else if (rc == 0) {
        int current = 0;
        uint64_t start = now_ns(), mark = start, interval_transforms = 0;
        double interval_flops = 0;
        fprintf(log, "%.3f event start mix=%s from_wisdom=%zu/%zu\n", epoch_s(), w[0].name, from_wisdom, pr.count);
        run_pass(&pr, 0, w[0].count, 0, &transforms, &flops); /* warm-up */
        while (rc == 0 && now_ns() - start < (uint64_t)live_s * 1000000000u) {
            if (second && current == 0 && now_ns() - start >= (uint64_t)switch_s * 1000000000u) {
                current = 1;
                fprintf(log, "%.3f event shift mix=%s\n", epoch_s(), w[1].name);
            }
            struct stat now;
            if (wisdom != NULL && stat(wisdom, &now) == 0 &&
                (now.st_ino != seen.st_ino || now.st_size != seen.st_size || now.st_mtim.tv_sec != seen.st_mtim.tv_sec ||
                 now.st_mtim.tv_nsec != seen.st_mtim.tv_nsec)) {
                seen = now;
                have_wisdom = load_wisdom(wisdom, 0);
                if (plan_all(&pr, have_wisdom, verify, &from_wisdom) != 0) rc = 1;
                fprintf(log, "%.3f event pickup from_wisdom=%zu/%zu\n", epoch_s(), from_wisdom, pr.count);
            }
            size_t first = current == 0 ? 0 : w[0].count, count = w[current].count;
            run_pass(&pr, first, count, 1, &interval_transforms, &interval_flops);
            uint64_t t = now_ns();
            if (t - mark >= 1000000000u) {
                double secs = (double)(t - mark) / 1e9;
                size_t used = 0;
                for (size_t i = first; i < first + count; i++) used += strcmp(pr.x[i].effort, "estimate") != 0;
                fprintf(log, "%.3f rate interval_s=%.3f transforms=%llu mflops=%.1f mix=%s from_wisdom=%zu/%zu\n", epoch_s(),
                        secs, (unsigned long long)interval_transforms, interval_flops / secs / 1e6, w[current].name, used,
                        count);
                fflush(log);
                transforms += interval_transforms;
                interval_transforms = 0;
                interval_flops = 0;
                mark = t;
            }
        }
        fprintf(log, "%.3f event end transforms=%llu\n", epoch_s(), (unsigned long long)transforms);
    }
    if (rc == 0 && report)
        for (size_t i = 0; i < pr.count; i++)
            printf("region %s plan=%s calls=%d executions=%llu mean_us=%.2f\n", pr.x[i].region, pr.x[i].effort, pr.x[i].calls,
                   (unsigned long long)pr.x[i].executions,
                   pr.x[i].executions ? (double)pr.x[i].ns / 1e3 / (double)pr.x[i].executions : 0.0);
    if (log != stdout && log != NULL) fclose(log);
    for (size_t i = 0; i < pr.count; i++) xform_free(&pr.x[i]);
    free(pr.x);
    if (store != NULL && hm_close(store) != HM_OK && rc == 0) rc = 4;
    free(w); /* after the transforms: their specs point into it */
    return rc;
}
