/*
 * hmo_naming.h - how the OpenCL layer names a region (docs/OPENCL.md "What is recorded").
 *
 * HINTMAP_NAME, a kernel's function name (CL_KERNEL_FUNCTION_NAME) and optional parts:
 *   kernel              Xgemm                              (default)
 *   kernel+shape        Xgemm[1024x1024/16x16]             global / local work sizes of the enqueue;
 *                       sum[50000]                         no "/..." when the program let the
 *                                                          implementation choose the local size
 *   kernel+build        Xgemm#3f2a9c1e07b4                 a tag of the program the kernel was built from
 *   kernel+build+shape  Xgemm#3f2a9c1e07b4[1024x1024/16x16]
 * The build tag is '#' and 12 hex digits of hm64 over the program's source (CL_PROGRAM_SOURCE; its
 * IL when it has no source; nothing when it was built from a binary) and its build options
 * (CL_PROGRAM_BUILD_OPTIONS of its first device): one kernel compiled with other defines or options
 * gets a region of its own. The composed name goes through the rules every collector shares
 * (collect/hmc_name.h: UTF-8, the stored form of a long name). Pure: no OpenCL call.
 */
#ifndef HMO_NAMING_H
#define HMO_NAMING_H

#include <stddef.h>
#include <stdint.h>

#define HMO_NAME_SHAPE 1 /* append the work sizes */
#define HMO_NAME_BUILD 2 /* append the build tag */

/** The HMO_NAME_* bits of a HINTMAP_NAME value, or -1 for anything but the four forms above. */
int hmo_name_mode_parse(const char *text);
/** The HINTMAP_NAME form of mode bits ("kernel", "kernel+shape", ...). */
const char *hmo_name_mode_text(int mode);

/** Room for a shape suffix: "[" 3 sizes "/" 3 sizes "]" of 20 digits each. */
#define HMO_SHAPE_CAP 136

/**
 * The shape suffix of an enqueue of `dims` (1..3) dimensions: "[G/L]" with G and L the global and
 * local sizes joined by 'x' ("[1024x1024/16x16]"), "[G]" when local is NULL. Anything else (dims 0
 * or above 3, global NULL: refused by OpenCL before this) is "[?]".
 */
void hmo_shape_suffix(char out[HMO_SHAPE_CAP], unsigned dims, const size_t *global, const size_t *local);

/** Bytes of a build tag with its NUL: '#', 12 hex digits, NUL. */
#define HMO_BUILD_TAG_BYTES 14

/** The build tag of a program's code (source, or IL; NULL or 0 bytes: none) and build options (NULL: ""). */
void hmo_build_tag(char out[HMO_BUILD_TAG_BYTES], const void *code, size_t code_len, const char *options);

#endif /* HMO_NAMING_H */
