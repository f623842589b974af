/*
 * hmo_queue_props.c - CL_QUEUE_PROFILING_ENABLE in a queue's properties (see hmo_queue_props.h).
 */
#include "hmo_queue_props.h"

int hmo_queue_props_profiled(const cl_queue_properties *in, cl_queue_properties *out, size_t out_cap, size_t *count) {
    size_t pairs = 0, at = (size_t)-1;
    for (; in != NULL && in[2 * pairs] != 0; pairs++)
        if (in[2 * pairs] == CL_QUEUE_PROPERTIES) at = pairs;
    size_t need = 2 * pairs + (at == (size_t)-1 ? 2 : 0) + 1;
    *count = need;
    if (out_cap < need) return -1;
    for (size_t i = 0; i < 2 * pairs; i++) out[i] = in[i];
    int added;
    if (at == (size_t)-1) {
        out[2 * pairs] = CL_QUEUE_PROPERTIES;
        out[2 * pairs + 1] = CL_QUEUE_PROFILING_ENABLE;
        added = 1;
    } else {
        added = (out[2 * at + 1] & CL_QUEUE_PROFILING_ENABLE) == 0;
        out[2 * at + 1] |= CL_QUEUE_PROFILING_ENABLE;
    }
    out[need - 1] = 0;
    return added;
}
