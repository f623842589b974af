/* test_tsan.c - the concurrent tests alone, for the -fsanitize=thread binary. */
#include "hm_test.h"
#include "test_concurrent.h"

static void test_concurrent_writers_sum_exactly_and_reader_never_sees_torn_copy(void) { hm_t_concurrent_totals(4, 20000); }
static void test_concurrent_inserts_and_evictions_keep_counts_and_index_consistent(void) { hm_t_concurrent_eviction(4, 10000); }
static void test_threads_give_up_on_live_holder_and_record_elsewhere(void) { hm_t_concurrent_giveup(4); }
static void test_reads_by_name_or_handle_under_eviction_never_return_another_regions_record(void) { hm_t_concurrent_named_reads(3, 20000); }
/* Installs the fault guard in this process (the ASan binary runs it in a forked child). */
static void test_threads_calling_a_guarded_store_each_get_echanged_when_its_file_is_truncated(void) { hm_t_concurrent_truncated_guarded(4); }

int main(int argc, char **argv) {
    static const hm_test_case cases[] = {
        {"concurrent_writers_sum_exactly_and_reader_never_sees_torn_copy", test_concurrent_writers_sum_exactly_and_reader_never_sees_torn_copy},
        {"concurrent_inserts_and_evictions_keep_counts_and_index_consistent", test_concurrent_inserts_and_evictions_keep_counts_and_index_consistent},
        {"threads_give_up_on_live_holder_and_record_elsewhere", test_threads_give_up_on_live_holder_and_record_elsewhere},
        {"reads_by_name_or_handle_under_eviction_never_return_another_regions_record", test_reads_by_name_or_handle_under_eviction_never_return_another_regions_record},
        {"threads_calling_a_guarded_store_each_get_echanged_when_its_file_is_truncated", test_threads_calling_a_guarded_store_each_get_echanged_when_its_file_is_truncated},
    };
    return hm_run_tests(cases, sizeof cases / sizeof cases[0], argc > 1 ? argv[1] : 0);
}
