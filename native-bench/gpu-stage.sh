#!/bin/sh
# gpu-stage.sh - makes the folder a GPU run carries to the GPU machine (docs/GPU.md "The GPU run"):
#
#   native-bench/gpu-stage.sh [DIR]          (default gpu-carry/ in the repository root, git-ignored)
#
#   DIR/bin/       hm-cuda-driver, libhintmap_cupti.so, hm-dump, hm-bench, hm-floor, libhintmap.so
#                  (and the stand-in's hm-standin-gpu, libfake_cupti.so, for a rehearsal), built here
#   DIR/java/      target/hintmap.jar, target/hintmap-cli.jar and target/lib/ (the library, the CLI, its libraries)
#   DIR/jre.tar.xz a trimmed Java runtime: jlink of the modules jdeps finds the CLI needs,
#                  --strip-debug --no-man-pages --no-header-files, libjvm.so stripped of its symbol
#                  table; xz-compressed (unpacked by gpu-run.sh there: tar -xJf, else python3)
#
# Then it unpacks the runtime and runs the CLI on it (dump and verify of a file hm-bench wrote), and
# checks the size of what is copied to the GPU machine: DIR plus the repository's tracked and
# untracked-not-ignored files, against a 64 MiB limit for the copy (exit 1 when over).
# Needs: make, gcc, nvcc and CUPTI's headers (the CUDA binaries), a JDK 22+ with jlink and jdeps,
# xz. Builds the jar with ./hintmap's own build when it is missing or stale (./mvnw package).
# Rehearse the run with what was staged: GPU_RUN_CARRY=DIR native-bench/gpu-run.sh --stand-in /tmp/r
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
dir=${1:-$root/gpu-carry}
limit=$((64 * 1024 * 1024))

echo "== binaries (make all + the stand-in)"
make -s -C "$here" all build/hm-standin-gpu build/libfake_cupti.so
for f in hm-cuda-driver libhintmap_cupti.so; do
  [ -e "$here/build/$f" ] || { echo "gpu-stage: no build/$f (nvcc and CUPTI's headers are needed)"; exit 1; }
done
rm -rf "$dir"
mkdir -p "$dir/bin" "$dir/java"
for f in hm-cuda-driver libhintmap_cupti.so hm-dump hm-bench hm-floor libhintmap.so hm-standin-gpu libfake_cupti.so; do
  cp -L "$here/build/$f" "$dir/bin/$f" # libhintmap.so is a link: the file itself
done

echo "== the CLI (target/hintmap.jar, target/hintmap-cli.jar, target/lib)"
"$root/hintmap" --version # builds the jar first when it is missing or older than the sources
cp "$root/target/hintmap.jar" "$root/target/hintmap-cli.jar" "$dir/java/"
cp -r "$root/target/lib" "$dir/java/lib"

echo "== a trimmed runtime (jlink)"
jdk=
for home in "${JAVA_HOME:-}" /usr/lib/jvm/* /usr/java/* /opt/java/* /opt/jdk*; do
  [ -n "$home" ] && [ -x "$home/bin/jlink" ] && [ -x "$home/bin/jdeps" ] && [ -r "$home/release" ] || continue
  v=$(sed -n 's/^JAVA_VERSION="\([0-9][0-9]*\).*/\1/p' "$home/release")
  if [ -n "$v" ] && [ "$v" -ge 22 ] && { [ -z "$jdk" ] || [ "$v" -gt "$jdk_v" ]; }; then jdk=$home; jdk_v=$v; fi
done
[ -n "$jdk" ] || { echo "gpu-stage: no JDK 22+ with jlink and jdeps (JAVA_HOME, /usr/lib/jvm)"; exit 1; }
mods=$("$jdk/bin/jdeps" --multi-release "$jdk_v" --ignore-missing-deps --print-module-deps \
  "$root/target/hintmap.jar" "$root/target/hintmap-cli.jar" "$root"/target/lib/*.jar)
echo "JDK $jdk_v at $jdk; jdeps: the CLI needs $mods"
tmp=$(mktemp -d /tmp/hm-gpu-stage.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# zip-0: xz compresses the uncompressed modules image better than jlink's zip does
"$jdk/bin/jlink" --add-modules "$mods" --strip-debug --no-man-pages --no-header-files --compress zip-0 --output "$tmp/jre"
if command -v strip >/dev/null 2>&1; then strip --strip-unneeded "$tmp/jre/lib/server/libjvm.so"
else echo "no strip: libjvm.so keeps its symbol table (about 5 MB more)"; fi
jre_bytes=$(du -sb "$tmp/jre" | cut -f1)
tar -C "$tmp" -cf - jre | xz -9 -T0 >"$dir/jre.tar.xz"

echo "== the runtime runs the CLI"
mkdir -p "$tmp/check"
tar -xJf "$dir/jre.tar.xz" -C "$tmp/check"
cli() { "$tmp/check/jre/bin/java" --enable-native-access=ALL-UNNAMED -cp "$dir/java/hintmap.jar:$dir/java/hintmap-cli.jar:$dir/java/lib/*" dev.hintmap.cli.HintmapCli "$@"; }
"$tmp/check/jre/bin/java" -version 2>&1 | head -n 1
cli --version
"$dir/bin/hm-bench" -f "$tmp/check/a.hints" -r 16 -n 2000 -q >/dev/null
cli dump "$tmp/check/a.hints" --format json | grep -c '"dispatch_count"' | sed 's/^/dump --format json: regions /'
cli verify "$tmp/check/a.hints"
cli top "$tmp/check/a.hints" -n 3

echo "== what is copied to the GPU machine (limit 64 MiB)"
carry=$(du -sb "$dir" | cut -f1)
tree=$(cd "$root" && { git ls-files -z; git ls-files -z -o --exclude-standard; } | xargs -0 du -cb 2>/dev/null | awk '$2 == "total" { s += $1 } END { print s + 0 }')
total=$((carry + tree))
mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }
echo "runtime unpacked $(mib "$jre_bytes"), as jre.tar.xz $(mib "$(wc -c <"$dir/jre.tar.xz")")"
du -sb "$dir/bin" "$dir/java" | while read -r b p; do echo "$(basename "$p")/ $(mib "$b")"; done
echo "$dir: $(mib "$carry"); the repository's files: $(mib "$tree"); together $(mib "$total") of $(mib $limit)"
if [ "$total" -gt "$limit" ]; then echo "gpu-stage: OVER the carry limit"; exit 1; fi
echo "gpu-stage: ready: carry '$(basename "$dir")' (rehearse: GPU_RUN_CARRY=$dir native-bench/gpu-run.sh --stand-in /tmp/rehearsal)"
