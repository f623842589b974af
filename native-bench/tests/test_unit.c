/*
 * test_unit.c - the runner of the unit tests of libhintmap (run under -fsanitize=address,undefined
 * as build/test_unit_asan). The tests themselves are in one file per subject, tests/test_<subject>.c
 * (test_cases.h lists them); this file only gathers their cases and runs them.
 *
 * Usage: test_unit [VECTORS_DIR [FILTER]]
 * VECTORS_DIR defaults to HM_VECTORS_DIR (../src/test/resources/vectors); FILTER runs the cases
 * whose name contains it.
 */
#include "test_cases.h"
#include "test_support.h"

#include <string.h>

/* hm_t_hot_set_cases with the vectors of this run. */
static const hm_test_case *hot_set_cases(size_t *n) { return hm_t_hot_set_cases(n, hm_t_vectors); }
/* hm_t_rules_cases with the vectors of this run. */
static const hm_test_case *rules_cases(size_t *n) { return hm_t_rules_cases(n, hm_t_vectors); }

/* The subjects, in the order they run. */
typedef const hm_test_case *(*subject_cases)(size_t *n);
static const subject_cases SUBJECTS[] = {
    hm_t_format_cases,          hm_t_names_cases,       hm_t_records_cases,       hm_t_eviction_cases,
    hm_t_recovery_cases,        hm_t_locks_cases,       hm_t_opener_cases,        hm_t_security_cases,
    hm_t_resource_faults_cases, hm_t_file_change_cases, hm_t_damaged_words_cases, hm_t_concurrency_cases,
    hm_t_fault_guard_cases,     hot_set_cases,          rules_cases,              hm_t_seed_cases,
};

enum { MAX_CASES = 256 };

int main(int argc, char **argv) {
    if (argc > 1) hm_t_vectors = argv[1];
    static hm_test_case all[MAX_CASES];
    size_t total = 0;
    for (size_t i = 0; i < sizeof SUBJECTS / sizeof SUBJECTS[0]; i++) {
        size_t n;
        const hm_test_case *cases = SUBJECTS[i](&n);
        if (total + n > MAX_CASES) {
            fprintf(stderr, "test_unit: more than %d cases: raise MAX_CASES\n", MAX_CASES);
            return 2;
        }
        memcpy(all + total, cases, n * sizeof *cases);
        total += n;
    }
    return hm_run_tests(all, total, argc > 2 ? argv[2] : NULL);
}
