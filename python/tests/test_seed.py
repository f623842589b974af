"""The seed contract (docs/DESIGN.md §5): the reference design's behaviours, asked through its six
questions (is_hot, dispatch_count, mean_kernel_ns, record_for, len, is_empty) and the reader's own
threshold, on the shared vectors src/test/resources/vectors/seed.txt that Java's SeedContractTest and C's
test_seed.c replay too. Then what a vector cannot say: one thread records while another asks."""

from __future__ import annotations

import threading
from typing import List, NamedTuple, Optional

import hintmap
from hintmap import Code, InvalidArgumentError, RegionRecord

from .support import CUTLASS_GEMM, TempDirTest, vector_lines


class Step(NamedTuple):
    verb: str
    numbers: List[int]
    hot: Optional[bool]  # the hot|cold field of expect and hot_at lines
    name: str
    line: str


class Case(NamedTuple):
    title: str
    capacity: int
    hot_threshold_ns: int
    steps: List[Step]


# verb: (numeric fields, whether a hot|cold field follows them, whether a name ends the line)
_SHAPES = {"record": (2, False, True), "expect": (5, True, True), "absent": (0, False, True),
           "size": (1, False, False), "evictions": (1, False, False), "hot_at": (1, True, True)}


def seed_cases() -> List[Case]:
    """The cases of seed.txt, read as Java's SeedVectors reads them (the file's header)."""
    cases: List[Case] = []
    for line in vector_lines("seed.txt"):
        f = line.split("\t")
        if f[0] == "case":
            cases.append(Case(f[1], int(f[2]), int(f[3]), []))
            continue
        if f[0] not in _SHAPES:
            raise AssertionError(f"unknown line in seed.txt: {line}")
        count, has_hot, has_name = _SHAPES[f[0]]
        hot = None
        if has_hot:
            if f[1 + count] not in ("hot", "cold"):
                raise AssertionError(f"hot|cold expected in seed.txt: {line}")
            hot = f[1 + count] == "hot"
        cases[-1].steps.append(Step(f[0], [int(v) for v in f[1:1 + count]], hot, f[-1] if has_name else "", line))
    return cases


