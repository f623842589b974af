#!/usr/bin/env python3
"""gpu_compare.py - the comparisons of the GPU run (native-bench/gpu-run.sh), runnable and tested
without a GPU (test_gpu_compare.py, canned inputs). Python 3.8+, standard library only.

  gpu_compare.py kernels --profile PROFILE.json --dump RUN.dump [--dump RUN2.dump ...]
                         [--max-name-bytes L]
      The CUPTI collector's per-kernel dispatch counts (hm-dump's listing of its hint file, one
      per collector run) against torch.profiler's for the same steps (torch_workload.py
      --profile): name by name, exact. Transfer regions ([memcpy ...], [memset]) are compared
      too but only reported. Exit 1 on any kernel difference.

  gpu_compare.py overhead --with A.json [B.json ...] --without C.json [D.json ...] [--profile P.json]
      The median step time (after each run's warm-up steps) with and without the collector and
      their ratio; the goal (<= 1.01x for steps with >= 1 ms of GPU work) is reported, never
      enforced: this is a measurement. With --profile, the GPU kernel time per step.

Each ends with one "result: ..." line for the run's summary.
"""
import argparse
import hashlib
import json
import os
import statistics
import sys

TRANSFER_PREFIXES = ("[memcpy ", "[memset]")


# ---- names: the one place that knows how the collector stores a name longer than the file's limit
def stored_name(name, limit):
    """The name under which a file whose max_name_bytes is `limit` (33..1024) stores kernel `name`
    (FORMAT.md section 1.1, format version 3, the rule every library and the collector apply; C
    hm_name_canonical, Java HintStore.storedName): a name of at most `limit` UTF-8 bytes as is; a
    longer one: its longest prefix of at most limit - 33 bytes ending on a character boundary,
    "~", and the 32 lowercase hex digits of the first 16 bytes of SHA-256 over the whole name.
    Checked against the shared vectors (src/test/resources/vectors/stored-names.txt) by
    test_gpu_compare.py."""
    data = name.encode("utf-8")
    if len(data) <= limit:
        return name
    tag = "~" + hashlib.sha256(data).hexdigest()[:32]
    cut = limit - len(tag)
    while cut > 0 and (data[cut] & 0xC0) == 0x80:  # a continuation byte: not a boundary
        cut -= 1
    return data[:cut].decode("utf-8") + tag


# ---- inputs
def parse_dump(text):
    """hm-dump's listing: {name: (dispatch_count, kernel_ns_total)}. Lines are
    'region <name> <count> <ns_total> <ns_max> <bytes_total>' (names may hold spaces) and a last
    'size N capacity M'."""
    regions = {}
    for line in text.splitlines():
        if not line.startswith("region "):
            continue
        head, count, total, _max, _bytes = line[len("region "):].rsplit(" ", 4)
        regions[head] = (int(count), int(total))
    return regions


def is_transfer(name):
    return name.startswith(TRANSFER_PREFIXES)


def load_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


# ---- kernels
def compare_kernels(profile, regions, limit):
    """One collector run (`regions`, from parse_dump) against the profiler (`profile`, the
    --profile JSON). Returns a dict of findings; 'differences' lists one text per difference."""
    expected = {}  # stored name -> (profiler count, [full names])
    over_limit = 0
    for name, entry in profile.get("kernels", {}).items():
        key = stored_name(name, limit)
        if key != name:
            over_limit += 1
        count, names = expected.get(key, (0, []))
        expected[key] = (count + int(entry["count"]), names + [name])
    found = {n: c for n, (c, _t) in regions.items() if not is_transfer(n)}
    differences = []
    equal = 0
    for key in sorted(set(expected) | set(found)):
        want = expected.get(key, (None, []))[0]
        got = found.get(key)
        label = key if len(key) <= 160 else key[:150] + "...(%d bytes)" % len(key.encode("utf-8"))
        if want is None:
            differences.append("ONLY-IN-HINT-FILE %s: %d dispatches, the profiler none" % (label, got))
        elif got is None:
            differences.append("ONLY-IN-PROFILER %s: %d launches, the hint file none" % (label, want))
        elif want != got:
            differences.append("COUNT %s: profiler %d, hint file %d" % (label, want, got))
        else:
            equal += 1
        if len(expected.get(key, (0, []))[1]) > 1:  # two names stored alike: a digest collision
            differences.append("MERGED %s: %d profiler names share it" % (label, len(expected[key][1])))
    transfers = []
    for name, count in sorted(profile.get("transfers", {}).items()):
        got = regions.get(name, (0, 0))[0]
        transfers.append("%s profiler %d, hint file %d%s" % (name, count, got, "" if got == count else " (differs)"))
    return {
        "names": len(expected),
        "launches": sum(c for c, _ in expected.values()),
        "regions": len(found),
        "dispatches": sum(found.values()),
        "equal": equal,
        "over_limit": over_limit,
        "differences": differences,
        "transfers": transfers,
        "profiler_kernel_us": sum(float(e.get("total_us", 0)) for e in profile.get("kernels", {}).values()),
        "hint_kernel_us": sum(t for n, (_c, t) in regions.items() if not is_transfer(n)) / 1000.0,
    }


