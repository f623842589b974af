"""``HintStore``: one open hint file, through the C library.

Design notes (why the store looks as it does)

* Lifetime. The C store must not be closed while a call on it or on one of its handles runs
  (``hintmap.h``: ``hm_close`` must not run concurrently with any other call). Python threads may
  share a store, so every call registers itself first in a list of calls in flight (``list.append``
  and ``list.pop`` are atomic under the GIL, about 40 ns together) and only then reads the C
  pointer; :meth:`close` clears the pointer first and then waits for the list to empty before it
  calls ``hm_close``. A call that registered after the pointer was cleared sees ``None`` and raises
  ``HM_ECLOSED``; one that registered before is waited for. A closed store never reaches C again.
  A call reads the pointer once before it registers too, and raises at once when it is cleared:
  so calls that start after close began never register, and threads that keep calling a closed
  store cannot keep the list from emptying (only a call that read the pointer just before close
  cleared it registers afterwards, once, and leaves at once).
* Fork. ``hintmap.h``: a store must not be used across ``fork()``. A child process forgets every
  store it inherited (``os.register_at_fork``); using one raises ``HM_ECLOSED`` saying to open the
  file again. The child does not close it: that would release the parent's writer entry.
* Errors. A negative code becomes :class:`~hintmap.HintmapError` with the message of
  ``hm_last_error_copy``, read while the call is still registered (the message lives in the store).
  ``HM_ENOTFOUND`` is an answer, not an error: absent regions are ``None`` or ``0`` or ``False``.
* Truncation. A file truncated under the mapping raises ``SIGBUS`` on the next access to a lost page.
  Every store is opened with ``HM_OPEN_FAULT_GUARD``: the C library's fault guard turns that fault,
  inside any call on the store or its handles, into ``HM_ECHANGED`` of that call, and every later
  call raises it too (``hintmap.h``, "Fault guard"), so no call can kill the interpreter, whenever
  the truncation comes. The bulk reads (iteration, :meth:`hottest`, :meth:`hot_set`, :meth:`info`)
  call ``hm_check`` first, which also reports a file resized, replaced or removed: reopen the path.
"""

from __future__ import annotations

import ctypes
import heapq
import math
import numbers
import os
import threading
import weakref
from typing import Any, Callable, Iterator, List, Optional, Tuple, Union, cast

from . import _names
from ._calls import U63_MAX, index_value, sample_value, threshold_value, wait_idle
from ._errors import Code, HintmapError, InvalidArgumentError, error_for
from ._native import (
    HM_ENOTFOUND,
    HM_OK,
    OPEN_ALLOW_FOREIGN_OWNER,
    OPEN_FAULT_GUARD,
    OPEN_FOLLOW_SYMLINKS,
    OPEN_GROUP_SHARED,
    OPEN_REJECT_LONG_NAMES,
    HmHotRegion,
    HmHotSetInfo,
    Native,
    Options,
    Record,
    Stats,
    native,
)
from ._records import HotRegion, HotSet, Order, RegionRecord, StoreInfo
from ._region import Region

PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]

_U32_MAX = (1 << 32) - 1
_ERRBUF_BYTES = 1024


def _option(value: Optional[int], what: str, limit: int) -> Optional[int]:
    if value is None:
        return None
    value = index_value(value, what)
    if not 0 <= value <= limit:  # the C type's range; hm_open checks the format's range itself
        raise InvalidArgumentError(Code.HM_EINVAL, f"{what} {value} is out of range 0..{limit}")
    return value


DEFAULT_COVERAGE = 0.95
"""The coverage of :meth:`HintStore.hot_set` when none is given (``hintmap hot --coverage``'s default)."""
DEFAULT_MIN_DISPATCHES = 1
"""The fewest dispatches of :meth:`HintStore.hot_set` when none is given (``hintmap hot``'s: all count)."""


