"""``Region``: a handle on one region of an open store (``hm_region_*``), for a hot path."""

from __future__ import annotations

import threading
from typing import Any, Callable, List, Optional, Tuple

from ._calls import HandleOwner, sample_value, threshold_value, wait_idle
from ._errors import Code, HintmapError
from ._native import HM_ENOTFOUND, HM_OK, Record
from ._records import RegionRecord


class Region:
    """A pre-resolved region (``hm_region_resolve``): records and reads without looking the name up
    while the region keeps its slot (FORMAT §7.2.2); after an eviction the name is resolved, or
    inserted, again by the library. Made by :meth:`HintStore.region`.

    ``hintmap.h`` lets one thread at a time use a handle: give each thread its own. :meth:`close`
    frees it (``hm_region_free``); a ``with`` block does too. Calls register as in flight like the
    store's (see ``_store``), so that :meth:`close` here and :meth:`HintStore.close` wait for them.
    """

    def __init__(self, store: HandleOwner, ptr: int, name: str) -> None:
        """Not for users: :meth:`HintStore.region` makes handles."""
        self._store = store
        self._lib = store._lib
        self._ptr: Optional[int] = ptr
        self._name = name
        self._calls: List[None] = []
        self._close_lock = threading.Lock()
        self._hm_region_lookup = self._lib.hm_region_lookup  # bound once: an attribute less per read
        self._threshold = store.hot_threshold_ns

    @property
    def name(self) -> str:
        """The region's name, as given to :meth:`HintStore.region`."""
        return self._name

    def _closed_error(self) -> HintmapError:
        if self._ptr is None:
            return HintmapError(Code.HM_ECLOSED, f"the handle on region {self._name!r} is closed", self._store.path)
        return self._store._closed_error()

    def _failure(self, rc: int) -> HintmapError:
        """The exception for ``rc``: the store's last message when the file faulted under it (HM_ECHANGED
        says where and how large the file is now), else the code's description."""
        store_ptr = self._store._ptr
        if rc in (Code.HM_ECHANGED, Code.HM_EIO) and store_ptr is not None:
            return self._store._failure(rc, store_ptr)
        return HintmapError(rc, f"region {self._name!r}: {self._lib.strerror(rc)}", self._store.path)

    def _call(self, fn: Callable[..., int], args: Tuple[Any, ...]) -> int:
        """``fn(*args)`` registered as in flight, ``args[0]`` the handle's pointer as the caller read it
        (``self._ptr``), as ``HintStore._call`` does for the store (its notes say why)."""
        if args[0] is None or self._store._ptr is None:  # closing or closed: raise without registering
            raise self._closed_error()
        calls = self._calls
        calls.append(None)  # before reading either pointer again: HintStore.close and close() wait for it
        try:
            if self._ptr is None or self._store._ptr is None:
                raise self._closed_error()
            rc = fn(*args)
            if rc < 0 and rc != HM_ENOTFOUND:
                raise self._failure(rc)
            return rc
        finally:
            calls.pop()

    def record(self, kernel_ns: int, bytes_touched: int = 0) -> bool:
        """Records one dispatch (``hm_region_add``; as :meth:`HintStore.record`). True when stored,
        False when dropped.

        Raises:
            HintmapError: ``HM_EREADONLY``, ``HM_ECLOSED``; a negative value.
        """
        ns = sample_value(kernel_ns, "kernel_ns")
        nbytes = sample_value(bytes_touched, "bytes_touched")
        return self._call(self._lib.hm_region_add, (self._ptr, ns, nbytes)) == HM_OK

    def _lookup(self) -> Optional[Record]:
        rec = Record()
        return None if self._call(self._hm_region_lookup, (self._ptr, rec)) == HM_ENOTFOUND else rec

    def record_for(self) -> Optional[RegionRecord]:
        """The region's record (``hm_region_lookup``), named as given; ``None`` when absent."""
        rec = self._lookup()
        if rec is None:
            return None
        return RegionRecord(self._name, rec.dispatch_count, rec.kernel_ns_total, rec.kernel_ns_max, rec.bytes_total)

    def is_hot(self, threshold_ns: Optional[int] = None) -> bool:
        """Whether the region is present and its mean kernel time (ns, rounded down) reaches the store's
        threshold, or ``threshold_ns`` when given (as :meth:`HintStore.is_hot`).

        Raises:
            InvalidArgumentError: a ``threshold_ns`` outside 0..2**63 - 1.
            HintmapError: ``HM_ECLOSED``.
        """
        threshold = self._threshold if threshold_ns is None else threshold_value(threshold_ns)
        rec = self._lookup()
        return rec is not None and rec.kernel_ns_total // rec.dispatch_count >= threshold

    def dispatch_count(self) -> int:
        """Dispatches recorded; 0 when absent."""
        rec = self._lookup()
        return rec.dispatch_count if rec is not None else 0

    def mean_kernel_ns(self) -> int:
        """Mean kernel ns per dispatch, rounded down; 0 when absent."""
        rec = self._lookup()
        return rec.kernel_ns_total // rec.dispatch_count if rec is not None else 0

    def close(self) -> None:
        """Frees the handle (also after its store was closed). Idempotent."""
        with self._close_lock:
            ptr = self._ptr
            if ptr is None:
                return
            self._ptr = None
        wait_idle(self._calls)
        self._store._forget_region(self)
        self._lib.hm_region_free(ptr)

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._ptr is None

    def __enter__(self) -> "Region":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 (a finaliser cannot report)
            pass

    def __repr__(self) -> str:
        return f"<hintmap.Region {self._name!r}{' closed' if self._ptr is None else ''}>"
