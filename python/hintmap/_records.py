"""The values the store returns: a region's record, the order of "hottest", the file's figures."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import NamedTuple, Union


class RegionRecord(NamedTuple):
    """One region's record, consistent in itself (one update, never a mix of two: FORMAT §7.2.1).

    A ``NamedTuple`` rather than a dataclass: immutable and typed alike, and about three times
    cheaper to make, which counts when :meth:`HintStore.hottest` reads every region.

    Attributes:
        name: the region's name: the stored form (FORMAT §1.1) when read from the file by
            iteration or :meth:`~HintStore.hottest`; the name as asked for by
            :meth:`~HintStore.record_for`.
        dispatch_count: dispatches recorded, >= 1.
        kernel_ns_total: kernel time of all of them, ns (saturates at 2**63 - 1).
        kernel_ns_max: the longest one, ns.
        bytes_total: bytes touched by all of them (saturates at 2**63 - 1).
    """

    name: str
    dispatch_count: int
    kernel_ns_total: int
    kernel_ns_max: int
    bytes_total: int

    @property
    def mean_kernel_ns(self) -> int:
        """Mean kernel time per dispatch, ns, rounded down (0 without dispatches)."""
        return self.kernel_ns_total // self.dispatch_count if self.dispatch_count else 0

    @property
    def mean_bytes(self) -> int:
        """Mean bytes touched per dispatch, rounded down (0 without dispatches)."""
        return self.bytes_total // self.dispatch_count if self.dispatch_count else 0

    def is_hot(self, hot_threshold_ns: int) -> bool:
        """Whether the mean kernel time (rounded down) is at least ``hot_threshold_ns``: the rule of
        ``hm_is_hot`` (FORMAT §7.2.1, ``hm_record_hot``)."""
        return self.dispatch_count > 0 and self.mean_kernel_ns >= hot_threshold_ns


class Order(enum.Enum):
    """What "hottest" means for :meth:`HintStore.hottest` (Java ``RegionOrder``, the CLI's ``--by``);
    largest first. ``Order("mean")`` takes the CLI's word."""

    TOTAL_NS = "total"
    """Total kernel time: where the GPU spends its time (the default)."""
    MEAN_NS = "mean"
    """Mean kernel time per dispatch: what :meth:`HintStore.is_hot` compares with the threshold."""
    COUNT = "count"
    """Number of dispatches."""
    MAX_NS = "max"
    """Longest single dispatch."""

    def key(self, record: RegionRecord) -> int:
        """The value this order ranks ``record`` by; larger is hotter."""
        if self is Order.TOTAL_NS:
            return record.kernel_ns_total
        if self is Order.MEAN_NS:
            return record.mean_kernel_ns
        if self is Order.COUNT:
            return record.dispatch_count
        return record.kernel_ns_max

    @classmethod
    def of(cls, order: Union["Order", str]) -> "Order":
        """``order`` itself, or the order named by a CLI word (``"total"``) or a member name (``"TOTAL_NS"``)."""
        if isinstance(order, Order):
            return order
        if isinstance(order, str):
            if order in cls.__members__:
                return cls[order]
            try:
                return cls(order)
            except ValueError:
                pass
        raise ValueError(f"order {order!r} is none of {', '.join(m.value for m in cls)} (or an Order)")


@dataclass(frozen=True)
class StoreInfo:
    """What the header and the C library say about an open file (``hintmap stat`` in part).

    Each counter is current when read; together they are not one atomic cut.
    """

    path: str
    """The path the store was opened with."""
    capacity: int
    """Most regions the file holds."""
    max_name_bytes: int
    """Longest name stored whole, UTF-8 bytes (FORMAT §1.1)."""
    hot_threshold_ns: int
    """Mean kernel ns at or above which a region is hot."""
    read_only: bool
    """Whether this store was opened read-only."""
    size: int
    """Regions held now (``hm_size``)."""
    high_water: int
    """Slots used at least once."""
    evictions: int
    recoveries: int
    dropped_inserts: int
    stolen_locks: int
    created_epoch_ms: int
    """When the file was created, ms since the epoch."""
    format_version: int
    """The file format version the library reads and writes."""
    library_version: str
    """``hm_version()`` of the C library in use."""
    library_path: str
    """Where that library was loaded from."""
