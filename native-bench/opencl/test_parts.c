/*
 * test_parts - the OpenCL layer's pure parts, without any OpenCL runtime: its tables against a
 * plain model (insertions, removals that shift entries back, growth), the bytes of a kernel's
 * arguments, the names (HINTMAP_NAME forms, shape suffixes, build tags, the shared stored-form
 * rule through hmc_compose_name), and CL_QUEUE_PROFILING_ENABLE in a queue's properties.
 * Run under ASan+UBSan by `make opencl-test`.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hmc_check.h"
#include "hmc_name.h"
#include "hmo_kernel_args.h"
#include "hmo_map.h"
#include "hmo_naming.h"
#include "hmo_queue_props.h"

/* Handles as drivers hand them out: aligned addresses, many sharing their low bits. */
static const void *handle(size_t i) { return (const void *)(uintptr_t)(0x7f0000001000u + 64 * i); }

static void test_ptrmap_against_a_model(void) {
    enum { N = 5000 };
    static uint64_t model[N]; /* 0: absent */
    hmo_ptrmap m = {0};
    uint64_t seed = 42;
    for (int step = 0; step < 200000; step++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        size_t i = (size_t)(seed >> 33) % N;
        int op = (int)(seed >> 20) % 3;
        uint64_t v = 0;
        if (op == 0) {
            CHECK(hmo_ptrmap_put(&m, handle(i), step + 1) == 0, "put %zu", i);
            model[i] = (uint64_t)step + 1;
        } else if (op == 1) {
            int had = hmo_ptrmap_del(&m, handle(i), &v);
            CHECK(had == (model[i] != 0) && (!had || v == model[i]), "del %zu: %d %" PRIu64 " (model %" PRIu64 ")", i, had, v,
                  model[i]);
            model[i] = 0;
        } else {
            int has = hmo_ptrmap_get(&m, handle(i), &v);
            CHECK(has == (model[i] != 0) && (!has || v == model[i]), "get %zu: %d %" PRIu64 " (model %" PRIu64 ")", i, has, v,
                  model[i]);
        }
        if (failures > 20) break;
    }
    size_t live = 0;
    for (size_t i = 0; i < N; i++) {
        live += model[i] != 0;
        uint64_t v = 0;
        CHECK(hmo_ptrmap_get(&m, handle(i), &v) == (model[i] != 0) && (model[i] == 0 || v == model[i]), "final %zu", i);
    }
    CHECK(m.used == live, "used %zu, live %zu", m.used, live);
    CHECK(hmo_ptrmap_put(&m, NULL, 1) == -1 && hmo_ptrmap_get(&m, NULL, NULL) == 0, "NULL is no handle");
    hmo_ptrmap_free(&m);
    CHECK(hmo_ptrmap_get(&m, handle(1), NULL) == 0 && hmo_ptrmap_del(&m, handle(1), NULL) == 0, "empty after free");
}

static void count_value(void *value, void *ctx) { *(size_t *)ctx += (size_t)(uintptr_t)value; }

static void test_blobmap(void) {
    hmo_blobmap m = {0};
    char key[64];
    for (uintptr_t i = 1; i <= 3000; i++) {
        int len = snprintf(key, sizeof key, "XgemmDirect%" PRIuPTR, i);
        CHECK(hmo_blobmap_put(&m, key, (size_t)len, (void *)i) == 0, "put %s", key);
    }
    CHECK(hmo_blobmap_put(&m, "XgemmDirect7", 12, (void *)7) == -1, "a key is added once");
    CHECK(hmo_blobmap_get(&m, "XgemmDirect7", 12) == (void *)7 && hmo_blobmap_get(&m, "XgemmDirect", 11) == NULL &&
              hmo_blobmap_get(&m, "XgemmDirect70000", 16) == NULL,
          "lookups by the whole key");
    size_t sum = 0;
    hmo_blobmap_each(&m, count_value, &sum);
    CHECK(sum == 3000u * 3001u / 2 && m.used == 3000, "each visits every value once: %zu", sum);
    /* keys are bytes: a NUL inside counts */
    CHECK(hmo_blobmap_put(&m, "a\0b", 3, (void *)1) == 0 && hmo_blobmap_get(&m, "a\0c", 3) == NULL &&
              hmo_blobmap_get(&m, "a\0b", 3) == (void *)1,
          "binary keys");
    hmo_blobmap_free(&m);
    CHECK(hmo_blobmap_get(&m, "XgemmDirect7", 12) == NULL, "empty after free");
}

