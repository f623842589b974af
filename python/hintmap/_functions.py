"""The C library's functions that need no store: the stored form of a name, the hash, versions."""

from __future__ import annotations

import ctypes

from . import _names
from ._errors import Code, InvalidArgumentError, error_for
from ._native import native

MAX_NAME_BYTES_LIMIT = 1024  # hintmap.h HM_MAX_NAME_BYTES_LIMIT


def stored_name(name: _names.Name, max_name_bytes: int = 256) -> str:
    """The stored form of ``name`` in a file whose ``max_name_bytes`` is ``max_name_bytes``
    (FORMAT §1.1, ``hm_name_canonical``): the name itself when it fits; else its longest prefix of
    at most ``max_name_bytes - 17`` bytes that ends on a character boundary, ``~`` and 16 hex digits
    of the whole name's hash. What a file lists for a long kernel name.

    Raises:
        InvalidArgumentError: ``max_name_bytes`` outside 1..1024, an empty or non-UTF-8 name.
    """
    raw = _names.encode(name)
    if type(max_name_bytes) is not int or not 1 <= max_name_bytes <= MAX_NAME_BYTES_LIMIT:
        raise InvalidArgumentError(Code.HM_EINVAL, f"max_name_bytes {max_name_bytes!r} is outside 1..{MAX_NAME_BYTES_LIMIT}")
    lib = native()
    out = ctypes.create_string_buffer(max_name_bytes)  # the stored form never exceeds it (hintmap.h)
    out_len = ctypes.c_size_t()
    rc = lib.hm_name_canonical(raw, len(raw), max_name_bytes, out, max_name_bytes, ctypes.byref(out_len))
    if rc < 0:
        raise error_for(rc, f"stored_name: {lib.strerror(rc)}")
    return _names.decode(out.raw[: out_len.value])


def hash64(data: _names.Name) -> int:
    """``hm64`` of FORMAT §4 over ``data`` (a ``str`` is hashed as its UTF-8 bytes), 0..2**64 - 1."""
    raw = _names.encode(data)
    return int(native().hm_hash64(raw, len(raw)))


def library_version() -> str:
    """``hm_version()`` of the C library in use, e.g. ``"0.1.0"`` (loads it)."""
    return native().version


def library_path() -> str:
    """Where the C library in use was loaded from (loads it; the search: docs/GUIDE.md, "Python")."""
    return native().path


def format_version() -> int:
    """The hint file format version the C library reads and writes."""
    return int(native().hm_format_version())
