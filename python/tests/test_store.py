"""HintStore: opening, errors with their HM_ codes, records and queries, bulk reads, lifetime."""

from __future__ import annotations

import os
import sys
import threading
import time

import hintmap
from hintmap import Code, HintmapError, InvalidArgumentError, Order, RegionRecord

from .support import CUBLAS_GEMV, CUTLASS_GEMM, FLASH_FWD, SOFTMAX, TORCH_ADD, U63_MAX, TempDirTest


class OpenTest(TempDirTest):
    def test_a_new_file_gets_the_options_given(self):
        with hintmap.open(self.path(), capacity=64, max_name_bytes=512, hot_threshold_ns=50_000) as store:
            self.assertEqual((store.capacity, store.max_name_bytes, store.hot_threshold_ns, store.read_only),
                             (64, 512, 50_000, False))
        self.assertEqual(os.stat(self.path()).st_mode & 0o777, 0o600)

    def test_an_existing_files_layout_wins_over_options_left_unset(self):
        hintmap.open(self.path(), capacity=64, hot_threshold_ns=1_000).close()
        with hintmap.open(self.path(), read_only=True) as store:
            self.assertEqual((store.capacity, store.hot_threshold_ns, store.read_only), (64, 1_000, True))

    def test_an_option_that_contradicts_the_file_is_eoptions_naming_the_file(self):
        hintmap.open(self.path(), capacity=64).close()
        with self.assertRaises(HintmapError) as e:
            hintmap.open(self.path(), capacity=128)
        self.assertEqual((e.exception.code, e.exception.code_name, e.exception.path),
                         (Code.HM_EOPTIONS, "HM_EOPTIONS", self.path()))
        self.assertIn("[HM_EOPTIONS -12]", str(e.exception))

    def test_a_missing_file_opened_read_only_is_emissing_with_the_path(self):
        missing = self.path("none.hints")
        with self.assertRaises(HintmapError) as e:
            hintmap.open(missing, read_only=True)
        self.assertEqual(e.exception.code, Code.HM_EMISSING)
        self.assertEqual(int(e.exception.code), -24)
        self.assertIn(missing, str(e.exception))
        self.assertFalse(os.path.exists(missing))

    def test_a_file_that_is_not_a_hint_file_is_enothint(self):
        with open(self.path("notes.txt"), "wb") as f:
            f.write(b"x" * 8192)
        with self.assertRaises(HintmapError) as e:
            hintmap.open(self.path("notes.txt"), read_only=True)
        self.assertEqual(e.exception.code, Code.HM_ENOTHINT)

    def test_a_symbolic_link_is_refused_unless_followed(self):
        hintmap.open(self.path(), capacity=8).close()
        os.symlink(self.path(), self.path("link.hints"))
        with self.assertRaises(HintmapError) as e:
            hintmap.open(self.path("link.hints"), read_only=True)
        self.assertEqual(e.exception.code, Code.HM_ESYMLINK)
        with hintmap.open(self.path("link.hints"), read_only=True, follow_symlinks=True) as store:
            self.assertEqual(store.capacity, 8)

    def test_options_out_of_range_are_einval_and_also_value_errors(self):
        for kwargs in ({"capacity": -1}, {"capacity": 1 << 32}, {"capacity": (1 << 26) + 1}, {"max_name_bytes": 0},
                       {"max_name_bytes": 1025}, {"hot_threshold_ns": -5}):
            with self.subTest(**kwargs):
                with self.assertRaises(ValueError) as e:
                    hintmap.open(self.path(), **kwargs)
                self.assertIsInstance(e.exception, InvalidArgumentError)
                self.assertEqual(e.exception.code, Code.HM_EINVAL)
                self.assertFalse(os.path.exists(self.path()))

    def test_paths_may_be_str_bytes_or_pathlike(self):
        for path in (self.path("a.hints"), os.fsencode(self.path("b.hints")), self.dir / "c.hints"):
            with hintmap.open(path, capacity=4) as store:
                store.record(CUTLASS_GEMM, 1, 1)
            with hintmap.open(path, read_only=True) as store:
                self.assertEqual(store.dispatch_count(CUTLASS_GEMM), 1)


