/*
 * test_choice.c - the CLBlast runtime's decisions without OpenCL: which kernel a call runs (CLBlast 1.5.3's
 * choice for each routine), with whose parameters, and the check that fails when a region the parameters file
 * tunes runs untuned parameters - the defect of the first loop, where GEMMs tuned for Xgemm ran XgemmDirect with
 * CLBlast's defaults. Also the parameters file's lines, good and bad. Run by `make test` (part of ./mvnw verify).
 */
#define _POSIX_C_SOURCE 200809L

#include "pgo_params.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, checks;

#define CHECK(cond, ...)                                                                                     \
    do {                                                                                                     \
        checks++;                                                                                            \
        if (!(cond)) {                                                                                       \
            failures++;                                                                                      \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                             \
            fprintf(stderr, __VA_ARGS__);                                                                    \
            fputc('\n', stderr);                                                                             \
        }                                                                                                    \
    } while (0)

/* A set from "NAME=VALUE ..." text. */
static pgo_set set_of(const char *text) {
    pgo_set s = {0};
    char buf[512];
    snprintf(buf, sizeof buf, "%s", text);
    for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(tok, '=');
        *eq = '\0';
        pgo_set_put(&s, tok, (size_t)strtoull(eq + 1, NULL, 10));
    }
    return s;
}

/* CLBlast 1.5.3's defaults on PoCL 3.1's CPU device (clblast-runtime --defaults). */
static void pocl_defaults(pgo_set d[PGO_KERNELS]) {
    d[PGO_XGEMM] = set_of("GEMMK=0 KREG=1 KWG=32 KWI=2 MDIMA=8 MDIMC=8 MWG=32 NDIMB=16 NDIMC=16 NWG=32 SA=1 SB=1 STRM=0 STRN=0 VWM=4 VWN=2");
    d[PGO_XGEMM_DIRECT] = set_of("KWID=2 MDIMAD=8 MDIMCD=8 NDIMBD=8 NDIMCD=8 PADA=1 PADB=1 VWMD=1 VWND=1 WGD=16");
    d[PGO_GEMM_ROUTINE] = set_of("XGEMM_MIN_INDIRECT_SIZE=896");
    d[PGO_XGEMV] = set_of("WGS1=64 WPT1=1");
    d[PGO_XGEMV_FAST] = set_of("VW2=1 WGS2=64 WPT2=1");
    d[PGO_XGEMV_FAST_ROT] = set_of("VW3=8 WGS3=32 WPT3=32");
    d[PGO_XAXPY] = set_of("VW=4 WGS=128 WPT=2");
}

static const char *TUNED_DIRECT = "KWID=16 MDIMAD=8 MDIMCD=16 NDIMBD=16 NDIMCD=8 PADA=0 PADB=1 VWMD=2 VWND=1 WGD=64";
static const char *TUNED_XGEMM = "GEMMK=0 KREG=1 KWG=32 KWI=2 MDIMA=8 MDIMC=8 MWG=64 NDIMB=32 NDIMC=32 NWG=64 SA=1 SB=1 STRM=0 STRN=0 VWM=4 VWN=1";

static void gemms_under_the_threshold_run_direct_and_the_routine_choice_moves_them(void) {
    pgo_set d[PGO_KERNELS], held[PGO_KERNELS];
    pocl_defaults(d);
    memcpy(held, d, sizeof held);
    pgo_call c512 = {PGO_GEMM, 512, 512, 512}, c1024 = {PGO_GEMM, 1024, 1024, 1024};
    pgo_choice ch = pgo_choose(&c512, held);
    CHECK(ch.direct == 1 && strcmp(ch.kernel, "XgemmDirect") == 0 && ch.params_of == PGO_XGEMM_DIRECT, "512^3 < 896^3");
    CHECK(ch.local_x == 8 && ch.local_y == 8, "local MDIMCD x NDIMCD: %zux%zu", ch.local_x, ch.local_y);
    ch = pgo_choose(&c1024, held);
    CHECK(ch.direct == 0 && strcmp(ch.kernel, "Xgemm") == 0 && ch.local_x == 8 && ch.local_y == 16, "1024^3 >= 896^3");
    pgo_call edge = {PGO_GEMM, 896, 896, 896};
    CHECK(pgo_choose(&edge, held).direct == 0, "m*n*k == threshold^3 is indirect (strictly below runs direct)");
    held[PGO_GEMM_ROUTINE] = set_of("XGEMM_MIN_INDIRECT_SIZE=1");
    CHECK(pgo_choose(&c512, held).direct == 0, "the indirect pin");
    held[PGO_GEMM_ROUTINE] = set_of("XGEMM_MIN_INDIRECT_SIZE=4097");
    pgo_call c4096 = {PGO_GEMM, 4096, 4096, 4096};
    CHECK(pgo_choose(&c4096, held).direct == 1, "the direct pin covers the bound, 4096^3");
}

