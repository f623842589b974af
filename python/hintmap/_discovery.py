"""Where the module finds ``libhintmap.so``: one ordered search, each step named in the error.

The order (docs/GUIDE.md, "Python"):

1. ``HINTMAP_LIBRARY``: the path of the shared library, when the variable is set. An explicit
   choice: when it does not load, the search stops there with that reason, rather than quietly
   using another library.
2. Beside the package: ``libhintmap.so.0`` (or ``libhintmap.so``) in the ``hintmap`` package's own
   folder, where a packager may put it.
3. The pkg-config prefix: ``pkg-config --variable=libdir hintmap`` (when pkg-config is installed),
   i.e. where ``make -C native-bench install PREFIX=...`` put it, even outside the loader's path.
4. The system loader: ``ctypes.util.find_library("hintmap")`` (the ``ldconfig`` cache).
5. The checkout: ``native-bench/build`` of the repository this package lies in, when it is run
   from a source tree (``python/hintmap`` beside ``native-bench/``).

``libhintmap.so.0`` is the SONAME (major version 0): the file a program linked against this ABI
loads. :mod:`hintmap._native` loads each candidate in turn and checks its ``hm_version()``; one
that fails goes into :class:`~hintmap.LibraryNotFoundError`'s list with its reason.
"""

from __future__ import annotations

import ctypes.util
import os
import shutil
import subprocess
from pathlib import Path
from typing import Callable, List, Mapping, NamedTuple, Optional

ENV_VARIABLE = "HINTMAP_LIBRARY"
SONAME = "libhintmap.so.0"
FILE_NAMES = (SONAME, "libhintmap.so")
PACKAGE_DIR = Path(__file__).resolve().parent


class Candidate(NamedTuple):
    """One place of the search: its step, the path or loader name to load (None when the step
    found nothing to try), and a note saying what the step looked at when it found nothing."""

    step: str
    target: Optional[str]
    note: str = ""


def run_pkg_config(argv: List[str]) -> Optional[str]:
    """pkg-config's output, stripped; None when it is not installed, fails or prints nothing."""
    if shutil.which(argv[0]) is None:
        return None
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    out = done.stdout.strip()
    return out if done.returncode == 0 and out else None


def candidates(
    env: Mapping[str, str] = os.environ,
    package_dir: Path = PACKAGE_DIR,
    pkg_config: Callable[[List[str]], Optional[str]] = run_pkg_config,
    find_library: Callable[[str], Optional[str]] = ctypes.util.find_library,
) -> List[Candidate]:
    """Every candidate in the documented order. The environment is a parameter so that the tests
    can check the order without installing anything. When ``HINTMAP_LIBRARY`` is set it is the
    only candidate."""
    explicit = env.get(ENV_VARIABLE)
    if explicit:
        return [Candidate(ENV_VARIABLE, explicit)]
    found = [Candidate("beside the package", str(package_dir / name)) for name in FILE_NAMES]
    libdir = pkg_config(["pkg-config", "--variable=libdir", "hintmap"])
    if libdir:
        found.append(Candidate("pkg-config", str(Path(libdir) / SONAME)))
    else:
        found.append(Candidate("pkg-config", None, "`pkg-config --variable=libdir hintmap` gave nothing"
                               " (pkg-config missing, or no hintmap.pc on PKG_CONFIG_PATH)"))
    soname = find_library("hintmap")
    found.append(Candidate("system loader", soname, "" if soname else
                           'ctypes.util.find_library("hintmap") found nothing (ldconfig cache)'))
    root = package_dir.parent.parent
    build = root / "native-bench" / "build" / SONAME
    if (root / "native-bench" / "include" / "hintmap.h").is_file():
        found.append(Candidate("checkout", str(build)))
    else:
        found.append(Candidate("checkout", None, f"{package_dir} is not in a hintmap checkout"))
    return found
