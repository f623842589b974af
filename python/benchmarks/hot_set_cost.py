"""What ``store.hot_set`` costs a Python program, per call, beside the C call it wraps.

    python3 python/benchmarks/hot_set_cost.py [--regions 64,4096] [--repeat 7]

For each file size, makes a hint file (in a temporary folder) of that many regions with 200-byte
templated kernel names (the default layout: stored whole) and kernel totals spread over two orders
of magnitude, opens it read-only, then times (``timeit``, ``--repeat`` rounds of about 0.2 s each,
by this thread's CPU time: best and median):

* ``store.hot_set(0.95)``: the check of the file, the buffers, ``hm_hot_set`` and the ``HotSet``;
* the bare ctypes call of ``hm_hot_set`` into buffers made once (the floor of a ctypes binding);
* ``store.hottest(10)``: the Python route to "the hottest regions" (iteration, one call per slot).

Prints a Markdown table and the load average (the machine is shared: read the ratios).
"""

from __future__ import annotations

import argparse
import ctypes
import os
import statistics
import sys
import tempfile
import time
import timeit
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import hintmap  # noqa: E402  (after the path of the checkout's package)
from hintmap import _native  # noqa: E402


def kernel(i: int) -> str:
    return f"void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8_{i:05d}>(Params)".ljust(200, "_")


def per_call(stmt: str, env: dict, repeat: int) -> tuple:
    """µs per call, by this thread's CPU time: best and median of ``repeat`` rounds."""
    timer = timeit.Timer(stmt, globals=env, timer=time.thread_time)
    number = max(1, int(0.2 / max(timer.timeit(1), 1e-7)))
    times = [t / number * 1e6 for t in timer.repeat(repeat=repeat, number=number)]
    return min(times), statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--regions", default="64,4096", help="file sizes, regions, comma-separated")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="hintmap-hot-set-cost-") as tmp:
        for n in (int(x) for x in args.regions.split(",")):
            path = os.path.join(tmp, f"{n}.hints")
            with hintmap.open(path, capacity=max(256, n)) as store:
                for i in range(n):
                    store.record(kernel(i), 1_000 * (i % 97 + 1))
            with hintmap.open(path, read_only=True) as store:
                stride = store.max_name_bytes
                env = {"store": store, "lib": store._lib, "ptr": store._ptr, "n": n, "stride": stride,
                       "regions": (_native.HmHotRegion * n)(), "names": ctypes.create_string_buffer(n * stride),
                       "info": _native.HmHotSetInfo(), "byref": ctypes.byref}
                in_set = len(store.hot_set(0.95))
                for label, stmt in (
                    ("`store.hot_set(0.95)`", "store.hot_set(0.95)"),
                    ("bare ctypes `hm_hot_set` (floor)", "lib.hm_hot_set(ptr, 0.95, 1, regions, n, names, n * stride, byref(info))"),
                    ("`store.hottest(10)`", "store.hottest(10)"),
                ):
                    best, median = per_call(stmt, env, args.repeat)
                    rows.append((f"{n:,}", label, f"{best:,.1f} µs", f"{median:,.1f} µs", f"{in_set:,} in the set"))
    print(f"Python {sys.version.split()[0]}, library {hintmap.library_path()} {hintmap.library_version()}, "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, {args.repeat} rounds")
    print()
    print("| regions | what | best CPU | median CPU | |")
    print("|---:|---|---:|---:|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
