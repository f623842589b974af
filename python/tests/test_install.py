"""`pip install ./python` offline, and the wheel the build backend writes."""

from __future__ import annotations

import base64
import csv
import hashlib
import importlib.util
import io
import os
import subprocess
import sys
import tarfile
import unittest
import zipfile

import hintmap

from .support import CUTLASS_GEMM, PYTHON_DIR, TempDirTest, child_python, library, python_env


def backend():
    spec = importlib.util.spec_from_file_location("hintmap_build", PYTHON_DIR / "_build" / "hintmap_build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def has_pip() -> bool:
    return subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True, check=False).returncode == 0


class WheelTest(TempDirTest):
    def test_the_wheel_holds_the_typed_package_and_a_record_that_matches_it(self):
        name = backend().build_wheel(str(self.dir))
        self.assertEqual(name, f"hintmap-{hintmap.__version__}-py3-none-any.whl")
        with zipfile.ZipFile(self.dir / name) as wheel:
            names = set(wheel.namelist())
            for module in ("__init__", "_store", "_region", "_native", "_discovery", "autotune"):
                self.assertIn(f"hintmap/{module}.py", names)
            self.assertIn("hintmap/py.typed", names)
            self.assertFalse([n for n in names if "__pycache__" in n or n.endswith(".so") or "tests" in n])
            dist_info = f"hintmap-{hintmap.__version__}.dist-info"
            rows = list(csv.reader(io.StringIO(wheel.read(f"{dist_info}/RECORD").decode())))
            self.assertEqual({r[0] for r in rows}, names)
            for path, digest, size in rows:
                if path.endswith("RECORD"):
                    continue
                data = wheel.read(path)
                want = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                self.assertEqual((digest, int(size)), (want, len(data)), path)
            metadata = wheel.read(f"{dist_info}/METADATA").decode()
            self.assertIn(f"Version: {hintmap.__version__}\n", metadata)
            self.assertIn("Requires-Python: >=3.9\n", metadata)

    def test_the_backend_reads_pyproject_the_same_with_and_without_tomllib(self):
        b = backend()
        text = (PYTHON_DIR / "pyproject.toml").read_text(encoding="utf-8")
        fallback = b._read_project(text)
        try:
            import tomllib
        except ImportError:  # Python < 3.11: the fallback must still give the version of the package
            self.assertEqual(fallback["version"], hintmap.__version__)
            return
        self.assertEqual(fallback, tomllib.loads(text)["project"])

    def test_the_sdist_holds_what_a_wheel_is_built_from(self):
        name = backend().build_sdist(str(self.dir))
        with tarfile.open(self.dir / name) as sdist:
            names = set(sdist.getnames())
        base = f"hintmap-{hintmap.__version__}"
        for member in ("PKG-INFO", "pyproject.toml", "README.md", "_build/hintmap_build.py", "hintmap/_store.py",
                       "hintmap/py.typed"):
            self.assertIn(f"{base}/{member}", names)


@unittest.skipUnless(has_pip(), f"no pip for {sys.executable}: the offline install is not checked")
class PipInstallTest(TempDirTest):
    def test_pip_installs_the_folder_offline_and_the_installed_module_works(self):
        target = self.dir / "site"
        env = python_env(PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INDEX="1", PIP_NO_CACHE_DIR="1")
        done = subprocess.run([sys.executable, "-m", "pip", "install", "--no-index", "--target", str(target),
                               str(PYTHON_DIR)], capture_output=True, text=True, env=env, timeout=300, check=False)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)  # build isolation included: needs nothing
        self.assertTrue((target / "hintmap" / "py.typed").is_file())
        hints = self.path()
        code = ("import hintmap, sys\n"
                "print(hintmap.__file__)\n"
                f"with hintmap.open({hints!r}, capacity=8) as s:\n"
                f"    s.record({CUTLASS_GEMM!r}, 150000, 64)\n"
                f"    print(s.is_hot({CUTLASS_GEMM!r}), s.dispatch_count({CUTLASS_GEMM!r}))\n")
        ran = child_python(code, python_env(PYTHONPATH=str(target), HINTMAP_LIBRARY=str(library())), self.dir)
        self.assertEqual(ran.returncode, 0, ran.stderr)
        self.assertEqual(ran.stdout.split("\n")[:2], [str(target / "hintmap" / "__init__.py"), "True 1"])
        self.assertFalse(os.path.exists(PYTHON_DIR / "build"))  # an in-tree build leaves nothing behind
