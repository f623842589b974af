#!/bin/sh
# real-programs.sh - the OpenCL layer on programs no one here wrote, on PoCL (docs/OPENCL.md):
# CLBlast's tuners (clblast-utils), PyOpenCL (a workload with known counts, and Debian's own examples
# from python-pyopencl-doc), and clpeak. Each runs unchanged with OPENCL_LAYERS set, and with PoCL's
# own tracer on (POCL_TRACING=text), which writes every kernel command's start and end: the trace
# is the independent count (compare_trace.py). Then, while clpeak runs, `hintmap top` reads the file
# live, `hintmap hot` reads a CLBlast tuner's file, and plan-from-layer.sh has the CLBlast optimizer plan
# from the files of two unchanged CLBlast programs.
#
#   native-bench/opencl/real-programs.sh [OUTDIR]     (default: a new folder under /tmp)
#
# One line per check: PASS|FAIL|SKIP NAME: details; the comparison tables are in OUTDIR/NAME/compare.txt,
# each program's output in OUTDIR/NAME/. Exit status 0 when nothing failed, 1 when something did,
# 3 when there is no PoCL platform. About 3 minutes on 2 cores (PoCL compiles every kernel, once per
# configuration for the tuners; clpeak's bandwidth test takes a minute), and ./hintmap's first build.
set -u
here=$(cd "$(dirname "$0")" && pwd)
nb=$(dirname "$here")
root=$(dirname "$nb")
out=${1:-$(mktemp -d /tmp/hintmap-opencl-real.XXXXXX)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
make -s -C "$nb" opencl shared >/dev/null || { echo "real-programs.sh: make -C $nb opencl shared failed" >&2; exit 1; }
layer=$nb/build/libhintmap_opencl.so
[ -e "$layer" ] || { echo "real-programs.sh: no $layer (no OpenCL headers?)" >&2; exit 3; }
clinfo -l 2>/dev/null | grep -q 'Portable Computing Language' ||
  { echo "SKIP all: no PoCL platform (clinfo -l; Debian: pocl-opencl-icd clinfo)"; exit 3; }
export HINTMAP_LIBRARY="$nb/build/libhintmap.so.0" # for compare_trace.py's hintmap module
failed=0

# run NAME CMD...: in OUTDIR/NAME, with the layer and PoCL's tracer; stdout to out, stderr to err
run() {
  name=$1; shift
  d=$out/$name
  rm -rf "$d" && mkdir -p "$d"
  (cd "$d" && env OPENCL_LAYERS="$layer" HINTMAP_FILE="$d/hints" HINTMAP_VERBOSE=1 POCL_TRACING=text \
     POCL_TRACING_OPT="$d/trace" PYOPENCL_CTX=0 PYOPENCL_NO_CACHE=1 "$@" >"$d/out" 2>"$d/err")
}

# check NAME [EXTRA]: compares the trace with the hint file, and the layer's own count (its exit line)
check() {
  name=$1 extra=${2:-}
  d=$out/$name
  python3 "$here/compare_trace.py" "$d/trace" "$d/hints" $([ -s "$d/expect" ] && echo --expect "$d/expect") >"$d/compare.txt" 2>&1
  rc=$?
  summary=$(tail -1 "$d/compare.txt")
  layer_line=$(grep -o 'enqueues=[0-9]* recorded=[0-9]*' "$d/err" | tail -1)
  if [ $rc -eq 0 ]; then echo "PASS $name: $summary; layer: $layer_line$extra"
  else echo "FAIL $name: $summary; layer: $layer_line (see $d/compare.txt)$extra"; failed=1; fi
}

have() { command -v "$1" >/dev/null 2>&1; }

# ---- CLBlast's tuners: one kernel (Xaxpy), two kernels (Xdot, XdotEpilogue); a random share of their
# configurations, each compiled by PoCL and run -runs times
if have clblast_tuner_xaxpy && have clblast_tuner_xdot; then
  run clblast-xaxpy clblast_tuner_xaxpy -n 262144 -runs 2 -fraction 8
  check clblast-xaxpy
  run clblast-xdot clblast_tuner_xdot -n 65536 -runs 3 -fraction 4
  check clblast-xdot
  # one region per configuration: the tuner's configurations differ in their source's #defines
  HINTMAP_NAME=kernel+build run clblast-xaxpy-build clblast_tuner_xaxpy -n 262144 -runs 2 -fraction 8
  check clblast-xaxpy-build
  configs=$(grep -c '^| *\(ref\|[0-9][0-9]*\) |' "$out/clblast-xaxpy-build/out")
  kernel=$(awk 'NR == 2 { print $1 " in " $2 }' "$out/clblast-xaxpy-build/compare.txt")
  echo "INFO clblast-xaxpy-build: HINTMAP_NAME=kernel+build: $kernel regions for the tuner's $configs configurations, its reference included"
else
  echo "SKIP clblast: no clblast_tuner_xaxpy / clblast_tuner_xdot (Debian: clblast-utils)"
fi

# ---- PyOpenCL: a workload whose counts and buffers it prints itself, then Debian's examples
if /usr/bin/python3 -c 'import pyopencl' 2>/dev/null; then
  run pyopencl-workload /usr/bin/python3 "$here/pyopencl_workload.py" --scale 2
  cp "$out/pyopencl-workload/out" "$out/pyopencl-workload/expect"
  check pyopencl-workload
  examples=/usr/share/doc/python-pyopencl-doc/examples
  if [ -d "$examples" ]; then
    for ex in demo.py demo_elementwise.py demo_array.py demo-struct-reduce.py demo_meta_template.py; do
      [ -e "$examples/$ex" ] || continue
      run "pyopencl-${ex%.py}" /usr/bin/python3 "$examples/$ex"
      check "pyopencl-${ex%.py}"
    done
  else
    echo "SKIP pyopencl examples: no $examples (Debian: python-pyopencl-doc)"
  fi
else
  echo "SKIP pyopencl: /usr/bin/python3 has no pyopencl (Debian: python3-pyopencl)"
fi

# ---- clpeak's global-bandwidth and kernel-latency tests (20,002 small kernels for the latter), with
# `hintmap top` reading the file live, once a second
if have clpeak; then
  hm=$root/hintmap
  live=0
  if "$hm" --version >"$out/hintmap-build.log" 2>&1; then live=1; fi
  run clpeak clpeak --global-bandwidth --kernel-latency &
  pid=$!
  if [ $live -eq 1 ]; then
    : >"$out/top-live.txt"
    while kill -0 $pid 2>/dev/null; do
      sleep 1
      [ -e "$out/clpeak/hints" ] || continue
      { echo "== $(date +%T)"; "$hm" top "$out/clpeak/hints" -n 3 2>&1; } >>"$out/top-live.txt"
    done
  fi
  wait $pid
  check clpeak
  if [ $live -eq 1 ]; then
    seen=$(grep -o '[0-9][0-9,]* dispatches' "$out/top-live.txt" | sed 's/ dispatches//' | uniq | tr '\n' ' ')
    echo "INFO hintmap top while clpeak ran, once a second: dispatches $seen($out/top-live.txt)"
  else
    echo "SKIP hintmap top: ./hintmap did not start (see $out/hintmap-build.log)"
  fi
else
  echo "SKIP clpeak: not installed (Debian: clpeak)"
fi

# ---- what an optimizer plans from a file the layer filled: the hot set of a CLBlast tuner's, then the CLBlast
# optimizer's plan of two unchanged CLBlast programs (plan-from-layer.sh)
if [ -s "$out/clblast-xdot/hints" ] && "$root/hintmap" --version >/dev/null 2>&1; then
  "$root/hintmap" hot "$out/clblast-xdot/hints" --coverage 0.95 --min-dispatches 2 >"$out/hot.txt" 2>&1
  echo "INFO hintmap hot on clblast-xdot's file: $(tr '\n' ' ' <"$out/hot.txt" | cut -c1-300)"
fi
"$here/plan-from-layer.sh" "$out/plan" | tee "$out/plan.txt"
grep -q '^FAIL' "$out/plan.txt" && failed=1

echo "real-programs.sh: $([ $failed -eq 0 ] && echo PASS || echo FAILED); everything in $out"
exit $failed