static void test_kernel_args(void) {
    hmo_kernel_args a = {0};
    int x, y, c; /* three buffers' handles */
    CHECK(hmo_kernel_args_bytes(&a) == 0, "no argument: 0 bytes");
    hmo_kernel_args_set(&a, 0, NULL, 0);   /* int n */
    hmo_kernel_args_set(&a, 2, &x, 4096);  /* argument 1 not set yet */
    hmo_kernel_args_set(&a, 3, &y, 8192);
    CHECK(a.n == 4 && a.v[1].mem == NULL && hmo_kernel_args_bytes(&a) == 12288, "x + y: %" PRIu64, hmo_kernel_args_bytes(&a));
    hmo_kernel_args_set(&a, 4, &x, 4096); /* x again (in-place): once */
    CHECK(hmo_kernel_args_bytes(&a) == 12288, "a buffer in two arguments counts once: %" PRIu64, hmo_kernel_args_bytes(&a));
    hmo_kernel_args_set(&a, 2, &c, 100); /* x replaced in argument 2, still in argument 4 */
    CHECK(hmo_kernel_args_bytes(&a) == 100 + 8192 + 4096, "after a change: %" PRIu64, hmo_kernel_args_bytes(&a));
    hmo_kernel_args_set(&a, 4, NULL, 0); /* argument 4 now a scalar */
    CHECK(hmo_kernel_args_bytes(&a) == 100 + 8192, "a scalar replaces a buffer: %" PRIu64, hmo_kernel_args_bytes(&a));
    hmo_kernel_args_set(&a, 3, &y, (uint64_t)INT64_MAX);
    CHECK(hmo_kernel_args_bytes(&a) == (uint64_t)INT64_MAX, "the sum saturates at 2^63-1");
    CHECK(hmo_kernel_args_set(&a, HMO_MAX_ARGS, &x, 1) == -1 && a.n == 5, "an index past the bound is refused");
    hmo_kernel_args clone = {0};
    CHECK(hmo_kernel_args_copy(&clone, &a) == 0 && clone.n == 5 && hmo_kernel_args_bytes(&clone) == (uint64_t)INT64_MAX,
          "a clone has the same arguments");
    hmo_kernel_args_set(&clone, 3, NULL, 0);
    CHECK(hmo_kernel_args_bytes(&a) == (uint64_t)INT64_MAX && hmo_kernel_args_bytes(&clone) == 100,
          "the clone's arguments are its own");
    hmo_kernel_args_free(&a);
    hmo_kernel_args_free(&clone);
    CHECK(a.n == 0 && hmo_kernel_args_bytes(&a) == 0, "freed: empty");
}

