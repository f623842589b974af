"""Autotuning by hotness: spend the tuning time on the kernels that take the GPU's time.

:func:`early_config_prune` makes the function that Triton's ``@triton.autotune`` calls as
``prune_configs_by={"early_config_prune": ...}``: for a hot kernel it keeps every configuration
(tune it fully); for a cold or absent one it keeps the first only, the kernel's default. Hints are
a prioritisation signal: a missing hint file, or one that cannot be read, prunes like an absent
kernel, with one warning for a file that cannot be read. This module imports nothing of Triton; a
configuration is whatever the list holds.

What "hot" means is the caller's choice (``hot=``; docs/GUIDE.md, "Which rule answers which
question"):

* ``"coverage"`` (the default): membership of :meth:`HintStore.hot_set`, the fewest kernels that
  make up ``coverage`` of the file's kernel time (docs/GUIDE.md, "The hot set by coverage"):
  where the time goes, which is what tuning time should follow, as profile-guided optimizers
  define hot: a 5 µs kernel launched a million times is hot, a single 200 µs launch is not. Each
  prune reads the whole file (Triton prunes once per new autotuning key, not per launch).
* ``"threshold"``: :meth:`HintStore.is_hot`, a mean kernel time at or above the file's
  ``hot_threshold_ns`` (100 µs by default): one launch is expensive, however rarely it runs.
"""

from __future__ import annotations

import threading
import warnings
from typing import Any, Callable, List, Mapping, Optional, Sequence, TypeVar, Union

from ._errors import Code, HintmapError
from ._names import Name
from ._store import DEFAULT_COVERAGE, DEFAULT_MIN_DISPATCHES, HintStore, PathLike, hot_set_arguments

C = TypeVar("C")

KernelName = Union[str, bytes, Callable[[Mapping[str, Any]], Union[str, bytes]]]

HOT_RULES = ("threshold", "coverage")
"""The values of ``early_config_prune(hot=...)``."""


def prune_by_hotness(configs: Sequence[C], hot: bool) -> List[C]:
    """Every configuration when ``hot``, else the first one only (none for an empty list)."""
    return list(configs) if hot else list(configs[:1])


class _Hints:
    """A store given, or one opened read-only from a path on first use (and again while missing)."""

    def __init__(self, source: Union[HintStore, PathLike]) -> None:
        self._store = source if isinstance(source, HintStore) else None
        self._path = None if isinstance(source, HintStore) else source
        self._lock = threading.Lock()
        self._warned = False

    def store(self) -> Optional[HintStore]:
        if self._store is not None:
            return self._store
        with self._lock:
            if self._store is None:
                try:
                    self._store = HintStore.open(self._path, read_only=True)  # type: ignore[arg-type]
                except HintmapError as e:
                    if e.code != Code.HM_EMISSING and not self._warned:  # missing: no hints yet, quietly
                        warnings.warn(f"hintmap: autotuning without hints: {e}", RuntimeWarning, stacklevel=3)
                        self._warned = True
                    return None
            return self._store

    def reopen(self, stale: HintStore) -> bool:
        """Forgets ``stale`` when it was opened here from the path (the file there was replaced or
        resized: ``HM_ECHANGED``), so that the next :meth:`store` opens the path again; False for a
        store the caller gave, which is the caller's to reopen."""
        if self._path is None:
            return False
        with self._lock:
            if self._store is stale:
                self._store = None
        try:
            stale.close()
        except HintmapError:  # HM_ECHANGED again while unmapping: it is closed all the same
            pass
        return True


def early_config_prune(hints: Union[HintStore, PathLike], kernel: KernelName, *, hot: str = "coverage",
                       coverage: Optional[float] = None, min_dispatches: Optional[int] = None) -> Callable[..., List[Any]]:
    """A Triton ``early_config_prune`` function that keeps every configuration for a hot kernel and
    the first for a cold or absent one.

    Args:
        hints: an open :class:`HintStore`, or the path of a hint file, opened read-only on the first
            prune (a file that does not exist yet is tried again on the next prune; with
            ``hot="coverage"``, one replaced at the path is opened again).
        kernel: the kernel's region name as the hint file records it (e.g. the name the CUPTI
            collector records), or a function of Triton's named arguments that returns it (one
            name per shape, say).
        hot: what hot means: ``"coverage"`` (the default: the kernel is in :meth:`HintStore.hot_set`,
            where the time goes) or ``"threshold"`` (:meth:`HintStore.is_hot`, the file's mean-time
            threshold: one launch is expensive).
        coverage: with ``hot="coverage"``: the fraction of kernel time the hot set covers, in
            [0, 1] (default 0.95, as ``hintmap hot``).
        min_dispatches: with ``hot="coverage"``: the fewest dispatches a kernel needs to count
            (default 1).

    Returns:
        ``prune(configs, named_args=None, **kwargs) -> list``, the signature Triton calls.

    Raises:
        ValueError: an unknown ``hot``, or ``coverage``/``min_dispatches`` with ``hot="threshold"``.
        InvalidArgumentError: ``coverage`` outside [0, 1] or NaN, ``min_dispatches`` negative:
            at once, before any file is read.

    Example::

        @triton.autotune(configs=configs, key=["M", "N", "K"],
                         prune_configs_by={"early_config_prune":
                                           hintmap.autotune.early_config_prune("/dev/shm/app.hints", "matmul_kernel")})
        @triton.jit
        def matmul_kernel(...): ...
    """
    if hot not in HOT_RULES:
        raise ValueError(f"hot {hot!r} is none of {', '.join(map(repr, HOT_RULES))}")
    if hot == "threshold" and (coverage is not None or min_dispatches is not None):
        raise ValueError("coverage and min_dispatches choose the hot set: they need hot=\"coverage\"")
    by_coverage = hot == "coverage"
    # Checked now: a bad option must not wait for the hint file to exist to be reported.
    cut = hot_set_arguments(DEFAULT_COVERAGE if coverage is None else coverage,
                            DEFAULT_MIN_DISPATCHES if min_dispatches is None else min_dispatches)
    source = _Hints(hints)

    def is_hot(store: HintStore, name: Name) -> bool:
        return name in store.hot_set(*cut) if by_coverage else store.is_hot(name)

    def prune(configs: Sequence[Any], named_args: Optional[Mapping[str, Any]] = None, **kwargs: Any) -> List[Any]:
        name = kernel(named_args or {}) if callable(kernel) else kernel
        store = source.store()
        try:
            try:
                keep_all = store is not None and is_hot(store, name)
            except HintmapError as e:
                # hot_set checks the file (is_hot does not): a file replaced at the path is read anew
                if store is None or e.code != Code.HM_ECHANGED or not source.reopen(store):
                    raise
                store = source.store()
                keep_all = store is not None and is_hot(store, name)
        except HintmapError as e:
            if e.code in (Code.HM_EINVAL, Code.HM_EEMPTYNAME, Code.HM_EBADNAME, Code.HM_ENAMETOOLONG):
                raise  # the caller's name is wrong: say so, do not tune silently less
            warnings.warn(f"hintmap: autotuning {name!r} without hints: {e}", RuntimeWarning, stacklevel=2)
            keep_all = False
        return prune_by_hotness(configs, keep_all)

    return prune
