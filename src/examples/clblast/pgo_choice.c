/* pgo_choice.c - which CLBlast kernel a call runs and with whose parameters (pgo_choice.h). */
#include "pgo_choice.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const PGO_KERNEL_NAMES[PGO_KERNELS] = {"Xgemm", "XgemmDirect", "GemmRoutine", "Xgemv",
                                                   "XgemvFast", "XgemvFastRot", "Xaxpy"};
const char *const PGO_SOURCE_NAMES[3] = {"own", "defaults", "other"};

int pgo_kernel_of(const char *name) {
    for (int k = 0; k < PGO_KERNELS; k++)
        if (strcmp(name, PGO_KERNEL_NAMES[k]) == 0) return k;
    return -1;
}

int pgo_routine_uses(pgo_routine r, pgo_kernel k) {
    switch (r) {
    case PGO_GEMM: return k == PGO_XGEMM || k == PGO_XGEMM_DIRECT || k == PGO_GEMM_ROUTINE;
    case PGO_GEMV: return k == PGO_XGEMV || k == PGO_XGEMV_FAST || k == PGO_XGEMV_FAST_ROT;
    case PGO_AXPY: return k == PGO_XAXPY;
    }
    return 0;
}

int pgo_set_put(pgo_set *s, const char *name, size_t value) {
    if (s->count == PGO_SET_MAX || strlen(name) >= PGO_NAME_MAX) return -1;
    snprintf(s->names[s->count], PGO_NAME_MAX, "%s", name);
    s->values[s->count++] = value;
    return 0;
}

size_t pgo_set_get(const pgo_set *s, const char *name, size_t otherwise) {
    for (size_t i = 0; i < s->count; i++)
        if (strcmp(s->names[i], name) == 0) return s->values[i];
    return otherwise;
}

int pgo_set_equal(const pgo_set *a, const pgo_set *b) {
    if (a->count != b->count) return 0;
    for (size_t i = 0; i < a->count; i++) {
        size_t j = 0;
        while (j < b->count && strcmp(a->names[i], b->names[j]) != 0) j++;
        if (j == b->count || a->values[i] != b->values[j]) return 0;
    }
    return 1;
}

static int by_name(const void *x, const void *y) {
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

void pgo_set_format(const pgo_set *s, char *out, size_t len) {
    const char *order[PGO_SET_MAX];
    for (size_t i = 0; i < s->count; i++) order[i] = s->names[i];
    qsort(order, s->count, sizeof order[0], by_name);
    size_t at = 0;
    out[0] = '\0';
    for (size_t i = 0; i < s->count && at < len; i++)
        at += (size_t)snprintf(out + at, len - at, "%s%s=%zu", i ? " " : "", order[i], pgo_set_get(s, order[i], 0));
}

static int multiple(size_t a, size_t b) { return b != 0 && a % b == 0; }

pgo_choice pgo_choose(const pgo_call *c, const pgo_set sets[PGO_KERNELS]) {
    pgo_choice ch = {"?", PGO_KERNELS, -1, 0, 1};
    switch (c->routine) {
    case PGO_GEMM: {
        unsigned long long t = pgo_set_get(&sets[PGO_GEMM_ROUTINE], "XGEMM_MIN_INDIRECT_SIZE", 0);
        unsigned long long mnk = (unsigned long long)c->m * c->n * c->k;
        ch.direct = mnk < t * t * t;
        if (ch.direct) {
            ch.kernel = "XgemmDirect";
            ch.params_of = PGO_XGEMM_DIRECT;
            ch.local_x = pgo_set_get(&sets[PGO_XGEMM_DIRECT], "MDIMCD", 0);
            ch.local_y = pgo_set_get(&sets[PGO_XGEMM_DIRECT], "NDIMCD", 0);
        } else {
            ch.kernel = "Xgemm";
            ch.params_of = PGO_XGEMM;
            ch.local_x = pgo_set_get(&sets[PGO_XGEMM], "MDIMC", 0);
            ch.local_y = pgo_set_get(&sets[PGO_XGEMM], "NDIMC", 0);
        }
        break;
    }
    case PGO_GEMV: {
        const pgo_set *rot = &sets[PGO_XGEMV_FAST_ROT];
        size_t wgs3 = pgo_set_get(rot, "WGS3", 0), wpt3 = pgo_set_get(rot, "WPT3", 0), vw3 = pgo_set_get(rot, "VW3", 0);
        if (multiple(c->m, wgs3 * wpt3) && multiple(c->n, wgs3) && multiple(c->n, vw3)) {
            ch.kernel = "XgemvFastRot";
            ch.params_of = PGO_XGEMV_FAST_ROT;
            ch.local_x = wgs3;
        } else {
            ch.kernel = "Xgemv";
            ch.params_of = PGO_XGEMV;
            ch.local_x = pgo_set_get(&sets[PGO_XGEMV], "WGS1", 0);
        }
        break;
    }
    case PGO_AXPY: {
        const pgo_set *a = &sets[PGO_XAXPY];
        size_t wgs = pgo_set_get(a, "WGS", 0), wpt = pgo_set_get(a, "WPT", 0), vw = pgo_set_get(a, "VW", 0);
        int faster = multiple(c->m, wpt * vw);
        ch.kernel = faster && multiple(c->m, wgs * wpt * vw) ? "XaxpyFastest" : faster ? "XaxpyFaster" : "Xaxpy";
        ch.params_of = PGO_XAXPY;
        ch.local_x = wgs;
        break;
    }
    }
    return ch;
}

pgo_verdict pgo_judge(const pgo_call *c, const pgo_set held[PGO_KERNELS], const pgo_set *const own[PGO_KERNELS],
                      const pgo_set defaults[PGO_KERNELS]) {
    pgo_verdict v;
    memset(&v, 0, sizeof v);
    v.choice = pgo_choose(c, held);
    for (int k = 0; k < PGO_KERNELS; k++)
        if (pgo_routine_uses(c->routine, (pgo_kernel)k) && own[k] != NULL) v.tuned = 1;
    const pgo_set *running = &held[v.choice.params_of], *mine = own[v.choice.params_of];
    v.source = mine != NULL && pgo_set_equal(running, mine) ? PGO_FROM_OWN
             : pgo_set_equal(running, &defaults[v.choice.params_of]) ? PGO_FROM_DEFAULTS
                                                                     : PGO_FROM_OTHER;
    v.untuned = v.tuned && v.source != PGO_FROM_OWN;
    return v;
}