class RecordAndQueryTest(TempDirTest):
    def setUp(self):
        super().setUp()
        self.store = hintmap.open(self.path(), capacity=64, hot_threshold_ns=100_000)
        self.addCleanup(self.store.close)

    def test_records_add_up_into_one_consistent_record(self):
        s = self.store
        self.assertTrue(s.record(CUTLASS_GEMM, 420_000, 1 << 20))
        self.assertTrue(s.record(CUTLASS_GEMM, 180_000, 1 << 19))
        self.assertEqual(s.record_for(CUTLASS_GEMM), RegionRecord(CUTLASS_GEMM, 2, 600_000, 420_000, 3 << 19))
        self.assertEqual((s.dispatch_count(CUTLASS_GEMM), s.mean_kernel_ns(CUTLASS_GEMM)), (2, 300_000))
        r = s.record_for(CUTLASS_GEMM)
        self.assertEqual((r.mean_kernel_ns, r.mean_bytes, r.is_hot(300_000), r.is_hot(300_001)), (300_000, 3 << 18, True, False))

    def test_hot_means_a_mean_at_or_above_the_threshold(self):
        s = self.store
        s.record(FLASH_FWD, 100_000, 1)  # exactly the threshold
        s.record(SOFTMAX, 100_000, 1)
        s.record(SOFTMAX, 99_999, 1)  # mean 99,999.5 rounds down: below
        self.assertTrue(s.is_hot(FLASH_FWD))
        self.assertFalse(s.is_hot(SOFTMAX))
        self.assertFalse(s.is_hot(TORCH_ADD))  # absent: never hot

    def test_an_absent_region_answers_none_and_zeros(self):
        s = self.store
        self.assertIsNone(s.record_for(TORCH_ADD))
        self.assertEqual((s.dispatch_count(TORCH_ADD), s.mean_kernel_ns(TORCH_ADD)), (0, 0))
        self.assertNotIn(TORCH_ADD, s)
        s.record(TORCH_ADD, 5, 5)
        self.assertIn(TORCH_ADD, s)

    def test_str_and_bytes_name_one_region(self):
        s = self.store
        name = "カーネル_matmul<" + "bf16, " * 20 + ">"
        s.record(name, 10, 1)
        s.record(name.encode("utf-8"), 30, 1)
        s.record(bytearray(name.encode("utf-8")), 20, 1)
        self.assertEqual(s.record_for(name.encode("utf-8")), RegionRecord(name, 3, 60, 30, 3))
        self.assertEqual([r.name for r in s], [name])

    def test_bad_names_are_their_codes_and_value_errors(self):
        s = self.store
        for name, code in (("", Code.HM_EEMPTYNAME), (b"", Code.HM_EEMPTYNAME), (b"gemm\xff\xfe", Code.HM_EBADNAME),
                           ("gemm_\udcff", Code.HM_EBADNAME), ("\ud800kernel", Code.HM_EBADNAME)):
            for call in (lambda n: s.record(n, 1, 1), s.is_hot, s.record_for, s.dispatch_count, s.region):
                with self.subTest(name=name, call=call):
                    with self.assertRaises(ValueError) as e:
                        call(name)
                    self.assertEqual(e.exception.code, code)
        with self.assertRaises(TypeError):
            s.is_hot(42)
        self.assertEqual(len(s), 0)

    def test_a_name_with_a_nul_byte_is_a_name(self):
        self.store.record("tail\0nul", 7, 7)
        self.assertEqual([r.name for r in self.store], ["tail\0nul"])
        self.assertEqual(self.store.dispatch_count("tail"), 0)

    def test_sample_values_below_zero_are_refused_and_above_2_63_clamped(self):
        s = self.store
        for ns, nbytes in ((-1, 0), (0, -1)):
            with self.assertRaises(InvalidArgumentError) as e:
                s.record(CUTLASS_GEMM, ns, nbytes)
            self.assertEqual(e.exception.code, Code.HM_EINVAL)
        with self.assertRaises(TypeError):
            s.record(CUTLASS_GEMM, 1.5, 0)
        s.record(CUTLASS_GEMM, 1 << 64, 1 << 70)  # ctypes alone would wrap 2**64 to 0
        s.record(CUTLASS_GEMM, 1, 1)
        self.assertEqual(s.record_for(CUTLASS_GEMM), RegionRecord(CUTLASS_GEMM, 2, U63_MAX, U63_MAX, U63_MAX))

    def test_ints_of_other_types_count_as_ints(self):
        class Index:  # numpy's integers look like this to Python
            def __init__(self, v):
                self.v = v

            def __index__(self):
                return self.v

        self.store.record(CUTLASS_GEMM, Index(200_000), Index(64))
        self.assertEqual(self.store.record_for(CUTLASS_GEMM).kernel_ns_total, 200_000)

    def test_long_names_are_refused_when_the_store_asks(self):
        with hintmap.open(self.path("strict.hints"), capacity=4, max_name_bytes=64, reject_long_names=True) as s:
            with self.assertRaises(InvalidArgumentError) as e:
                s.record(CUTLASS_GEMM, 1, 1)
            self.assertEqual(e.exception.code, Code.HM_ENAMETOOLONG)
            s.record(CUTLASS_GEMM[:64], 1, 1)
            self.assertEqual(s.dispatch_count(CUTLASS_GEMM[:64]), 1)

    def test_a_read_only_store_refuses_records_with_ereadonly(self):
        self.store.record(CUTLASS_GEMM, 1, 1)
        with hintmap.open(self.path(), read_only=True) as ro:
            with self.assertRaises(HintmapError) as e:
                ro.record(CUTLASS_GEMM, 1, 1)
            self.assertEqual(e.exception.code, Code.HM_EREADONLY)
            self.assertIn(self.path(), str(e.exception))
            self.assertEqual(ro.dispatch_count(CUTLASS_GEMM), 1)

    def test_a_capacity_0_store_drops_every_sample(self):
        with hintmap.open(self.path("zero.hints"), capacity=0) as s:
            self.assertFalse(s.record(CUTLASS_GEMM, 1, 1))
            self.assertEqual(len(s), 0)

    def test_a_full_store_evicts_to_insert(self):
        with hintmap.open(self.path("two.hints"), capacity=2) as s:
            for name in (CUTLASS_GEMM, TORCH_ADD, FLASH_FWD):
                self.assertTrue(s.record(name, 1, 1))
            self.assertEqual(len(s), 2)
            self.assertEqual(s.info().evictions, 1)
            self.assertEqual(s.dispatch_count(FLASH_FWD), 1)


