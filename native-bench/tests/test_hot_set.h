/* test_hot_set.h - tests of hm_hot_set (issue 33: the hot set by coverage, docs/OPTIMIZER.md),
 * registered by test_unit.c. */
#ifndef HM_TEST_HOT_SET_H
#define HM_TEST_HOT_SET_H

#include "hm_test.h"

/* The cases, in order; *n gets their number. vectors_dir: where hot-set.txt is. */
const hm_test_case *hm_t_hot_set_cases(size_t *n, const char *vectors_dir);

#endif