static void gemv_and_axpy_take_the_fast_kernels_only_where_the_sizes_fit(void) {
    pgo_set d[PGO_KERNELS];
    pocl_defaults(d);
    pgo_call fit = {PGO_GEMV, 2048, 512, 0}, odd = {PGO_GEMV, 1000, 512, 0};
    pgo_choice ch = pgo_choose(&fit, d);
    CHECK(strcmp(ch.kernel, "XgemvFastRot") == 0 && ch.params_of == PGO_XGEMV_FAST_ROT && ch.local_x == 32,
          "row-major N: 2048 %% (32*32) == 0, 512 %% 32 == 0, 512 %% 8 == 0: %s", ch.kernel);
    ch = pgo_choose(&odd, d);
    CHECK(strcmp(ch.kernel, "Xgemv") == 0 && ch.params_of == PGO_XGEMV && ch.local_x == 64, "1000 rows: %s", ch.kernel);
    pgo_call axpy = {PGO_AXPY, 131072, 0, 0}, a8 = {PGO_AXPY, 8, 0, 0}, a7 = {PGO_AXPY, 7, 0, 0};
    CHECK(strcmp(pgo_choose(&axpy, d).kernel, "XaxpyFastest") == 0, "131072 %% 1024 == 0");
    CHECK(strcmp(pgo_choose(&a8, d).kernel, "XaxpyFaster") == 0, "8 %% 8 == 0, 8 %% 1024 != 0");
    CHECK(strcmp(pgo_choose(&a7, d).kernel, "Xaxpy") == 0 && pgo_choose(&a7, d).params_of == PGO_XAXPY, "7");
}

static void a_tuned_region_that_runs_untuned_parameters_fails_the_check(void) {
    pgo_set d[PGO_KERNELS], held[PGO_KERNELS];
    pocl_defaults(d);
    pgo_call gemm = {PGO_GEMM, 256, 512, 2048};
    const pgo_set *own[PGO_KERNELS] = {0};

    /* The first loop's defect: the optimizer tuned Xgemm for a shape that runs XgemmDirect. */
    pgo_set xgemm = set_of(TUNED_XGEMM);
    own[PGO_XGEMM] = &xgemm;
    memcpy(held, d, sizeof held);
    held[PGO_XGEMM] = xgemm; /* the runtime applied it, and CLBlast holds it... */
    pgo_verdict v = pgo_judge(&gemm, held, own, d);
    CHECK(v.tuned && v.untuned && v.source == PGO_FROM_DEFAULTS && strcmp(v.choice.kernel, "XgemmDirect") == 0,
          "...but 2.7e8 < 896^3 runs XgemmDirect with CLBlast's defaults: untuned=%d source=%s kernel=%s", v.untuned,
          PGO_SOURCE_NAMES[v.source], v.choice.kernel);

    /* Tuning what runs: XgemmDirect's own set (and the direct pin). */
    pgo_set direct = set_of(TUNED_DIRECT), pin = set_of("XGEMM_MIN_INDIRECT_SIZE=4097");
    memset(own, 0, sizeof own);
    own[PGO_XGEMM_DIRECT] = &direct;
    own[PGO_GEMM_ROUTINE] = &pin;
    memcpy(held, d, sizeof held);
    held[PGO_XGEMM_DIRECT] = direct;
    held[PGO_GEMM_ROUTINE] = pin;
    v = pgo_judge(&gemm, held, own, d);
    CHECK(v.tuned && !v.untuned && v.source == PGO_FROM_OWN && v.choice.local_x == 16 && v.choice.local_y == 8, "own direct");

    /* Xgemm tuned and pinned indirect: runs Xgemm with its set. */
    pgo_set indirect = set_of("XGEMM_MIN_INDIRECT_SIZE=1");
    memset(own, 0, sizeof own);
    own[PGO_XGEMM] = &xgemm;
    own[PGO_GEMM_ROUTINE] = &indirect;
    memcpy(held, d, sizeof held);
    held[PGO_XGEMM] = xgemm;
    held[PGO_GEMM_ROUTINE] = indirect;
    v = pgo_judge(&gemm, held, own, d);
    CHECK(!v.untuned && v.source == PGO_FROM_OWN && strcmp(v.choice.kernel, "Xgemm") == 0 && v.choice.local_y == 32,
          "own indirect");

    /* A set left from another region's call (the runtime failed to restore): "other", and untuned when tuned. */
    memset(own, 0, sizeof own);
    memcpy(held, d, sizeof held);
    held[PGO_XGEMM_DIRECT] = direct;
    v = pgo_judge(&gemm, held, own, d);
    CHECK(!v.tuned && !v.untuned && v.source == PGO_FROM_OTHER, "an untuned region with a stranger's set is reported");
    pgo_set mine = set_of("KWID=2 MDIMAD=8 MDIMCD=8 NDIMBD=8 NDIMCD=8 PADA=1 PADB=1 VWMD=2 VWND=2 WGD=16");
    own[PGO_XGEMM_DIRECT] = &mine;
    v = pgo_judge(&gemm, held, own, d);
    CHECK(v.untuned && v.source == PGO_FROM_OTHER, "a tuned region with a stranger's set fails");

    /* Untuned regions on the defaults pass. */
    memset(own, 0, sizeof own);
    v = pgo_judge(&gemm, d, own, d);
    CHECK(!v.tuned && !v.untuned && v.source == PGO_FROM_DEFAULTS, "defaults");
    /* A GEMV tuned for the kernel it does not run. */
    pgo_call gemv = {PGO_GEMV, 2048, 512, 0};
    pgo_set gemv1 = set_of("WGS1=256 WPT1=1");
    own[PGO_XGEMV] = &gemv1;
    memcpy(held, d, sizeof held);
    held[PGO_XGEMV] = gemv1;
    v = pgo_judge(&gemv, held, own, d);
    CHECK(v.untuned && strcmp(v.choice.kernel, "XgemvFastRot") == 0, "GEMV tuned for Xgemv only, runs XgemvFastRot");
}

