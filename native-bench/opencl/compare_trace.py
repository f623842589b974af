#!/usr/bin/python3
"""Compares what the OpenCL layer recorded into a hint file with PoCL's own trace of the same run.

PoCL's text tracer (``POCL_TRACING=text POCL_TRACING_OPT=FILE``) writes one line per status change of
every command, ``TIMESTAMP | EV ID n | DEV d | CQ q | ndrange_kernel | running|complete | KERNEL ID k |
name=NAME``; on a profiling queue (the layer makes every queue one) the timestamps of ``running`` and
``complete`` are the command's profiling START and END. So per kernel name the trace gives an
independent count of the kernels that ran, and their time.

    compare_trace.py TRACE HINTS [--expect FILE]

Per kernel name (a region's name up to its build tag ``#`` or shape ``[``, so that the regions of
one kernel are summed): dispatches in the trace and in the file, kernel ns in both and their
difference. ``--expect FILE`` adds the program's own count: lines ``expected NAME COUNT [BYTES]``
(the PyOpenCL workload prints them). Exit status 0 when every name and count agrees (and bytes, where
expected), 1 otherwise; the ns difference is measured and printed, not judged.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import hintmap  # noqa: E402  (the repository's module, over native-bench/build/libhintmap.so)


def read_trace(path: str) -> tuple[collections.Counter, collections.Counter]:
    """Per kernel name: completed kernel commands, and the sum of END - START over them."""
    events: dict[str, dict[str, object]] = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = [p.strip() for p in line.split("|")]
            if len(parts) < 8 or parts[4] != "ndrange_kernel" or not parts[-1].startswith("name="):
                continue
            e = events.setdefault(parts[1], {"name": parts[-1][len("name="):]})
            e[parts[5]] = int(parts[0])
    count: collections.Counter = collections.Counter()
    ns: collections.Counter = collections.Counter()
    for e in events.values():
        if "complete" in e:
            count[e["name"]] += 1
            ns[e["name"]] += int(e["complete"]) - int(e.get("running", e["complete"]))
    return count, ns


def base_name(region: str) -> str:
    """The kernel's name: the region's name without its build tag or shape (hmo_naming.h)."""
    cut = [i for i in (region.find("#"), region.find("[")) if i > 0]
    return region[: min(cut)] if cut else region


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("hints")
    ap.add_argument("--expect", help="lines 'expected NAME COUNT [BYTES]' from the program")
    args = ap.parse_args()

    trace_count, trace_ns = read_trace(args.trace)
    count: collections.Counter = collections.Counter()
    ns: collections.Counter = collections.Counter()
    nbytes: collections.Counter = collections.Counter()
    regions: collections.Counter = collections.Counter()
    with hintmap.open(args.hints, read_only=True) as store:
        for r in store:
            k = base_name(r.name)
            count[k] += r.dispatch_count
            ns[k] += r.kernel_ns_total
            nbytes[k] += r.bytes_total
            regions[k] += 1
    expected: dict[str, tuple[int, int | None]] = {}
    if args.expect:
        with open(args.expect, encoding="utf-8") as f:
            for line in f:
                w = line.split()
                if len(w) >= 3 and w[0] == "expected":
                    expected[w[1]] = (int(w[2]), int(w[3]) if len(w) > 3 else None)

    ok = True
    worst_pct = 0.0
    print(f"{'kernel':<36} {'regions':>7} {'trace':>8} {'file':>8} {'program':>8} {'trace ns':>14} {'file ns':>14} {'diff ns':>9}  verdict")
    for k in sorted(set(trace_count) | set(count) | set(expected)):
        want = expected.get(k)
        good = trace_count[k] == count[k] and (want is None or want[0] == count[k])
        bytes_note = ""
        if want is not None and want[1] is not None:
            good &= want[1] == nbytes[k]
            bytes_note = f" bytes {nbytes[k]} (program {want[1]})"
        diff = ns[k] - trace_ns[k]
        if trace_ns[k]:
            worst_pct = max(worst_pct, abs(diff) / trace_ns[k] * 100)
        ok &= good
        print(f"{k:<36} {regions[k]:>7} {trace_count[k]:>8} {count[k]:>8} {want[0] if want else '-':>8} "
              f"{trace_ns[k]:>14} {ns[k]:>14} {diff:>9}  {'ok' if good else 'MISMATCH'}{bytes_note}")
    total = sum(trace_count.values())
    print(f"compare-trace: {'PASS' if ok else 'FAIL'} kernels={len(set(trace_count) | set(count))} dispatches_trace={total} "
          f"dispatches_file={sum(count.values())} ns_diff_max_pct={worst_pct:.4f}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
