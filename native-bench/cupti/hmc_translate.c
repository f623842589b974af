/*
 * hmc_translate.c - CUPTI activity records to hintmap samples (see hmc_translate.h).
 * Pure: no global state, no CUPTI call; the only allocation is the demangler's.
 */
#include "hmc_translate.h"
#include "hm_utf8.h"

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

int hmc_duration_ns(uint64_t start, uint64_t end, uint64_t *ns) {
    *ns = 0;
    if (start == (uint64_t)CUPTI_TIMESTAMP_UNKNOWN || end == (uint64_t)CUPTI_TIMESTAMP_UNKNOWN) return HMC_SKIP_UNTIMED;
    if (end < start) return HMC_SKIP_NEGATIVE;
    uint64_t d = end - start; /* no overflow: end >= start */
    *ns = d > HMC_INT64_MAX ? HMC_INT64_MAX : d;
    return HMC_SAMPLE;
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

/* Appends src (sanitised: each maximal ill-formed subpart becomes one '?', as a reader shows one U+FFFD
 * for it, FORMAT §9.1) to buf at *len, at most cap bytes in all; returns 0, or -1 when it did not fit. */
static int append_utf8(char *buf, size_t *len, size_t cap, const char *src) {
    const unsigned char *s = (const unsigned char *)src;
    size_t n = strlen(src);
    for (size_t i = 0; i < n;) {
        size_t k = hmi_utf8_char(s + i, n - i); /* the library's own rule (hm_utf8.h) */
        size_t take = k ? k : 1;
        if (*len + take > cap) return -1;
        if (k) memcpy(buf + *len, s + i, k);
        else buf[*len] = '?';
        *len += take;
        i += k ? k : hmi_utf8_malformed(s + i, n - i);
    }
    return 0;
}

static void format_dim(char *out, size_t len, const int32_t d[3]) {
    if (d[1] == 1 && d[2] == 1) snprintf(out, len, "%" PRId32, d[0]);
    else snprintf(out, len, "%" PRId32 "x%" PRId32 "x%" PRId32, d[0], d[1], d[2]);
}

int hmc_region_name(const char *kernel_name, const int32_t grid[3], const int32_t block[3], const hmc_naming *naming,
                    char name[HMC_NAME_CAP], size_t *name_len, int *truncated) {
    if (naming == NULL || name == NULL || name_len == NULL || truncated == NULL) return HMC_EINVAL;
    uint32_t limit = naming->max_name_bytes;
    if (limit < HM_MIN_NAME_BYTES || limit > HMC_NAME_CAP) return HMC_EINVAL;
    int with_grid = naming->mode == HMC_NAME_DEMANGLED_GRID;
    if (with_grid && (grid == NULL || block == NULL)) return HMC_EINVAL;
    *truncated = 0;

    const char *base = (kernel_name != NULL && kernel_name[0] != '\0') ? kernel_name : "<unnamed kernel>";
    char *demangled = NULL;
    if (naming->mode != HMC_NAME_MANGLED && naming->demangle != NULL && base == kernel_name) {
        demangled = naming->demangle(kernel_name, naming->demangle_ctx);
        if (demangled != NULL && demangled[0] != '\0') base = demangled;
    }
    /* The composed name: the kernel part (sanitised), then the launch shape. A very long kernel
       part (> 64 KiB) is cut to that before composing; the hash still tells such names apart
       unless they share those 64 KiB. */
    enum { FULL_CAP = 65536 };
    char suffix[96] = "";
    if (with_grid) {
        char g[40], b[40];
        format_dim(g, sizeof g, grid);
        format_dim(b, sizeof b, block);
        snprintf(suffix, sizeof suffix, "<<<%s,%s>>>", g, b);
    }
    size_t suffix_len = strlen(suffix);
    char *full = malloc(FULL_CAP + sizeof suffix);
    if (full == NULL) {
        /* No memory for the long form: fall back to what fits in the caller's buffer. */
        size_t len = 0;
        (void)append_utf8(name, &len, limit, "<name: out of memory>");
        *name_len = len ? len : 1;
        if (!len) name[0] = '?';
        free(demangled);
        return 0;
    }
    size_t base_len = 0;
    (void)append_utf8(full, &base_len, FULL_CAP, base); /* stops at a whole character when full */
    free(demangled);
    memcpy(full + base_len, suffix, suffix_len);
    size_t full_len = base_len + suffix_len;

    /* Over the limit: the format's stored form (FORMAT §1.1), the library's own rule, so that the
       optimizer finds the kernel by the name it knows; the composed name is valid UTF-8 (sanitised). */
    *truncated = full_len > limit;
    if (hm_name_canonical(full, full_len, limit, name, HMC_NAME_CAP, name_len) != HM_OK) {
        memcpy(name, "?", 1); /* cannot happen: the name is non-empty valid UTF-8 and the limit in range */
        *name_len = 1;
    }
    free(full);
    return 0;
}

int hmc_kernel_region_name(const hmc_kernel_record *k, const hmc_naming *naming, char name[HMC_NAME_CAP],
                           size_t *name_len, int *truncated) {
    if (k == NULL) return HMC_EINVAL;
    int32_t grid[3] = {k->gridX, k->gridY, k->gridZ};
    int32_t block[3] = {k->blockX, k->blockY, k->blockZ};
    return hmc_region_name(k->name, grid, block, naming, name, name_len, truncated);
}
