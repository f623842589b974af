#!/usr/bin/env python3
"""Tests of gpu_compare.py and torch_workload.py's trace reduction, with canned inputs: no GPU,
no torch. Run: python3 native-bench/gpu/test_gpu_compare.py (test_gpu_run.sh runs it).
The stored form of a long name is computed with hashlib (SHA-256), as FORMAT.md section 1.1 says."""
import io
import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gpu_compare  # noqa: E402
import torch_workload  # noqa: E402

FILL = ("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> >"
        "(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)")
GEMM = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas"
# hm-standin-gpu's 1,054-byte kernel, and the name the collector stored for it in a file of limit
# 1024 (from a stand-in run: build/hm-dump of its hint file): 991 bytes, "~", 32 hex digits of SHA-256.
TILE = "void at::native::tile_kernel<%s >()" % ", ".join(
    "at::native::TileShape<%d, %d, %d>" % (i, i + 1, i + 2) for i in range(30))
TILE_STORED = TILE.encode()[:991].decode() + "~035cce2443d23d515d8f371bec94af75"


def dump(regions):
    """hm-dump's listing of {name: count} (ns = 10 x count)."""
    lines = ["region %s %d %d %d %d" % (n, c, 10 * c, 10, 0) for n, c in regions.items()]
    return "\n".join(lines + ["size %d capacity 4096" % len(regions)]) + "\n"


class StoredNameTest(unittest.TestCase):
    def test_a_name_within_the_limit_is_kept(self):
        self.assertEqual(FILL, gpu_compare.stored_name(FILL, 1024))
        self.assertEqual("x" * 64, gpu_compare.stored_name("x" * 64, 64))

    def test_a_longer_name_keeps_a_prefix_and_the_digest(self):
        s = gpu_compare.stored_name("y" * 65, 64)
        self.assertEqual("y" * 31 + "~", s[:32])
        self.assertEqual(64, len(s.encode()))

    def test_the_cut_falls_on_a_character_boundary(self):
        name = "k" * 30 + "\u00e9" + "z" * 50  # é is 2 bytes: bytes 30-31; the cut at 31 would split it
        s = gpu_compare.stored_name(name, 64)
        self.assertEqual("k" * 30 + "~", s[:31])
        self.assertEqual(63, len(s.encode()))

    def test_the_rule_gives_what_the_collector_stored(self):
        self.assertEqual(1054, len(TILE.encode()))
        self.assertEqual(TILE_STORED, gpu_compare.stored_name(TILE, 1024))

    def test_the_rule_gives_the_shared_stored_name_vectors(self):
        vectors = os.path.join(HERE, "..", "..", "src", "test", "resources", "vectors", "stored-names.txt")
        rows = 0
        with open(vectors, encoding="utf-8") as f:
            for line in f:
                line = line.rstrip("\n")
                if not line or line.startswith("#"):
                    continue
                limit, stored, name = line.split("\t")
                self.assertEqual(stored, gpu_compare.stored_name(name, int(limit)), line)
                rows += 1
        self.assertEqual(91, rows)


class DumpTest(unittest.TestCase):
    def test_names_with_spaces_and_the_size_line(self):
        text = "region %s 63 320820 5499 0\nregion [memcpy HtoD] 1 1548 1548 1048576\nsize 2 capacity 4096\n" % FILL
        self.assertEqual({FILL: (63, 320820), "[memcpy HtoD]": (1, 1548)}, gpu_compare.parse_dump(text))


