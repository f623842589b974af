"""HintStore.hot_set, the hot set by coverage (docs/GUIDE.md) through C's hm_hot_set: the shared
vectors (src/test/resources/vectors/hot-set.txt, which Java's HotSetVectorsTest and C's test_hot_set.c
answer too), files written by Java and by the C tools, long names, arguments, the caller's buffers."""

from __future__ import annotations

import ctypes
import math
import threading
from fractions import Fraction
from typing import List, NamedTuple, Tuple

import hintmap
from hintmap import _native

from .support import (CUBLAS_GEMV, CUTLASS_GEMM, FLASH_FWD, SOFTMAX, TORCH_ADD, U63_MAX, VECTORS, TempDirTest, run,
                      tool, vector_lines)


class Hot(NamedTuple):
    total_ns: int
    share: float
    cumulative_share: float
    name: str


class Ask(NamedTuple):
    coverage_text: str
    min_dispatches: int
    expect: List[str]  # TOTAL_NS NEEDED_NS COVERED_NS COUNT READ THIN THIN_NS reached|missed
    hot: List[Hot]


class Case(NamedTuple):
    name: str
    capacity: int
    max_name_bytes: int
    regions: List[Tuple[int, int, str]]  # (count, total ns, name)
    asks: List[Ask]
    refusals: List[Tuple[str, int]]  # (coverage text, min dispatches)


def hot_set_cases() -> List[Case]:
    """The cases of hot-set.txt, read as Java's HotSetVectors reads them (the file's header)."""
    cases: List[Case] = []
    for line in vector_lines("hot-set.txt"):
        f = line.split("\t")
        if f[0] == "case":
            cases.append(Case(f[1], int(f[2]), int(f[3]), [], [], []))
        elif f[0] == "region":
            cases[-1].regions.append((int(f[1]), int(f[2]), f[3]))
        elif f[0] == "ask":
            cases[-1].asks.append(Ask(f[1], int(f[2]), [], []))
        elif f[0] == "expect":
            cases[-1].asks[-1].expect.extend(f[1:])
        elif f[0] == "hot":
            cases[-1].asks[-1].hot.append(Hot(int(f[1]), float(f[2]), float(f[3]), f[4]))
        elif f[0] == "refuse":
            cases[-1].refusals.append((f[1], int(f[2])))
        else:
            raise AssertionError(f"unknown line in hot-set.txt: {line}")
    return cases


def record_region(store: hintmap.HintStore, count: int, total: int, name: str) -> None:
    """COUNT dispatches of TOTAL ns as the vectors define them: COUNT-1 of floor(TOTAL/COUNT) ns,
    then one of the rest (as C's test records them)."""
    each = total // count
    for _ in range(count - 1):
        assert store.record(name, each)
    assert store.record(name, total - (count - 1) * each)


def clamped(total: int) -> int:
    """An exact sum as the library reports it: clamped to 2**63 - 1."""
    return min(total, U63_MAX)


def exact_share(part: int, whole: int) -> float:
    """``part / whole`` as the rule computes a share: each exact integer rounded to the nearest double
    (Python's ``float(int)``, an oracle independent of C's two-word sums), then divided."""
    return float(part) / float(whole) if whole else 0.0


def reference_hot_set(records, coverage: float, min_dispatches: int):
    """The rule of docs/GUIDE.md written out in Python, as a test oracle: (names in order, needed,
    covered, reached), the sums exact as Python's ints are, from (name, count, total) rows read by
    another program."""
    total = sum(t for _, _, t in records)
    eligible = sorted(((n, t) for n, c, t in records if c >= min_dispatches and t > 0),
                      key=lambda r: (-r[1], r[0].encode("utf-8")))
    needed = total if coverage == 1 else min(math.ceil(coverage * float(total)), total)
    names, covered = [], 0
    for name, t in eligible:
        if covered >= needed:
            break
        names.append(name)
        covered += t
    return names, needed, covered, covered >= needed


