/*
 * hmo_queue_props.h - the OpenCL layer turns on CL_QUEUE_PROFILING_ENABLE in the properties a
 * program creates a command queue with (kernel ns are END - START of the command's profiling
 * info, which only a profiling queue gives). Pure: no OpenCL call.
 */
#ifndef HMO_QUEUE_PROPS_H
#define HMO_QUEUE_PROPS_H

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stddef.h>

/**
 * The property list `in` (0-terminated key/value pairs, or NULL: none) with CL_QUEUE_PROFILING_ENABLE
 * set in its CL_QUEUE_PROPERTIES value (the pair added at the end when absent), written to
 * out[0..out_cap) with its terminating 0; *count gets the entries it needs (terminator included).
 * Returns 1 when the program had not asked for profiling (out differs), 0 when it had (out is a
 * copy), -1 when out_cap is too small (nothing written but *count).
 */
int hmo_queue_props_profiled(const cl_queue_properties *in, cl_queue_properties *out, size_t out_cap, size_t *count);

#endif /* HMO_QUEUE_PROPS_H */
