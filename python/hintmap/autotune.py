"""Autotuning by hotness: spend the tuning time on the kernels that take the GPU's time.

:func:`early_config_prune` makes the function that Triton's ``@triton.autotune`` calls as
``prune_configs_by={"early_config_prune": ...}``: for a hot kernel it keeps every configuration
(tune it fully); for a cold or absent one (never recorded, or below the file's hot threshold) it
keeps the first only, the kernel's default. Hints are a prioritisation signal: a missing hint file,
or one that cannot be read, prunes like an absent kernel, with one warning for a file that cannot
be read. This module imports nothing of Triton; a configuration is whatever the list holds.
"""

from __future__ import annotations

import threading
import warnings
from typing import Any, Callable, List, Mapping, Optional, Sequence, TypeVar, Union

from ._errors import Code, HintmapError
from ._store import HintStore, PathLike

C = TypeVar("C")

KernelName = Union[str, bytes, Callable[[Mapping[str, Any]], Union[str, bytes]]]


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


def early_config_prune(hints: Union[HintStore, PathLike], kernel: KernelName) -> Callable[..., List[Any]]:
    """A Triton ``early_config_prune`` function that keeps every configuration for a hot kernel and
    the first for a cold or absent one.

    Args:
        hints: an open :class:`HintStore`, or the path of a hint file, opened read-only on the first
            prune (a file that does not exist yet is tried again on the next prune).
        kernel: the kernel's region name as the hint file records it (e.g. the name the CUPTI
            collector records), or a function of Triton's named arguments that returns it (one
            name per shape, say).

    Returns:
        ``prune(configs, named_args=None, **kwargs) -> list``, the signature Triton calls.

    Example::

        @triton.autotune(configs=configs, key=["M", "N", "K"],
                         prune_configs_by={"early_config_prune":
                                           hintmap.autotune.early_config_prune("/dev/shm/app.hints", "matmul_kernel")})
        @triton.jit
        def matmul_kernel(...): ...
    """
    source = _Hints(hints)

    def prune(configs: Sequence[Any], named_args: Optional[Mapping[str, Any]] = None, **kwargs: Any) -> List[Any]:
        name = kernel(named_args or {}) if callable(kernel) else kernel
        store = source.store()
        try:
            hot = store is not None and store.is_hot(name)
        except HintmapError as e:
            if e.code in (Code.HM_EINVAL, Code.HM_EEMPTYNAME, Code.HM_EBADNAME, Code.HM_ENAMETOOLONG):
                raise  # the caller's name is wrong: say so, do not tune silently less
            warnings.warn(f"hintmap: autotuning {name!r} without hints: {e}", RuntimeWarning, stacklevel=2)
            hot = False
        return prune_by_hotness(configs, hot)

    return prune
