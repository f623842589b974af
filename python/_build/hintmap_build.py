"""A PEP 517 build backend that needs nothing but the standard library, so that
``pip install ./python`` works offline, with or without build isolation, on any Python 3.9+.

Why not setuptools: pip's default (isolated) build installs the backend from the index, which is
unreachable offline; setuptools before 70.1 also needs the ``wheel`` package, which not every
Python has. The package is pure Python (the C library is found at run time), so a wheel is a zip
of ``hintmap/`` and three metadata files (PEP 427, PEP 566), which this file writes itself.

Metadata comes from ``pyproject.toml``'s ``[project]`` table (read with ``tomllib`` where it exists,
Python 3.11+, else with :func:`_read_project`, which reads exactly the forms that file uses; a test
checks that both readers agree on it).
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile
from pathlib import Path
from typing import Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "hintmap"
# A fixed time for every archive entry: the same sources give the same bytes (reproducible builds).
_EPOCH = (2026, 12, 3, 0, 0, 0)


def _read_project(text: str) -> Dict[str, object]:
    """The ``[project]`` table of a pyproject.toml written as this one is: ``key = "string"`` and
    ``key = ["string", ...]`` on one line each (a subset of TOML, for Pythons without tomllib)."""
    table: Dict[str, object] = {}
    section = None
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        header = re.fullmatch(r"\[([^\]]+)\]", line)
        if header:
            section = header.group(1).strip()
            continue
        if section != "project":
            continue
        m = re.fullmatch(r'([A-Za-z0-9_-]+)\s*=\s*(.+)', line)
        if not m:
            raise ValueError(f"pyproject.toml: [project] line not understood without tomllib: {line}")
        key, value = m.group(1), m.group(2).strip()
        if value.startswith("["):
            table[key] = re.findall(r'"((?:[^"\\]|\\.)*)"', value)
        elif value.startswith('"') and value.endswith('"'):
            table[key] = value[1:-1]
        elif value.startswith("{"):
            table[key] = dict(re.findall(r'([A-Za-z0-9_-]+)\s*=\s*"((?:[^"\\]|\\.)*)"', value))
        else:
            raise ValueError(f"pyproject.toml: [project] value not understood without tomllib: {line}")
    return table


def project() -> Dict[str, object]:
    """The ``[project]`` table of pyproject.toml."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    try:
        import tomllib  # Python 3.11+
    except ImportError:
        return _read_project(text)
    return dict(tomllib.loads(text)["project"])


def _metadata() -> str:
    p = project()
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {p['name']}",
        f"Version: {p['version']}",
        f"Summary: {p['description']}",
        f"Requires-Python: {p['requires-python']}",
    ]
    lic = p.get("license")
    if isinstance(lic, dict) and "text" in lic:
        lines.append(f"License: {lic['text']}")
    for classifier in p.get("classifiers", []):  # type: ignore[union-attr]
        lines.append(f"Classifier: {classifier}")
    readme = p.get("readme")
    body = ""
    if isinstance(readme, str):
        lines.append("Description-Content-Type: text/markdown")
        body = "\n" + (ROOT / readme).read_text(encoding="utf-8")
    return "\n".join(lines) + "\n" + body


def _dist_name() -> Tuple[str, str]:
    p = project()
    return str(p["name"]).replace("-", "_"), str(p["version"])


def _package_files() -> List[Path]:
    """The package's files: its modules and the py.typed marker (no caches, no shared library)."""
    files = [f for f in (ROOT / PACKAGE).rglob("*") if f.is_file() and "__pycache__" not in f.parts]
    return sorted(f for f in files if f.suffix in (".py", ".typed"))


def _record_line(arcname: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
    return f"{arcname},sha256={digest},{len(data)}"


def _write(zf: zipfile.ZipFile, arcname: str, data: bytes) -> None:
    info = zipfile.ZipInfo(arcname, date_time=_EPOCH)
    info.external_attr = 0o644 << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    zf.writestr(info, data)


# ---------------------------------------------------------------------------- PEP 517 hooks


def get_requires_for_build_wheel(config_settings: Optional[dict] = None) -> List[str]:
    return []


def get_requires_for_build_sdist(config_settings: Optional[dict] = None) -> List[str]:
    return []


def build_wheel(wheel_directory: str, config_settings: Optional[dict] = None,
                metadata_directory: Optional[str] = None) -> str:
    """Writes ``hintmap-VERSION-py3-none-any.whl`` into ``wheel_directory``; returns its name."""
    name, version = _dist_name()
    dist_info = f"{name}-{version}.dist-info"
    wheel_name = f"{name}-{version}-py3-none-any.whl"
    entries: List[Tuple[str, bytes]] = []
    for f in _package_files():
        entries.append((f.relative_to(ROOT).as_posix(), f.read_bytes()))
    entries.append((f"{dist_info}/METADATA", _metadata().encode("utf-8")))
    entries.append((f"{dist_info}/WHEEL", (
        "Wheel-Version: 1.0\nGenerator: hintmap_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n").encode("ascii")))
    entries.append((f"{dist_info}/top_level.txt", f"{PACKAGE}\n".encode("ascii")))
    record = [_record_line(arc, data) for arc, data in entries] + [f"{dist_info}/RECORD,,"]
    entries.append((f"{dist_info}/RECORD", ("\n".join(record) + "\n").encode("utf-8")))
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel_name), "w") as zf:
        for arc, data in entries:
            _write(zf, arc, data)
    return wheel_name


def build_sdist(sdist_directory: str, config_settings: Optional[dict] = None) -> str:
    """Writes ``hintmap-VERSION.tar.gz`` (the package, this backend, pyproject.toml, README.md)."""
    name, version = _dist_name()
    base = f"{name}-{version}"
    sdist_name = f"{base}.tar.gz"
    files = _package_files() + [Path(__file__).resolve(), ROOT / "pyproject.toml", ROOT / "README.md"]
    pkg_info = _metadata().encode("utf-8")

    def add(tar: tarfile.TarFile, arcname: str, data: bytes) -> None:
        info = tarfile.TarInfo(f"{base}/{arcname}")
        info.size = len(data)
        info.mode = 0o644
        info.mtime = 1796256000  # _EPOCH
        tar.addfile(info, io.BytesIO(data))

    with tarfile.open(os.path.join(sdist_directory, sdist_name), "w:gz", format=tarfile.PAX_FORMAT) as tar:
        add(tar, "PKG-INFO", pkg_info)
        for f in files:
            add(tar, f.relative_to(ROOT).as_posix(), f.read_bytes())
    return sdist_name
