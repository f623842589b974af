#!/bin/sh
# overhead.sh - what the OpenCL layer costs a program: the same program (build/hm-opencl-bench,
# opencl/enqueue_bench.c) run with and without OPENCL_LAYERS, interleaved (W O, then O W, ...), medians.
#
#   native-bench/opencl/overhead.sh [--quick] [--rounds N] [OUTDIR]
#
# Rows (each a median over the rounds of the loop's wall time inside the program: COUNT enqueues of one
# kernel on one queue, then clFinish; start-up and compilation are outside it):
#   kernels of ~100 µs and ~1000 µs   wall with / wall without: the goal is <= 1.01
#   tiny kernels (empty, 20,000)      per enqueue: (wall with - wall without) / COUNT, and the host time
#                                     of the enqueue call alone, with and without
#   profiling alone                   the program's own profiling queue, no layer / no profiling: what
#                                     turning CL_QUEUE_PROFILING_ENABLE on costs by itself
# The kernel lengths are calibrated once, without the layer, from the device's profiling info
# (hm-opencl-bench --calibrate). --quick: 2 rounds and short loops, to check that the script runs (its
# figures are not measurements). On a machine others load, say so beside any figure: the runs share it.
# Output: a table on stdout; OUTDIR (default: a new folder under /tmp) keeps every run's line.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
nb=$(dirname "$here")
rounds=7 quick=0 out=
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=1 rounds=2 ;;
    --rounds) rounds=$2; shift ;;
    -*) echo "usage: overhead.sh [--quick] [--rounds N] [OUTDIR]" >&2; exit 2 ;;
    *) out=$1 ;;
  esac
  shift
done
[ -n "$out" ] || out=$(mktemp -d /tmp/hintmap-opencl-overhead.XXXXXX)
mkdir -p "$out"
make -s -C "$nb" opencl >/dev/null
layer=$nb/build/libhintmap_opencl.so bench=$nb/build/hm-opencl-bench
[ -x "$bench" ] && [ -e "$layer" ] || { echo "overhead.sh: $bench or $layer not built (no OpenCL headers or libOpenCL.so?)" >&2; exit 3; }
"$bench" -n 1 >/dev/null 2>&1 || { echo "overhead.sh: hm-opencl-bench cannot run: no OpenCL platform?" >&2; exit 3; }

if [ $quick -eq 1 ]; then n_long=50 n_tiny=2000; else n_long=2000 n_tiny=20000; fi
reps100=$("$bench" --calibrate 100)
reps1000=$("$bench" --calibrate 1000)
echo "overhead.sh: $rounds rounds; kernels of ~100 us: reps $reps100, ~1000 us: reps $reps1000; load $(cut -d' ' -f1-3 /proc/loadavg); raw lines in $out"

# one ARM ROW ARGS...: one run of the program; appends "ROW ARM wall_ns enqueue_ns" to $out/runs
one() {
  arm=$1 row=$2; shift 2
  if [ "$arm" = with ]; then
    line=$(OPENCL_LAYERS=$layer HINTMAP_FILE=$out/$row.hints HINTMAP_CAPACITY=64 "$bench" "$@")
  else
    line=$(env -u OPENCL_LAYERS "$bench" "$@")
  fi
  echo "$line" >>"$out/raw"
  wall=$(echo "$line" | sed -n 's/.* wall_ns=\([0-9]*\).*/\1/p')
  enq=$(echo "$line" | sed -n 's/.* enqueue_ns=\([0-9]*\).*/\1/p')
  echo "$row $arm $wall $enq" >>"$out/runs"
}

: >"$out/runs"
r=0
while [ $r -lt "$rounds" ]; do
  if [ $((r % 2)) -eq 0 ]; then order="with without"; else order="without with"; fi
  for arm in $order; do
    one "$arm" k100 -n $n_long -r "$reps100"
    one "$arm" k1000 -n $((n_long / 4)) -r "$reps1000"
    one "$arm" tiny -n $n_tiny -r 0
  done
  # the cost of profiling alone: the program asks for it itself, no layer
  if [ $((r % 2)) -eq 0 ]; then p_order="without profiled"; else p_order="profiled without"; fi
  for arm in $p_order; do
    if [ "$arm" = profiled ]; then
      line=$(env -u OPENCL_LAYERS "$bench" -p -n $n_tiny -r 0)
    else
      line=$(env -u OPENCL_LAYERS "$bench" -n $n_tiny -r 0)
    fi
    echo "$line" >>"$out/raw"
    echo "prof $arm $(echo "$line" | sed -n 's/.* wall_ns=\([0-9]*\).*/\1/p') $(echo "$line" | sed -n 's/.* enqueue_ns=\([0-9]*\).*/\1/p')" >>"$out/runs"
  done
  r=$((r + 1))
done

# median ROW ARM FIELD (3 wall, 4 enqueue)
median() { awk -v row="$1" -v arm="$2" -v f="$3" '$1 == row && $2 == arm { print $f }' "$out/runs" | sort -n |
  awk '{ v[NR] = $1 } END { if (NR == 0) print 0; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.0f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
spread() { awk -v row="$1" -v arm="$2" '$1 == row && $2 == arm { print $3 }' "$out/runs" | sort -n |
  awk '{ v[NR] = $1 } END { if (NR) printf "%.3f-%.3f s", v[1] / 1e9, v[NR] / 1e9 }'; }

printf '%-28s %14s %14s %10s   %s\n' row "median with" "median without" ratio "spread with / without"
for row in k100 k1000; do
  w=$(median $row with 3) o=$(median $row without 3)
  n=$n_long; [ $row = k1000 ] && n=$((n_long / 4))
  printf '%-28s %12.3f s %12.3f s %10.4f   %s / %s\n' "$row ($n kernels)" "$(echo "$w / 1000000000" | bc -l)" "$(echo "$o / 1000000000" | bc -l)" \
    "$(echo "$w / $o" | bc -l)" "$(spread $row with)" "$(spread $row without)"
done
w=$(median tiny with 3) o=$(median tiny without 3) we=$(median tiny with 4) oe=$(median tiny without 4)
printf '%-28s %12.3f s %12.3f s %10.4f   per enqueue: wall %+.0f ns; the enqueue call %.0f ns with, %.0f ns without\n' \
  "tiny ($n_tiny empty kernels)" "$(echo "$w / 1000000000" | bc -l)" "$(echo "$o / 1000000000" | bc -l)" "$(echo "$w / $o" | bc -l)" \
  "$(echo "($w - $o) / $n_tiny" | bc -l)" "$(echo "$we / $n_tiny" | bc -l)" "$(echo "$oe / $n_tiny" | bc -l)"
p=$(median prof profiled 3) o=$(median prof without 3)
printf '%-28s %12.3f s %12.3f s %10.4f   per enqueue: %+.0f ns (no layer; the program asks for profiling itself)\n' \
  "profiling alone (tiny)" "$(echo "$p / 1000000000" | bc -l)" "$(echo "$o / 1000000000" | bc -l)" "$(echo "$p / $o" | bc -l)" \
  "$(echo "($p - $o) / $n_tiny" | bc -l)"
[ $quick -eq 0 ] || echo "overhead.sh: --quick: the script works; these figures are no measurement"
