"""What the tests share: the repository's paths, the C tools, temporary folders, kernel names."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from typing import Dict, List, Optional

PYTHON_DIR = Path(__file__).resolve().parent.parent
REPO = PYTHON_DIR.parent
VECTORS = REPO / "src" / "test" / "resources" / "vectors"
NATIVE = REPO / "native-bench"
BUILD = NATIVE / "build"
HEADER = NATIVE / "include" / "hintmap.h"

# Kernel names as CUPTI reports them (PyTorch, CUTLASS, cuBLAS): long, templated, with spaces.
CUTLASS_GEMM = "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)"
TORCH_ADD = ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
             "std::array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3>)")
FLASH_FWD = ("void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t, "
             "Flash_kernel_traits<128, 128, 64, 4, cutlass::bfloat16_t> >, false, true, false, false, true, true, false>"
             "(flash::Flash_fwd_params)")
SOFTMAX = "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)"
CUBLAS_GEMV = "void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 4, 4, false, false, cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float> >(cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float>, float, float)"

U63_MAX = (1 << 63) - 1


def tool(name: str) -> Path:
    """A C tool of native-bench/build (built by `make -C native-bench tools`, before these tests)."""
    path = BUILD / name
    if not path.is_file():
        raise AssertionError(f"{path} is not built: run `make -C native-bench tools` first")
    return path


def run(argv: List[object], env: Optional[Dict[str, str]] = None, cwd: Optional[Path] = None,
        timeout: float = 120) -> subprocess.CompletedProcess:
    """Runs a program, its output captured as text; fails the test with that output when it fails."""
    done = subprocess.run([str(a) for a in argv], capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=timeout, check=False)
    if done.returncode != 0:
        raise AssertionError(f"{argv} exited {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}")
    return done


def python_env(**extra: str) -> Dict[str, str]:
    """The environment for a child Python: no PYTHONPATH or HINTMAP_LIBRARY of the test run, no bytecode."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "HINTMAP_LIBRARY")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(extra)
    return env


def child_python(code: str, env: Dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    """Runs ``code`` in a fresh interpreter (this one), so that it loads the library by its own search."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=120, check=False)


def library() -> Path:
    """The C library the tests use (HINTMAP_LIBRARY of run-tests.sh, else the checkout's build)."""
    return Path(os.environ.get("HINTMAP_LIBRARY") or BUILD / "libhintmap.so.0")


def vector_lines(name: str) -> List[str]:
    """The data lines of a vector file (no comments, no blank lines), as text."""
    text = (VECTORS / name).read_text(encoding="utf-8")
    return [line for line in text.split("\n") if line and not line.startswith("#")]


class TempDirTest(unittest.TestCase):
    """A test with a fresh temporary folder, ``self.dir``, removed afterwards."""

    def setUp(self) -> None:
        super().setUp()
        self.dir = Path(tempfile.mkdtemp(prefix="hintmap-py-"))
        self.addCleanup(shutil.rmtree, self.dir, True)

    def path(self, name: str = "app.hints") -> str:
        return str(self.dir / name)
