"""What a store and its region handles share: the values their calls hand to C, and the calls in
flight that ``close()`` waits for (``_store``'s design notes, "Lifetime").

Both ``_store`` and ``_region`` import this module; neither imports the other for it. A handle sees
its store only through :class:`HandleOwner`, the few members it uses of it.
"""

from __future__ import annotations

import time
from typing import List, Optional, Protocol

from ._errors import Code, HintmapError, InvalidArgumentError
from ._native import Native

U63_MAX = (1 << 63) - 1


def index_value(value: object, what: str) -> int:
    """``value`` as an int: an ``int``, or anything with ``__index__`` (numpy's integers and the like)."""
    try:
        return int(value.__index__())  # type: ignore[attr-defined]
    except AttributeError:
        raise TypeError(f"{what} is an int, not {type(value).__name__}") from None


def sample_value(value: int, what: str) -> int:
    """A sample's kernel ns or bytes as the C library takes it: an int >= 0; above 2**63 - 1 clamped to it,
    as C clamps (FORMAT §7.1). ctypes would otherwise wrap a negative or huge int silently."""
    if type(value) is not int:
        value = index_value(value, what)
    if value < 0:
        raise InvalidArgumentError(Code.HM_EINVAL, f"{what} {value} is negative")
    return value if value <= U63_MAX else U63_MAX


def threshold_value(threshold_ns: int) -> int:
    """A caller's hot threshold as ``hm_is_hot_at`` takes it: an int in 0..2**63 - 1 (the range of the
    file's ``hot_threshold_ns``); ctypes would otherwise wrap a negative int silently."""
    value = threshold_ns if type(threshold_ns) is int else index_value(threshold_ns, "threshold_ns")
    if not 0 <= value <= U63_MAX:
        raise InvalidArgumentError(Code.HM_EINVAL, f"threshold_ns {value} is outside 0..2**63 - 1")
    return value


def wait_idle(calls: List[None]) -> None:
    """Returns once ``calls`` (a list of calls in flight) is empty. A call in flight lasts nanoseconds,
    at most the 5 s lock wait limit of a record behind a stopped writer."""
    while calls:
        time.sleep(0.0001)


class HandleOwner(Protocol):
    """The store as its region handles use it (``_store.HintStore`` is the one kind): its library,
    its C pointer (``None`` once closing), its errors, and the list of handles its close waits for."""

    _lib: Native
    _ptr: Optional[int]

    @property
    def path(self) -> str: ...

    @property
    def hot_threshold_ns(self) -> int: ...

    def _closed_error(self) -> HintmapError: ...

    def _failure(self, rc: int, ptr: int) -> HintmapError: ...

    def _forget_region(self, region: object) -> None: ...