static void sets_compare_by_content_and_format_sorted(void) {
    pgo_set a = set_of("B=2 A=1"), b = set_of("A=1 B=2"), c = set_of("A=1 B=3"), e = set_of("A=1");
    CHECK(pgo_set_equal(&a, &b) && !pgo_set_equal(&a, &c) && !pgo_set_equal(&a, &e) && !pgo_set_equal(&e, &a), "equal");
    char text[64];
    pgo_set_format(&a, text, sizeof text);
    CHECK(strcmp(text, "A=1 B=2") == 0, "%s", text);
    CHECK(pgo_set_get(&a, "C", 7) == 7, "absent");
}

static void the_parameters_file_keeps_good_lines_and_names_bad_ones(void) {
    const char *text = "# CLBlast parameters\n"
                       "clblast:Xgemm:f32:m=256,n=512,k=2048:NN\tGemmRoutine\tXGEMM_MIN_INDIRECT_SIZE=4097\n"
                       "clblast:Xgemm:f32:m=256,n=512,k=2048:NN\tXgemmDirect\tKWID=16 MDIMAD=8 MDIMCD=16 NDIMBD=16 NDIMCD=8 PADA=0 PADB=1 VWMD=2 VWND=1 WGD=64\r\n"
                       "clblast:Xgemv:f32:m=2048,n=512:N\tXgemvFastRot\tVW3=8 WGS3=64 WPT3=16\n"
                       "no tabs here\n"
                       "r\tXdot\tWGS=64\n"
                       "r\tXgemv\tWGS1=-1\n"
                       "r\tXgemv\tWGS1=1x\n"
                       "r\tXgemv\tWGS1\n"
                       "r\tXgemv\t\n"
                       "r\tXgemv\tWGS1=1 WGS1=2\n"
                       "clblast:Xgemv:f32:m=2048,n=512:N\tXgemvFastRot\tVW3=1 WGS3=64 WPT3=16\n";
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    char warnings[4096] = "";
    FILE *warn = fmemopen(warnings, sizeof warnings, "w");
    pgo_params p = {0};
    CHECK(pgo_params_read(f, "t.params", &p, warn) == 0, "read");
    fclose(f);
    fclose(warn);
    CHECK(p.count == 3, "three good lines: %zu", p.count);
    const pgo_set *direct = pgo_params_find(&p, "clblast:Xgemm:f32:m=256,n=512,k=2048:NN", PGO_XGEMM_DIRECT);
    CHECK(direct != NULL && pgo_set_get(direct, "WGD", 0) == 64 && direct->count == 10, "the direct set (CRLF line)");
    CHECK(pgo_params_find(&p, "clblast:Xgemm:f32:m=256,n=512,k=2048:NN", PGO_XGEMM) == NULL, "no Xgemm entry");
    CHECK(pgo_set_get(pgo_params_find(&p, "clblast:Xgemv:f32:m=2048,n=512:N", PGO_XGEMV_FAST_ROT), "VW3", 0) == 8,
          "the first line of a region and kernel counts");
    const char *want[] = {
        "t.params:5 skipped: not REGION<TAB>KERNEL<TAB>PARAMETERS",
        "t.params:6 skipped: kernel 'Xdot' is not one this runtime sets",
        "t.params:7 skipped: the value of WGS1 is not a non-negative integer",
        "t.params:8 skipped: the value of WGS1 is not a non-negative integer",
        "t.params:9 skipped: 'WGS1' is not NAME=VALUE",
        "t.params:10 skipped: no parameters",
        "t.params:11 skipped: WGS1 given twice",
        "t.params:12 skipped: a second line for this region and XgemvFastRot",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        CHECK(strstr(warnings, want[i]) != NULL, "warning '%s' in:\n%s", want[i], warnings);
    pgo_params_free(&p);
}

int main(void) {
    gemms_under_the_threshold_run_direct_and_the_routine_choice_moves_them();
    gemv_and_axpy_take_the_fast_kernels_only_where_the_sizes_fit();
    a_tuned_region_that_runs_untuned_parameters_fails_the_check();
    sets_compare_by_content_and_format_sorted();
    the_parameters_file_keeps_good_lines_and_names_bad_ones();
    printf("%s: %d checks, %d failures\n", failures ? "FAILED" : "ok", checks, failures);
    return failures != 0;
}
