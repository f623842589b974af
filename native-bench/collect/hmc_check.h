/* The one assertion of the collectors' tests (CUPTI collector, OpenCL layer): a failed check prints
 * where and why and is counted, and the test goes on (each test file prints its totals and exits non-zero on any failure). */
#ifndef HMC_CHECK_H
#define HMC_CHECK_H

#include <stdio.h>

static int failures, checks;

#define CHECK(cond, ...)                                                    \
    do {                                                                    \
        checks++;                                                           \
        if (!(cond)) {                                                      \
            failures++;                                                     \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                   \
            fputc('\n', stderr);                                            \
        }                                                                   \
    } while (0)

#endif