class BulkReadTest(TempDirTest):
    def setUp(self):
        super().setUp()
        self.store = hintmap.open(self.path(), capacity=64, max_name_bytes=128)
        self.addCleanup(self.store.close)
        # (name, dispatches, kernel ns each): totals 1.2 ms, 0.9 ms, 0.9 ms, 3 µs; max follows.
        for name, n, ns in ((CUTLASS_GEMM, 3, 400_000), (FLASH_FWD, 1, 900_000), (TORCH_ADD, 9, 100_000),
                            (SOFTMAX, 3, 1_000)):
            for _ in range(n):
                self.store.record(name, ns, 1)

    def test_iteration_lists_every_region_by_its_stored_name(self):
        got = {r.name: r.dispatch_count for r in self.store}
        self.assertEqual(got, {self.store.stored_name(CUTLASS_GEMM): 3, self.store.stored_name(FLASH_FWD): 1,
                               self.store.stored_name(TORCH_ADD): 9, self.store.stored_name(SOFTMAX): 3})
        self.assertEqual(len(self.store), 4)

    def test_hottest_ranks_by_each_order_and_equal_keys_by_name(self):
        sn = self.store.stored_name
        cases = {
            Order.TOTAL_NS: [CUTLASS_GEMM, FLASH_FWD, TORCH_ADD, SOFTMAX] if sn(FLASH_FWD) < sn(TORCH_ADD)
            else [CUTLASS_GEMM, TORCH_ADD, FLASH_FWD, SOFTMAX],
            Order.MEAN_NS: [FLASH_FWD, CUTLASS_GEMM, TORCH_ADD, SOFTMAX],
            Order.COUNT: [TORCH_ADD] + sorted([CUTLASS_GEMM, SOFTMAX], key=sn) + [FLASH_FWD],
            Order.MAX_NS: [FLASH_FWD, CUTLASS_GEMM, TORCH_ADD, SOFTMAX],
        }
        for order, names in cases.items():
            for spelled in (order, order.value, order.name):
                with self.subTest(order=spelled):
                    self.assertEqual([r.name for r in self.store.hottest(4, spelled)], [sn(n) for n in names])
                    self.assertEqual([r.name for r in self.store.hottest(2, spelled)], [sn(n) for n in names[:2]])

    def test_hottest_takes_what_there_is_and_refuses_a_negative_k_or_an_unknown_order(self):
        self.assertEqual(len(self.store.hottest(100)), 4)
        self.assertEqual(self.store.hottest(0), [])
        with self.assertRaises(InvalidArgumentError):
            self.store.hottest(-1)
        with self.assertRaises(ValueError):
            self.store.hottest(3, "hottest")

    def test_info_reports_the_files_figures_and_the_library(self):
        info = self.store.info()
        self.assertEqual((info.path, info.capacity, info.max_name_bytes, info.size, info.high_water, info.evictions),
                         (self.path(), 64, 128, 4, 4, 0))
        self.assertEqual((info.format_version, info.library_version), (hintmap.format_version(), hintmap.library_version()))
        self.assertEqual(info.library_path, hintmap.library_path())
        self.assertGreater(info.created_epoch_ms, 1_700_000_000_000)

    def test_a_file_truncated_under_the_store_fails_bulk_reads_with_echanged_not_sigbus(self):
        os.truncate(self.path(), 4096)  # another program's truncate: pages past 4096 are gone
        for read in (list, lambda s: s.hottest(3), lambda s: s.hot_set(), lambda s: s.info(), lambda s: s.check()):
            with self.subTest(read=read):
                with self.assertRaises(HintmapError) as e:
                    read(self.store)
                self.assertEqual(e.exception.code, Code.HM_ECHANGED)
                self.assertIn("truncated", str(e.exception))
        with self.assertRaises(HintmapError) as e:  # close leaves the lost writer entry, says so
            self.store.close()
        self.assertEqual(e.exception.code, Code.HM_ECHANGED)
        self.assertTrue(self.store.closed)

    def test_a_file_replaced_at_the_path_is_echanged_for_bulk_reads(self):
        hintmap.open(self.path("other.hints"), capacity=8).close()
        os.replace(self.path("other.hints"), self.path())
        for read in (list, lambda s: s.hot_set()):
            with self.subTest(read=read), self.assertRaises(HintmapError) as e:
                read(self.store)
            self.assertEqual(e.exception.code, Code.HM_ECHANGED)
            self.assertIn("replaced", str(e.exception))
        self.assertEqual(self.store.dispatch_count(TORCH_ADD), 9)  # the mapped file still answers


