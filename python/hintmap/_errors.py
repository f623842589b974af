"""The errors of the module: the C library's ``HM_`` codes as exceptions that name the file.

Every failure that the C library reports as a negative ``HM_E*`` code (``hintmap.h``) is raised as
:class:`HintmapError` with that code, its name, the file's path and the library's message (file,
field, errno text). Bad arguments (``HM_EINVAL`` and the bad-name codes) are
:class:`InvalidArgumentError`, which is also a :class:`ValueError`, so Python code that catches
``ValueError`` for a bad argument keeps working. A library that cannot be found or loaded is
:class:`LibraryNotFoundError`, which lists every place that was tried.
"""

from __future__ import annotations

import enum
from typing import Optional, Sequence, Tuple, Union


class Code(enum.IntEnum):
    """The ``HM_E*`` codes of ``hintmap.h``, by the same names and numbers.

    ``test_codes`` checks this list against the header, so a code added in C is added here too.
    """

    HM_EINVAL = -1
    HM_ENAMETOOLONG = -2
    HM_EEMPTYNAME = -3
    HM_EBADNAME = -4
    HM_ENOTHINT = -5
    HM_ETRUNCATED = -6
    HM_EUNFINISHED = -7
    HM_EVERSION = -8
    HM_ECHECKSUM = -9
    HM_ELAYOUT = -10
    HM_EINCONSISTENT = -11
    HM_EOPTIONS = -12
    HM_EIO = -13
    HM_ENOMEM = -14
    HM_ENOTFOUND = -15
    HM_EWRITERS = -16
    HM_EREADONLY = -17
    HM_ECLOSED = -18
    HM_ESYMLINK = -19
    HM_EOWNER = -20
    HM_ENOSPC = -21
    HM_ECHANGED = -22
    HM_ESPARSE = -23
    HM_EMISSING = -24


# The codes that say the caller passed something wrong (not the file, not the system).
_ARGUMENT_CODES = frozenset({Code.HM_EINVAL, Code.HM_ENAMETOOLONG, Code.HM_EEMPTYNAME, Code.HM_EBADNAME})


class HintmapError(Exception):
    """A failure of the C library (or of this module's checks before calling it), with its code.

    Attributes:
        code: the ``HM_E*`` code, a :class:`Code` (an ``int``; a code this module does not know,
            from a newer library, stays a plain ``int``).
        code_name: the code's name, e.g. ``"HM_EMISSING"`` (``"HM_E?"`` for an unknown code).
        path: the hint file the failure is about, or ``None`` (e.g. :func:`hintmap.stored_name`).
        detail: the library's message with its context (file, field, errno text), or this
            module's; the code's generic text (``hm_strerror``) when there is none.
    """

    code: Union[Code, int]
    code_name: str
    path: Optional[str]
    detail: str

    def __init__(self, code: int, detail: str, path: Optional[str] = None) -> None:
        try:
            self.code = Code(code)
            self.code_name = self.code.name
        except ValueError:
            self.code = code
            self.code_name = "HM_E?"
        self.path = path
        self.detail = detail
        where = f"{path}: " if path is not None and path not in detail else ""  # C's messages name it
        super().__init__(f"{where}{detail} [{self.code_name} {int(code)}]")

    def __reduce__(self) -> Tuple[type, Tuple[int, str, Optional[str]]]:  # pickles (multiprocessing) by the constructor's arguments
        return (type(self), (int(self.code), self.detail, self.path))


class InvalidArgumentError(HintmapError, ValueError):
    """A bad argument: ``HM_EINVAL``, or a bad region name (``HM_EEMPTYNAME``, ``HM_EBADNAME``,
    ``HM_ENAMETOOLONG``). Also a :class:`ValueError`."""


def error_for(code: int, detail: str, path: Optional[str] = None) -> HintmapError:
    """The exception for ``code``: :class:`InvalidArgumentError` for the argument codes, else
    :class:`HintmapError`."""
    cls = InvalidArgumentError if code in _ARGUMENT_CODES else HintmapError
    return cls(code, detail, path)


class LibraryNotFoundError(OSError):
    """No usable ``libhintmap.so`` was found (or one was found and could not be used).

    Attributes:
        tried: each place tried, in order, as ``(where, what, why)``: where is the step of the
            search (``"HINTMAP_LIBRARY"``, ``"beside the package"``, ``"pkg-config"``,
            ``"system loader"``, ``"checkout"``), what the path or name, why it was not used.
    """

    tried: Tuple[Tuple[str, str, str], ...]

    def __init__(self, summary: str, tried: Sequence[Tuple[str, str, str]]) -> None:
        self.tried = tuple(tried)
        lines = [summary]
        lines += [f"  {where}: {what}: {why}" for where, what, why in self.tried]
        super().__init__("\n".join(lines))
