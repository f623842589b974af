"""The README's Python example runs as written (on a file of its own)."""

from __future__ import annotations

import re

import hintmap

from .support import CUTLASS_GEMM, PYTHON_DIR, REPO, TempDirTest, child_python, library, python_env


def readme_example() -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Reading hints from Python"):]
    return re.search(r"```python\n(.*?)```", section, re.DOTALL).group(1)


class ReadmeTest(TempDirTest):
    def test_the_readme_example_runs_and_prints_what_the_file_holds(self):
        code = readme_example()
        self.assertIn('"/dev/shm/app.hints"', code)
        with hintmap.open(self.path(), capacity=16) as store:  # an earlier run recorded the kernel
            store.record(CUTLASS_GEMM, 420_000, 1 << 20)
        done = child_python(code.replace("/dev/shm/app.hints", self.path()),
                            python_env(PYTHONPATH=str(PYTHON_DIR), HINTMAP_LIBRARY=str(library())), self.dir)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn(f"RegionRecord(name='{CUTLASS_GEMM}', dispatch_count=1, kernel_ns_total=420000", done.stdout)
        self.assertIn(f"{CUTLASS_GEMM} 1 420000", done.stdout)
        self.assertIn(f"{CUTLASS_GEMM} 100.0% True", done.stdout)  # the hot set of a one-kernel file
        with hintmap.open(self.path(), read_only=True) as store:
            self.assertEqual(store.dispatch_count(CUTLASS_GEMM), 2)  # and its last line recorded one more
