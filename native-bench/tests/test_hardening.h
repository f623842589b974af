/* test_hardening.h - tests of issue 7 (hostile and broken files, security of the shared file,
 * resource faults), registered by test_unit.c. */
#ifndef HM_TEST_HARDENING_H
#define HM_TEST_HARDENING_H

#include "hm_test.h"

/* The cases, in order; *n gets their number. */
const hm_test_case *hm_t_hardening_cases(size_t *n);

#endif