class LifetimeTest(TempDirTest):
    def test_a_with_block_closes_the_store_and_every_call_after_close_is_eclosed(self):
        with hintmap.open(self.path(), capacity=8) as store:
            store.record(CUTLASS_GEMM, 1, 1)
        self.assertTrue(store.closed)
        store.close()  # idempotent
        calls = (lambda: store.record(CUTLASS_GEMM, 1, 1), lambda: store.is_hot(CUTLASS_GEMM),
                 lambda: store.record_for(CUTLASS_GEMM), lambda: store.dispatch_count(CUTLASS_GEMM),
                 lambda: store.mean_kernel_ns(CUTLASS_GEMM), lambda: list(store), lambda: store.hottest(1),
                 lambda: len(store), store.info, store.check, store.flush, lambda: store.region(CUTLASS_GEMM))
        for call in calls:
            with self.subTest(call=call):
                with self.assertRaises(HintmapError) as e:
                    call()
                self.assertEqual(e.exception.code, Code.HM_ECLOSED)
                self.assertIn(self.path(), str(e.exception))

    def test_close_waits_for_calls_in_flight_on_other_threads(self):
        # Threads record and query, by name and through handles, until the store closes under them:
        # each must end on HM_ECLOSED, never crash the process (a call reaching the store hm_close
        # freed and unmapped: without the wait this test dies of SIGSEGV) or fail otherwise.
        switch = sys.getswitchinterval()
        sys.setswitchinterval(1e-6)  # many thread switches: between a call's steps too
        self.addCleanup(sys.setswitchinterval, switch)
        for run in range(40):
            store = hintmap.open(self.path(), capacity=16)
            started = threading.Barrier(5)
            ends = []

            def hammer(i):
                handle = store.region(FLASH_FWD)  # one per thread, as hintmap.h asks
                started.wait()
                try:
                    while True:
                        handle.record(i, 1)
                        handle.is_hot()
                        store.record(CUBLAS_GEMV, i, 1)
                        store.is_hot(CUBLAS_GEMV)
                        store.record_for(TORCH_ADD)
                except HintmapError as e:
                    ends.append(e.code)
                except BaseException as e:  # noqa: BLE001 (reported by the assertion below)
                    ends.append(e)

            threads = [threading.Thread(target=hammer, args=(i,)) for i in range(4)]
            for t in threads:
                t.start()
            started.wait()
            time.sleep(0.0005 * (run % 4))  # close at various points of the threads' loops
            store.close()
            for t in threads:
                t.join(60)
            self.assertEqual(ends, [Code.HM_ECLOSED] * 4)

    def test_close_waits_for_the_calls_that_began_before_it_not_for_calls_made_after(self):
        # One call is held inside C (hm_size, behind an event) when close begins; then threads keep
        # calling the closing store, and two calls made after close began (on the store and on a handle)
        # stall in building their error, as a slow thread would. Close waits for the call in C, and
        # returns as soon as it ends: a call that began after close must never hold it up.
        store = hintmap.open(self.path(), capacity=16)
        store.record(CUTLASS_GEMM, 1, 1)
        handle = store.region(CUTLASS_GEMM)
        in_c, release = threading.Event(), threading.Event()
        real = store._lib

        class HeldLibrary:  # the library, with hm_size held until the test releases it
            def __getattr__(self, name):
                return getattr(real, name)

            def hm_size(self, ptr, out):
                in_c.set()
                release.wait()
                return real.hm_size(ptr, out)

        store._lib = HeldLibrary()
        sizes, stalled_in, unstall = [], threading.Semaphore(0), threading.Event()
        earlier = threading.Thread(target=lambda: sizes.append(len(store)))
        earlier.start()
        self.assertTrue(in_c.wait(60))
        closer = threading.Thread(target=store.close)
        closer.start()
        while not store.closed:  # close has cleared the pointer; it now waits for the call in C
            time.sleep(0.001)

        def stalled_error(closed_error):
            def build():
                stalled_in.release()
                unstall.wait()
                return closed_error()
            return build

        store._closed_error = stalled_error(store._closed_error)  # type: ignore[method-assign]
        handle._closed_error = stalled_error(handle._closed_error)  # type: ignore[method-assign]
        ends, stop = [], threading.Event()

        def call_after_close(call):
            try:
                call()
                ends.append("answered")
            except HintmapError as e:
                ends.append(e.code)

        def keep_calling():
            while not stop.is_set():
                for call in (lambda: store.dispatch_count(TORCH_ADD), lambda: store.record(CUBLAS_GEMV, 1, 1)):
                    try:
                        call()
                        ends.append("answered")
                    except HintmapError as e:
                        ends.append(e.code)

        stallers = [threading.Thread(target=call_after_close, args=(c,))
                    for c in (lambda: store.is_hot(FLASH_FWD), handle.is_hot)]
        for t in stallers:
            t.start()
        for _ in stallers:
            self.assertTrue(stalled_in.acquire(timeout=60))
        del store._closed_error  # the pollers' calls build theirs at once
        pollers = [threading.Thread(target=keep_calling) for _ in range(3)]
        for t in pollers:
            t.start()
        release.set()  # the call in C ends: close must follow it, whatever the calls after it do
        earlier.join(60)
        closer.join(10)  # returns within milliseconds; 10 s only rules out a loaded machine's pauses
        closed_in_time = not closer.is_alive()
        stop.set()
        unstall.set()
        for t in pollers + stallers + [closer]:
            t.join(60)
        self.assertTrue(closed_in_time, "close waited for calls made after it began")
        self.assertEqual(sizes, [1])  # the call in flight completed on the open store
        self.assertTrue(ends)
        self.assertEqual(set(ends), {Code.HM_ECLOSED})

    def test_a_child_process_does_not_use_the_parents_store(self):
        store = hintmap.open(self.path(), capacity=8)
        self.addCleanup(store.close)
        store.record(CUTLASS_GEMM, 1, 1)
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: report what using the inherited store does, then leave at once
            try:
                store.record(CUTLASS_GEMM, 1, 1)
                answer = b"recorded"
            except HintmapError as e:
                answer = f"{e.code_name} {e.detail}".encode()
            with hintmap.open(self.path()) as own:  # its own store works
                own.record(CUTLASS_GEMM, 1, 1)
            os.write(write_end, answer)
            os._exit(0)
        os.close(write_end)
        _, status = os.waitpid(pid, 0)
        answer = os.read(read_end, 4096).decode()
        os.close(read_end)
        self.assertEqual(os.waitstatus_to_exitcode(status), 0)
        self.assertTrue(answer.startswith("HM_ECLOSED"), answer)
        self.assertIn("fork()", answer)
        self.assertEqual(store.dispatch_count(CUTLASS_GEMM), 2)  # the parent's store still works

    def test_the_finaliser_unmaps_a_store_left_open(self):
        def mapped():
            with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
                return any(line.rstrip("\n").endswith(self.path()) for line in maps)

        store = hintmap.open(self.path(), capacity=8)
        store.record(CUTLASS_GEMM, 1, 1)
        self.assertTrue(mapped())
        del store  # the last reference: the finaliser closes it (a safety net; close() is the way)
        self.assertFalse(mapped())
        with hintmap.open(self.path(), read_only=True) as again:
            self.assertEqual(again.dispatch_count(CUTLASS_GEMM), 1)
