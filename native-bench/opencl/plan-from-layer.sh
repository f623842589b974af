#!/bin/sh
# plan-from-layer.sh - the no-code-change path from the OpenCL layer to a tuning plan (docs/OPENCL.md, "Planning
# from a recorded file"), on PoCL: two programs that call CLBlast and hold no recording code run unchanged under
# OPENCL_LAYERS, and ClblastOptimizer --plan-only plans from each file:
#   - the PGO example's clblast-runtime without --hints (CLBlast's SGEMM, SGEMV and SAXPY; HINTMAP_NAME=kernel+shape):
#     the plan must tune xgemm_direct, xgemv and xaxpy (every GEMM of its smoke mix runs the direct kernel here);
#   - CLBlast's own clblast_tuner_xdot (HINTMAP_NAME=kernel+build: one region per configuration it tries): the
#     plan must tune xdot, its regions (Xdot, XdotEpilogue) in one run.
# Every region of both files must map to a tuner (no "not a CLBlast kernel"); `hintmap top` must read each file.
#
#   native-bench/opencl/plan-from-layer.sh [OUTDIR]     (default: a new folder under /tmp; about a minute)
#
# One line per check: PASS|FAIL NAME: details, or one SKIP line when PoCL, CLBlast, its tuners, a C++ compiler or
# JDK 25 are missing. Exit status 0 when nothing failed (or all was skipped), 1 when something did.
set -u
here=$(cd "$(dirname "$0")" && pwd)
nb=$(dirname "$here")
root=$(dirname "$nb")
out=${1:-$(mktemp -d /tmp/hintmap-opencl-plan.XXXXXX)}
mkdir -p "$out"
out=$(cd "$out" && pwd)

skip() { echo "SKIP plan-from-layer: $*"; exit 0; }
clinfo -l 2>/dev/null | grep -q 'Portable Computing Language' || skip "no PoCL platform (clinfo -l; Debian: pocl-opencl-icd clinfo)"
command -v clblast_tuner_xdot >/dev/null 2>&1 || skip "no CLBlast tuners (Debian: clblast-utils)"
make -s -C "$nb" build/libhintmap.a opencl >"$out/build.log" 2>&1 || { echo "FAIL build: make -C $nb opencl (see $out/build.log)"; exit 1; }
layer=$nb/build/libhintmap_opencl.so
[ -e "$layer" ] || skip "no $layer: no OpenCL headers or ICD loader with layers (Debian: ocl-icd-opencl-dev opencl-headers)"
make -s -C "$root/src/examples/clblast" OUT="$out/bin" >>"$out/build.log" 2>&1 && [ -x "$out/bin/clblast-runtime" ] ||
  skip "the CLBlast example runtime did not build: no CLBlast headers or g++ (Debian: libclblast-dev g++; see $out/build.log)"
"$root/hintmap" --version >>"$out/build.log" 2>&1 || skip "./hintmap did not start (see $out/build.log)"
jdk=$("$root/hintmap" --java-home 2>/dev/null)
mkdir -p "$out/classes"
"$jdk/bin/javac" -d "$out/classes" -cp "$root/target/hintmap.jar" "$root"/src/examples/java/com/example/tuner/*.java \
  >>"$out/build.log" 2>&1 || { echo "FAIL build: javac of the optimizer (see $out/build.log)"; exit 1; }
failed=0

# record NAME HINTMAP_NAME CMD...: runs CMD unchanged with the layer, into OUTDIR/NAME.hints
record() {
  name=$1 form=$2; shift 2
  rm -f "$out/$name.hints"
  (cd "$out" && env OPENCL_LAYERS="$layer" HINTMAP_FILE="$out/$name.hints" HINTMAP_NAME="$form" HINTMAP_VERBOSE=1 \
     "$@" >"$out/$name.out" 2>"$out/$name.err")
}

# plan NAME TUNER...: the optimizer's plan of OUTDIR/NAME.hints must tune each TUNER and leave nothing unmapped
plan() {
  name=$1; shift
  "$jdk/bin/java" --enable-native-access=ALL-UNNAMED -cp "$out/classes:$root/target/hintmap.jar" \
    com.example.tuner.ClblastOptimizer --hints "$out/$name.hints" --plan-only --coverage 1 --min-dispatches 1 \
    >"$out/$name.plan" 2>&1
  missing=""
  for t in "$@"; do grep -q "^  tune  $t f32 " "$out/$name.plan" || missing="$missing $t"; done
  unmapped=$(grep -c '^  skip  ' "$out/$name.plan")
  "$root/hintmap" top "$out/$name.hints" -n 5 >"$out/$name.top" 2>&1 || missing="$missing (hintmap top failed)"
  summary="$(grep -c '^  tune  ' "$out/$name.plan") run(s): $(sed -n 's/^  tune  \([a-z_]*\) .*/\1/p' "$out/$name.plan" | tr '\n' ' ')"
  if [ -z "$missing" ] && [ "$unmapped" -eq 0 ]; then
    echo "PASS plan-from-layer $name: $summary(from the layer's file, $(grep -o 'regions=[0-9]*' "$out/$name.err" | tail -1))"
  else
    echo "FAIL plan-from-layer $name: missing:$missing; $unmapped region(s) skipped (see $out/$name.plan)"; failed=1
  fi
}

export POCL_CACHE_DIR="$out/pocl-cache"
record runtime kernel+shape "$out/bin/clblast-runtime" --mix smoke --passes 2 --quiet
plan runtime xgemm_direct xgemv xaxpy
record tuner-xdot kernel+build clblast_tuner_xdot -n 65536 -runs 1 -fraction 4
plan tuner-xdot xdot

echo "plan-from-layer.sh: $([ $failed -eq 0 ] && echo PASS || echo FAILED); plans, files and logs in $out"
exit $failed