class SharedVectorsTest(TempDirTest):
    def check_case(self, store: hintmap.HintStore, case: Case) -> int:
        """Asks every question of ``case`` of ``store``; returns how many it asked."""
        for ask in case.asks:
            q = f"{case.name}, coverage {ask.coverage_text}, min {ask.min_dispatches}"
            got = store.hot_set(float(ask.coverage_text), ask.min_dispatches)
            total, needed, covered, count, read, thin, thin_ns, reached = (int(f) if f.isdigit() else f
                                                                              for f in ask.expect)
            self.assertEqual((got.total_ns, got.needed_ns, got.covered_ns, len(got), got.regions_read,
                              got.thin_regions, got.thin_ns, got.reached),
                             (clamped(total), clamped(needed), clamped(covered), count, read, thin, clamped(thin_ns),
                              reached == "reached"), q)
            self.assertTrue(got.consistent, f"{q}: one cut of a file nobody writes")
            self.assertEqual(list(got.names), [h.name for h in ask.hot], f"{q}: the set, in order")
            self.assertEqual((got.coverage, got.min_dispatches), (float(ask.coverage_text), ask.min_dispatches), q)
            so_far = 0
            for want, r in zip(ask.hot, got):
                self.assertEqual(r.record.kernel_ns_total, want.total_ns, f"{q}: total of {want.name}")
                self.assertAlmostEqual(r.share, want.share, delta=1e-9, msg=f"{q}: share of {want.name}")
                self.assertAlmostEqual(r.cumulative_share, want.cumulative_share, delta=1e-9, msg=q)
                so_far += r.record.kernel_ns_total
                self.assertEqual(r.share, exact_share(r.record.kernel_ns_total, total), f"{q}: the share rule, exactly")
                self.assertEqual(r.cumulative_share, exact_share(so_far, total), f"{q}: cumulative, exactly")
            self.assertEqual(got.covered_share, exact_share(covered, total), f"{q}: of the exact sums")
            # thin_share divides the two reported figures (hm_hot_set_info has no thin share): exact while the
            # whole is below 2**63 - 1, as every case here but those of saturated regions
            self.assertEqual(got.thin_share, got.thin_ns / got.total_ns if got.total_ns else 0.0, q)
            if total < U63_MAX:
                self.assertEqual(got.thin_share, thin_ns / total if total else 0.0, q)
        for coverage_text, min_dispatches in case.refusals:
            q = f"{case.name}: refuse coverage {coverage_text}, min {min_dispatches}"
            with self.assertRaises(hintmap.InvalidArgumentError, msg=q) as caught:
                store.hot_set(float(coverage_text), min_dispatches)
            self.assertEqual(caught.exception.code, hintmap.Code.HM_EINVAL, q)
            self.assertIsInstance(caught.exception, ValueError)
            self.assertIn("min_dispatches" if min_dispatches < 0 else "coverage", str(caught.exception), q)
        return len(case.asks) + len(case.refusals)

    def test_answers_every_question_of_the_shared_vectors_as_java_and_c_do(self):
        asked = 0
        cases = hot_set_cases()
        for i, case in enumerate(cases):
            with hintmap.open(self.path(f"case{i}.hints"), capacity=case.capacity,
                              max_name_bytes=case.max_name_bytes) as store:
                for count, total, name in case.regions:
                    record_region(store, count, total, name)
                asked += self.check_case(store, case)
        self.assertEqual(len(cases), 14)
        self.assertEqual(asked, 55, "questions in hot-set.txt (asks and refusals)")

    def test_answers_the_same_from_each_file_opened_read_only(self):
        cases = hot_set_cases()
        for i, case in enumerate(cases):
            path = self.path(f"case{i}.hints")
            with hintmap.open(path, capacity=case.capacity, max_name_bytes=case.max_name_bytes) as store:
                for count, total, name in case.regions:
                    record_region(store, count, total, name)
            with hintmap.open(path, read_only=True) as reader:
                self.check_case(reader, case)


