#!/bin/sh
# gpu-check.sh - on a machine with a GPU: hm-cuda-driver with the CUPTI collector injected, checked
# against its own cudaEvent timings. Exits non-zero on any mismatch; prints a summary table.
# About a minute (GPU_CHECK_DISPATCHES=20000 per region, 8 regions). docs/GPU.md has the story.
#
#   native-bench/gpu-check.sh            (from the repository root or native-bench/)
#
# Builds with `make all` unless the binaries are already in native-bench/build/ (carried ones are
# used as they are). The Java reader is ./hintmap with target/hintmap.jar + target/lib (carry
# them: a GPU machine may have no network to build them); without a jar the live-reader and
# `hintmap verify` checks FAIL unless GPU_CHECK_NO_JAVA=1, which reports them as not checked.
#
# Checks:
#   1 every kernel region of the driver is in the collector's file (HINTMAP_NAME=demangled+grid)
#   2 dispatch counts exact: collector's count == launches == the driver's own file count
#   3 totals: |event_ns_total - cupti_ns_total| <= TOL_PCT% of event + TOL_US us per dispatch
#     (events bracket each kernel and add launch latency, so CUPTI is the smaller; defaults 10 %, 10 us)
#   4 the collector reported no dropped records/samples (its HINTMAP_VERBOSE exit line)
#   5 hintmap verify OK on both files
#   6 a Java reader (hintmap dump) saw collector records while the driver was still running
set -u
set -f # names like "float const*" are split by `set --` below, never globbed
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
B=$here/build
N=${GPU_CHECK_DISPATCHES:-20000}
TOL_PCT=${GPU_CHECK_TOL_PCT:-10}
TOL_US=${GPU_CHECK_TOL_US:-10}
LIMIT_S=${GPU_CHECK_LIMIT_S:-300} # the driver run is killed after this (a hang, e.g. at the exit flush, is a FAIL)
W=$(mktemp -d /tmp/hm-gpu-check.XXXXXX)
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
echo "== gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader

if [ ! -x "$B/hm-cuda-driver" ] || [ ! -f "$B/libhintmap_cupti.so" ] || [ ! -x "$B/hm-dump" ]; then
  echo "== building (make all)"
  make -s -C "$here" all >"$W/build.log" 2>&1 || { tail -30 "$W/build.log"; echo "FAIL: build"; exit 1; }
fi
for f in hm-cuda-driver libhintmap_cupti.so hm-dump; do
  [ -e "$B/$f" ] || { echo "FAIL: $B/$f missing after the build (nvcc, CUPTI headers?)"; exit 1; }
done
java_ok=0
if [ -f "$root/target/hintmap.jar" ]; then java_ok=1
elif [ "${GPU_CHECK_NO_JAVA:-0}" != 1 ]; then fail "no target/hintmap.jar (./mvnw package, or carry it; GPU_CHECK_NO_JAVA=1 to skip the Java checks)"; fi

# ---- run: the driver, the collector injected, a Java reader polling the collector's file
echo "== hm-cuda-driver -n $N with CUDA_INJECTION64_PATH=$B/libhintmap_cupti.so"
CUDA_INJECTION64_PATH=$B/libhintmap_cupti.so HINTMAP_FILE=$W/cupti.hints HINTMAP_NAME=demangled+grid \
  HINTMAP_VERBOSE=1 HINTMAP_FLUSH_MS=100 HINTMAP_CAPACITY=256 \
  timeout -k 10 "$LIMIT_S" "$B/hm-cuda-driver" -f "$W/driver.hints" -n "$N" >"$W/driver.out" 2>"$W/driver.err" &
pid=$!
live=0 polls=0
if [ $java_ok = 1 ]; then
  while kill -0 $pid 2>/dev/null; do
    sleep 0.5
    [ -f "$W/cupti.hints" ] || continue
    c=$("$root/hintmap" dump "$W/cupti.hints" --format json 2>/dev/null | grep -o '"dispatchCount" *: *[0-9]*' | awk -F: '{s+=$2} END {print s+0}')
    polls=$((polls + 1))
    [ $polls -lt 120 ] || break
    if kill -0 $pid 2>/dev/null && [ "${c:-0}" -gt 0 ]; then live=$c; echo "live: Java reader sees $c dispatches while the driver runs"; break; fi
  done
