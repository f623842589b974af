"""A hint file truncated or replaced in place under an open store (another program's ``truncate``,
``> FILE``, ``cp`` over it): every call raises HintmapError, none kills the interpreter.

Each scenario runs in a child interpreter, so that a call that dies of SIGBUS fails the test (naming
the call) instead of killing the test run. The child opens a fresh file for every call, so that each
call meets the lost pages first, not a store that an earlier call already found faulted.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from typing import Dict, List

from .support import PYTHON_DIR, TempDirTest, library

# The child: for each call named on the command line, a fresh store with three kernels recorded and a
# handle, the file cut as asked, the call, then a read of a recorded region and close. One JSON line
# per call on stdout; "calling NAME" (and each later step) on stderr first, so that a child that dies
# names its step.
CHILD = r'''
import json, os, shutil, struct, sys
import hintmap

KERNELS = [
    "void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>(Params const&)",
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 3> >"
    "(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3>)",
    "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64, 64, 4, false, false, cutlass::half_t> >"
    "(Flash_fwd_params)",
]
NEW = "void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 4, 4, false, false>(float const*, float*, int)"
SLOTS_OFFSET = 80  # FORMAT §3.1: the header's slots_offset, a little-endian u64

CALLS = {
    "len": lambda s, h: len(s),
    "list": lambda s, h: list(s),
    "sorted": lambda s, h: sorted(s),
    "comprehension": lambda s, h: [r for r in s],
    "hottest(1)": lambda s, h: s.hottest(1),
    "hottest(2)": lambda s, h: s.hottest(2),
    "hottest(5)": lambda s, h: s.hottest(5),
    "hottest(3, mean)": lambda s, h: s.hottest(3, "mean"),
    "hot_set": lambda s, h: s.hot_set(0.95),
    "is_hot": lambda s, h: s.is_hot(KERNELS[0]),
    "dispatch_count": lambda s, h: s.dispatch_count(KERNELS[1]),
    "mean_kernel_ns": lambda s, h: s.mean_kernel_ns(KERNELS[2]),
    "record_for": lambda s, h: s.record_for(KERNELS[0]),
    "in": lambda s, h: KERNELS[1] in s,
    "record": lambda s, h: s.record(KERNELS[2], 300_000, 64),
    "record (insert)": lambda s, h: s.record(NEW, 300_000, 64),
    "region": lambda s, h: s.region(KERNELS[1]).close(),
    "info": lambda s, h: s.info(),
    "check": lambda s, h: s.check(),
    "flush": lambda s, h: s.flush(),
    "handle.record": lambda s, h: h.record(300_000, 64),
    "handle.record_for": lambda s, h: h.record_for(),
    "handle.is_hot": lambda s, h: h.is_hot(),
    "handle.dispatch_count": lambda s, h: h.dispatch_count(),
    "handle.mean_kernel_ns": lambda s, h: h.mean_kernel_ns(),
}


def outcome(fn):
    try:
        value = fn()
    except hintmap.HintmapError as e:
        return {"raised": e.code_name, "message": str(e)}
    return {"answered": repr(value)}


def cut(path, how, other):
    if how == "zero":
        os.truncate(path, 0)
    elif how == "slots":  # header, writer table, index and reference table remain; the slots are gone
        with open(path, "rb") as f:
            os.truncate(path, struct.unpack_from("<Q", f.read(4096), SLOTS_OFFSET)[0])
    else:  # "copy": cp of a smaller hint file over it (the same inode, truncated, then written)
        shutil.copyfile(other, path)


work, how = sys.argv[1], sys.argv[2]
other = os.path.join(work, "small.hints")
hintmap.open(other, capacity=8, max_name_bytes=64).close()
for name in sys.argv[3:]:
    path = os.path.join(work, "app.hints")
    if os.path.exists(path):
        os.unlink(path)
    store = hintmap.open(path, capacity=4096, max_name_bytes=256)  # slots start past the end of small.hints
    for k in KERNELS:
        store.record(k, 200_000, 64)
    handle = store.region(KERNELS[0])
    cut(path, how, other)
    print("calling", name, file=sys.stderr, flush=True)
    line = {"call": name, "result": outcome(lambda: CALLS[name](store, handle))}
    print("reading after", name, file=sys.stderr, flush=True)
    line["after"] = outcome(lambda: store.is_hot(KERNELS[0]))
    print("closing after", name, file=sys.stderr, flush=True)
    line["close"] = outcome(store.close)
    handle.close()
    print(json.dumps(line), flush=True)
'''

CALLS = ["len", "list", "sorted", "comprehension", "hottest(1)", "hottest(2)", "hottest(5)", "hottest(3, mean)",
         "hot_set", "is_hot", "dispatch_count", "mean_kernel_ns", "record_for", "in", "record", "record (insert)",
         "region", "info", "check", "flush", "handle.record", "handle.record_for", "handle.is_hot",
         "handle.dispatch_count", "handle.mean_kernel_ns"]

ECHANGED = {"raised": "HM_ECHANGED"}


def child_env() -> Dict[str, str]:
    """This test run's package and C library, for a child interpreter."""
    env = dict(os.environ)
    env.update(PYTHONPATH=str(PYTHON_DIR), HINTMAP_LIBRARY=str(library()), PYTHONDONTWRITEBYTECODE="1")
    return env