class CompareKernelsTest(unittest.TestCase):
    profile = {"kernels": {FILL: {"count": 63, "total_us": 320.0}, GEMM: {"count": 90, "total_us": 700.0},
                           TILE: {"count": 30, "total_us": 100.0}},
               "transfers": {"[memcpy HtoD]": 1, "[memcpy DtoH]": 30}}

    def hint_file(self, **changes):
        regions = {FILL: 63, GEMM: 90, TILE_STORED: 30, "[memcpy HtoD]": 1, "[memcpy DtoH]": 30}
        regions.update(changes)
        return gpu_compare.parse_dump(dump({k: v for k, v in regions.items() if v is not None}))

    def compare(self, regions):
        return gpu_compare.compare_kernels(self.profile, regions, 1024)

    def test_equal_counts_pass_and_the_long_name_is_matched_and_counted(self):
        r = self.compare(self.hint_file())
        self.assertEqual([], r["differences"])
        self.assertEqual((3, 3, 1, 183, 183), (r["names"], r["equal"], r["over_limit"], r["launches"], r["dispatches"]))

    def test_a_count_that_differs_is_named(self):
        r = self.compare(self.hint_file(**{GEMM: 89}))
        self.assertEqual(["COUNT %s: profiler 90, hint file 89" % GEMM], r["differences"])

    def test_kernels_on_one_side_only_are_named(self):
        r = self.compare(self.hint_file(**{FILL: None, "void extra()": 4}))
        self.assertEqual(167, len(FILL))  # over 160 bytes: labelled by a prefix and the length
        self.assertEqual(["ONLY-IN-PROFILER %s...(167 bytes): 63 launches, the hint file none" % FILL[:150],
                          "ONLY-IN-HINT-FILE void extra(): 4 dispatches, the profiler none"], r["differences"])

    def test_transfers_are_reported_not_compared(self):
        r = self.compare(self.hint_file(**{"[memcpy DtoH]": 29}))
        self.assertEqual([], r["differences"])
        self.assertIn("[memcpy DtoH] profiler 30, hint file 29 (differs)", r["transfers"])

    def test_the_command_exits_1_on_a_difference_and_names_it(self):
        with tempfile.TemporaryDirectory() as d:
            prof = os.path.join(d, "p.json")
            with open(prof, "w") as f:
                json.dump({"kernels": {FILL: {"count": 2}, GEMM: {"count": 3}}}, f)
            good, bad = os.path.join(d, "good.dump"), os.path.join(d, "bad.dump")
            with open(good, "w") as f:
                f.write(dump({FILL: 2, GEMM: 3}))
            with open(bad, "w") as f:
                f.write(dump({FILL: 2, GEMM: 4}))
            out = io.StringIO()
            self.assertEqual(0, gpu_compare.main(["kernels", "--profile", prof, "--dump", good, "--dump", good], out))
            self.assertIn("result: kernels PASS runs=2 differing_runs=0 names=2 over_limit=0", out.getvalue())
            out = io.StringIO()
            self.assertEqual(1, gpu_compare.main(["kernels", "--profile", prof, "--dump", good, "--dump", bad], out))
            self.assertIn("COUNT %s: profiler 3, hint file 4" % GEMM, out.getvalue())
            self.assertIn("result: kernels FAIL runs=2 differing_runs=1", out.getvalue())


class OverheadTest(unittest.TestCase):
    def test_medians_after_warmup_and_their_ratio(self):
        runs_with = [{"warmup": 2, "step_ms": [50, 40, 2.04, 2.06, 2.05]}, {"warmup": 1, "step_ms": [9, 2.00, 2.10, 2.08]},
                     {"warmup": 0, "step_ms": [2.02]}]
        runs_without = [{"warmup": 2, "step_ms": [60, 30, 2.0, 2.0, 2.0]}, {"warmup": 0, "step_ms": [1.9, 2.1]}]
        o = gpu_compare.overhead(runs_with, runs_without)
        self.assertEqual([2.05, 2.08, 2.02], o["with"])
        self.assertEqual([2.0, 2.0], o["without"])
        self.assertAlmostEqual(2.05 / 2.0, o["ratio"])

    def test_the_command_reports_the_goal_and_never_fails_on_it(self):
        with tempfile.TemporaryDirectory() as d:
            paths = []
            for i, ms in enumerate([1.02, 1.02, 1.0, 1.0]):
                paths.append(os.path.join(d, "%d.json" % i))
                with open(paths[-1], "w") as f:
                    json.dump({"warmup": 0, "step_ms": [ms]}, f)
            prof = os.path.join(d, "p.json")
            with open(prof, "w") as f:
                json.dump({"steps": 4, "kernels": {"a": {"count": 4, "total_us": 6000}}}, f)
            out = io.StringIO()
            rc = gpu_compare.main(["overhead", "--with", paths[0], paths[1], "--without", paths[2], paths[3],
                                   "--profile", prof], out)
            self.assertEqual(0, rc)
            self.assertIn("result: overhead ratio=1.020 with_ms=1.0200 without_ms=1.0000 reps=2/2 goal=not-met "
                          "kernel_ms_per_step=1.500", out.getvalue())


