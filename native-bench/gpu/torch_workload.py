#!/usr/bin/env python3
"""torch_workload.py - the PyTorch workload of the GPU run (native-bench/gpu-run.sh): a small
transformer encoder trained for a fixed number of steps (forward in bf16 autocast, backward, AdamW
step), fixed sizes and seed, so that two runs launch the same kernels the same number of times.

  python3 torch_workload.py --steps 200 --warmup 20 --out run.json
      a plain run; with CUDA_INJECTION64_PATH=.../libhintmap_cupti.so HINTMAP_NAME=demangled the
      CUPTI collector records every kernel into HINTMAP_FILE (nothing in this script changes)
  python3 torch_workload.py --steps 200 --warmup 20 --profile profile.json
      the same steps under torch.profiler (CUDA activities): per-kernel launch counts and times
      (CUPTI takes one subscriber: never together with the collector)

Both write one JSON: step_ms (each step synchronised, wall time), warmup, steps, torch, device,
libcupti (the libcupti files mapped in the process: one expected), and with --profile "kernels"
{demangled name: {count, total_us}} and "transfers" {"[memcpy HtoD]": count, ...} named as the
collector names them. Everything on the GPU happens inside the profiled span, from the model's
first copy to the device to the last synchronize, so both runs see the same launches.

The trace reduction (kernel_counts_from_trace) needs no torch and is tested without a GPU
(test_gpu_compare.py); --device cpu (with small sizes) runs the rest of the script where torch has
no GPU, to find a mistake in it before the GPU run does (CPU activities; no kernels).
"""
import argparse
import contextlib
import json
import os
import re
import sys
import tempfile
import time

TRANSFER_KIND = re.compile(r"^Memcpy (\w+)")


def transfer_region(name):
    """The collector's region for a profiler memcpy/memset event name ('Memcpy HtoD (Pageable ->
    Device)' -> '[memcpy HtoD]', 'Memset (Device)' -> '[memset]'), or None."""
    m = TRANSFER_KIND.match(name)
    if m:
        return "[memcpy %s]" % m.group(1)
    if name.startswith("Memset"):
        return "[memset]"
    return None


def kernel_counts_from_trace(trace):
    """Per-kernel counts and total durations, and per-kind transfer counts, from a chrome trace
    (torch.profiler's export_chrome_trace: events of category 'kernel', 'gpu_memcpy', 'gpu_memset').
    The trace is an object with "traceEvents" (kineto's) or, from a profiler built without kineto
    (Debian's torch 1.13), the bare list of events."""
    kernels, transfers = {}, {}
    for ev in trace.get("traceEvents", []) if isinstance(trace, dict) else trace:
        if ev.get("ph") != "X":
            continue
        cat = ev.get("cat")
        if cat == "kernel":
            e = kernels.setdefault(ev["name"], {"count": 0, "total_us": 0.0})
            e["count"] += 1
            e["total_us"] += float(ev.get("dur", 0))
        elif cat in ("gpu_memcpy", "gpu_memset"):
            region = transfer_region(ev["name"]) or "[%s other]" % cat
            transfers[region] = transfers.get(region, 0) + 1
    return kernels, transfers


def mapped_libcupti():
    """The libcupti files mapped in this process (the collector and torch must share one)."""
    try:
        with open("/proc/self/maps") as f:
            return sorted({line.split()[-1] for line in f if "libcupti" in line and "/" in line})
    except OSError:
        return []


def run(args):
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    torch.manual_seed(args.seed)
    gen = torch.Generator().manual_seed(args.seed)
    x_cpu = torch.randn(args.batch, args.seq, args.d_model, generator=gen)
    y_cpu = torch.randn(args.batch, args.seq, args.d_model, generator=gen)

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            layer = nn.TransformerEncoderLayer(args.d_model, args.heads, args.ff, dropout=0.1, batch_first=True,
                                               norm_first=True)
            self.encoder = nn.TransformerEncoder(layer, args.layers, enable_nested_tensor=False)
            self.head = nn.Linear(args.d_model, args.d_model)

        def forward(self, x):
            return self.head(self.encoder(x))

    model = Model()  # on the CPU: no kernel before the profiled span
    step_ms = []
    dev = torch.device(args.device)
    cuda = dev.type == "cuda"

    def sync():
        if cuda:
            torch.cuda.synchronize()

    prof_ctx = contextlib.nullcontext()
    if args.profile:
        from torch.profiler import ProfilerActivity, profile
        prof_ctx = profile(activities=[ProfilerActivity.CUDA if cuda else ProfilerActivity.CPU])
    with prof_ctx as prof:
        model = model.to(dev)
        x, y = x_cpu.to(dev), y_cpu.to(dev)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
        model.train()
        for _ in range(args.steps):
            t0 = time.perf_counter()
            opt.zero_grad(set_to_none=True)
            with torch.autocast(dev.type, dtype=torch.bfloat16):
                out = model(x)
            loss = F.mse_loss(out.float(), y)
            loss.backward()
            opt.step()
            sync()
            step_ms.append((time.perf_counter() - t0) * 1e3)
        sync()
    result = {
        "tool": "torch_workload.py", "mode": "profile" if args.profile else "run",
        "collector": bool(os.environ.get("CUDA_INJECTION64_PATH")),
        "steps": args.steps, "warmup": args.warmup, "step_ms": step_ms,
        "torch": torch.__version__, "cuda": torch.version.cuda,
        "device": torch.cuda.get_device_name() if cuda else str(dev),
        "sizes": {k: getattr(args, k) for k in ("batch", "seq", "d_model", "heads", "ff", "layers", "seed")},
        "libcupti": mapped_libcupti(),
    }
    if args.profile:
        fd, trace_path = tempfile.mkstemp(suffix=".json", dir=os.path.dirname(os.path.abspath(args.profile)))
        os.close(fd)
        try:
            prof.export_chrome_trace(trace_path)
            with open(trace_path, encoding="utf-8") as f:
                result["kernels"], result["transfers"] = kernel_counts_from_trace(json.load(f))
        finally:
            os.unlink(trace_path)
    return result


def main(argv=None):
    p = argparse.ArgumentParser(description="the GPU run's PyTorch workload")
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--warmup", type=int, default=20, help="steps left out of the step-time median")
    p.add_argument("--out", help="the JSON of a plain (or collector) run")
    p.add_argument("--profile", help="run under torch.profiler; the JSON with per-kernel counts")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="cuda", help="cuda; cpu only to try the script where there is no GPU")
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--seq", type=int, default=512)
    p.add_argument("--d-model", dest="d_model", type=int, default=1024)
    p.add_argument("--heads", type=int, default=16)
    p.add_argument("--ff", type=int, default=4096)
    p.add_argument("--layers", type=int, default=4)
    args = p.parse_args(argv)
    if not 0 <= args.warmup < args.steps:
        p.error("need 0 <= --warmup < --steps")
    if args.out and args.profile:
        p.error("--out or --profile, not both")
    result = run(args)
    path = args.profile or args.out
    if path:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(result, f)
    med = sorted(result["step_ms"][args.warmup:])[(args.steps - args.warmup) // 2]
    print("torch_workload: %s, %d steps, median step %.3f ms, libcupti %s%s"
          % (result["device"], args.steps, med, result["libcupti"] or "none mapped",
             ", %d kernel names" % len(result["kernels"]) if args.profile else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