class TruncatedFileTest(TempDirTest):
    def run_child(self, how: str, calls: List[str], *flags: str) -> Dict[str, dict]:
        """The child's outcome of each call; fails naming the call when the child did not finish."""
        done = subprocess.run([sys.executable, *flags, "-c", CHILD, str(self.dir), how, *calls], capture_output=True,
                              text=True, env=child_env(), timeout=300, check=False)
        last = [line for line in done.stderr.splitlines() if line.startswith(("calling ", "reading ", "closing "))]
        if done.returncode != 0:
            died = f"killed by {signal.Signals(-done.returncode).name}" if done.returncode < 0 else f"exit {done.returncode}"
            self.fail(f"the child {died} during {last[-1] if last else 'set-up'!r} (file cut: {how})\n{done.stderr}")
        lines = [json.loads(line) for line in done.stdout.splitlines()]
        results = {line["call"]: line for line in lines}
        self.assertEqual(list(results), calls)
        return results

    def assert_echanged_throughout(self, results: Dict[str, dict], answering: Dict[str, str]) -> None:
        for call, line in results.items():
            with self.subTest(call=call):
                if call in answering:
                    self.assertEqual(line["result"], {"answered": answering[call]})
                else:
                    self.assertEqual({"raised": line["result"].get("raised")}, ECHANGED, line["result"])
                    self.assertIn("truncated", line["result"]["message"])
                self.assertEqual({"raised": line["after"].get("raised")}, ECHANGED, line["after"])
                self.assertEqual({"raised": line["close"].get("raised")}, ECHANGED, line["close"])

    # flush() is msync, which a truncated file does not fault (as Java's flush()): it answers; the
    # read after it raises.
    def test_every_call_on_a_file_truncated_to_zero_raises_echanged_and_none_kills_the_interpreter(self):
        self.assert_echanged_throughout(self.run_child("zero", CALLS), answering={"flush": "None"})

    def test_every_call_on_a_file_cut_where_its_slots_begin_raises_echanged_but_len_reads_the_header(self):
        # hm_size reads only the header, which remains: it answers, as Java's size() does; every call
        # that reaches a slot, and every bulk read (which checks the file first), raises.
        self.assert_echanged_throughout(self.run_child("slots", CALLS), answering={"len": "3", "flush": "None"})

    def test_a_file_copied_over_the_store_never_kills_the_interpreter(self):
        # cp truncates the file and writes a smaller hint file into the same inode: what a call reads is
        # the other file's bytes (answers from them are the other file's business) or a lost page
        # (HM_ECHANGED): never a crash. The read of a recorded region after each call reaches its slot,
        # past the other file's end.
        results = self.run_child("copy", CALLS)
        for call, line in results.items():
            with self.subTest(call=call):
                self.assertTrue("answered" in line["result"] or line["result"]["raised"] == "HM_ECHANGED", line["result"])
                self.assertEqual({"raised": line["after"].get("raised")}, ECHANGED, line["after"])
                self.assertEqual({"raised": line["close"].get("raised")}, ECHANGED, line["close"])
        self.assertEqual(results["check"]["result"].get("raised"), "HM_ECHANGED")  # fstat: shorter than mapped

    def test_with_faulthandler_enabled_first_every_call_still_raises(self):
        # pytest and `python -X faulthandler` install faulthandler's SIGBUS handler before any store
        # is opened; the guard installed after it takes the library's faults first.
        self.assert_echanged_throughout(self.run_child("zero", CALLS, "-X", "faulthandler"), answering={"flush": "None"})


# A SIGBUS that is not the library's: Python's own mmap of another truncated file, after a store
# was opened (so the guard is installed).
UNRELATED_FAULT = r'''
import mmap, os, sys
import hintmap

work = sys.argv[1]
hintmap.open(os.path.join(work, "app.hints"), capacity=8).record("void k<float>(float*)", 1)
with open(os.path.join(work, "plain.bin"), "w+b") as f:
    f.truncate(8192)
    view = mmap.mmap(f.fileno(), 8192)
    f.truncate(0)
    print(view[0])
'''


class UnrelatedFaultTest(TempDirTest):
    def test_a_bus_error_outside_the_library_still_kills_the_interpreter(self):
        for flags in ([], ["-X", "faulthandler"]):
            with self.subTest(flags=flags):
                done = subprocess.run([sys.executable, *flags, "-c", UNRELATED_FAULT, str(self.dir)],
                                      capture_output=True, text=True, env=child_env(), timeout=120, check=False)
                self.assertEqual(done.returncode, -signal.SIGBUS, done.stderr)
                if flags:  # the guard passed the fault on to faulthandler, which reported it
                    self.assertIn("Fatal Python error: Bus error", done.stderr)
