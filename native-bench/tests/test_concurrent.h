/* test_concurrent.h - multi-threaded tests, shared by the ASan and the TSan binaries. */
#ifndef HM_TEST_CONCURRENT_H
#define HM_TEST_CONCURRENT_H

/* `threads` writers (half by name, half through handles) record `per_thread` samples each into
 * 64 regions of a capacity-256 store while a reader checks record invariants; the totals must
 * be exact (no eviction). */
void hm_t_concurrent_totals(int threads, int per_thread);

/* Writers churn 48 names through a capacity-8 store (constant eviction) while a reader checks
 * invariants; at the end the index is consistent and nothing needed recovery. */
void hm_t_concurrent_eviction(int threads, int per_thread);

/* `writers` churn 48 names through a capacity-8 store while two readers look them up by name
 * (hm_lookup, hm_is_hot), through fixed name buffers and one rewritten buffer, and through handles
 * (hm_region_lookup, §7.2.2): every record read is the named region's own (never another's from a
 * slot the name cache or a handle remembered), and the churn made some absent. */
void hm_t_concurrent_named_reads(int writers, int per_thread);

/* A slot lock held by a live process (a planted owner word): `threads` writers recording into
 * that region all give up (HM_DROPPED) while they record into another region normally. */
void hm_t_concurrent_giveup(int threads);

/* `threads` threads record and read through one store opened with HM_OPEN_FAULT_GUARD (by name and
 * through handles) until its file is truncated to 0 under them: each ends on HM_ECHANGED, none dies,
 * and the store closes with HM_ECHANGED. Installs the fault guard in the calling process. */
void hm_t_concurrent_truncated_guarded(int threads);

#endif