class OtherWritersTest(TempDirTest):
    def test_the_golden_file_java_writes_gives_the_hot_set_worked_out_by_hand(self):
        # golden.txt: conv2d 175,000 ns, reduce_sum 20,000, カーネル_matmul 5,000, gemm 1 (one dispatch each).
        with hintmap.open(VECTORS / "golden.hints", read_only=True) as store:
            hot = store.hot_set(0.95)
            self.assertEqual(hot.names, ("conv2d_fwd_nhwc_3x3", "reduce_sum_f32"))
            self.assertEqual((hot.total_ns, hot.needed_ns, hot.covered_ns, hot.regions_read), (200_001, 190_001,
                                                                                               195_000, 4))
            self.assertEqual(hot[0].record, hintmap.RegionRecord("conv2d_fwd_nhwc_3x3", 1, 175_000, 175_000, 524_288))
            everything = store.hot_set(1.0)
            self.assertEqual(everything.names, ("conv2d_fwd_nhwc_3x3", "reduce_sum_f32", "カーネル_matmul",
                                                "gemm_bf16_128x128x64"))
            self.assertEqual(everything[-1].cumulative_share, 1.0)
            thin = store.hot_set(0.5, 2)  # one dispatch each: every region is thin
            self.assertEqual((len(thin), thin.thin_regions, thin.thin_ns, thin.thin_share, thin.reached),
                             (0, 4, 200_001, 1.0, False))

    def test_a_file_hm_replay_recorded_with_long_names_gives_the_hot_set_worked_out_by_hand(self):
        # Many short launches (TORCH_ADD: 3 x 40 µs) outweigh one long one (FLASH_FWD: 100 µs); the GEMV
        # takes the whole file's time past 2**63 - 1, which the sums keep exact.
        samples = [(CUTLASS_GEMM, 300_000), (CUTLASS_GEMM, 300_000), (TORCH_ADD, 40_000), (TORCH_ADD, 40_000),
                   (TORCH_ADD, 40_000), (FLASH_FWD, 100_000), (SOFTMAX, 20_000)]
        (self.dir / "samples.txt").write_text("".join(f"{n} {ns} 0\n" for n, ns in samples), encoding="utf-8")
        path = self.path("replay.hints")
        run([tool("hm-replay"), path, self.dir / "samples.txt", "16", "96"])
        with hintmap.open(path, read_only=True) as store:
            hot = store.hot_set(0.85)  # 840 µs in all: 714 µs needed, GEMM 600 + ADD 120
            self.assertEqual(hot.names, (store.stored_name(CUTLASS_GEMM), store.stored_name(TORCH_ADD)))
            self.assertEqual((hot.total_ns, hot.needed_ns, hot.covered_ns), (840_000, 714_000, 720_000))
            self.assertIn(CUTLASS_GEMM, hot)  # the whole name, although the file stores it shortened
            self.assertIn(TORCH_ADD.encode("utf-8"), hot)
            self.assertNotIn(FLASH_FWD, hot)
            self.assertEqual(hot[1].record.dispatch_count, 3)
            self.assertEqual([r.name for r in store.hot_set(0.85, 2)],
                             [store.stored_name(CUTLASS_GEMM), store.stored_name(TORCH_ADD)])
            self.assertEqual(store.hot_set(0.95, 3).names, (store.stored_name(TORCH_ADD),))
        with open(self.dir / "more.txt", "w", encoding="utf-8") as more:
            more.write(f"{CUBLAS_GEMV} {U63_MAX} 0\n")
        run([tool("hm-replay"), path, self.dir / "more.txt", "16", "96"])
        with hintmap.open(path, read_only=True) as store:
            hot = store.hot_set(0.5)
            self.assertEqual((hot.names, hot.total_ns, hot.covered_share),
                             ((store.stored_name(CUBLAS_GEMV),), U63_MAX, exact_share(U63_MAX, U63_MAX + 840_000)))
            self.assertLess(hot.covered_share, 1.0)
            everything = store.hot_set(1.0)
            self.assertEqual(len(everything), 5, "coverage 1: every region, however large the whole")
            self.assertEqual(everything[-1].cumulative_share, 1.0)

    def test_a_file_two_hm_bench_processes_recorded_gives_the_hot_set_of_the_rule(self):
        # Zipf popularity, lognormal kernel times: the oracle reads the regions hm-bench prints (those
        # never drawn print a count of 0 and are not in the file).
        path = self.path("bench.hints")
        out = run([tool("hm-bench"), "-f", path, "-n", "4000", "-p", "2", "-r", "300", "-c", "512", "-s", "1.1",
                   "--name-bytes", "160", "--max-name-bytes", "96", "-S", "7"]).stdout
        rows = []
        with hintmap.open(path, read_only=True) as store:
            for line in out.split("\n"):
                if line.startswith("region "):
                    name, count, total, _ = line[len("region "):].rsplit(" ", 3)
                    if int(count) > 0:
                        rows.append((store.stored_name(name), int(count), int(total)))
            self.assertEqual(len(rows), len(store))
            self.assertGreater(len(rows), 250)
            for coverage, least in ((0.5, 1), (0.8, 1), (0.95, 5), (0.999, 20), (1.0, 0)):
                names, needed, covered, reached = reference_hot_set(rows, coverage, least)
                got = store.hot_set(coverage, least)
                self.assertEqual(list(got.names), names, f"coverage {coverage}, min {least}")
                self.assertEqual((got.needed_ns, got.covered_ns, got.reached), (clamped(needed), clamped(covered), reached))


