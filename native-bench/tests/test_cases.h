/* test_cases.h - the subjects of the unit tests, one file each (tests/test_<subject>.c, as the Java
 * tests are split by subject), gathered by the runner, test_unit.c. Each returns its cases in order
 * and sets *n to their number. */
#ifndef HM_TEST_CASES_H
#define HM_TEST_CASES_H

#include "hm_test.h"

const hm_test_case *hm_t_format_cases(size_t *n);
const hm_test_case *hm_t_names_cases(size_t *n);
const hm_test_case *hm_t_records_cases(size_t *n);
const hm_test_case *hm_t_eviction_cases(size_t *n);
const hm_test_case *hm_t_recovery_cases(size_t *n);
const hm_test_case *hm_t_locks_cases(size_t *n);
const hm_test_case *hm_t_opener_cases(size_t *n);
const hm_test_case *hm_t_security_cases(size_t *n);
const hm_test_case *hm_t_resource_faults_cases(size_t *n);
const hm_test_case *hm_t_file_change_cases(size_t *n);
const hm_test_case *hm_t_damaged_words_cases(size_t *n);
const hm_test_case *hm_t_concurrency_cases(size_t *n);
const hm_test_case *hm_t_fault_guard_cases(size_t *n);
/* hm_hot_set (the hot set by coverage, docs/GUIDE.md); vectors_dir: where hot-set.txt is. */
const hm_test_case *hm_t_hot_set_cases(size_t *n, const char *vectors_dir);
/* The rules each library writes once (UTF-8 validity, FORMAT §2's ranges); vectors_dir: where utf8.txt and limits.txt are. */
const hm_test_case *hm_t_rules_cases(size_t *n, const char *vectors_dir);
/* The seed contract: the reference design's questions on vectors/seed.txt (hm_t_vectors), and one thread
 * recording while another asks. */
const hm_test_case *hm_t_seed_cases(size_t *n);

#endif
