"""The one order of names (docs/FORMAT.md §1, "The order of names"): equal keys are ranked by the names' UTF-8
bytes as the file stores them, unsigned, as C's ``memcmp`` and Java's ``RegionOrder.compareNames`` rank them."""

from __future__ import annotations

import hintmap
from hintmap import Order

from .support import TempDirTest

KERNEL = " void gemm_bf16_128x128<float>(Params const&)"
# In UTF-8 byte order: EE 80 80, EF BC A1, EF BF BD, F0 9F 98 80 (Java's String order would put the last first).
IN_BYTE_ORDER = ["\ue000" + KERNEL, "\uff21" + KERNEL, "\ufffd" + KERNEL, "\U0001f600" + KERNEL]


class NameOrderTest(TempDirTest):
    def fill(self, names):
        with hintmap.open(self.path(), capacity=16) as store:
            for name in reversed(names):
                for ns in (1_000_000, 3_000_000):
                    store.record(name, ns, 4096)

    def test_hottest_ranks_equal_regions_by_every_order_as_the_utf8_bytes_of_their_names(self):
        self.fill(IN_BYTE_ORDER)
        with hintmap.open(self.path(), read_only=True) as store:
            for order in Order:
                with self.subTest(order=order):
                    self.assertEqual([r.name for r in store.hottest(4, order)], IN_BYTE_ORDER)
                    self.assertEqual([r.name for r in store.hottest(2, order)], IN_BYTE_ORDER[:2])
            self.assertEqual(list(store.hot_set(1.0, 1).names), IN_BYTE_ORDER, "the hot set (C) ties the same way")

    def test_a_damaged_name_ranks_by_its_bytes_as_c_ranks_it_not_by_its_escapes(self):
        """A name that is not UTF-8 (only in a damaged file) is read with ``surrogateescape``: byte FF becomes
        U+DCFF, which ``str`` order puts before U+1F600; its byte FF comes after F0, and C's hot set says so."""
        emoji, placeholder = "\U0001f600" + KERNEL, "Z" + KERNEL
        self.fill([emoji, placeholder])
        with open(self.path(), "r+b") as f:
            data = f.read()
            at = data.find(placeholder.encode())
            self.assertGreater(at, 0)
            self.assertEqual(data.count(placeholder.encode()), 1, "the name is stored once, in its slot")
            f.seek(at)
            f.write(b"\xff")  # no character starts with FF
        damaged = b"\xff".decode("utf-8", "surrogateescape") + KERNEL
        with hintmap.open(self.path(), read_only=True) as store:
            self.assertEqual(sorted(r.name for r in store), sorted([emoji, damaged]))
            self.assertEqual([r.name for r in store.hottest(2)], [emoji, damaged])
            self.assertEqual(list(store.hot_set(1.0, 1).names), [emoji, damaged], "C's memcmp order")
