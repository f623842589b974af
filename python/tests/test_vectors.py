"""The vectors Java and C check, checked through Python: stored names, the hash, codes, layout, version, the
replacement of ill-formed UTF-8 in a name shown."""

from __future__ import annotations

import ctypes
import re
from collections import defaultdict

import hintmap
from hintmap import _names, _native

from .support import HEADER, PYTHON_DIR, REPO, TempDirTest, vector_lines


def stored_name_rows():
    """(max_name_bytes, stored form, name) of stored-names.txt (FORMAT §1.1)."""
    rows = []
    for line in vector_lines("stored-names.txt"):
        limit, stored, name = line.split("\t")
        rows.append((int(limit), stored, name))
    return rows


class Utf8ReplacementVectorsTest(TempDirTest):
    """FORMAT §9.1: a name that is not valid UTF-8 is shown with one U+FFFD per maximal ill-formed subpart
    (utf8-replacement.txt, which Java's Utf8Test and C's test_rules read). The module keeps such a name's bytes
    (``surrogateescape``, one lone surrogate per byte that is not part of a character); shown with
    ``errors="replace"`` it reads as Java's listing and the vectors say."""

    def test_a_name_read_from_a_file_is_shown_as_the_vectors_say_and_keeps_its_bytes(self):
        lines = vector_lines("utf8-replacement.txt")
        self.assertEqual(len(lines), 28)
        for line in lines:
            raw_hex, shown_hex, what = line.split("\t")
            raw, shown = bytes.fromhex(raw_hex), bytes.fromhex(shown_hex).decode("utf-8")
            with self.subTest(what=what):
                name = _names.decode(raw)
                self.assertEqual(name.encode("utf-8", "surrogateescape"), raw)
                self.assertEqual(name.encode("utf-8", "surrogateescape").decode("utf-8", "replace"), shown)
                self.assertEqual(raw.decode("utf-8", "replace"), shown)


class StoredNameVectorsTest(TempDirTest):
    def test_stored_name_is_the_vector_form_for_every_row(self):
        rows = stored_name_rows()
        self.assertGreater(len(rows), 50)
        for limit, stored, name in rows:
            with self.subTest(limit=limit, name=name[:40]):
                self.assertEqual(hintmap.stored_name(name, limit), stored)
                self.assertEqual(hintmap.stored_name(name.encode("utf-8"), limit), stored)
                self.assertEqual(hintmap.stored_name(stored, limit), stored)  # a stored form is its own

    def test_a_long_name_is_listed_in_its_vector_form_and_found_by_the_whole_name(self):
        by_limit = defaultdict(list)
        for limit, stored, name in stored_name_rows():
            by_limit[limit].append((stored, name))
        for limit, rows in by_limit.items():
            with self.subTest(limit=limit), hintmap.open(self.path(f"v{limit}.hints"), capacity=256,
                                                          max_name_bytes=limit) as store:
                for i, (_, name) in enumerate(rows):
                    store.record(name, 1000 + i, 1)
                listed = {r.name for r in store}
                for stored, name in rows:
                    self.assertIn(stored, listed)
                    self.assertEqual(store.stored_name(name), stored)
                    self.assertEqual(store.dispatch_count(name), sum(1 for _, n in rows if
                                                                     hintmap.stored_name(n, limit) == stored))


class HashVectorsTest(TempDirTest):
    def test_hash64_is_the_vector_hash_for_every_name(self):
        rows = vector_lines("hash.txt")
        self.assertGreater(len(rows), 15)
        for line in rows:
            want, name = line.split("\t", 1)
            raw = b"" if name == "<empty>" else name.encode("utf-8")  # "tail nul" holds a NUL byte
            with self.subTest(name=name):
                self.assertEqual(hintmap.hash64(raw), int(want, 16))


class HeaderTwinsTest(TempDirTest):
    def header_defines(self, prefix: str):
        text = HEADER.read_text(encoding="utf-8")
        return {m.group(1): int(m.group(2)) for m in re.finditer(
            rf"^#define ({prefix}\w*)\s+\(?(-?\d+)u?", text, re.MULTILINE)}

    def test_codes_are_the_headers_codes_by_name_and_number(self):
        codes = {k: v for k, v in self.header_defines("HM_E").items() if v < 0}
        self.assertEqual({c.name: int(c) for c in hintmap.Code}, codes)

    def test_the_options_structure_reads_the_defaults_hm_options_init_writes(self):
        defaults = self.header_defines("HM_DEFAULT_")
        opts = _native.Options()
        opts.capacity, opts.set_mask, opts.flags, opts.read_only = 7, 9, 9, 9  # overwritten by init
        hintmap_lib = _native.native()
        hintmap_lib.hm_options_init(ctypes.byref(opts))
        self.assertEqual((opts.capacity, opts.max_name_bytes, opts.hot_threshold_ns),
                         (defaults["HM_DEFAULT_CAPACITY"], defaults["HM_DEFAULT_MAX_NAME_BYTES"],
                          defaults["HM_DEFAULT_HOT_THRESHOLD_NS"]))
        self.assertEqual((opts.read_only, opts.set_mask, opts.flags), (0, 0, 0))

    def test_the_flag_bits_are_the_headers(self):
        bits = {"HM_OPEN_GROUP_SHARED": _native.OPEN_GROUP_SHARED, "HM_OPEN_FOLLOW_SYMLINKS": _native.OPEN_FOLLOW_SYMLINKS,
                "HM_OPEN_ALLOW_FOREIGN_OWNER": _native.OPEN_ALLOW_FOREIGN_OWNER,
                "HM_OPEN_REJECT_LONG_NAMES": _native.OPEN_REJECT_LONG_NAMES, "HM_OPEN_FAULT_GUARD": _native.OPEN_FAULT_GUARD,
                "HM_OPT_CAPACITY": _native.OPT_CAPACITY, "HM_OPT_MAX_NAME_BYTES": _native.OPT_MAX_NAME_BYTES,
                "HM_OPT_HOT_THRESHOLD": _native.OPT_HOT_THRESHOLD}
        text = HEADER.read_text(encoding="utf-8")
        for name, value in bits.items():
            m = re.search(rf"^#define {name}\s+\(1u << (\d+)\)", text, re.MULTILINE)
            self.assertIsNotNone(m, name)
            self.assertEqual(1 << int(m.group(1)), value, name)

    def test_the_module_the_c_library_and_the_java_project_have_one_version(self):
        pom = (REPO / "pom.xml").read_text(encoding="utf-8")
        java = re.search(r"<artifactId>hintmap</artifactId>\s*<version>([^<]+)</version>", pom).group(1)
        pyproject = re.search(r'^version = "([^"]+)"', (PYTHON_DIR / "pyproject.toml").read_text(encoding="utf-8"),
                              re.MULTILINE).group(1)
        self.assertEqual(java.replace("-SNAPSHOT", ""), pyproject)
        self.assertEqual(hintmap.__version__, pyproject)
        self.assertEqual(hintmap.library_version(), pyproject)