static void test_naming(void) {
    CHECK(hmo_name_mode_parse("kernel") == 0 && hmo_name_mode_parse("kernel+shape") == HMO_NAME_SHAPE &&
              hmo_name_mode_parse("kernel+build") == HMO_NAME_BUILD &&
              hmo_name_mode_parse("kernel+build+shape") == (HMO_NAME_BUILD | HMO_NAME_SHAPE),
          "the four forms");
    CHECK(hmo_name_mode_parse("kernel+shape+build") == -1 && hmo_name_mode_parse("demangled+grid") == -1 &&
              hmo_name_mode_parse("Kernel") == -1 && hmo_name_mode_parse("") == -1 && hmo_name_mode_parse(NULL) == -1,
          "anything else is refused");
    for (int m = 0; m < 4; m++) CHECK(hmo_name_mode_parse(hmo_name_mode_text(m)) == m, "text of mode %d", m);

    char s[HMO_SHAPE_CAP];
    size_t g1[] = {1048576}, l1[] = {64}, g2[] = {1024, 768}, l2[] = {16, 16}, g3[] = {8, 4, 2};
    hmo_shape_suffix(s, 1, g1, l1);
    CHECK(strcmp(s, "[1048576/64]") == 0, "1-D: %s", s);
    hmo_shape_suffix(s, 2, g2, l2);
    CHECK(strcmp(s, "[1024x768/16x16]") == 0, "2-D: %s", s);
    hmo_shape_suffix(s, 3, g3, NULL);
    CHECK(strcmp(s, "[8x4x2]") == 0, "local chosen by the implementation: %s", s);
    size_t big[] = {SIZE_MAX, SIZE_MAX, SIZE_MAX};
    hmo_shape_suffix(s, 3, big, big);
    CHECK(strlen(s) == 2 + 3 * 20 + 2 + 1 + 3 * 20 + 2 && s[strlen(s) - 1] == ']', "the largest sizes fit: %s", s);
    hmo_shape_suffix(s, 0, g1, l1);
    CHECK(strcmp(s, "[?]") == 0, "0 dimensions: %s", s);
    hmo_shape_suffix(s, 4, big, big);
    CHECK(strcmp(s, "[?]") == 0, "4 dimensions: %s", s);

    const char *src = "__kernel void Xaxpy(const int n, const float alpha, const __global float* xgm, __global float* ygm) {}";
    char t1[HMO_BUILD_TAG_BYTES], t2[HMO_BUILD_TAG_BYTES], t3[HMO_BUILD_TAG_BYTES], t4[HMO_BUILD_TAG_BYTES], t5[HMO_BUILD_TAG_BYTES];
    hmo_build_tag(t1, src, strlen(src), "-DWGS=64");
    hmo_build_tag(t2, src, strlen(src), "-DWGS=64");
    hmo_build_tag(t3, src, strlen(src), "-DWGS=128");
    hmo_build_tag(t4, src, strlen(src) - 1, "-DWGS=64");
    hmo_build_tag(t5, NULL, 0, NULL);
    CHECK(strcmp(t1, t2) == 0, "one build, one tag");
    CHECK(strcmp(t1, t3) != 0 && strcmp(t1, t4) != 0, "other options or other source: another tag (%s %s %s)", t1, t3, t4);
    CHECK(strlen(t1) == 13 && t1[0] == '#' && strspn(t1 + 1, "0123456789abcdef") == 12, "'#' and 12 hex digits: %s", t1);
    CHECK(strlen(t5) == 13, "no code, no options: still a tag (%s)", t5);

    /* The composed name goes through the rules every collector shares (collect/hmc_name.h). */
    char name[HMC_NAME_CAP];
    size_t len = 0;
    int truncated = -1;
    hmo_shape_suffix(s, 2, g2, l2);
    CHECK(hmc_compose_name("XgemmDirectTN#3f2a9c1e07b4", s, 256, name, &len, &truncated) == 0 && !truncated &&
              len == strlen("XgemmDirectTN#3f2a9c1e07b4[1024x768/16x16]") &&
              memcmp(name, "XgemmDirectTN#3f2a9c1e07b4[1024x768/16x16]", len) == 0,
          "kernel, tag and shape: '%.*s'", (int)len, name);
    const char *longk = "xgemm_batched_strided_direct_kernel_generated_tn_float32_wgd32_mdimcd8_ndimcd8";
    char whole[256], want[64];
    size_t want_len = 0;
    snprintf(whole, sizeof whole, "%s%s", longk, s);
    CHECK(hmc_compose_name(longk, s, 64, name, &len, &truncated) == 0 && truncated &&
              hm_name_canonical(whole, strlen(whole), 64, want, sizeof want, &want_len) == HM_OK && len == want_len &&
              memcmp(name, want, len) == 0,
          "a long name: the stored form of the whole composed name '%.*s'", (int)len, name);
    CHECK(hmc_compose_name("", "", 64, name, &len, &truncated) == 0 && len == 16 && memcmp(name, "<unnamed kernel>", 16) == 0,
          "no name: '%.*s'", (int)len, name);
    CHECK(hmc_compose_name("k\xff", "", 64, name, &len, &truncated) == 0 && len == 2 && memcmp(name, "k?", 2) == 0,
          "ill-formed UTF-8 becomes '?'");
    char too_long[300];
    memset(too_long, 'x', 299);
    too_long[299] = '\0';
    CHECK(hmc_compose_name("k", too_long, 64, name, &len, &truncated) == HMC_EINVAL, "a suffix over 255 bytes is refused");
    CHECK(hmc_compose_name("k", "", 32, name, &len, &truncated) == HMC_EINVAL, "a limit under 33 is refused");
}

static void test_queue_props(void) {
    cl_queue_properties out[8];
    size_t n = 0;
    CHECK(hmo_queue_props_profiled(NULL, out, 8, &n) == 1 && n == 3 && out[0] == CL_QUEUE_PROPERTIES &&
              out[1] == CL_QUEUE_PROFILING_ENABLE && out[2] == 0,
          "none: the pair is added");
    cl_queue_properties size_only[] = {CL_QUEUE_SIZE, 4096, 0};
    CHECK(hmo_queue_props_profiled(size_only, out, 8, &n) == 1 && n == 5 && out[0] == CL_QUEUE_SIZE && out[1] == 4096 &&
              out[2] == CL_QUEUE_PROPERTIES && out[3] == CL_QUEUE_PROFILING_ENABLE && out[4] == 0,
          "other properties kept, the pair added at the end");
    cl_queue_properties ooo[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, CL_QUEUE_SIZE, 2, 0};
    CHECK(hmo_queue_props_profiled(ooo, out, 8, &n) == 1 && n == 5 &&
              out[1] == (CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE) && out[2] == CL_QUEUE_SIZE &&
              out[3] == 2 && out[4] == 0,
          "the bit added to the program's own value");
    cl_queue_properties asked[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
    CHECK(hmo_queue_props_profiled(asked, out, 8, &n) == 0 && n == 3 && out[1] == CL_QUEUE_PROFILING_ENABLE,
          "asked already: a copy, 0");
    CHECK(hmo_queue_props_profiled(size_only, out, 4, &n) == -1 && n == 5, "too little room: -1 and the room needed");
}

int main(void) {
    test_ptrmap_against_a_model();
    test_blobmap();
    test_kernel_args();
    test_naming();
    test_queue_props();
    printf("test_opencl_parts: %d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
