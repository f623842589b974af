/*
 * hmo_naming.c - the OpenCL layer's region names (see hmo_naming.h).
 */
#include "hmo_naming.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hintmap.h"

static const char *const forms[4] = {"kernel", "kernel+shape", "kernel+build", "kernel+build+shape"};

int hmo_name_mode_parse(const char *text) {
    for (int mode = 0; text != NULL && mode < 4; mode++)
        if (strcmp(text, forms[mode]) == 0) return mode;
    return -1;
}

const char *hmo_name_mode_text(int mode) { return forms[mode & (HMO_NAME_SHAPE | HMO_NAME_BUILD)]; }

static size_t put_sizes(char *out, size_t cap, unsigned dims, const size_t *sizes) {
    size_t at = 0;
    for (unsigned d = 0; d < dims && at < cap; d++)
        at += (size_t)snprintf(out + at, cap - at, d ? "x%zu" : "%zu", sizes[d]);
    return at < cap ? at : cap - 1;
}

void hmo_shape_suffix(char out[HMO_SHAPE_CAP], unsigned dims, const size_t *global, const size_t *local) {
    if (dims < 1 || dims > 3 || global == NULL) {
        memcpy(out, "[?]", 4);
        return;
    }
    size_t at = 0;
    out[at++] = '[';
    at += put_sizes(out + at, HMO_SHAPE_CAP - at, dims, global);
    if (local != NULL) {
        out[at++] = '/';
        at += put_sizes(out + at, HMO_SHAPE_CAP - at, dims, local);
    }
    out[at++] = ']';
    out[at] = '\0';
}

void hmo_build_tag(char out[HMO_BUILD_TAG_BYTES], const void *code, size_t code_len, const char *options) {
    /* hm64 of the two hm64s: no copy of a source that may be megabytes long. */
    const char *o = options != NULL ? options : "";
    uint64_t h[2] = {hm_hash64(code != NULL ? code : "", code != NULL ? code_len : 0), hm_hash64(o, strlen(o))};
    snprintf(out, HMO_BUILD_TAG_BYTES, "#%012" PRIx64, (uint64_t)(hm_hash64(h, sizeof h) & 0xffffffffffffu));
}
