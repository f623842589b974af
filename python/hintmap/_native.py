"""The C library, loaded once, with a ctypes prototype for every function of ``hintmap.h`` used here.

Two handles on the same shared object (one ``dlopen``), chosen per function:

* ``ctypes.PyDLL`` keeps the GIL during the call. Used for the calls that never wait (the lock-free
  reads of FORMAT §7.2, the header's fixed fields, the name helpers): they take nanoseconds, and
  releasing and retaking the GIL would cost more than the call.
* ``ctypes.CDLL`` releases the GIL. Used for the calls that may wait: ``hm_record`` and
  ``hm_region_add`` (up to the 5 s lock wait limit of FORMAT §6.2 behind a stopped writer),
  ``hm_open_ex``, ``hm_close``, ``hm_flush`` and ``hm_check`` (system calls, disk I/O), so that
  other Python threads run meanwhile.

``hm_hot_set`` is a "waits" call too: it reads every slot used so far and sorts them (milliseconds
for a large file), and may wait up to 10 ms behind a structural change (FORMAT §7.5).

The structures mirror ``hm_options``, ``hm_region_record``, ``hm_stats``, ``hm_hot_region`` and
``hm_hot_set_info`` of ``hintmap.h``; ctypes lays them out with the C compiler's natural alignment.
``test_vectors`` checks the defaults that ``hm_options_init`` writes through ``Options``;
``test_hot_set`` pins the sizes and offsets that ``hot_set.c`` pins with ``_Static_assert``.
"""

from __future__ import annotations

import ctypes
import os
import threading
from ctypes import POINTER, c_char_p, c_double, c_int, c_size_t, c_uint32, c_uint64, c_void_p
from typing import Any, Callable, List, Optional, Tuple

from . import _discovery
from ._errors import LibraryNotFoundError

# The ABI this module is written for: hintmap.h HM_VERSION_MAJOR (the SONAME's number).
API_MAJOR = 0

HM_OK = 0
HM_DROPPED = 1
HM_ENOTFOUND = -15

OPT_CAPACITY = 1 << 0
OPT_MAX_NAME_BYTES = 1 << 1
OPT_HOT_THRESHOLD = 1 << 2
OPEN_GROUP_SHARED = 1 << 0
OPEN_FOLLOW_SYMLINKS = 1 << 1
OPEN_ALLOW_FOREIGN_OWNER = 1 << 2
OPEN_REJECT_LONG_NAMES = 1 << 3
OPEN_FAULT_GUARD = 1 << 4


class Options(ctypes.Structure):
    """``hm_options``."""

    _fields_ = [
        ("capacity", c_uint32),
        ("max_name_bytes", c_uint32),
        ("hot_threshold_ns", c_uint64),
        ("read_only", c_int),
        ("set_mask", c_uint32),
        ("flags", c_uint32),
    ]


class Record(ctypes.Structure):
    """``hm_region_record``."""

    dispatch_count: int  # for type checkers: ctypes reads the fields as int
    kernel_ns_total: int
    kernel_ns_max: int
    bytes_total: int

    _fields_ = [
        ("dispatch_count", c_uint64),
        ("kernel_ns_total", c_uint64),
        ("kernel_ns_max", c_uint64),
        ("bytes_total", c_uint64),
    ]


class Stats(ctypes.Structure):
    """``hm_stats``."""

    live_count: int
    high_water: int
    evictions: int
    recoveries: int
    dropped_inserts: int
    stolen_locks: int
    created_epoch_ms: int

    _fields_ = [
        ("live_count", c_uint64),
        ("high_water", c_uint64),
        ("evictions", c_uint64),
        ("recoveries", c_uint64),
        ("dropped_inserts", c_uint64),
        ("stolen_locks", c_uint64),
        ("created_epoch_ms", c_uint64),
    ]


class HmHotRegion(ctypes.Structure):
    """``hm_hot_region``: 64 bytes on LP64 (``hot_set.c`` asserts it)."""

    record: Record
    share: float
    cumulative_share: float
    name: Optional[int]  # the address of its stored name inside the caller's names buffer
    name_len: int

    _fields_ = [
        ("record", Record),
        ("share", c_double),
        ("cumulative_share", c_double),
        ("name", c_void_p),  # const char *, not NUL-terminated: read as name_len bytes of the buffer
        ("name_len", c_uint32),
    ]


