"""Every Python block of the documents a user reads runs as written, each on a file of its own.

README.md, docs/GUIDE.md and python/README.md mark each fenced ``python`` block
``<!-- readme-check: run -->`` on the line above it (the Java test ReadmeCodeBlocksTest checks that
every one is marked, and compiles the Java and C blocks): each runs here in a fresh interpreter with
this checkout's module and library, its hint file's path replaced by a temporary one that an earlier
run recorded one kernel into, and, for the autotuning example, a stand-in ``triton`` module (the real
one needs a GPU) that hands the prune hook the configurations once, as Triton does for a new key.
The README's example, run on a new file as a user would, prints what its comments say.
"""

from __future__ import annotations

import os
from typing import List, Tuple

import hintmap

from .support import CUTLASS_GEMM, PYTHON_DIR, REPO, TempDirTest, child_python, library, python_env

MARKER = "<!-- readme-check: run -->"
README_PATH = "/dev/shm/app.hints"

# A stand-in for Triton: Config holds its arguments, jit returns the function, autotune prunes the
# configurations once with the early_config_prune it is given and says how many it kept.
FAKE_TRITON = '''
class Config:
    def __init__(self, kwargs, num_warps=4, **more):
        self.kwargs, self.num_warps = kwargs, num_warps


def autotune(configs, key, prune_configs_by=None, **more):
    def wrap(fn):
        kept = prune_configs_by["early_config_prune"](configs, {"M": 4096, "N": 4096, "K": 1024})
        print(f"pruned {fn.__name__}: kept {len(kept)} of {len(configs)}")
        return fn
    return wrap


def jit(fn):
    return fn
'''


DOCUMENTS = ("README.md", "docs/GUIDE.md", "python/README.md")  # as ReadmeBlocks.DOCUMENTS


def readme_blocks(documents=DOCUMENTS) -> List[Tuple[str, bool, str]]:
    """Every fenced python block: where it is (DOCUMENT:LINE), whether the line above marks it to be
    run, its code."""
    blocks = []
    for document in documents:
        lines = (REPO / document).read_text(encoding="utf-8").split("\n")
        i = 0
        while i < len(lines):
            if lines[i].startswith("```python"):
                end = i + 1
                while not lines[end].startswith("```"):
                    end += 1
                blocks.append((f"{document}:{i + 1}", i > 0 and lines[i - 1].strip() == MARKER,
                               "\n".join(lines[i + 1:end]) + "\n"))
                i = end
            i += 1
    return blocks


class ReadmeTest(TempDirTest):
    def setUp(self):
        super().setUp()
        triton = self.dir / "stand-in" / "triton"
        triton.mkdir(parents=True)
        (triton / "__init__.py").write_text(FAKE_TRITON, encoding="utf-8")
        (triton / "language.py").write_text("constexpr = int\n", encoding="utf-8")

    def run_block(self, code: str, name: str):
        """Runs ``code`` on its own hint file (``name``) and returns the finished process."""
        self.assertIn(f'"{README_PATH}"', code)
        path = os.pathsep.join([str(PYTHON_DIR), str(self.dir / "stand-in")])
        return child_python(code.replace(README_PATH, self.path(name)),
                            python_env(PYTHONPATH=path, HINTMAP_LIBRARY=str(library())), self.dir)

    def prepared(self, name: str) -> str:
        """A hint file named ``name`` holding what an earlier run recorded: one CUTLASS kernel."""
        with hintmap.open(self.path(name), capacity=16) as store:
            store.record(CUTLASS_GEMM, 420_000, 1 << 20)
        return name

    def test_every_python_block_is_marked_and_runs(self):
        blocks = readme_blocks()
        self.assertGreaterEqual(len(blocks), 4)
        for where, marked, code in blocks:
            with self.subTest(where=where):
                self.assertTrue(marked, f"{where}: a python block needs {MARKER} on the line above")
                name = self.prepared(where.replace("/", "_").replace(":", "_") + ".hints")
                done = self.run_block(code, name)
                self.assertEqual(done.returncode, 0, f"{where}:\n{done.stderr}")

    def test_the_readme_example_asks_the_reference_designs_questions_and_prints_the_answers(self):
        code = next(code for _, _, code in readme_blocks(("README.md",)))
        for question in ("is_hot(", "dispatch_count(", "mean_kernel_ns(", "record_for(", "len(store)", "is_empty()"):
            self.assertIn(question, code)
        done = self.run_block(code, "app.hints")  # no file yet: the block creates it
        self.assertEqual(done.returncode, 0, done.stderr)
        printed = [line.split("#")[1].split(":")[0].strip() for line in code.splitlines() if "print(" in line]
        self.assertEqual(["True 1 420000", "None 1 False"], printed, "the comments say what each line prints")
        self.assertEqual("True 1 420000\nNone 1 False\n", done.stdout)

    def test_the_store_example_prints_what_the_file_holds(self):
        code = next(code for _, _, code in readme_blocks(("docs/GUIDE.md",)) if "hintmap.open(" in code)
        with hintmap.open(self.path(), capacity=16) as store:  # an earlier run recorded the kernel
            store.record(CUTLASS_GEMM, 420_000, 1 << 20)
        done = self.run_block(code, "app.hints")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn(f"RegionRecord(name='{CUTLASS_GEMM}', dispatch_count=1, kernel_ns_total=420000", done.stdout)
        self.assertIn(f"{CUTLASS_GEMM} 1 420000", done.stdout)
        self.assertIn(f"{CUTLASS_GEMM} 100.0% True", done.stdout)  # the hot set of a one-kernel file
        with hintmap.open(self.path(), read_only=True) as store:
            self.assertEqual(store.dispatch_count(CUTLASS_GEMM), 2)  # and its last line recorded one more

    def test_the_triton_example_keeps_every_configuration_of_a_hot_kernel(self):
        code = next(code for _, _, code in readme_blocks(("docs/GUIDE.md",)) if "triton.autotune" in code)
        with hintmap.open(self.path(), capacity=16) as store:
            store.record("matmul_kernel", 420_000, 1 << 20)  # hot: by the threshold and by coverage
        done = self.run_block(code, "app.hints")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual("pruned matmul_kernel: kept 2 of 2\n", done.stdout)
