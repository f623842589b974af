"""The values the store returns: a region's record, the order of "hottest", the hot set, the file's figures."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import FrozenSet, Iterator, NamedTuple, Tuple, Union


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


class HotRegion(NamedTuple):
    """One region of a :class:`HotSet`: its record and the share of the file's kernel time it holds
    (Java ``HotRegion``).

    Attributes:
        record: the region's record, named by its stored name (FORMAT §1.1).
        share: ``record.kernel_ns_total`` over the file's exact kernel time in binary64, in (0, 1].
        cumulative_share: the same for this region and every one before it in the set.
    """

    record: RegionRecord
    share: float
    cumulative_share: float

    @property
    def name(self) -> str:
        """The region's stored name (``record.name``)."""
        return self.record.name


@dataclass(frozen=True)
class HotSet:
    """The hot set by coverage (:meth:`HintStore.hot_set`; defined in docs/GUIDE.md, "The hot
    set by coverage"; Java ``HotSet``, C ``hm_hot_set``): the fewest regions, hottest by total kernel
    time first, whose kernel time covers at least ``coverage`` of the whole file's, leaving out
    regions with fewer than ``min_dispatches`` dispatches. Every figure is the C library's.

    ``len(hot)``, ``for r in hot`` and ``hot[i]`` go over :attr:`regions`; ``name in hot`` says
    whether a region belongs to the set, by its whole name or its stored name.
    """

    regions: Tuple[HotRegion, ...]
    """The set, hottest first (larger ``kernel_ns_total``; equal totals by stored name in UTF-8 byte order)."""
    coverage: float
    """The fraction asked for, in [0, 1]."""
    min_dispatches: int
    """The fewest dispatches a region needed to count (as asked; above 2**63 - 1 clamped to it, as C clamps)."""
    total_ns: int
    """Kernel time of every region read, thin ones included, ns: the exact sum, clamped to 2**63 - 1 (several
    regions of 2**63 - 1 ns add up past it; the set and every share come from the exact sums)."""
    needed_ns: int
    """What the set had to cover, clamped as ``total_ns``: the whole at coverage 1, else ``ceil(coverage *
    whole)`` in binary64, at most the whole."""
    covered_ns: int
    """Kernel time of the set, clamped as ``total_ns``."""
    covered_share: float
    """The set's share of the kernel time, from the exact sums, in binary64 (0 when there is none)."""
    regions_read: int
    """Regions read (a name read twice counted once)."""
    thin_regions: int
    """Regions left out for fewer than ``min_dispatches`` dispatches."""
    thin_ns: int
    """Their kernel time, clamped as ``total_ns``."""
    reached: bool
    """Whether the set covers what was asked (the exact sums compared): False when thin regions hold too
    much of the time; the set is then every region with enough dispatches and some kernel time."""
    consistent: bool
    """Whether the regions were read in one cut of the file (FORMAT §7.5); False only when writers
    kept inserting or evicting through every attempt, and the set is then a hint."""
    max_name_bytes: int
    """The file's ``max_name_bytes``: how ``name in hot`` finds the stored form of a whole name."""
    _names: FrozenSet[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_names", frozenset(r.name for r in self.regions))  # frozen: set once

    @property
    def thin_share(self) -> float:
        """``thin_ns / total_ns`` (0 when ``total_ns`` is 0): the share of the kernel time held by
        regions with too few dispatches, as ``hintmap hot`` reports it (docs/GUIDE.md step 7).
        Exact while the file's kernel time is below 2**63 - 1 ns (292 years); beyond, both figures
        are clamped and this is an approximation (C's ``hm_hot_set_info``, whose layout is fixed,
        carries no thin share; Java's ``HotSet.thinShare()`` is exact)."""
        return self.thin_ns / self.total_ns if self.total_ns else 0.0

    @property
    def names(self) -> Tuple[str, ...]:
        """The stored names of the set, hottest first."""
        return tuple(r.name for r in self.regions)

    def __len__(self) -> int:
        return len(self.regions)

    def __iter__(self) -> Iterator[HotRegion]:
        return iter(self.regions)

    def __getitem__(self, index: int) -> HotRegion:
        return self.regions[index]

    def __contains__(self, name: object) -> bool:
        """Whether region ``name`` (``str`` or ``bytes``; the whole name or its stored form) is in the set.

        Raises:
            InvalidArgumentError: an empty or non-UTF-8 name; TypeError: neither ``str`` nor ``bytes``.
        """
        if isinstance(name, str) and name in self._names:  # a stored name, or a whole one that fits
            return True
        from ._functions import stored_name  # the C rule (FORMAT §1.1); _functions loads the library

        return stored_name(name, self.max_name_bytes) in self._names  # type: ignore[arg-type]


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
