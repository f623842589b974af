"""Read (and record) hintmap's per-region GPU performance hints from Python.

A ctypes binding of the C library (``libhintmap.so.0``, ``native-bench/``): no compiler needed, no
dependency beyond the standard library. The file, its rules and its guarantees are those of the C
and Java libraries (docs/FORMAT.md); this module adds Python's types and errors::

    import hintmap

    with hintmap.open("/dev/shm/app.hints", read_only=True) as store:
        if store.is_hot("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)"):
            ...
        for r in store.hottest(5, "mean"):
            print(r.name, r.dispatch_count, r.mean_kernel_ns)
        for r in store.hot_set(0.95):  # the fewest regions making up 95 % of the kernel time
            print(r.name, f"{r.share:.1%}")

Where the C library is looked for, in order: ``HINTMAP_LIBRARY``, beside this package, the
pkg-config prefix, the system loader, the checkout's ``native-bench/build`` (``_discovery``).
:mod:`hintmap.autotune` prunes Triton autotuning configurations by hotness (the hot set by coverage,
or the mean-time threshold).
"""

from __future__ import annotations

from ._errors import Code, HintmapError, InvalidArgumentError, LibraryNotFoundError
from ._functions import format_version, hash64, library_path, library_version, stored_name
from ._records import HotRegion, HotSet, Order, RegionRecord, StoreInfo
from ._region import Region
from ._store import HintStore

__version__ = "0.1.0"

__all__ = [
    "Code",
    "HintStore",
    "HintmapError",
    "HotRegion",
    "HotSet",
    "InvalidArgumentError",
    "LibraryNotFoundError",
    "Order",
    "Region",
    "RegionRecord",
    "StoreInfo",
    "format_version",
    "hash64",
    "library_path",
    "library_version",
    "open",
    "stored_name",
]

open = HintStore.open  # noqa: A001 (hintmap.open, as tarfile.open and shelve.open)
