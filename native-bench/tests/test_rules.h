/* test_rules.h - the format's rules that each library writes once (UTF-8 validity, the parameter
 * limits of FORMAT §2), against the shared vectors Java checks too; registered by test_unit.c. */
#ifndef HM_TEST_RULES_H
#define HM_TEST_RULES_H

#include "hm_test.h"

/* The cases, in order; *n gets their number. vectors_dir: where utf8.txt and limits.txt are. */
const hm_test_case *hm_t_rules_cases(size_t *n, const char *vectors_dir);

#endif
