/* test_tsan.c - the concurrent tests alone, for the -fsanitize=thread binary. */
#include "hm_test.h"
#include "test_concurrent.h"

static void test_concurrent_totals(void) { hm_t_concurrent_totals(4, 20000); }
static void test_concurrent_eviction(void) { hm_t_concurrent_eviction(4, 10000); }
static void test_concurrent_giveup(void) { hm_t_concurrent_giveup(4); }

int main(int argc, char **argv) {
    static const hm_test_case cases[] = {
        {"concurrent_totals", test_concurrent_totals},
        {"concurrent_eviction", test_concurrent_eviction},
        {"concurrent_giveup", test_concurrent_giveup},
    };
    return hm_run_tests(cases, sizeof cases / sizeof cases[0], argc > 1 ? argv[1] : 0);
}