class HmHotSetInfo(ctypes.Structure):
    """``hm_hot_set_info``: 80 bytes on LP64 (``hot_set.c`` asserts it)."""

    total_ns: int
    needed_ns: int
    covered_ns: int
    thin_ns: int
    coverage: float
    covered_share: float
    min_dispatches: int
    count: int
    regions_read: int
    thin_regions: int
    reached: int
    consistent: int

    _fields_ = [
        ("total_ns", c_uint64),
        ("needed_ns", c_uint64),
        ("covered_ns", c_uint64),
        ("thin_ns", c_uint64),
        ("coverage", c_double),
        ("covered_share", c_double),
        ("min_dispatches", c_uint64),
        ("count", c_uint32),
        ("regions_read", c_uint32),
        ("thin_regions", c_uint32),
        ("reached", c_int),
        ("consistent", c_int),
    ]


_STORE = c_void_p  # hm_store *
_REGION = c_void_p  # hm_region *
_BUF = c_void_p  # char * of a ctypes.create_string_buffer (an output)

# name: (handle, restype, argtypes); handle "quick" (PyDLL, GIL kept) or "waits" (CDLL, GIL released).
_PROTOTYPES = {
    "hm_version": ("quick", c_char_p, []),
    "hm_strerror": ("quick", c_char_p, [c_int]),
    "hm_format_version": ("quick", c_uint32, []),
    "hm_layout_fingerprint": ("quick", c_uint64, []),
    "hm_options_init": ("quick", None, [POINTER(Options)]),
    "hm_open_ex": ("waits", c_int, [c_char_p, POINTER(Options), POINTER(_STORE), _BUF, c_size_t]),
    "hm_close": ("waits", c_int, [_STORE]),
    "hm_record": ("waits", c_int, [_STORE, c_char_p, c_size_t, c_uint64, c_uint64]),
    "hm_lookup": ("quick", c_int, [_STORE, c_char_p, c_size_t, POINTER(Record)]),
    "hm_is_hot": ("quick", c_int, [_STORE, c_char_p, c_size_t]),
    "hm_is_hot_at": ("quick", c_int, [_STORE, c_char_p, c_size_t, c_uint64]),
    "hm_region_at": ("quick", c_int, [_STORE, c_uint32, _BUF, c_size_t, POINTER(c_size_t), POINTER(Record)]),
    "hm_size": ("quick", c_int, [_STORE, POINTER(c_uint64)]),
    "hm_is_empty": ("quick", c_int, [_STORE]),
    "hm_capacity": ("quick", c_uint32, [_STORE]),
    "hm_max_name_bytes": ("quick", c_uint32, [_STORE]),
    "hm_hot_threshold_ns": ("quick", c_uint64, [_STORE]),
    "hm_high_water": ("quick", c_uint32, [_STORE]),
    "hm_is_read_only": ("quick", c_int, [_STORE]),
    "hm_stats_get": ("quick", c_int, [_STORE, POINTER(Stats)]),
    "hm_flush": ("waits", c_int, [_STORE]),
    "hm_check": ("waits", c_int, [_STORE]),
    "hm_last_error_copy": ("quick", c_size_t, [_STORE, _BUF, c_size_t]),
    "hm_region_resolve": ("quick", c_int, [_STORE, c_char_p, c_size_t, POINTER(_REGION)]),
    "hm_region_add": ("waits", c_int, [_REGION, c_uint64, c_uint64]),
    "hm_region_lookup": ("quick", c_int, [_REGION, POINTER(Record)]),
    "hm_region_free": ("quick", None, [_REGION]),
    "hm_hot_set": ("waits", c_int, [_STORE, c_double, c_uint64, POINTER(HmHotRegion), c_uint32, _BUF, c_size_t,
                                    POINTER(HmHotSetInfo)]),
    "hm_hash64": ("quick", c_uint64, [c_char_p, c_size_t]),
    "hm_name_canonical": ("quick", c_int, [c_char_p, c_size_t, c_uint32, _BUF, c_size_t, POINTER(c_size_t)]),
}