class SeedContractTest(TempDirTest):
    def check(self, store: hintmap.HintStore, case: Case, step: Step) -> None:
        where = f"{case.title}: {step.line}"
        if step.verb == "record":
            store.record(step.name, step.numbers[0], step.numbers[1])
        elif step.verb == "expect":
            count, total, most, nbytes, mean = step.numbers
            self.assertEqual(store.record_for(step.name), RegionRecord(step.name, count, total, most, nbytes), where)
            self.assertEqual(store.dispatch_count(step.name), count, where)
            self.assertEqual(store.mean_kernel_ns(step.name), mean, where)
            self.assertEqual(store.is_hot(step.name), step.hot, where)
        elif step.verb == "absent":
            self.assertIsNone(store.record_for(step.name), where)
            self.assertEqual(store.dispatch_count(step.name), 0, where)
            self.assertEqual(store.mean_kernel_ns(step.name), 0, where)
            self.assertFalse(store.is_hot(step.name), where)
        elif step.verb == "size":
            self.assertEqual(len(store), step.numbers[0], where)
            self.assertEqual(store.is_empty(), step.numbers[0] == 0, where)
        elif step.verb == "evictions":
            self.assertEqual(store.info().evictions, step.numbers[0], where)
        elif step.verb == "hot_at":
            self.assertEqual(store.is_hot(step.name, step.numbers[0]), step.hot, where)
            with store.region(step.name) as region:
                self.assertEqual(region.is_hot(step.numbers[0]), step.hot, where + " (handle)")
        self.assertLessEqual(len(store), case.capacity, where)

    def test_every_case_of_the_shared_vectors_holds(self):
        cases = seed_cases()
        steps = 0
        for n, case in enumerate(cases):
            with hintmap.open(self.path(f"seed-{n}.hints"), capacity=case.capacity,
                              hot_threshold_ns=case.hot_threshold_ns) as store:
                for step in case.steps:
                    self.check(store, case, step)
                    steps += 1
        self.assertEqual((len(cases), steps), (8, 105), "cases and their lines in seed.txt")

    def test_a_read_only_store_opened_with_a_threshold_answers_by_it(self):
        asked = 0
        for n, case in enumerate(seed_cases()):
            path = self.path(f"own-{n}.hints")
            with hintmap.open(path, capacity=case.capacity, hot_threshold_ns=case.hot_threshold_ns) as writer:
                for step in case.steps:
                    if step.verb == "record":
                        writer.record(step.name, step.numbers[0], step.numbers[1])
                    elif step.verb == "hot_at":
                        with hintmap.open(path, read_only=True, hot_threshold_ns=step.numbers[0]) as reader:
                            self.assertEqual(reader.is_hot(step.name), step.hot, f"{case.title}: {step.line}")
                            self.assertEqual(reader.hot_threshold_ns, step.numbers[0])
                        asked += 1
        self.assertEqual(asked, 14, "hot_at lines in seed.txt")

    def test_a_writer_asking_for_another_threshold_is_refused_and_the_file_keeps_its_own(self):
        hintmap.open(self.path(), hot_threshold_ns=100_000).close()
        with self.assertRaises(hintmap.HintmapError) as e:
            hintmap.open(self.path(), hot_threshold_ns=50_000)
        self.assertEqual(e.exception.code, Code.HM_EOPTIONS)
        self.assertIn("read-only", str(e.exception))
        with hintmap.open(self.path(), read_only=True) as store:
            self.assertEqual(store.hot_threshold_ns, 100_000)

    def test_a_threshold_outside_the_files_range_is_refused_before_c(self):
        with hintmap.open(self.path()) as store:
            store.record(CUTLASS_GEMM, 150_000)
            for bad in (-1, 1 << 63):
                with self.assertRaises(InvalidArgumentError) as e:
                    store.is_hot(CUTLASS_GEMM, bad)
                self.assertEqual(e.exception.code, Code.HM_EINVAL)
                with store.region(CUTLASS_GEMM) as region, self.assertRaises(InvalidArgumentError):
                    region.is_hot(bad)
            with self.assertRaises(TypeError):
                store.is_hot(CUTLASS_GEMM, 1.5)  # type: ignore[arg-type]
            self.assertFalse(store.is_hot(CUTLASS_GEMM, (1 << 63) - 1))

    def test_one_thread_records_while_another_asks(self):
        """Every answer comes from one whole record: every sample is 150 µs and 4 KiB, so a record of n
        dispatches is exactly (n, 150,000 n, 150,000, 4,096 n); counts never go back. hm_record releases
        the GIL, so the asker runs while C records."""
        samples = 20_000
        failures: List[str] = []
        asked = [0]
        done = threading.Event()
        with hintmap.open(self.path(), capacity=16, hot_threshold_ns=100_000) as store:
            def ask() -> None:
                last = 0
                try:
                    while not done.is_set():
                        count = store.dispatch_count(CUTLASS_GEMM)
                        if count < last:
                            failures.append(f"count went back from {last} to {count}")
                        last = count
                        record = store.record_for(CUTLASS_GEMM)
                        if record is not None:
                            n = record.dispatch_count
                            if record != RegionRecord(CUTLASS_GEMM, n, 150_000 * n, 150_000, 4_096 * n) or n < count:
                                failures.append(f"torn or stale: {record} after {count}")
                            if not (store.is_hot(CUTLASS_GEMM) and store.is_hot(CUTLASS_GEMM, 150_000)
                                    and not store.is_hot(CUTLASS_GEMM, 150_001)):
                                failures.append(f"hot answers of {record}")
                            if store.mean_kernel_ns(CUTLASS_GEMM) != 150_000 or len(store) != 1 or store.is_empty():
                                failures.append(f"mean, len or is_empty of {record}")
                        asked[0] += 1
                except Exception as e:  # noqa: BLE001 (reported by the test below)
                    failures.append(repr(e))

            asker = threading.Thread(target=ask)
            asker.start()
            for _ in range(samples):
                store.record(CUTLASS_GEMM, 150_000, 4_096)
            done.set()
            asker.join()
            self.assertEqual(failures[:5], [])
            self.assertGreater(asked[0], 0)
            self.assertEqual(store.dispatch_count(CUTLASS_GEMM), samples)