def cmd_kernels(args, out):
    profile = load_json(args.profile)
    failed = 0
    over = 0
    for path in args.dump:
        with open(path, encoding="utf-8", errors="replace") as f:
            r = compare_kernels(profile, parse_dump(f.read()), args.max_name_bytes)
        over = r["over_limit"]
        verdict = "equal" if not r["differences"] else "%d DIFFERENCE(S)" % len(r["differences"])
        print("%s: %d kernel regions / %d dispatches; profiler %d names / %d launches; %d equal; %s"
              % (os.path.basename(path), r["regions"], r["dispatches"], r["names"], r["launches"], r["equal"], verdict),
              file=out)
        print("  names over the file's %d-byte limit: %d (stored shortened, matched by the collector's rule)"
              % (args.max_name_bytes, r["over_limit"]), file=out)
        for d in r["differences"]:
            print("  " + d, file=out)
        for t in r["transfers"]:
            print("  transfers (reported only): " + t, file=out)
        if r["profiler_kernel_us"] > 0:
            print("  kernel time (separate runs, reported only): profiler %.0f us, hint file %.0f us (x%.3f)"
                  % (r["profiler_kernel_us"], r["hint_kernel_us"], r["hint_kernel_us"] / r["profiler_kernel_us"]), file=out)
        failed += 1 if r["differences"] else 0
    print("result: kernels %s runs=%d differing_runs=%d names=%d over_limit=%d"
          % ("PASS" if failed == 0 else "FAIL", len(args.dump), failed, r["names"] if args.dump else 0, over), file=out)
    return 1 if failed else 0


# ---- overhead
def run_median(run):
    """The median step time of one run, its warm-up steps left out."""
    steps = run["step_ms"][int(run.get("warmup", 0)):]
    if not steps:
        raise ValueError("a run with no step after its warm-up")
    return statistics.median(steps)


def overhead(with_runs, without_runs):
    w = [run_median(r) for r in with_runs]
    wo = [run_median(r) for r in without_runs]
    mw, mwo = statistics.median(w), statistics.median(wo)
    return {"with": w, "without": wo, "with_ms": mw, "without_ms": mwo, "ratio": mw / mwo}


def kernel_ms_per_step(profile):
    steps = int(profile.get("steps", 0))
    total_us = sum(float(e.get("total_us", 0)) for e in profile.get("kernels", {}).values())
    return total_us / 1000.0 / steps if steps else 0.0


def cmd_overhead(args, out):
    o = overhead([load_json(p) for p in args.with_runs], [load_json(p) for p in args.without_runs])
    met = o["ratio"] <= 1.01
    gpu = kernel_ms_per_step(load_json(args.profile)) if args.profile else None
    print("median step: %.4f ms with the collector (runs %s), %.4f ms without (runs %s): ratio %.3f (goal <= 1.01: %s)"
          % (o["with_ms"], ", ".join("%.4f" % x for x in o["with"]), o["without_ms"],
             ", ".join("%.4f" % x for x in o["without"]), o["ratio"], "met" if met else "NOT met"), file=out)
    if gpu is not None:
        print("GPU kernel time per step (profiler): %.3f ms (the goal is for steps with >= 1 ms)" % gpu, file=out)
    print("result: overhead ratio=%.3f with_ms=%.4f without_ms=%.4f reps=%d/%d goal=%s kernel_ms_per_step=%s"
          % (o["ratio"], o["with_ms"], o["without_ms"], len(o["with"]), len(o["without"]), "met" if met else "not-met",
             "%.3f" % gpu if gpu is not None else "-"), file=out)
    return 0


def main(argv=None, out=sys.stdout):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    k = sub.add_parser("kernels", help="hint file vs torch.profiler, per kernel")
    k.add_argument("--profile", required=True)
    k.add_argument("--dump", required=True, action="append")
    k.add_argument("--max-name-bytes", type=int, default=1024)
    o = sub.add_parser("overhead", help="median step time with/without the collector")
    o.add_argument("--with", dest="with_runs", nargs="+", required=True)
    o.add_argument("--without", dest="without_runs", nargs="+", required=True)
    o.add_argument("--profile", default=None)
    args = p.parse_args(argv)
    return cmd_kernels(args, out) if args.cmd == "kernels" else cmd_overhead(args, out)


if __name__ == "__main__":
    sys.exit(main())
