/*
 * hmc_name.c - region names and durations of every collector (see hmc_name.h).
 * Pure: no global state; the only allocation is the composing buffer.
 */
#include "hmc_name.h"
#include "hm_utf8.h"

#include <stdlib.h>
#include <string.h>

#define HMC_INT64_MAX ((uint64_t)INT64_MAX)
#define HMC_SUFFIX_MAX 255

int hmc_duration_ns(uint64_t start, uint64_t end, uint64_t *ns) {
    *ns = 0;
    if (start == 0 || end == 0) return HMC_SKIP_UNTIMED;
    if (end < start) return HMC_SKIP_NEGATIVE;
    uint64_t d = end - start; /* no overflow: end >= start */
    *ns = d > HMC_INT64_MAX ? HMC_INT64_MAX : d;
    return HMC_SAMPLE;
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

int hmc_compose_name(const char *kernel, const char *suffix, uint32_t max_name_bytes, char name[HMC_NAME_CAP],
                     size_t *name_len, int *truncated) {
    if (name == NULL || name_len == NULL || truncated == NULL) return HMC_EINVAL;
    if (max_name_bytes < HM_MIN_NAME_BYTES || max_name_bytes > HMC_NAME_CAP) return HMC_EINVAL;
    if (suffix == NULL) suffix = "";
    size_t suffix_len = strlen(suffix);
    if (suffix_len > HMC_SUFFIX_MAX) return HMC_EINVAL;
    *truncated = 0;
    const char *base = (kernel != NULL && kernel[0] != '\0') ? kernel : "<unnamed kernel>";

    enum { FULL_CAP = 65536 };
    char *full = malloc(FULL_CAP + HMC_SUFFIX_MAX);
    if (full == NULL) {
        /* No memory for the long form: fall back to what fits in the caller's buffer. */
        size_t len = 0;
        (void)append_utf8(name, &len, max_name_bytes, "<name: out of memory>");
        *name_len = len;
        return 0;
    }
    size_t base_len = 0;
    (void)append_utf8(full, &base_len, FULL_CAP, base); /* stops at a whole character when full */
    memcpy(full + base_len, suffix, suffix_len);
    size_t full_len = base_len + suffix_len;

    /* Over the limit: the format's stored form (FORMAT §1.1), the library's own rule, so that the
       optimizer finds the kernel by the name it knows; the composed name is valid UTF-8 (sanitised). */
    *truncated = full_len > max_name_bytes;
    if (hm_name_canonical(full, full_len, max_name_bytes, name, HMC_NAME_CAP, name_len) != HM_OK) {
        memcpy(name, "?", 1); /* cannot happen: the name is non-empty valid UTF-8 and the limit in range */
        *name_len = 1;
    }
    free(full);
    return 0;
}