def hot_set_arguments(coverage: float, min_dispatches: int) -> Tuple[float, int]:
    """``(coverage, min_dispatches)`` as ``hm_hot_set`` takes them, checked as Java's
    ``HotSetRule.requireValid`` checks them (docs/GUIDE.md: C refuses the same coverages; a
    negative count, which C's ``uint64_t`` cannot express, is refused here as Java refuses it).
    Checked before any file is read, so that :mod:`hintmap.autotune` refuses a bad option at once.

    Raises:
        InvalidArgumentError: ``coverage`` NaN or outside [0, 1]; ``min_dispatches`` negative.
        TypeError: ``coverage`` not a real number, ``min_dispatches`` not an int.
    """
    if not isinstance(coverage, numbers.Real):
        raise TypeError(f"coverage is a float in [0, 1], not {type(coverage).__name__}")
    try:
        fraction = float(coverage)
    except OverflowError:  # an int or Fraction beyond binary64: far outside [0, 1]
        fraction = math.inf
    if not 0 <= fraction <= 1:  # NaN fails it
        raise InvalidArgumentError(Code.HM_EINVAL, f"coverage {coverage!r} is not a fraction in [0, 1] (0.95: the "
                                   "regions that make up 95% of the kernel time)")
    count = index_value(min_dispatches, "min_dispatches")
    if count < 0:
        raise InvalidArgumentError(Code.HM_EINVAL, f"min_dispatches {count} is negative")
    return fraction, min(count, U63_MAX)  # clamped as C clamps it; ctypes would wrap a larger int


_open_stores: "weakref.WeakSet[HintStore]" = weakref.WeakSet()


def _forget_stores_after_fork() -> None:
    for store in list(_open_stores):
        store._forget_in_child()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_stores_after_fork)