class ArgumentsTest(TempDirTest):
    def setUp(self):
        super().setUp()
        self.store = hintmap.open(self.path(), capacity=64)
        self.addCleanup(self.store.close)
        self.store.record(CUTLASS_GEMM, 300_000)
        self.store.record(SOFTMAX, 100_000)

    def test_the_defaults_are_those_of_hintmap_hot(self):
        hot = self.store.hot_set()
        self.assertEqual((hot.coverage, hot.min_dispatches), (0.95, 1))

    def test_coverage_takes_any_real_number(self):
        self.assertEqual(self.store.hot_set(1).names, (CUTLASS_GEMM, SOFTMAX))
        self.assertEqual(self.store.hot_set(Fraction(3, 4)).names, (CUTLASS_GEMM,))
        self.assertEqual(self.store.hot_set(0).names, ())

    def test_a_coverage_beyond_binary64_or_not_a_number_is_refused_clearly(self):
        for bad in (10 ** 400, Fraction(10 ** 400, 3), -(10 ** 400), math.inf, math.nan):
            with self.subTest(coverage=bad), self.assertRaises(hintmap.InvalidArgumentError) as caught:
                self.store.hot_set(bad)
            self.assertIn("coverage", str(caught.exception))
        for bad in ("0.95", b"1", None):
            with self.subTest(coverage=bad), self.assertRaises(TypeError):
                self.store.hot_set(bad)  # type: ignore[arg-type]

    def test_min_dispatches_beyond_a_count_is_clamped_as_c_clamps_it_and_a_non_int_refused(self):
        for huge in (U63_MAX + 1, 1 << 64, 1 << 200):
            hot = self.store.hot_set(1.0, huge)
            self.assertEqual((hot.min_dispatches, len(hot), hot.thin_regions), (U63_MAX, 0, 2))
        with self.assertRaises(TypeError):
            self.store.hot_set(1.0, 1.5)  # type: ignore[arg-type]

    def test_a_closed_store_says_so(self):
        self.store.close()
        with self.assertRaises(hintmap.HintmapError) as caught:
            self.store.hot_set()
        self.assertEqual(caught.exception.code, hintmap.Code.HM_ECLOSED)


