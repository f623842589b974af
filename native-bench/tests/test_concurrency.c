/*
 * test_concurrency.c - concurrency under ASan: threads and processes recording, evicting and
 * reading together (the same scenarios as the TSan binary; Java: ConcurrencyTest,
 * MultiProcessLoadTest).
 * Registered by the runner, test_unit.c; run under ASan+UBSan (build/test_unit_asan).
 */
#define _GNU_SOURCE 1
#include "test_cases.h"
#include "test_support.h"

#include "hintmap.h"
#include "hintmap_format.h"
#include "hm_internal.h"
#include "test_concurrent.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void test_processes_recording_together_lose_no_sample(void) {
    const char *p = tpath("mp.hm");
    hm_options o = opts_cap(64);
    hm_store *s;
    OPEN_OK(s, p, &o);
    enum { P = 3, R = 20000, REG = 32 };
    pid_t pids[P];
    fflush(NULL);
    for (int i = 0; i < P; i++) {
        pids[i] = fork();
        CHECK(pids[i] >= 0);
        if (pids[i] == 0) {
            hm_store *cs;
            if (hm_open(p, NULL, &cs) != HM_OK) _exit(3);
            char nb[16];
            for (int n = 0; n < R; n++) {
                snprintf(nb, sizeof nb, "mp-%d", n % REG);
                if (hm_record(cs, nb, strlen(nb), (uint64_t)(n % 7) + 1, 2) != HM_OK) _exit(4);
            }
            _exit(hm_close(cs) == HM_OK ? 0 : 5);
        }
    }
    for (int i = 0; i < P; i++) {
        int st;
        CHECK(waitpid(pids[i], &st, 0) == pids[i]);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    uint64_t count = 0, total = 0, want_total = 0;
    for (int n = 0; n < R; n++) want_total += (uint64_t)(n % 7) + 1;
    for (int g = 0; g < REG; g++) {
        char nb[16];
        snprintf(nb, sizeof nb, "mp-%d", g);
        hm_region_record r;
        CHECK_EQ(t_look(s, nb, &r), HM_OK);
        CHECK_EQ(r.dispatch_count, (uint64_t)P * R / REG);
        CHECK_EQ(r.bytes_total, 2 * r.dispatch_count);
        count += r.dispatch_count;
        total += r.kernel_ns_total;
    }
    CHECK_EQ(count, (uint64_t)P * R);
    CHECK_EQ(total, P * want_total);
    CHECK_EQ(hm_close(s), HM_OK);
}

static void test_concurrent_writers_sum_exactly_and_reader_never_sees_torn_copy_asan(void) { hm_t_concurrent_totals(4, 30000); }

static void test_concurrent_inserts_and_evictions_keep_counts_and_index_consistent_asan(void) { hm_t_concurrent_eviction(4, 20000); }

static void test_threads_give_up_on_live_holder_and_record_elsewhere_asan(void) { hm_t_concurrent_giveup(4); }

static void test_reads_by_name_or_handle_under_eviction_never_return_another_regions_record_asan(void) { hm_t_concurrent_named_reads(3, 20000); }

const hm_test_case *hm_t_concurrency_cases(size_t *n) {
    static const hm_test_case cases[] = {
        {"processes_recording_together_lose_no_sample", test_processes_recording_together_lose_no_sample},
        {"concurrent_writers_sum_exactly_and_reader_never_sees_torn_copy",
         test_concurrent_writers_sum_exactly_and_reader_never_sees_torn_copy_asan},
        {"concurrent_inserts_and_evictions_keep_counts_and_index_consistent",
         test_concurrent_inserts_and_evictions_keep_counts_and_index_consistent_asan},
        {"threads_give_up_on_live_holder_and_record_elsewhere",
         test_threads_give_up_on_live_holder_and_record_elsewhere_asan},
        {"reads_by_name_or_handle_under_eviction_never_return_another_regions_record",
         test_reads_by_name_or_handle_under_eviction_never_return_another_regions_record_asan},
    };
    *n = sizeof cases / sizeof cases[0];
    return cases;
}
