"""What a hint costs a Python program: per call in a running process, and per process.

    python3 python/benchmarks/read_cost.py [--cli target/hintmap-VERSION/bin/hintmap] [--repeat 9]

Makes a hint file of 64 regions with 200-byte templated kernel names (default layout: stored
whole), then measures

* per call, in this process (``timeit``, ``--repeat`` rounds of 100,000 calls, timed by this
  thread's CPU time, best and median, and by the wall clock, median):
  ``store.is_hot(name)`` of a hot region and of an absent one, ``dispatch_count``, ``record_for``,
  ``Region.is_hot()``, ``store.record``, and the bare ctypes call of ``hm_is_hot`` (the floor a
  ctypes binding can reach);
* per process (median wall and CPU time of ``--repeat`` runs after one warm-up): a Python process that
  imports hintmap, opens the file read-only and asks ``is_hot`` once, beside ``python3 -c pass`` (the
  interpreter's own start) and ``hintmap dump --format json FILE`` (the route without this module:
  a JVM per question) when ``--cli`` exists.

Prints a Markdown table and the load average (the machine is shared: read the ratios).
"""

from __future__ import annotations

import argparse
import glob
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import hintmap  # noqa: E402  (after the path of the checkout's package)

CALLS = 100_000


def kernel(i: int) -> str:
    head = f"void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8_{i:05d}, "
    return (head + "cute::tuple<int, int>, cutlass::epilogue::collective::DefaultEpilogue<float, 8>, cute::C<1> >(Params)" * 2)[:200]


def per_call(stmt: str, env: dict, repeat: int) -> tuple:
    """ns per call: best and median CPU time of this thread (what a shared, loaded machine distorts
    least), and the median wall time."""
    cpu = [t / CALLS * 1e9 for t in timeit.repeat(stmt, globals=env, number=CALLS, repeat=repeat, timer=time.thread_time)]
    wall = [t / CALLS * 1e9 for t in timeit.repeat(stmt, globals=env, number=CALLS, repeat=repeat)]
    return min(cpu), statistics.median(cpu), statistics.median(wall)


def per_process(argv: list, repeat: int, env: dict) -> tuple:
    """Seconds per process: median wall time and median CPU time (user + system, from the kernel's
    accounting of each finished child)."""
    subprocess.run(argv, check=True, capture_output=True, env=env)  # warm-up: page cache, JIT caches
    walls, cpus = [], []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True, env=env)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    clis = sorted(glob.glob(str(HERE.parent.parent / "target" / "hintmap-*" / "bin" / "hintmap")))
    parser.add_argument("--cli", default=clis[-1] if clis else None, help="the hintmap command (distribution)")
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="hintmap-read-cost-") as tmp:
        path = os.path.join(tmp, "bench.hints")
        names = [kernel(i) for i in range(64)]
        with hintmap.open(path, capacity=256) as store:
            for i, name in enumerate(names):
                for _ in range(10):
                    store.record(name, 200_000 if i % 2 else 20_000, 1 << 20)
        hot = names[1]
        absent = kernel(999)
        rows = []
        with hintmap.open(path) as store, store.region(hot) as region:
            lib, ptr, raw = store._lib, store._ptr, hot.encode()
            env = {"store": store, "region": region, "hot": hot, "absent": absent, "lib": lib, "ptr": ptr, "raw": raw}
            for label, stmt in (
                ("`store.is_hot(name)`, hot region", "store.is_hot(hot)"),
                ("`store.is_hot(name)`, absent region", "store.is_hot(absent)"),
                ("`store.dispatch_count(name)`", "store.dispatch_count(hot)"),
                ("`store.record_for(name)`", "store.record_for(hot)"),
                ("`region.is_hot()` (handle)", "region.is_hot()"),
                ("`store.record(name, ns, bytes)`", "store.record(hot, 200_000, 1 << 20)"),
                ("bare ctypes `hm_is_hot(s, name, len)` (floor)", "lib.hm_is_hot(ptr, raw, len(raw))"),
            ):
                best, median, wall = per_call(stmt, env, args.repeat)
                rows.append((label, f"{best:,.0f} ns", f"{median:,.0f} ns", f"{wall:,.0f} ns", ""))

        child_env = dict(os.environ, PYTHONPATH=str(HERE.parent), HINTMAP_LIBRARY=hintmap.library_path())
        probe = [sys.executable, "-c", f"import hintmap; s = hintmap.open({path!r}, read_only=True); s.is_hot({hot!r})"]
        floor_wall, floor_cpu = per_process([sys.executable, "-c", "pass"], args.repeat, child_env)
        py_wall, py_cpu = per_process(probe, args.repeat, child_env)
        rows.append(("a Python process that does nothing (`python3 -c pass`: the floor)", "", f"{floor_cpu * 1e3:,.0f} ms",
                     f"{floor_wall * 1e3:,.0f} ms", ""))
        rows.append(("a Python process: import, open read-only, one `is_hot`", "", f"{py_cpu * 1e3:,.0f} ms",
                     f"{py_wall * 1e3:,.0f} ms", f"{py_cpu / floor_cpu:.1f}x the floor (CPU)"))
        if args.cli and os.path.exists(args.cli):
            cli_wall, cli_cpu = per_process([args.cli, "dump", path, "--format", "json"], args.repeat, dict(os.environ))
            rows.append((f"`hintmap dump --format json FILE` ({Path(args.cli).parent.parent.name})", "",
                         f"{cli_cpu * 1e3:,.0f} ms", f"{cli_wall * 1e3:,.0f} ms",
                         f"{cli_cpu / py_cpu:.1f}x (CPU), {cli_wall / py_wall:.1f}x (wall) the Python process"))

    print(f"Python {sys.version.split()[0]} ({sys.executable}), library {hintmap.library_path()} {hintmap.library_version()}, "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, {args.repeat} rounds")
    print()
    print("| what | best CPU | median CPU | median wall | |")
    print("|---|---:|---:|---:|---|")
    for label, best, median, wall, note in rows:
        print(f"| {label} | {best} | {median} | {wall} | {note} |")


if __name__ == "__main__":
    main()
