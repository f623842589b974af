#!/usr/bin/python3
"""A PyOpenCL program with known kernel counts and buffers, for the OpenCL layer's checks on real
programs (native-bench/opencl/real-programs.sh). It knows nothing of hintmap: it enqueues kernels of a
program, an ElementwiseKernel and pyopencl.array arithmetic, checks the results on the host, and
prints one line ``expected NAME COUNT BYTES`` per kernel (BYTES: the sizes of the buffers the kernel
takes, summed over its enqueues, each buffer once per enqueue), then ``ok``.

    pyopencl_workload.py [--scale N]     (N multiplies the counts; default 1)
"""

import argparse

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
from pyopencl.elementwise import ElementwiseKernel

SOURCE = """
__kernel void saxpy(const float alpha, __global const float *x, __global float *y) {
    size_t i = get_global_id(0);
    y[i] += alpha * x[i];
}
__kernel void scale_inplace(__global float *y, const float s) {
    size_t i = get_global_id(0);
    y[i] *= s;
}
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=int, default=1)
    k = ap.parse_args().scale
    ctx = cl.create_some_context(interactive=False)
    queue = cl.CommandQueue(ctx)
    n = 1 << 16
    rng = np.random.default_rng(0)
    x_host = rng.random(n, dtype=np.float32)
    y_host = rng.random(n, dtype=np.float32)
    x = cla.to_device(queue, x_host)
    y = cla.to_device(queue, y_host)
    z = cla.empty_like(x)
    nbytes = x_host.nbytes

    prg = cl.Program(ctx, SOURCE).build()
    saxpy = prg.saxpy  # one Kernel object, reused (PyOpenCL makes a new one per attribute access)
    scale = prg.scale_inplace
    counts = {"saxpy": 40 * k, "scale_inplace": 25 * k, "lin_comb": 15 * k}
    for _ in range(counts["saxpy"]):
        saxpy(queue, (n,), (64,), np.float32(0.5), x.data, y.data)
    for _ in range(counts["scale_inplace"]):
        scale(queue, (n,), None, y.data, np.float32(0.999))
    lin_comb = ElementwiseKernel(ctx, "float a, float *x, float b, float *y, float *z", "z[i] = a*x[i] + b*y[i]",
                                 "lin_comb")
    for _ in range(counts["lin_comb"]):
        lin_comb(np.float32(2.0), x, np.float32(3.0), y, z)
    queue.finish()

    want_y = y_host.copy()
    for _ in range(counts["saxpy"]):
        want_y += np.float32(0.5) * x_host
    for _ in range(counts["scale_inplace"]):
        want_y *= np.float32(0.999)
    assert np.allclose(y.get(), want_y, rtol=1e-4), "saxpy / scale_inplace results"
    assert np.allclose(z.get(), 2 * x_host + 3 * want_y, rtol=1e-4), "lin_comb results"

    buffers = {"saxpy": 2, "scale_inplace": 1, "lin_comb": 3}
    for name, c in counts.items():
        print(f"expected {name} {c} {c * buffers[name] * nbytes}")
    print("ok")


if __name__ == "__main__":
    main()