class _Spy:
    """The library, with the room (max_regions) of every hm_hot_set call noted; with ``high_water``,
    hm_high_water answers it, as when regions are inserted between the read of the high water and
    hm_hot_set's scan (a race too narrow to provoke from a test)."""

    def __init__(self, lib, high_water=None):
        self._lib = lib
        self._high_water = high_water
        self.rooms = []

    def __getattr__(self, name):
        return getattr(self._lib, name)

    def hm_high_water(self, ptr):
        return self._lib.hm_high_water(ptr) if self._high_water is None else self._high_water

    def hm_hot_set(self, ptr, coverage, least, regions, room, *rest):
        self.rooms.append(room)
        return self._lib.hm_hot_set(ptr, coverage, least, regions, room, *rest)


class BuffersTest(TempDirTest):
    def test_the_ctypes_structures_have_the_sizes_and_offsets_hot_set_c_asserts(self):
        self.assertEqual(ctypes.sizeof(_native.HmHotRegion), 64)
        self.assertEqual(_native.HmHotRegion.name.offset, 48)
        self.assertEqual(ctypes.sizeof(_native.HmHotSetInfo), 80)
        self.assertEqual(_native.HmHotSetInfo.count.offset, 56)
        self.assertEqual(_native.HmHotSetInfo.consistent.offset, 72)

    def test_the_buffers_hold_the_slots_used_not_every_slot_of_the_capacity(self):
        # A file may have 2**26 slots of 1 KiB names: buffers for its capacity would be 64 GiB.
        with hintmap.open(self.path(), capacity=4096, max_name_bytes=1024) as store:
            store.record(FLASH_FWD, 500_000)
            store.record(CUBLAS_GEMV, 250_000)
            store._lib = spy = _Spy(store._lib)
            hot = store.hot_set(0.6)
        self.assertEqual((hot.names, hot.regions_read), ((FLASH_FWD,), 2))
        self.assertEqual(spy.rooms, [2])

    def test_an_empty_file_passes_no_buffers(self):
        with hintmap.open(self.path(), capacity=4096) as store:
            store._lib = spy = _Spy(store._lib)
            self.assertEqual((len(store.hot_set()), store.hot_set().reached), (0, True))
        self.assertEqual(spy.rooms, [0, 0])

    def test_regions_inserted_after_the_high_water_was_read_are_answered_with_larger_buffers(self):
        with hintmap.open(self.path(), capacity=16) as store:
            for i, name in enumerate((CUTLASS_GEMM, TORCH_ADD, FLASH_FWD, SOFTMAX, CUBLAS_GEMV)):
                store.record(name, 100_000 * (i + 1))
            want = store.hot_set(1.0)
            store._lib = spy = _Spy(store._lib, high_water=1)  # room for 1 region where the file holds 5
            got = store.hot_set(1.0)
        self.assertEqual(got, want)
        self.assertEqual(len(got), 5)
        self.assertEqual(spy.rooms, [1, 2, 4, 8])  # doubled until the 5 fit, at most the capacity

    def test_threads_ask_at_once_while_another_records(self):
        errors = []
        with hintmap.open(self.path(), capacity=128) as store:
            store.record(CUTLASS_GEMM, 10_000_000)

            def ask():
                try:
                    for _ in range(200):
                        hot = store.hot_set(0.5)
                        if hot.names != (CUTLASS_GEMM,) or not 1 <= hot.regions_read <= 101:
                            errors.append(hot)
                except Exception as e:  # noqa: BLE001 (reported below)
                    errors.append(e)

            askers = [threading.Thread(target=ask) for _ in range(3)]
            for t in askers:
                t.start()
            for i in range(2000):
                store.record(f"{TORCH_ADD} [{i % 100}]", 10)
            for t in askers:
                t.join()
        self.assertEqual(errors, [])
