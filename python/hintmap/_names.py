"""Region names between Python and the C library: ``str`` (UTF-8) or ``bytes`` in, ``str`` out.

The C library takes a name as (pointer, length) of UTF-8 bytes and checks it (empty:
``HM_EEMPTYNAME``, not UTF-8: ``HM_EBADNAME``). A ``str`` is encoded strictly; one that UTF-8 cannot
encode (a lone surrogate) is not valid UTF-8 either, so it is the same ``HM_EBADNAME``. Names read
from a file are decoded with ``surrogateescape``, so that no byte of a damaged name is lost.
"""

from __future__ import annotations

from typing import Union

from ._errors import Code, InvalidArgumentError

Name = Union[str, bytes]


def encode(name: Name) -> bytes:
    """The name's UTF-8 bytes, as the C library takes them.

    Raises:
        InvalidArgumentError: ``HM_EBADNAME``, a ``str`` that UTF-8 cannot encode.
        TypeError: neither ``str`` nor a bytes-like object.
    """
    if type(name) is str:
        try:
            return name.encode("utf-8")
        except UnicodeEncodeError as e:
            raise InvalidArgumentError(Code.HM_EBADNAME, f"region name {name!r} is not valid UTF-8 ({e.reason})") from None
    if isinstance(name, (bytes, bytearray, memoryview)):
        return bytes(name)
    if isinstance(name, str):  # a str subclass
        return encode(str(name))
    raise TypeError(f"a region name is str or bytes, not {type(name).__name__}")


def decode(raw: bytes) -> str:
    """A name read from the file (valid UTF-8 in a sound file) as ``str``, losslessly."""
    return raw.decode("utf-8", "surrogateescape")


def order_key(name: str) -> bytes:
    """The key of the one order of names (docs/FORMAT.md §1, "The order of names"), by which every ordering of
    regions breaks ties: the name's bytes as the file holds them, compared unsigned (C's ``memcmp``, Java's
    ``RegionOrder.compareNames``). For a valid name that is the order of ``str`` (code points); a damaged name
    read with ``surrogateescape`` keeps its bytes' place, where ``str`` would put its escapes (U+DC80..U+DCFF)
    below U+E000."""
    return name.encode("utf-8", "surrogateescape")


def as_str(name: Name) -> str:
    """The name as given, as ``str`` (for the records this module returns)."""
    return name if type(name) is str else decode(encode(name))
