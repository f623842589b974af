"""Region handles (hm_region_*): records and reads without the name, their lifetime."""

from __future__ import annotations

import hintmap
from hintmap import Code, HintmapError, RegionRecord

from .support import CUTLASS_GEMM, FLASH_FWD, TORCH_ADD, TempDirTest


class RegionTest(TempDirTest):
    def setUp(self):
        super().setUp()
        self.store = hintmap.open(self.path(), capacity=8, max_name_bytes=64)
        self.addCleanup(self.store.close)

    def test_a_handle_records_and_reads_the_region_of_its_name(self):
        with self.store.region(CUTLASS_GEMM) as gemm:
            self.assertEqual(gemm.name, CUTLASS_GEMM)
            self.assertIsNone(gemm.record_for())  # resolving does not insert
            self.assertEqual((gemm.is_hot(), gemm.dispatch_count(), gemm.mean_kernel_ns()), (False, 0, 0))
            self.assertTrue(gemm.record(420_000, 1 << 20))
            self.assertTrue(gemm.record(180_000, 1 << 20))
            self.assertEqual(gemm.record_for(), RegionRecord(CUTLASS_GEMM, 2, 600_000, 420_000, 2 << 20))
            self.assertEqual(gemm.record_for(), self.store.record_for(CUTLASS_GEMM))
            self.assertEqual((gemm.is_hot(), gemm.dispatch_count(), gemm.mean_kernel_ns()), (True, 2, 300_000))
        self.assertTrue(gemm.closed)

    def test_a_handle_follows_its_region_through_an_eviction(self):
        with hintmap.open(self.path("one.hints"), capacity=1) as store, store.region(FLASH_FWD) as flash:
            flash.record(250_000, 1)
            store.record(TORCH_ADD, 5, 1)  # evicts FLASH_FWD: one slot
            self.assertIsNone(flash.record_for())
            flash.record(250_000, 1)  # inserted again, by its name
            self.assertEqual(flash.dispatch_count(), 1)
            self.assertEqual(store.dispatch_count(TORCH_ADD), 0)

    def test_a_handle_on_a_read_only_store_reads_and_refuses_records(self):
        self.store.record(CUTLASS_GEMM, 7, 7)
        with hintmap.open(self.path(), read_only=True) as ro, ro.region(CUTLASS_GEMM) as gemm:
            self.assertEqual(gemm.dispatch_count(), 1)
            with self.assertRaises(HintmapError) as e:
                gemm.record(1, 1)
            self.assertEqual(e.exception.code, Code.HM_EREADONLY)

    def test_a_handle_answers_eclosed_after_its_store_or_itself_closed(self):
        store = hintmap.open(self.path("h.hints"), capacity=4)
        gemm = store.region(CUTLASS_GEMM)
        gemm.record(1, 1)
        store.close()
        for call in (lambda: gemm.record(1, 1), gemm.record_for, gemm.is_hot, gemm.dispatch_count):
            with self.assertRaises(HintmapError) as e:
                call()
            self.assertEqual(e.exception.code, Code.HM_ECLOSED)
        gemm.close()
        gemm.close()  # idempotent
        mine = self.store.region(TORCH_ADD)
        mine.close()
        with self.assertRaises(HintmapError) as e:
            mine.record(1, 1)
        self.assertEqual(e.exception.code, Code.HM_ECLOSED)
        self.assertIn("handle", str(e.exception))

    def test_negative_values_through_a_handle_are_einval(self):
        with self.store.region(CUTLASS_GEMM) as gemm:
            with self.assertRaises(ValueError) as e:
                gemm.record(-1, 0)
            self.assertEqual(e.exception.code, Code.HM_EINVAL)
            self.assertIsNone(gemm.record_for())
