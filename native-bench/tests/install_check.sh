#!/bin/sh
# The installed C library, as a C user gets it (issue 12; run by `make install-check`, part of
# `make test` and so of ./mvnw verify). In a temporary directory:
#   1. the version of include/hintmap.h equals the project <version> of ../pom.xml (-SNAPSHOT cut);
#   2. `make install DESTDIR=<tmp> PREFIX=/opt/hintmap` installs exactly the documented files;
#   3. readelf -d: the SONAME; nm -D --defined-only: the exported symbols are exactly
#      tests/exported-symbols.txt, which equals the HM_API declarations of hintmap.h;
#   4. tests/consumer/hm_consumer.c built out of tree with pkg-config (shared and static) and with
#      CMake (find_package(hintmap): hintmap::hintmap and hintmap::hintmap_static), each run on a
#      file (the shared ones with LD_LIBRARY_PATH into the DESTDIR, checked with ldd);
#   5. `make uninstall` removes every installed file;
#   6. in a copy of the tree: `make` alone builds the static and shared library and the tools;
#      `make install` compiles nothing: it refuses a build/ that is missing or older than a source
#      (what `sudo make install` would otherwise compile as root in the user's tree);
#   7. without DESTDIR, `make install` runs ldconfig only for a system prefix (SYSTEM_PREFIXES) and as
#      root (a stand-in LDCONFIG here that logs its calls); a private prefix gets no ldconfig and the
#      rpath / LD_LIBRARY_PATH lines, and a program built with the printed rpath line runs.
# The collectors, libhintmap_cupti.so and libhintmap_opencl.so, are in the file list when they were
# built (CUPTI_SO, where the CUPTI headers are; OPENCL_SO, where the OpenCL headers are). A tool that is missing (pkg-config, cmake, readelf, ldd, c++) prints one
# `SKIP: ...` line and its part is not run; everything else still is.
# Environment: MAKE, CC, VERSION, SONAME, CUPTI_SO, OPENCL_SO (from the Makefile).
set -eu
cd "$(dirname "$0")/.."
MAKE=${MAKE:-make}
CC=${CC:-gcc}
VERSION=${VERSION:?VERSION is set by the Makefile}
SONAME=${SONAME:?SONAME is set by the Makefile}
PREFIX=/opt/hintmap
CFLAGS_APP="-std=c11 -Wall -Wextra -Werror -pedantic -O1"

fail() { echo "install-check: FAIL: $*" >&2; exit 1; }
have() { command -v "$1" >/dev/null 2>&1; }
echo "== install check (make install DESTDIR=<tmp> PREFIX=$PREFIX, out-of-tree consumer)"

# 1. one version: hintmap.h's HM_VERSION_* (the Makefile read VERSION from it) = the pom's
hdr=$(sed -n 's/^#define HM_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9][0-9]*\).*/\2/p' include/hintmap.h | paste -sd. -)
[ "$hdr" = "$VERSION" ] || fail "include/hintmap.h says $hdr, the Makefile $VERSION"
if [ -f ../pom.xml ]; then
  # the project's own <version>: the first one at the top level of <project> (two spaces in)
  pom=$(sed -n 's|^  <version>\([^<]*\)</version>.*|\1|p' ../pom.xml | head -1)
  [ -n "$pom" ] || fail "no project <version> found in ../pom.xml"
  [ "${pom%-SNAPSHOT}" = "$VERSION" ] || \
    fail "include/hintmap.h is version $VERSION but ../pom.xml is $pom: change HM_VERSION_* with the pom"
  echo "version $VERSION (hintmap.h) = $pom (pom.xml)"
else
  echo "SKIP: version check against the pom: no ../pom.xml (native-bench/ alone)"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hm-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
root=$tmp/root
lib=$root$PREFIX/lib

# 2. install: exactly these files (and links)
"$MAKE" --no-print-directory -s install DESTDIR="$root" PREFIX="$PREFIX" >"$tmp/install.log" 2>&1 || \
  { cat "$tmp/install.log"; fail "make install"; }
expected="$PREFIX/include/hintmap.h
$PREFIX/lib/cmake/hintmap/hintmapConfig.cmake
$PREFIX/lib/cmake/hintmap/hintmapConfigVersion.cmake
$PREFIX/lib/libhintmap.a
$PREFIX/lib/libhintmap.so
$PREFIX/lib/libhintmap.so.$VERSION
$PREFIX/lib/$SONAME
$PREFIX/lib/pkgconfig/hintmap.pc"
if [ -n "${CUPTI_SO:-}" ]; then
  expected="$expected
$PREFIX/lib/libhintmap_cupti.so"
  cmp -s "$CUPTI_SO" "$lib/libhintmap_cupti.so" || fail "lib/libhintmap_cupti.so is not $CUPTI_SO"