class TraceTest(unittest.TestCase):
    def test_kernels_and_transfers_from_a_chrome_trace(self):
        trace = {"traceEvents": [
            {"ph": "X", "cat": "kernel", "name": FILL, "dur": 3.5},
            {"ph": "X", "cat": "kernel", "name": FILL, "dur": 1.5},
            {"ph": "X", "cat": "kernel", "name": GEMM, "dur": 10},
            {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "dur": 4},
            {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "dur": 2},
            {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoD (Device -> Device)", "dur": 2},
            {"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "dur": 1},
            {"ph": "f", "cat": "ac2g", "name": "ac2g"},
            {"ph": "X", "cat": "kernel", "name": GEMM},
        ]}
        kernels, transfers = torch_workload.kernel_counts_from_trace(trace)
        self.assertEqual({FILL: {"count": 2, "total_us": 5.0}, GEMM: {"count": 2, "total_us": 10.0}}, kernels)
        self.assertEqual({"[memcpy HtoD]": 1, "[memcpy DtoD]": 1, "[memset]": 1}, transfers)
        self.assertEqual((kernels, transfers), torch_workload.kernel_counts_from_trace(trace["traceEvents"]))

    def test_the_workload_refuses_bad_step_counts_before_importing_torch(self):
        with self.assertRaises(SystemExit):
            torch_workload.main(["--steps", "10", "--warmup", "10"])


def has_torch():
    try:
        import torch  # noqa: F401
        return True
    except ImportError:
        return False


@unittest.skipUnless(has_torch(), "no torch in this python3: torch_workload.py's run not tried (the GPU run is its "
                                  "first; /usr/bin/python3 with Debian's python3-torch tries it on the CPU)")
class TorchWorkloadOnTheCpuTest(unittest.TestCase):
    """The whole script but the GPU: a tiny model on the CPU, plain and under the profiler."""

    args = ["--device", "cpu", "--steps", "3", "--warmup", "1", "--batch", "2", "--seq", "8", "--d-model", "32",
            "--heads", "4", "--ff", "64", "--layers", "1"]

    def test_a_plain_run_and_a_profiled_run_write_their_json(self):
        with tempfile.TemporaryDirectory() as d:
            out, prof = os.path.join(d, "run.json"), os.path.join(d, "profile.json")
            self.assertEqual(0, torch_workload.main(self.args + ["--out", out]))
            self.assertEqual(0, torch_workload.main(self.args + ["--profile", prof]))
            run, profile = gpu_compare.load_json(out), gpu_compare.load_json(prof)
            self.assertEqual(("run", 3, 1, 3, "cpu"), (run["mode"], run["steps"], run["warmup"], len(run["step_ms"]),
                                                        run["device"]))
            self.assertEqual(("profile", {}, 3), (profile["mode"], profile["kernels"], len(profile["step_ms"])))
            self.assertEqual([], [f for f in os.listdir(d) if f not in ("run.json", "profile.json")])  # no trace left


if __name__ == "__main__":
    unittest.main(verbosity=1)
