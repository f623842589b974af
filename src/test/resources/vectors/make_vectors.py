#!/usr/bin/env python3
"""Writes stored-names.txt and sha256.txt of this folder from docs/FORMAT.md section 1.1 alone.

The stored form is computed here with Python's hashlib (SHA-256 of FIPS 180-4), independently of
the Java and C code under test, which read these files (Java StoredNameTest and EncodedNameTest,
C test_unit, the CUPTI collector's test_translate, the Python module's tests). Run from anywhere:

    python3 src/test/resources/vectors/make_vectors.py

Standard library only; the output is the same on every run.
"""
import hashlib
import os

HERE = os.path.dirname(os.path.abspath(__file__))
TAG_BYTES = 33        # '~' and 32 hex digits
MIN_LIMIT = TAG_BYTES  # FORMAT section 2: 33 <= max_name_bytes <= 1024


def stored_form(name: str, limit: int) -> str:
    """FORMAT section 1.1, format version 3."""
    assert MIN_LIMIT <= limit <= 1024
    utf8 = name.encode("utf-8")
    if len(utf8) <= limit:
        return name
    cut = limit - TAG_BYTES
    while cut > 0 and (utf8[cut] & 0xC0) == 0x80:  # utf8[cut] continues a character
        cut -= 1
    digest = hashlib.sha256(utf8).digest()[:16]
    return utf8[:cut].decode("utf-8") + "~" + digest.hex()


NAMES = [
    "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x3_nn_align8>(Params)",
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 3> >"
    "(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3>)",
    "void cute::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, int>, "
    "cutlass::gemm::collective::CollectiveMma<cute::Shape<cute::C<128>, cute::C<256>>>, "
    "cutlass::gemm::collective::CollectiveMma<cute::Shape<cute::C<128>, cute::C<256>>>, "
    "cutlass::gemm::collective::CollectiveM)",
    "カーネル_matmul_" * 6 + "bf16",                       # 3-byte characters at every cut
    "kernel_🚀_" + "x" * 40 + "_🚀🚀🚀_end",                 # 4-byte characters
]
LIMITS = [33, 34, 35, 36, 37, 40, 41, 42, 43, 44, 64, 100, 101, 256, 1024]


def stored_name_rows():
    rows = []
    for name in NAMES:
        n = len(name.encode("utf-8"))
        for limit in sorted(set(LIMITS + [n - 1, n])):  # the boundary: shortened at n - 1, whole at n
            if MIN_LIMIT <= limit <= 1024:
                rows.append((limit, name))
    big = "template<" + "T" * 2100 + ">"                  # longer than any limit
    rows += [(1024, big), (33, big)]
    rows += [(64, "x" * 64), (64, "x" * 65)]              # L and L + 1
    rows += [(33, "y" * 33), (33, "y" * 34)]              # the smallest limit: whole, and the tag alone
    return rows


def write_stored_names():
    lines = [
        "# Stored names (docs/FORMAT.md section 1.1, format version 3): max_name_bytes, TAB, stored name, TAB, name as given.",
        "# Each name is valid UTF-8 without TAB or newline. Lines starting with # are comments.",
        "# Made by make_vectors.py in this folder (Python's hashlib), not by the code under test.",
    ]
    for limit, name in stored_name_rows():
        lines.append("%d\t%s\t%s" % (limit, stored_form(name, limit), name))
    with open(os.path.join(HERE, "stored-names.txt"), "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(lines) + "\n")


def sha256_message(length: int) -> bytes:
    """The test message of each length: byte j is (31 * j + 7) mod 256 (every byte value occurs)."""
    return bytes((31 * j + 7) & 0xFF for j in range(length))


def write_sha256():
    lines = [
        "# SHA-256 (FIPS 180-4) of the message of each length 0..200: length, TAB, 64 hex digits.",
        "# Message byte j is (31 * j + 7) mod 256. Made by make_vectors.py in this folder (Python's hashlib).",
    ]
    for length in range(201):
        lines.append("%d\t%s" % (length, hashlib.sha256(sha256_message(length)).hexdigest()))
    with open(os.path.join(HERE, "sha256.txt"), "w", encoding="ascii", newline="\n") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    write_stored_names()
    write_sha256()
