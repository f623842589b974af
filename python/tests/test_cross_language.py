"""Files written by Java and by the C tools, read by Python with exact values; and the reverse."""

from __future__ import annotations

import hintmap

from .support import (CUBLAS_GEMV, CUTLASS_GEMM, FLASH_FWD, SOFTMAX, TORCH_ADD, U63_MAX, VECTORS,
                      TempDirTest, run, tool)


def describe(records):
    """The lines of golden.txt: "region NAME count total max bytes", sorted."""
    return sorted(f"region {r.name} {r.dispatch_count} {r.kernel_ns_total} {r.kernel_ns_max} {r.bytes_total}"
                  for r in records)


class JavaFileTest(TempDirTest):
    def test_reads_the_records_of_the_golden_file_java_writes_byte_for_byte(self):
        # golden.hints is what Java writes from golden-samples.txt (GoldenFileTest checks it byte for byte).
        want = sorted(l for l in (VECTORS / "golden.txt").read_text(encoding="utf-8").split("\n") if l)
        with hintmap.open(VECTORS / "golden.hints", read_only=True) as store:
            self.assertEqual(describe(store), want)
            self.assertEqual((store.capacity, store.max_name_bytes, store.hot_threshold_ns), (4, 64, 100_000))
            for line in want:
                _, name, count, total, mx, nbytes = line.split(" ")
                self.assertEqual(store.record_for(name),
                                 hintmap.RegionRecord(name, int(count), int(total), int(mx), int(nbytes)))


class CToolFilesTest(TempDirTest):
    def test_reads_what_hm_bench_recorded_with_long_names_exactly(self):
        # Fixed kernel time: each region's total and bytes follow from its count, which hm-bench prints.
        path = self.path("bench.hints")
        out = run([tool("hm-bench"), "-f", path, "-n", "20000", "-t", "2", "-r", "24", "-k", "fixed:150000",
                   "-B", "2", "--name-bytes", "200", "--max-name-bytes", "64", "-S", "11"]).stdout
        regions = [line[len("region "):].rsplit(" ", 3) for line in out.split("\n") if line.startswith("region ")]
        self.assertEqual(len(regions), 24)
        with hintmap.open(path, read_only=True) as store:
            self.assertEqual(len(store), 24)
            for name, count, total, nbytes in regions:
                self.assertEqual(len(name.encode()), 200)
                self.assertEqual(store.record_for(name),
                                 hintmap.RegionRecord(name, int(count), int(total), 150_000, int(nbytes)))
                self.assertTrue(store.is_hot(name))  # 150 µs >= the 100 µs default
            self.assertEqual(sum(r.dispatch_count for r in store), 40_000)
            self.assertEqual({r.name for r in store}, {hintmap.stored_name(n, 64) for n, *_ in regions})

    def test_reads_what_hm_replay_recorded_from_kernel_samples_exactly(self):
        samples = [(CUTLASS_GEMM, 420_000, 1 << 20), (TORCH_ADD, 9_000, 4096), (CUTLASS_GEMM, 380_000, 1 << 20),
                   (FLASH_FWD, 250_000, 3 << 20), (TORCH_ADD, 11_000, 4096), (CUBLAS_GEMV, U63_MAX, 1),
                   (CUBLAS_GEMV, 5, 1), (SOFTMAX, 99_999, 65536)]
        text = "".join(f"{n} {ns} {b}\n" for n, ns, b in samples)
        (self.dir / "samples.txt").write_text(text, encoding="utf-8")
        path = self.path("replay.hints")
        run([tool("hm-replay"), path, self.dir / "samples.txt", "16", "128"])
        with hintmap.open(path, read_only=True) as store:
            self.assertEqual(store.max_name_bytes, 128)
            for name in {n for n, _, _ in samples}:
                mine = [(ns, b) for n, ns, b in samples if n == name]
                want = hintmap.RegionRecord(name, len(mine), min(sum(ns for ns, _ in mine), U63_MAX),
                                            max(ns for ns, _ in mine), sum(b for _, b in mine))
                self.assertEqual(store.record_for(name), want)
            self.assertTrue(store.is_hot(CUTLASS_GEMM))
            self.assertFalse(store.is_hot(SOFTMAX))  # 99,999 ns: one below the threshold
            # three regions of 2 dispatches: equal keys go by name, so GEMV's is the one left out
            self.assertEqual([r.name for r in store.hottest(2, "count")],
                             sorted([hintmap.stored_name(CUTLASS_GEMM, 128), hintmap.stored_name(TORCH_ADD, 128)]))


class CReadsPythonTest(TempDirTest):
    def test_hm_dump_reads_what_python_recorded_exactly(self):
        path = self.path("py.hints")
        with hintmap.open(path, capacity=32, max_name_bytes=96) as store:
            store.record(CUTLASS_GEMM, 420_000, 1 << 20)
            store.record(CUTLASS_GEMM.encode("utf-8"), 380_000, 1 << 20)  # bytes: the same region
            store.record(TORCH_ADD, U63_MAX + 5, 7)  # above 2**63 - 1: clamped, as C clamps
            store.record(TORCH_ADD, 1, 1)  # the total saturates
            with store.region(FLASH_FWD) as flash:
                flash.record(250_000, 3 << 20)
            listed = describe(store)
        dumped = run([tool("hm-dump"), path]).stdout.split("\n")
        self.assertEqual(sorted(l for l in dumped if l.startswith("region ")), listed)
        self.assertIn(f"region {hintmap.stored_name(TORCH_ADD, 96)} 2 {U63_MAX} {U63_MAX} 8", listed)
        self.assertIn(f"region {hintmap.stored_name(CUTLASS_GEMM, 96)} 2 800000 420000 {2 << 20}", listed)
        self.assertIn("size 3 capacity 32", dumped)
        # and C finds each by its whole name (hm_lookup), as Python recorded it
        absent = run([tool("hm-dump"), path, CUTLASS_GEMM, FLASH_FWD, SOFTMAX]).stdout
        self.assertIn(f"region {CUTLASS_GEMM} 2 800000 420000 {2 << 20}", absent)
        self.assertIn(f"region {FLASH_FWD} 1 250000 250000 {3 << 20}", absent)
        self.assertIn(f"absent {SOFTMAX}", absent)