fi
wait $pid; rc=$?
cat "$W/driver.err"
if [ $rc -ne 0 ]; then
  [ $rc -eq 124 ] || [ $rc -eq 137 ] && echo "FAIL: hm-cuda-driver killed after ${LIMIT_S}s (GPU_CHECK_LIMIT_S)"
  echo "FAIL: hm-cuda-driver exited $rc (no GPU here?): nothing to compare"
  echo "gpu-check: FAILED (files in $W)"; exit 1
fi
grep -q '^hintmap-cupti: loaded into pid' "$W/driver.err" || \
  fail "CUDA never loaded the collector (no 'loaded into pid' line: CUDA_INJECTION64_PATH not honoured, or cuInit failed)"
grep -q '^hintmap-cupti: recording into' "$W/driver.err" || fail "the collector was loaded but did not start (see above)"
exitline=$(grep '^hintmap-cupti: exit:' "$W/driver.err")
[ -n "$exitline" ] || fail "no exit line from the collector (not flushed at exit?)"
for k in cupti_dropped store_dropped store_errors skipped_negative buffers_refused incomplete_buffers; do
  case $exitline in *" $k=0"*) ;; *) fail "collector: $k not 0: $exitline" ;; esac
done

# ---- compare, region by region
printf '\n%-16s %-46s %9s %9s %9s %14s %14s %8s  %s\n' region cupti_name launches drv_file cupti event_ns cupti_ns diff% result
grep '^region	' "$W/driver.out" >"$W/regions.tsv"
[ -s "$W/regions.tsv" ] || fail "hm-cuda-driver printed no region lines"
while IFS='	' read -r _ name cname launches ev_ns fcount _fns _mean _hot; do
  line=$("$B/hm-dump" "$W/cupti.hints" "$cname" 2>&1)
  res=ok; ccount=0; cns=0
  case $line in
    "region "*) set -- $line; shift $(($# - 4)); ccount=$1; cns=$2 ;;
    *) res="ABSENT"; fail "$cname not in the collector's file ($line)" ;;
  esac
  if [ "$res" = ok ]; then
    [ "$ccount" -eq "$launches" ] || { res="COUNT"; fail "$cname: collector count $ccount, launches $launches"; }
    [ "$fcount" -eq "$launches" ] || { res="COUNT"; fail "$name: driver's file count $fcount, launches $launches"; }
    ok=$(awk -v e="$ev_ns" -v c="$cns" -v n="$launches" -v p="$TOL_PCT" -v u="$TOL_US" \
         'BEGIN { d = e - c; if (d < 0) d = -d; print (c > 0 && d <= e * p / 100 + n * u * 1000) ? 1 : 0 }')
    [ "$ok" = 1 ] || { res="TOTAL"; fail "$cname: event $ev_ns ns vs CUPTI $cns ns beyond $TOL_PCT% + $TOL_US us/dispatch"; }
  fi
  pct=$(awk -v e="$ev_ns" -v c="$cns" 'BEGIN { if (e > 0) printf "%.1f", (c - e) * 100 / e; else print "-" }')
  printf '%-16s %-46s %9s %9s %9s %14s %14s %8s  %s\n' "$name" "$cname" "$launches" "$fcount" "$ccount" "$ev_ns" "$cns" "$pct" "$res"
done <"$W/regions.tsv"
echo
"$B/hm-dump" "$W/cupti.hints" 2>&1 | sed 's/^/cupti file: /' | grep -v '<<<' || true

# ---- verify, live
if [ $java_ok = 1 ]; then
  for f in cupti driver; do
    if "$root/hintmap" verify "$W/$f.hints" >"$W/verify-$f.txt" 2>&1; then echo "hintmap verify $f.hints: OK"
    else cat "$W/verify-$f.txt"; fail "hintmap verify $f.hints"; fi
  done
  [ "$live" -gt 0 ] || fail "the Java reader saw no collector record while the driver ran ($polls polls)"
else
  echo "not checked: hintmap verify, live Java reader (GPU_CHECK_NO_JAVA=1)"
fi
echo
if [ $fails -eq 0 ]; then echo "gpu-check: PASS (tolerance $TOL_PCT% + $TOL_US us/dispatch; files in $W)"
else echo "gpu-check: $fails FAILURE(S) (files in $W)"; fi
[ $fails -eq 0 ]
