"""Where the module finds libhintmap.so: the documented order, and the error that lists it."""

from __future__ import annotations

import ctypes.util
import shutil
from pathlib import Path

from hintmap import _discovery

from .support import HEADER, PYTHON_DIR, TempDirTest, child_python, library, python_env

PROBE = "import hintmap; print(hintmap.library_path())"


class OrderTest(TempDirTest):
    def test_the_variable_alone_is_tried_when_set(self):
        found = _discovery.candidates(env={"HINTMAP_LIBRARY": "/opt/x/libhintmap.so.0"}, package_dir=self.dir,
                                      pkg_config=lambda argv: "/usr/lib", find_library=lambda n: "libhintmap.so.0")
        self.assertEqual(found, [_discovery.Candidate("HINTMAP_LIBRARY", "/opt/x/libhintmap.so.0")])

    def test_beside_the_package_then_pkg_config_then_the_loader_then_the_checkout(self):
        asked = []
        found = _discovery.candidates(env={}, package_dir=Path("/repo/python/hintmap"),
                                      pkg_config=lambda argv: asked.append(argv) or "/opt/hm/lib",
                                      find_library=lambda n: asked.append(n) or "libhintmap.so.0")
        self.assertEqual([(c.step, c.target) for c in found], [
            ("beside the package", "/repo/python/hintmap/libhintmap.so.0"),
            ("beside the package", "/repo/python/hintmap/libhintmap.so"),
            ("pkg-config", "/opt/hm/lib/libhintmap.so.0"),
            ("system loader", "libhintmap.so.0"),
            ("checkout", None),  # /repo holds no native-bench/include/hintmap.h
        ])
        self.assertEqual(asked, [["pkg-config", "--variable=libdir", "hintmap"], "hintmap"])

    def test_steps_that_find_nothing_say_what_they_looked_at(self):
        found = _discovery.candidates(env={}, package_dir=self.dir / "python" / "hintmap",
                                      pkg_config=lambda argv: None, find_library=lambda n: None)
        notes = {c.step: c.note for c in found if c.target is None}
        self.assertIn("pkg-config --variable=libdir hintmap", notes["pkg-config"])
        self.assertIn("find_library", notes["system loader"])
        self.assertIn("not in a hintmap checkout", notes["checkout"])


class LoadingTest(TempDirTest):
    """Each step for real, in a child interpreter over a copy of the package."""

    def package_copy(self, root: Path) -> Path:
        shutil.copytree(PYTHON_DIR / "hintmap", root / "hintmap", ignore=shutil.ignore_patterns("__pycache__"))
        return root

    def fake_pkg_config(self, libdir) -> Path:
        """A pkg-config that answers `--variable=libdir hintmap` (or fails), ahead of the real one on PATH."""
        bin_dir = self.dir / "bin"
        bin_dir.mkdir(exist_ok=True)
        script = bin_dir / "pkg-config"
        script.write_text("#!/bin/sh\n" + (f'echo "{libdir}"\n' if libdir else "exit 1\n"), encoding="utf-8")
        script.chmod(0o755)
        return bin_dir

    def env(self, libdir=None, **extra):
        bin_dir = self.fake_pkg_config(libdir)
        return python_env(PATH=f"{bin_dir}:{python_env()['PATH']}", **extra)

    def test_import_works_without_the_library_and_the_first_use_lists_every_place_tried(self):
        root = self.package_copy(self.dir / "site")
        done = child_python("import hintmap\ntry:\n    hintmap.library_path()\nexcept hintmap.LibraryNotFoundError as e:\n"
                            "    print(e)\n    print([t[0] for t in e.tried])", self.env(PYTHONPATH=str(root)), self.dir)
        self.assertEqual(done.returncode, 0, done.stderr)
        if ctypes.util.find_library("hintmap") is not None:  # a system-wide install answers step 4
            self.assertNotIn("no usable", done.stdout)
            return
        self.assertIn("no usable libhintmap.so", done.stdout)
        self.assertIn("make -C native-bench", done.stdout)
        self.assertIn(str(root / "hintmap" / "libhintmap.so.0") + ": no such file", done.stdout)
        self.assertIn("['beside the package', 'beside the package', 'pkg-config', 'system loader', 'checkout']",
                      done.stdout)

    def test_a_hintmap_library_variable_that_does_not_load_is_the_error(self):
        bad = self.dir / "libhintmap.so.0"
        bad.write_bytes(b"not a shared object\n" * 256)
        root = self.package_copy(self.dir / "site")
        shutil.copy(library(), root / "hintmap" / "libhintmap.so.0")  # would load: not tried
        for value, why in ((str(self.dir / "none.so"), "no such file"), (str(bad), "invalid ELF header")):
            done = child_python("import hintmap\ntry:\n    hintmap.open('x')\nexcept hintmap.LibraryNotFoundError as e:\n"
                                "    print(e)", self.env(PYTHONPATH=str(root), HINTMAP_LIBRARY=value), self.dir)
            self.assertIn(f"HINTMAP_LIBRARY: {value}: ", done.stdout, done.stderr)
            self.assertIn(why, done.stdout)
            self.assertNotIn("beside the package", done.stdout)

    def test_the_variable_names_the_library(self):
        copy = self.dir / "lib" / "libhintmap.so.0"
        copy.parent.mkdir()
        shutil.copy(library(), copy)
        done = child_python(PROBE, self.env(PYTHONPATH=str(PYTHON_DIR), HINTMAP_LIBRARY=str(copy)), self.dir)
        self.assertEqual(done.stdout.strip(), str(copy), done.stderr)

    def test_a_library_beside_the_package_comes_before_pkg_config(self):
        root = self.package_copy(self.dir / "site")
        shutil.copy(library(), root / "hintmap" / "libhintmap.so.0")
        done = child_python(PROBE, self.env(libdir="/nowhere", PYTHONPATH=str(root)), self.dir)
        self.assertEqual(done.stdout.strip(), str(root / "hintmap" / "libhintmap.so.0"), done.stderr)

    def test_the_pkg_config_libdir_is_used(self):
        libdir = self.dir / "prefix" / "lib"
        libdir.mkdir(parents=True)
        shutil.copy(library(), libdir / "libhintmap.so.0")
        root = self.package_copy(self.dir / "site")
        done = child_python(PROBE, self.env(libdir=str(libdir), PYTHONPATH=str(root)), self.dir)
        self.assertEqual(done.stdout.strip(), str(libdir / "libhintmap.so.0"), done.stderr)

    def test_a_checkouts_build_is_found_from_its_python_folder(self):
        checkout = self.dir / "checkout"
        self.package_copy(checkout / "python")
        (checkout / "native-bench" / "include").mkdir(parents=True)
        shutil.copy(HEADER, checkout / "native-bench" / "include" / "hintmap.h")
        (checkout / "native-bench" / "build").mkdir()
        shutil.copy(library(), checkout / "native-bench" / "build" / "libhintmap.so.0")
        done = child_python(PROBE, self.env(PYTHONPATH=str(checkout / "python")), self.dir)
        self.assertEqual(done.returncode, 0, done.stderr)
        if ctypes.util.find_library("hintmap") is None:
            self.assertEqual(done.stdout.strip(), str(checkout / "native-bench" / "build" / "libhintmap.so.0"))
        else:  # a system-wide install comes first (step 4)
            self.assertNotIn(str(checkout), done.stdout)