class HintStore:
    """An open hint file. Open with :func:`hintmap.open`; close with :meth:`close` or a ``with`` block.

    A store may be shared by threads; :meth:`close` waits for the calls in flight. A file truncated
    or replaced in place under the store never kills the process: the call raises ``HM_ECHANGED``,
    and so does every later one (close the store and open the path again). Names are
    ``str`` (UTF-8) or ``bytes``; a name longer than the file's ``max_name_bytes`` is stored and
    looked up in its stored form (FORMAT §1.1), so the whole kernel name works everywhere.
    Every failure raises :class:`~hintmap.HintmapError` with its ``HM_`` code and the path.
    """

    def __init__(self, lib: Native, ptr: int, path: str) -> None:
        """Not for users: :func:`hintmap.open` makes stores."""
        self._lib = lib
        self._ptr: Optional[int] = ptr
        self._path = path
        self._calls: List[None] = []
        self._close_lock = threading.Lock()
        self._regions: "weakref.WeakSet[Region]" = weakref.WeakSet()  # the handles close() waits for
        # Other threads make handles while close() lists them; reentrant: a handle's finaliser may run
        # (and discard it) on a thread that holds it.
        self._regions_lock = threading.RLock()
        self._forked = False
        self._is_hot = lib.hm_is_hot  # bound once: an attribute less per query
        self._hm_lookup = lib.hm_lookup
        # Fixed while the file is open (they are the header's immutable part): read once.
        self._capacity = lib.hm_capacity(ptr)
        self._max_name_bytes = lib.hm_max_name_bytes(ptr)
        self._hot_threshold_ns = lib.hm_hot_threshold_ns(ptr)
        self._read_only = bool(lib.hm_is_read_only(ptr))
        _open_stores.add(self)

    # ------------------------------------------------------------------ opening and closing

    @classmethod
    def open(
        cls,
        path: PathLike,
        *,
        read_only: bool = False,
        capacity: Optional[int] = None,
        max_name_bytes: Optional[int] = None,
        hot_threshold_ns: Optional[int] = None,
        group_shared: bool = False,
        follow_symlinks: bool = False,
        allow_foreign_owner: bool = False,
        reject_long_names: bool = False,
    ) -> "HintStore":
        """Opens the hint file at ``path``, creating it when it does not exist (unless ``read_only``).

        Args:
            path: the file.
            read_only: map it read-only, never create it (an optimizer); a missing file is then
                ``HM_EMISSING`` ("no hints yet").
            capacity: most regions, 0..2**26 (default 256), when creating.
            max_name_bytes: longest name stored whole, 1..1024 (default 256), when creating.
            hot_threshold_ns: mean kernel ns at or above which a region is hot (default 100,000),
                when creating; with ``read_only``, this reader's own threshold, by which the store
                answers :meth:`HintStore.is_hot` whatever the file's (which stays as it is).
            group_shared: ``HM_OPEN_GROUP_SHARED``: create the file 0660; accept a file of one of
                this process's groups (docs/SECURITY.md).
            follow_symlinks: ``HM_OPEN_FOLLOW_SYMLINKS``: follow a symbolic link at the path.
            allow_foreign_owner: ``HM_OPEN_ALLOW_FOREIGN_OWNER``: accept another user's file.
            reject_long_names: ``HM_OPEN_REJECT_LONG_NAMES``: a name over ``max_name_bytes`` is
                ``HM_ENAMETOOLONG`` instead of being stored in its stored form.

        An existing file's layout wins: options left ``None`` take the file's values; an option
        given that contradicts the file is ``HM_EOPTIONS`` (except ``hot_threshold_ns`` with
        ``read_only``: the reader's own).

        Raises:
            HintmapError: the open failed (every code of ``hm_open`` in ``hintmap.h``: ``HM_EMISSING``,
                ``HM_ENOTHINT``, ``HM_EVERSION``, ``HM_EOPTIONS``, ``HM_ESYMLINK``, ``HM_EOWNER`` ...).
            LibraryNotFoundError: the C library cannot be found.
        """
        lib = native()
        opts = Options()
        lib.hm_options_init(ctypes.byref(opts))
        for value, what, limit, field, bit in (
            (capacity, "capacity", _U32_MAX, "capacity", 1 << 0),
            (max_name_bytes, "max_name_bytes", _U32_MAX, "max_name_bytes", 1 << 1),
            (hot_threshold_ns, "hot_threshold_ns", (1 << 64) - 1, "hot_threshold_ns", 1 << 2),
        ):
            checked = _option(value, what, limit)
            if checked is not None:
                setattr(opts, field, checked)
                opts.set_mask |= bit
        opts.read_only = 1 if read_only else 0
        opts.flags = (
            OPEN_FAULT_GUARD  # every store: no call may kill the interpreter (class notes, "Truncation")
            | (OPEN_GROUP_SHARED if group_shared else 0)
            | (OPEN_FOLLOW_SYMLINKS if follow_symlinks else 0)
            | (OPEN_ALLOW_FOREIGN_OWNER if allow_foreign_owner else 0)
            | (OPEN_REJECT_LONG_NAMES if reject_long_names else 0)
        )
        raw_path = os.fsencode(path)
        shown = os.fsdecode(raw_path)
        if b"\0" in raw_path:
            raise InvalidArgumentError(Code.HM_EINVAL, "a path holds no NUL byte", shown)
        out = ctypes.c_void_p()
        err = ctypes.create_string_buffer(_ERRBUF_BYTES)
        rc = lib.hm_open_ex(raw_path, ctypes.byref(opts), ctypes.byref(out), err, _ERRBUF_BYTES)
        if rc < 0:
            raise error_for(rc, err.value.decode("utf-8", "replace") or lib.strerror(rc), shown)
        return cls(lib, cast(int, out.value), shown)  # not NULL on success

    def close(self) -> None:
        """Closes the store: waits for the calls in flight on other threads (those that began before
        close did: a call that begins after raises ``HM_ECLOSED`` at once), releases this process's
        writer entry and unmaps the file. Idempotent. Region handles made by :meth:`region` answer
        ``HM_ECLOSED`` afterwards.

        Raises:
            HintmapError: ``HM_ECHANGED`` when the file was truncated under the mapping (the store
                is closed anyway), ``HM_EIO``.
        """
        with self._close_lock:
            ptr = self._ptr
            if ptr is None:
                return
            self._ptr = None  # first: no call that registers from now on reaches C
        wait_idle(self._calls)
        with self._regions_lock:
            regions = list(self._regions)  # a handle made after this sees the store closed
        for region in regions:
            wait_idle(region._calls)
        _open_stores.discard(self)
        rc = self._lib.hm_close(ptr)
        if rc < 0:
            raise error_for(rc, f"while closing: {self._lib.strerror(rc)}", self._path)

    def __enter__(self) -> "HintStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        # A safety net only: close() or a with block is the way (unmapping must not wait for the GC).
        try:
            if self._ptr is not None:
                self.close()
        except Exception:  # noqa: BLE001 (a finaliser cannot report; the interpreter may be exiting)
            pass

    def _forget_in_child(self) -> None:
        self._forked = True
        self._ptr = None
        self._calls.clear()

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called (or the store was inherited through ``fork()``)."""
        return self._ptr is None

    # ------------------------------------------------------------------ calls into C

    def _closed_error(self) -> HintmapError:
        if self._forked:
            return HintmapError(Code.HM_ECLOSED, "this store was opened before fork(): open the file again "
                                "in this process (hintmap.h: a store must not be used across fork())", self._path)
        return HintmapError(Code.HM_ECLOSED, "the store is closed", self._path)

    def _failure(self, rc: int, ptr: int) -> HintmapError:
        """The exception for ``rc``, with this store's last message (read while the call is registered)."""
        buf = ctypes.create_string_buffer(_ERRBUF_BYTES)
        self._lib.hm_last_error_copy(ptr, buf, _ERRBUF_BYTES)
        return error_for(rc, buf.value.decode("utf-8", "replace") or self._lib.strerror(rc), self._path)

    def _call(self, fn: Callable[..., int], args: Tuple[Any, ...]) -> int:
        """``fn(*args)`` registered as in flight (class notes, "Lifetime"); ``args`` are the C function's
        arguments, the first the store's pointer as the caller read it (``self._ptr``). Returns the code,
        >= 0 or HM_ENOTFOUND.

        One tuple made by the caller, passed on as it is: a query costs what the guard written out in
        the query itself would (``*args`` here, or ``fn(ptr, *args)``, would cost a tenth more per call;
        docs/PERFORMANCE.md, the Python row). The pointer read before registering is the one to use: it only
        ever becomes ``None``, and one still set once the call is registered stays valid until the call
        leaves (close waits for it).

        Raises:
            HintmapError: any other negative code, or HM_ECLOSED when the store is closed.
        """
        ptr = args[0]
        if ptr is None:  # closing or closed: raise without registering (class notes, "Lifetime")
            raise self._closed_error()
        calls = self._calls
        calls.append(None)
        try:
            if self._ptr is None:  # close began before the call registered, and need not wait for it
                raise self._closed_error()
            rc = fn(*args)
            if rc < 0 and rc != HM_ENOTFOUND:
                raise self._failure(rc, ptr)
            return rc
        finally:
            calls.pop()

    # ------------------------------------------------------------------ recording

    def record(self, name: _names.Name, kernel_ns: int, bytes_touched: int = 0) -> bool:
        """Records one dispatch of region ``name``: count + 1, ``kernel_ns`` added to the total and
        folded into the maximum, ``bytes_touched`` added (sums saturate at 2**63 - 1). Inserts the
        region if absent, evicting the CLOCK victim when the store is full.

        Returns:
            True when stored; False when dropped (capacity 0, the probe bound, or a lock a live
            process held past 5 s: ``HM_DROPPED``).

        Raises:
            HintmapError: ``HM_EREADONLY``; a bad name (``InvalidArgumentError``: ``HM_EEMPTYNAME``,
                ``HM_EBADNAME``, ``HM_ENAMETOOLONG`` with ``reject_long_names``); a negative value.
        """
        raw = _names.encode(name)
        ns = sample_value(kernel_ns, "kernel_ns")
        nbytes = sample_value(bytes_touched, "bytes_touched")
        return self._call(self._lib.hm_record, (self._ptr, raw, len(raw), ns, nbytes)) == HM_OK

    def region(self, name: _names.Name) -> Region:
        """A handle on region ``name`` for a hot path: records and reads without looking the name up
        (``hm_region_resolve``). Does not insert the region; its first record does. Works on a
        read-only store for reads. Close it (or use ``with``) when done.

        Raises:
            HintmapError: a bad name, ``HM_ENOMEM``, ``HM_ECLOSED``.
        """
        raw = _names.encode(name)
        out = ctypes.c_void_p()
        self._call(self._lib.hm_region_resolve, (self._ptr, raw, len(raw), ctypes.byref(out)))
        region = Region(self, cast(int, out.value), _names.as_str(name))  # not NULL on success
        with self._regions_lock:
            self._regions.add(region)
        return region

    def _forget_region(self, region: Region) -> None:
        """Called by a handle's close: :meth:`close` no longer waits for its calls."""
        with self._regions_lock:
            self._regions.discard(region)

    # ------------------------------------------------------------------ queries by name

    def _lookup(self, name: _names.Name) -> Optional[Record]:
        raw = name.encode() if type(name) is str and name.isascii() else _names.encode(name)
        rec = Record()
        return None if self._call(self._hm_lookup, (self._ptr, raw, len(raw), rec)) == HM_ENOTFOUND else rec

    def is_hot(self, name: _names.Name, threshold_ns: Optional[int] = None) -> bool:
        """Whether region ``name`` is hot: present, and its mean kernel time (ns, rounded down) is at
        least the store's :attr:`hot_threshold_ns` (the file's, or this reader's own: :func:`hintmap.open`),
        or ``threshold_ns`` when given (``hm_is_hot_at``: the same read, the caller's bound). An absent
        region is never hot. Never waits for a lock.

        Raises:
            HintmapError: a bad name (``InvalidArgumentError``), a ``threshold_ns`` outside 0..2**63 - 1
                (``HM_EINVAL``), ``HM_ECLOSED``, ``HM_ECHANGED``.
        """
        if threshold_ns is not None:
            return self._is_hot_at(name, threshold_value(threshold_ns))
        raw = name.encode() if type(name) is str and name.isascii() else _names.encode(name)
        return self._call(self._is_hot, (self._ptr, raw, len(raw))) == 1

    def _is_hot_at(self, name: _names.Name, threshold_ns: int) -> bool:
        raw = _names.encode(name)
        return self._call(self._lib.hm_is_hot_at, (self._ptr, raw, len(raw), threshold_ns)) == 1

    def dispatch_count(self, name: _names.Name) -> int:
        """Dispatches recorded for region ``name`` since it was (last) inserted; 0 when absent."""
        rec = self._lookup(name)
        return rec.dispatch_count if rec is not None else 0

    def mean_kernel_ns(self, name: _names.Name) -> int:
        """Mean kernel time of region ``name`` per dispatch, ns, rounded down; 0 when absent."""
        rec = self._lookup(name)
        return rec.kernel_ns_total // rec.dispatch_count if rec is not None else 0

    def record_for(self, name: _names.Name) -> Optional[RegionRecord]:
        """A copy of region ``name``'s record, consistent in itself; ``None`` when absent. Its
        ``name`` is ``name`` as given (as ``str``)."""
        rec = self._lookup(name)
        if rec is None:
            return None
        return RegionRecord(_names.as_str(name), rec.dispatch_count, rec.kernel_ns_total, rec.kernel_ns_max,
                            rec.bytes_total)

    def __contains__(self, name: object) -> bool:
        """``name in store``: whether region ``name`` is present."""
        return self._lookup(name) is not None  # type: ignore[arg-type]

    def stored_name(self, name: _names.Name) -> str:
        """How this file stores ``name`` (FORMAT §1.1): ``name`` itself when it fits
        ``max_name_bytes``, else its stored form (a prefix, ``~`` and a hash). What iteration shows."""
        from ._functions import stored_name

        return stored_name(name, self._max_name_bytes)

    # ------------------------------------------------------------------ every region

    def __iter__(self) -> Iterator[RegionRecord]:
        """Every region, in slot order, by its stored name. Each record is consistent; regions
        inserted or evicted meanwhile may or may not be seen.

        Raises:
            HintmapError: ``HM_ECHANGED`` when the file changed under the mapping (checked first).
        """
        self.check()
        lib = self._lib
        # The slots used so far from hm_stats_get, which says when the file faulted under a guarded call;
        # hm_high_water would answer 0 then, an empty file.
        stats = Stats()
        self._call(lib.hm_stats_get, (self._ptr, ctypes.byref(stats)))
        high = min(stats.high_water, self._capacity)
        buf = ctypes.create_string_buffer(max(self._max_name_bytes, 1))
        size = len(buf)
        name_len = ctypes.c_size_t()
        rec = Record()
        args = (buf, size, ctypes.byref(name_len), ctypes.byref(rec))
        for slot in range(high):
            if self._call(lib.hm_region_at, (self._ptr, slot, *args)) == HM_ENOTFOUND:
                continue
            yield RegionRecord(_names.decode(buf.raw[: name_len.value]), rec.dispatch_count, rec.kernel_ns_total,
                               rec.kernel_ns_max, rec.bytes_total)

    def hottest(self, k: int = 10, order: Union[Order, str] = Order.TOTAL_NS) -> List[RegionRecord]:
        """The ``k`` hottest regions by ``order``, hottest first, equal keys by name in UTF-8 byte order (Java
        ``HintStore.hottest``, the CLI's ``top``).

        Args:
            k: how many at most, >= 0.
            order: an :class:`Order`, or ``"total"``, ``"mean"``, ``"count"``, ``"max"``.

        Raises:
            InvalidArgumentError: a negative ``k``; ValueError: an unknown order.
            HintmapError: ``HM_ECHANGED`` (as iteration).
        """
        k = index_value(k, "k")
        if k < 0:
            raise InvalidArgumentError(Code.HM_EINVAL, f"k {k} is negative", self._path)
        rank = Order.of(order).key
        if k == 0:
            return []
        return heapq.nsmallest(k, self, key=lambda r: (-rank(r), _names.order_key(r.name)))

    def hot_set(self, coverage: float = DEFAULT_COVERAGE, min_dispatches: int = DEFAULT_MIN_DISPATCHES) -> HotSet:
        """The hot set by coverage (docs/GUIDE.md, "The hot set by coverage"; ``hm_hot_set``, Java
        ``HintStore.hotSet``, ``hintmap hot``): the fewest regions, hottest by total kernel time
        first, whose kernel time covers at least ``coverage`` of the kernel time of every region in
        the file; regions with fewer than ``min_dispatches`` dispatches never count (their time stays
        in the whole). ``hot_set(0.95, 10)`` names the kernels that make up 95 % of the GPU time.

        The C library computes it (one rule for C, Java and Python) from one cut of the file
        (FORMAT §7.5): no region counted twice or missed while writers insert and evict;
        :attr:`HotSet.consistent` is False when writers kept changing the file through every attempt.
        Checks the file first (as iteration does). Releases the GIL while C reads and sorts.

        Args:
            coverage: the fraction of kernel time to cover, in [0, 1] (a ``float``, or any real
                number): 0 gives the empty set, 1 every region with enough dispatches and some
                kernel time. Default 0.95, as ``hintmap hot``.
            min_dispatches: the fewest dispatches a region needs to count, >= 0 (0 and 1 are the
                same); above 2**63 - 1 it is clamped to it, as C clamps. Default 1, as ``hintmap hot``.

        Returns:
            The set with the figures it was cut from; empty for an empty or capacity-0 file.

        Raises:
            InvalidArgumentError: ``coverage`` NaN or outside [0, 1], ``min_dispatches`` negative
                (``HM_EINVAL``); TypeError: not numbers.
            HintmapError: ``HM_ECHANGED`` (as iteration), ``HM_ECLOSED``.
        """
        coverage, min_dispatches = hot_set_arguments(coverage, min_dispatches)
        self.check()
        lib = self._lib
        stride = self._max_name_bytes
        info = HmHotSetInfo()
        # The caller's memory, one entry and one name stride per region read. hm_capacity() entries
        # always suffice, but a file may hold up to 2**26 slots of 1 KiB names: start from the slots
        # used so far (enough unless regions are inserted meanwhile) and grow up to the capacity when
        # C says the file held more (HM_EINVAL; every other cause of it is ruled out above).
        room = min(self._capacity, self._call(lib.hm_high_water, (self._ptr,)))
        while True:
            regions = (HmHotRegion * room)() if room else None
            names = ctypes.create_string_buffer(room * stride) if room else None
            try:
                self._call(lib.hm_hot_set, (self._ptr, coverage, min_dispatches, regions, room, names, room * stride,
                                            ctypes.byref(info)))
                break
            except InvalidArgumentError as e:
                if e.code != Code.HM_EINVAL or room >= self._capacity:
                    raise
                room = min(self._capacity, max(2 * room, 1, self._call(lib.hm_high_water, (self._ptr,))))  # grows: ends
        hot: List[HotRegion] = []
        if info.count:  # count <= room: regions and names are not None here
            text = memoryview(names).cast("B")  # type: ignore[arg-type]
            base = ctypes.addressof(names)  # type: ignore[arg-type]
            for r in regions[: info.count]:  # type: ignore[index]
                at = (r.name or 0) - base  # hintmap.h: the name lies in our names buffer; a slice never reads outside it
                rec = r.record
                hot.append(HotRegion(RegionRecord(_names.decode(bytes(text[at : at + r.name_len])), rec.dispatch_count,
                                                  rec.kernel_ns_total, rec.kernel_ns_max, rec.bytes_total),
                                     r.share, r.cumulative_share))
        return HotSet(
            regions=tuple(hot),
            coverage=info.coverage,
            min_dispatches=info.min_dispatches,
            total_ns=info.total_ns,
            needed_ns=info.needed_ns,
            covered_ns=info.covered_ns,
            covered_share=info.covered_share,
            regions_read=info.regions_read,
            thin_regions=info.thin_regions,
            thin_ns=info.thin_ns,
            reached=bool(info.reached),
            consistent=bool(info.consistent),
            max_name_bytes=stride,
        )

    # ------------------------------------------------------------------ the file

    def __len__(self) -> int:
        """Regions held now, by every process that records into the file (``hm_size``)."""
        out = ctypes.c_uint64()
        self._call(self._lib.hm_size, (self._ptr, ctypes.byref(out)))
        return out.value

    def is_empty(self) -> bool:
        """Whether the store holds no region now (``hm_is_empty``: ``len(store) == 0``, the same header
        words; always for capacity 0). ``not store`` asks the same through :meth:`__len__`."""
        return self._call(self._lib.hm_is_empty, (self._ptr,)) == 1

    @property
    def path(self) -> str:
        """The path the store was opened with."""
        return self._path

    @property
    def capacity(self) -> int:
        """Most regions the file holds."""
        return self._capacity

    @property
    def max_name_bytes(self) -> int:
        """Longest name the file stores whole, UTF-8 bytes."""
        return self._max_name_bytes

    @property
    def hot_threshold_ns(self) -> int:
        """Mean kernel ns at or above which this store calls a region hot: the file's, or a read-only
        opener's own (``hm_hot_threshold_ns``; :meth:`info` has the same)."""
        return self._hot_threshold_ns

    @property
    def read_only(self) -> bool:
        """Whether the store was opened read-only."""
        return self._read_only

    def info(self) -> StoreInfo:
        """The file's figures now: layout, counters, the library in use (checks the file first)."""
        self.check()
        stats = Stats()
        self._call(self._lib.hm_stats_get, (self._ptr, ctypes.byref(stats)))
        return StoreInfo(
            path=self._path,
            capacity=self._capacity,
            max_name_bytes=self._max_name_bytes,
            hot_threshold_ns=self._hot_threshold_ns,
            read_only=self._read_only,
            size=len(self),
            high_water=stats.high_water,
            evictions=stats.evictions,
            recoveries=stats.recoveries,
            dropped_inserts=stats.dropped_inserts,
            stolen_locks=stats.stolen_locks,
            created_epoch_ms=stats.created_epoch_ms,
            format_version=self._lib.hm_format_version(),
            library_version=self._lib.version,
            library_path=self._lib.path,
        )

    def check(self) -> None:
        """Whether the file is still the one mapped, at its size (``hm_check``, FORMAT §5.1).

        Raises:
            HintmapError: ``HM_ECHANGED`` (truncated, resized, replaced or removed: the message says
                which), ``HM_EUNFINISHED``, ``HM_ENOTHINT``, ``HM_ELAYOUT``, ``HM_EIO``.
        """
        self._call(self._lib.hm_check, (self._ptr,))

    def flush(self) -> None:
        """``msync`` of the whole mapping: what was recorded before survives a machine crash.

        It is the durability of what the mapping holds; truncation is reported by the next read or
        record (``msync`` succeeds on a file truncated under the mapping, so a flush alone does not
        notice it; :meth:`check` asks about the file itself).
        """
        self._call(self._lib.hm_flush, (self._ptr,))

    def __repr__(self) -> str:
        state = "closed" if self._ptr is None else ("read-only" if self._read_only else "open")
        return f"<hintmap.HintStore {self._path!r} {state} capacity={self._capacity}>"