else
  echo "SKIP: libhintmap_cupti.so not built here (no CUPTI headers): its install not checked"
fi
if [ -n "${OPENCL_SO:-}" ]; then
  expected="$expected
$PREFIX/lib/libhintmap_opencl.so"
  cmp -s "$OPENCL_SO" "$lib/libhintmap_opencl.so" || fail "lib/libhintmap_opencl.so is not $OPENCL_SO"
else
  echo "SKIP: libhintmap_opencl.so not built here (no OpenCL headers): its install not checked"
fi
got=$(cd "$root" && find . \( -type f -o -type l \) | sed 's|^\.||' | LC_ALL=C sort)
[ "$got" = "$(echo "$expected" | LC_ALL=C sort)" ] || \
  fail "installed files differ from the documented ones:
$(echo "$expected" | LC_ALL=C sort | diff - "$(printf '%s\n' "$got" >"$tmp/got"; echo "$tmp/got")" || true)"
[ "$(readlink "$lib/$SONAME")" = "libhintmap.so.$VERSION" ] || fail "$SONAME does not link to libhintmap.so.$VERSION"
[ "$(readlink "$lib/libhintmap.so")" = "$SONAME" ] || fail "libhintmap.so does not link to $SONAME"
echo "installed: $(echo "$expected" | wc -l) files and links"