class Native:
    """The library at one path, its functions bound with their prototypes (attributes named as in C)."""

    path: str
    version: str
    # The C functions, bound in __init__ from _PROTOTYPES (ctypes converts the results to int, bytes
    # or None); annotated so that type checkers know them.
    hm_version: Callable[[], bytes]
    hm_strerror: Callable[[int], bytes]
    hm_format_version: Callable[[], int]
    hm_layout_fingerprint: Callable[[], int]
    hm_options_init: Callable[[Any], None]
    hm_open_ex: Callable[..., int]
    hm_close: Callable[[int], int]
    hm_record: Callable[[int, bytes, int, int, int], int]
    hm_lookup: Callable[[int, bytes, int, Any], int]
    hm_is_hot: Callable[[int, bytes, int], int]
    hm_is_hot_at: Callable[[int, bytes, int, int], int]
    hm_region_at: Callable[..., int]
    hm_size: Callable[[int, Any], int]
    hm_is_empty: Callable[[int], int]
    hm_capacity: Callable[[int], int]
    hm_max_name_bytes: Callable[[int], int]
    hm_hot_threshold_ns: Callable[[int], int]
    hm_high_water: Callable[[int], int]
    hm_is_read_only: Callable[[int], int]
    hm_stats_get: Callable[[int, Any], int]
    hm_flush: Callable[[int], int]
    hm_check: Callable[[int], int]
    hm_last_error_copy: Callable[[int, Any, int], int]
    hm_region_resolve: Callable[[int, bytes, int, Any], int]
    hm_region_add: Callable[[int, int, int], int]
    hm_region_lookup: Callable[[int, Any], int]
    hm_region_free: Callable[[int], None]
    hm_hot_set: Callable[..., int]
    hm_hash64: Callable[[bytes, int], int]
    hm_name_canonical: Callable[..., int]

    def __init__(self, path: str) -> None:
        self.path = path
        handles = {"waits": ctypes.CDLL(path), "quick": ctypes.PyDLL(path)}
        for name, (handle, restype, argtypes) in _PROTOTYPES.items():
            try:
                fn = getattr(handles[handle], name)
            except AttributeError:
                raise OSError(f"has no {name}: not the hintmap C library, or an older one") from None
            fn.restype = restype
            fn.argtypes = argtypes
            setattr(self, name, fn)
        self.version = self.hm_version().decode("ascii", "replace")
        major = self.version.split(".", 1)[0]
        if major != str(API_MAJOR):
            raise OSError(f"is version {self.version}; this module needs {API_MAJOR}.x (libhintmap.so.{API_MAJOR})")

    def strerror(self, code: int) -> str:
        """``hm_strerror(code)``."""
        return self.hm_strerror(code).decode("utf-8", "replace")


def load(candidates: Optional[List[_discovery.Candidate]] = None) -> Native:
    """The first candidate of the documented search that loads and has the right version.

    Raises:
        LibraryNotFoundError: none did; it lists every candidate with its reason.
    """
    tried: List[Tuple[str, str, str]] = []
    for step, target, note in candidates if candidates is not None else _discovery.candidates():
        if target is None:
            tried.append((step, "-", note))
            continue
        if os.sep in target and not os.path.exists(target):
            tried.append((step, target, "no such file"))
            continue
        try:
            return Native(target)
        except OSError as e:
            tried.append((step, target, str(e)))
    raise LibraryNotFoundError(
        "hintmap: no usable libhintmap.so was found (build it with `make -C native-bench`, install it "
        f"with `make -C native-bench install PREFIX=...`, or set {_discovery.ENV_VARIABLE} to its path). Tried:",
        tried,
    )


_lock = threading.Lock()
_loaded: Optional[Native] = None


def native() -> Native:
    """The library, loaded on first use (so that ``import hintmap`` works without it)."""
    global _loaded
    lib = _loaded
    if lib is None:
        with _lock:
            if _loaded is None:
                _loaded = load()
            lib = _loaded
    return lib
