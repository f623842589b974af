/*
 * hmc_translate.c - CUPTI activity records to hintmap samples (see hmc_translate.h).
 * Pure: no global state, no CUPTI call; the only allocations are the demangler's and the composing
 * of the name (collect/hmc_name.c, the rules every collector shares).
 */
#include "hmc_translate.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HMC_INT64_MAX ((uint64_t)INT64_MAX)

int hmc_name_mode_parse(const char *text) {
    if (text == NULL) return -1;
    if (strcmp(text, "mangled") == 0) return HMC_NAME_MANGLED;
    if (strcmp(text, "demangled") == 0) return HMC_NAME_DEMANGLED;
    if (strcmp(text, "demangled+grid") == 0) return HMC_NAME_DEMANGLED_GRID;
    return -1;
}

int hmc_kernel_sample(const hmc_kernel_record *k, hmc_sample *out) {
    if (k == NULL || out == NULL) return HMC_EINVAL;
    out->bytes = 0;
    return hmc_duration_ns(k->start, k->end, &out->kernel_ns);
}

int hmc_memcpy_sample(const hmc_memcpy_record *m, hmc_sample *out) {
    if (m == NULL || out == NULL) return HMC_EINVAL;
    out->bytes = m->bytes > HMC_INT64_MAX ? HMC_INT64_MAX : m->bytes;
    return hmc_duration_ns(m->start, m->end, &out->kernel_ns);
}

int hmc_memset_sample(const hmc_memset_record *m, hmc_sample *out) {
    if (m == NULL || out == NULL) return HMC_EINVAL;
    out->bytes = m->bytes > HMC_INT64_MAX ? HMC_INT64_MAX : m->bytes;
    return hmc_duration_ns(m->start, m->end, &out->kernel_ns);
}

const char *hmc_memcpy_region(const hmc_memcpy_record *m) {
    switch (m == NULL ? -1 : (int)m->copyKind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "[memcpy HtoD]";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "[memcpy DtoH]";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return "[memcpy HtoA]";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return "[memcpy AtoH]";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA: return "[memcpy AtoA]";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD: return "[memcpy AtoD]";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA: return "[memcpy DtoA]";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "[memcpy DtoD]";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "[memcpy HtoH]";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "[memcpy PtoP]";
    default: return "[memcpy other]";
    }
}

static void format_dim(char *out, size_t len, const int32_t d[3]) {
    if (d[1] == 1 && d[2] == 1) snprintf(out, len, "%" PRId32, d[0]);
    else snprintf(out, len, "%" PRId32 "x%" PRId32 "x%" PRId32, d[0], d[1], d[2]);
}

int hmc_region_name(const char *kernel_name, const int32_t grid[3], const int32_t block[3], const hmc_naming *naming,
                    char name[HMC_NAME_CAP], size_t *name_len, int *truncated) {
    if (naming == NULL) return HMC_EINVAL;
    int with_grid = naming->mode == HMC_NAME_DEMANGLED_GRID;
    if (with_grid && (grid == NULL || block == NULL)) return HMC_EINVAL;
    char *demangled = NULL;
    const char *base = kernel_name;
    if (naming->mode != HMC_NAME_MANGLED && naming->demangle != NULL && kernel_name != NULL && kernel_name[0] != '\0') {
        demangled = naming->demangle(kernel_name, naming->demangle_ctx);
        if (demangled != NULL && demangled[0] != '\0') base = demangled;
    }
    char suffix[96] = "";
    if (with_grid) {
        char g[40], b[40];
        format_dim(g, sizeof g, grid);
        format_dim(b, sizeof b, block);
        snprintf(suffix, sizeof suffix, "<<<%s,%s>>>", g, b);
    }
    int rc = hmc_compose_name(base, suffix, naming->max_name_bytes, name, name_len, truncated);
    free(demangled);
    return rc;
}

int hmc_kernel_region_name(const hmc_kernel_record *k, const hmc_naming *naming, char name[HMC_NAME_CAP],
                           size_t *name_len, int *truncated) {
    if (k == NULL) return HMC_EINVAL;
    int32_t grid[3] = {k->gridX, k->gridY, k->gridZ};
    int32_t block[3] = {k->blockX, k->blockY, k->blockZ};
    return hmc_region_name(k->name, grid, block, naming, name, name_len, truncated);
}