# 3. SONAME and the exported symbols
shlib=$lib/libhintmap.so.$VERSION
if have readelf; then
  so=$(readelf -d "$shlib" | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
  [ "$so" = "$SONAME" ] || fail "SONAME of libhintmap.so.$VERSION is '$so', expected $SONAME"
  echo "SONAME $so"
else
  echo "SKIP: SONAME check: readelf not found (binutils)"
fi
nm -D --defined-only "$shlib" | awk '{print $NF}' | LC_ALL=C sort >"$tmp/exported"
if ! diff -u tests/exported-symbols.txt "$tmp/exported" >"$tmp/exported.diff"; then
  cat "$tmp/exported.diff"
  fail "nm -D of libhintmap.so exports other symbols than tests/exported-symbols.txt (- listed, + exported)"
fi
# every function hintmap.h declares carries HM_API, and the HM_API declarations are the list
undecorated=$(grep -nE '^[a-z].*\bhm_[a-z0-9_]+\(' include/hintmap.h | grep -v ':HM_API ' || true)
[ -z "$undecorated" ] || fail "functions declared in hintmap.h without HM_API (not exported): $undecorated"
grep -E '^HM_API ' include/hintmap.h | sed -E 's/^[^(]*[ *](hm_[a-z0-9_]+)\(.*/\1/' | LC_ALL=C sort >"$tmp/declared"
if ! diff -u tests/exported-symbols.txt "$tmp/declared" >"$tmp/declared.diff"; then
  cat "$tmp/declared.diff"
  fail "tests/exported-symbols.txt differs from the HM_API functions of include/hintmap.h (- listed, + declared)"
fi
echo "exported: $(wc -l <"$tmp/exported") symbols = tests/exported-symbols.txt = the HM_API declarations of hintmap.h"

# 4. out-of-tree consumers against the installed tree (never against include/ or build/)
run_shared() { # program what
  if have ldd; then
    where=$(LD_LIBRARY_PATH="$lib" ldd "$1" | sed -n "s/.*$SONAME => \([^ ]*\).*/\1/p")
    case "$where" in "$lib"/*) ;; *) fail "$2: ldd resolves $SONAME to '$where', not into the DESTDIR";; esac
  fi
  out=$(LD_LIBRARY_PATH="$lib" "$1" "$tmp/$2.hm") || fail "$2: exit $?: $out"
  check_out "$2" "$out"
}
check_out() {
  [ "$2" = "hintmap $VERSION header $VERSION count 1 total 1500" ] || fail "$1 printed '$2'"
  echo "$1: $2"
}
no_needed() { # program what: a static link must not need libhintmap.so
  if have readelf && readelf -d "$1" | grep -q "NEEDED.*libhintmap"; then fail "$2 needs libhintmap.so"; fi
}
have ldd || echo "SKIP: ldd not found: the shared consumers run, but where libhintmap.so.0 came from is not checked"

app=tests/consumer/hm_consumer.c
if have pkg-config; then
  export PKG_CONFIG_LIBDIR="$lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$root"
  unset PKG_CONFIG_PATH
  v=$(pkg-config --modversion hintmap) || fail "pkg-config does not find hintmap.pc"
  [ "$v" = "$VERSION" ] || fail "pkg-config --modversion hintmap is $v, expected $VERSION"
  # shellcheck disable=SC2046
  "$CC" $CFLAGS_APP "$app" -o "$tmp/pc-shared" $(pkg-config --cflags --libs hintmap) || fail "pkg-config shared build"
  run_shared "$tmp/pc-shared" pkg-config-shared
  # shellcheck disable=SC2046
  "$CC" $CFLAGS_APP "$app" -o "$tmp/pc-static" $(pkg-config --cflags hintmap) \
      -Wl,-Bstatic $(pkg-config --static --libs hintmap) -Wl,-Bdynamic || fail "pkg-config static build"
  no_needed "$tmp/pc-static" pkg-config-static
  out=$(env -u LD_LIBRARY_PATH "$tmp/pc-static" "$tmp/pc-static.hm") || fail "pkg-config-static: $out"
  check_out pkg-config-static "$out"
  unset PKG_CONFIG_LIBDIR PKG_CONFIG_SYSROOT_DIR
else
  echo "SKIP: pkg-config not found: hintmap.pc not tried; the consumer is built with -I/-L instead"
  "$CC" $CFLAGS_APP "$app" -o "$tmp/plain-shared" -I"$root$PREFIX/include" -L"$lib" -lhintmap || fail "-lhintmap build"
  run_shared "$tmp/plain-shared" plain-shared
fi

if have cmake; then
  cmake -S tests/consumer -B "$tmp/cmake" -DCMAKE_PREFIX_PATH="$root$PREFIX" -DCMAKE_C_COMPILER="$CC" \
        -DHM_EXPECT_VERSION="$VERSION" -DCMAKE_BUILD_TYPE=Release >"$tmp/cmake.log" 2>&1 || \
    { cat "$tmp/cmake.log"; fail "cmake configure of tests/consumer (find_package(hintmap))"; }
  grep -q "hintmap $VERSION from $lib/cmake/hintmap" "$tmp/cmake.log" || \
    { cat "$tmp/cmake.log"; fail "find_package(hintmap) did not find the DESTDIR's package"; }
  cmake --build "$tmp/cmake" >>"$tmp/cmake.log" 2>&1 || { cat "$tmp/cmake.log"; fail "cmake --build of tests/consumer"; }
  run_shared "$tmp/cmake/hm_consumer_shared" cmake-shared
  no_needed "$tmp/cmake/hm_consumer_static" cmake-static
  out=$(env -u LD_LIBRARY_PATH "$tmp/cmake/hm_consumer_static" "$tmp/cmake-static.hm") || fail "cmake-static: $out"
  check_out cmake-static "$out"
else
  echo "SKIP: cmake not found: hintmapConfig.cmake (find_package(hintmap)) not tried"
fi

# hintmap.h is usable from C++ as installed
if have c++; then
  echo '#include <hintmap.h>
int main() { return hm_version() == nullptr; }' >"$tmp/cxx.cc"
  c++ -std=c++11 -Wall -Wextra -Werror -fsyntax-only -I"$root$PREFIX/include" "$tmp/cxx.cc" || fail "hintmap.h in C++"
  echo "hintmap.h compiles as C++11"
else
  echo "SKIP: c++ not found: hintmap.h not compiled as C++"
fi

# 5. uninstall removes what install put there
"$MAKE" --no-print-directory -s uninstall DESTDIR="$root" PREFIX="$PREFIX" >"$tmp/uninstall.log" 2>&1 || \
  { cat "$tmp/uninstall.log"; fail "make uninstall"; }
left=$(cd "$root" && find . \( -type f -o -type l \))
[ -z "$left" ] || fail "make uninstall left: $left"
echo "uninstall: nothing left"

# 6. `make` builds the libraries; `make install` only copies. In a copy of the tree, so that no
#    time stamp of the real one changes.
tree=$tmp/tree
mkdir -p "$tree/build"
cp -R Makefile include src dist collect cupti opencl bench "$tree/"
"$MAKE" --no-print-directory -n -C "$tree" >"$tmp/default.log" 2>&1 || { cat "$tmp/default.log"; fail "make -n in a fresh tree"; }
grep -q "ar rcs build/libhintmap.a" "$tmp/default.log" && grep -q -- "-soname,$SONAME" "$tmp/default.log" && \
  grep -q -- "-o build/hm-bench" "$tmp/default.log" || \
  { cat "$tmp/default.log"; fail "make alone does not build libhintmap.a, libhintmap.so and the tools"; }
echo "make alone: builds libhintmap.a, $SONAME and the tools"
refuse() { # what
  if "$MAKE" --no-print-directory -C "$tree" install DESTDIR="$tmp/refused" PREFIX="$PREFIX" >"$tmp/refuse.log" 2>&1; then
    cat "$tmp/refuse.log"; fail "make install with $1 succeeded"
  fi
  grep -q "run 'make -C native-bench' first, as yourself" "$tmp/refuse.log" || { cat "$tmp/refuse.log"; fail "make install with $1: no advice"; }
  if grep -qE "^($CC|ar) " "$tmp/refuse.log" || [ -e "$tmp/refused" ] || [ -e "$tree/build/obj" ]; then
    cat "$tmp/refuse.log"; fail "make install with $1 compiled or copied something"
  fi
  echo "make install with $1: refused, nothing compiled"
}
refuse "no build/"
cp build/libhintmap.a build/libhintmap.so.$VERSION "$tree/build/"
touch "$tree/src/hintmap.c"
refuse "a source newer than build/"

# 7. after an install without DESTDIR: ldconfig only for a system prefix (SYSTEM_PREFIXES), as root;
#    a private prefix gets no ldconfig (not even as root) and the rpath / LD_LIBRARY_PATH lines, and a
#    program built with the printed line runs without LD_LIBRARY_PATH. A stand-in LDCONFIG logs its
#    calls: nothing system-wide is touched.
printf '#!/bin/sh\necho "$*" >>"%s"\n' "$tmp/ldconfig.calls" >"$tmp/ldconfig"
chmod +x "$tmp/ldconfig"
private=$tmp/prefix
"$MAKE" --no-print-directory -s install PREFIX="$private" LDCONFIG="$tmp/ldconfig" >"$tmp/private.log" 2>&1 || \
  { cat "$tmp/private.log"; fail "make install PREFIX=$private"; }
[ ! -e "$tmp/ldconfig.calls" ] || { cat "$tmp/private.log"; fail "make install PREFIX=$private (private) ran ldconfig as uid $(id -u)"; }
grep -q "LD_LIBRARY_PATH=$private/lib ./app" "$tmp/private.log" && grep -q -- "-Wl,-rpath,$private/lib\$" "$tmp/private.log" || \
  { cat "$tmp/private.log"; fail "make install PREFIX=$private: no rpath / LD_LIBRARY_PATH line"; }
echo "make install PREFIX=<private> as uid $(id -u): no ldconfig, prints the rpath and LD_LIBRARY_PATH lines"
if have pkg-config; then
  link=$(sed -n 's/^install:   cc app\.c //p' "$tmp/private.log")
  # shellcheck disable=SC2046
  "$CC" $CFLAGS_APP "$app" -o "$tmp/norpath" $(PKG_CONFIG_PATH=$private/lib/pkgconfig pkg-config --cflags --libs hintmap) || \
    fail "pkg-config build against $private"
  if env -u LD_LIBRARY_PATH "$tmp/norpath" "$tmp/norpath.hm" >"$tmp/norpath.out" 2>&1; then
    fail "a program linked against the private prefix without an rpath started (the advice would be moot)"
  fi
  grep -q "$SONAME" "$tmp/norpath.out" || { cat "$tmp/norpath.out"; fail "without an rpath: not the loader's error"; }
  eval "\"\$CC\" \$CFLAGS_APP \"\$app\" -o \"\$tmp/rpath\" $link" || fail "the printed line: cc app.c $link"
  out=$(env -u LD_LIBRARY_PATH "$tmp/rpath" "$tmp/rpath.hm") || fail "built with the printed rpath line: $out"
  check_out private-prefix-rpath "$out"
  echo "the printed line builds a program that finds $SONAME in $private/lib (without it: $(head -n 1 "$tmp/norpath.out"))"
else
  echo "SKIP: pkg-config not found: the printed rpath line is not built and run"
fi
"$MAKE" --no-print-directory -s uninstall PREFIX="$private" >/dev/null 2>&1 || fail "make uninstall PREFIX=$private"
system=$tmp/system
"$MAKE" --no-print-directory -s install PREFIX="$system" SYSTEM_PREFIXES="/usr $system" LDCONFIG="$tmp/ldconfig" \
    >"$tmp/system.log" 2>&1 || { cat "$tmp/system.log"; fail "make install PREFIX=$system (as a system prefix)"; }
if [ "$(id -u)" -eq 0 ]; then
  [ -s "$tmp/ldconfig.calls" ] || { cat "$tmp/system.log"; fail "make install of a system prefix as root did not run ldconfig"; }
  grep -q "is not one of the loader's directories" "$tmp/system.log" || { cat "$tmp/system.log"; fail "no ldconfig advice"; }
  echo "make install PREFIX=<system prefix> as root: ran ldconfig"
else
  [ ! -e "$tmp/ldconfig.calls" ] || fail "make install as uid $(id -u) ran ldconfig"
  grep -q "LD_LIBRARY_PATH=$system/lib" "$tmp/system.log" || { cat "$tmp/system.log"; fail "no advice without root"; }
  echo "make install PREFIX=<system prefix> as uid $(id -u): no ldconfig, says how programs find the library"
fi
"$MAKE" --no-print-directory -s uninstall PREFIX="$system" >/dev/null 2>&1 || fail "make uninstall PREFIX=$system"
echo "install check passed"
