#!/bin/sh
# gpu-check.sh - on a machine with a GPU: hm-cuda-driver with the CUPTI collector injected, checked
# against its own cudaEvent timings. Exits non-zero on any mismatch; prints a summary table.
# About a minute (GPU_CHECK_DISPATCHES=20000 per region, 8 regions). docs/GPU.md, "The check".
#
#   native-bench/gpu-check.sh            (from the repository root or native-bench/)
#
# Builds with `make all` unless the binaries are already in native-bench/build/ (carried ones are
# used as they are). The Java reader is ./hintmap with target/hintmap-cli.jar + target/lib (carry
# them: a GPU machine may have no network to build them); without a jar the live-reader and
# `hintmap verify` checks FAIL unless GPU_CHECK_NO_JAVA=1, which reports them as not checked.
#
# gpu-run.sh (the whole GPU run) sets these; by hand they are not needed:
#   GPU_CHECK_BIN      the binaries' folder (default native-bench/build; gpu-run: the carried ones)
#   GPU_CHECK_DRIVER   the driver command (default $GPU_CHECK_BIN/hm-cuda-driver; --stand-in:
#                      "build/hm-standin-gpu driver", which plays it on the stand-in libcupti)
#   GPU_CHECK_HINTMAP  the Java CLI command (default ./hintmap; gpu-run: the carried runtime)
#   GPU_CHECK_DIR      the folder for the files (default a new /tmp/hm-gpu-check.XXXXXX); the live
#                      reader touches live-seen there when it has seen records
#
# Checks:
#   1 every kernel region of the driver is in the collector's file (HINTMAP_NAME=demangled+grid)
#   2 dispatch counts exact: collector's count == launches == the driver's own file count
#   3 totals: |event_ns_total - cupti_ns_total| <= TOL_PCT% of event + TOL_US us per dispatch
#     (events bracket each kernel and add launch latency, so CUPTI is the smaller; defaults 10 %, 10 us:
#     a guess until a GPU run measures the spread, which the "spread" line reports)
#   4 the collector reported no dropped records/samples (its HINTMAP_VERBOSE exit line)
#   5 hintmap verify OK on both files
#   6 a Java reader (hintmap dump) saw collector records while the driver was still running
# The last line is one machine-readable summary (gpu-run.sh reads it):
#   gpu-check-result regions=R absent=A counts=ok|FAIL totals=ok|FAIL collector=ok|FAIL verify=ok|FAIL|not-checked
#                    live=ok|FAIL|not-checked spread_ns_min=X spread_ns_max=Y spread_pct_min=P spread_pct_max=Q
# (spread: (event total - CUPTI total) / dispatches per region, in ns, and as % of the event total)
set -u
set -f # names like "float const*" are split by `set --` below, never globbed
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
B=${GPU_CHECK_BIN:-$here/build}
DRIVER=${GPU_CHECK_DRIVER:-$B/hm-cuda-driver}
HINTMAP=${GPU_CHECK_HINTMAP:-$root/hintmap}
N=${GPU_CHECK_DISPATCHES:-20000}
TOL_PCT=${GPU_CHECK_TOL_PCT:-10}
TOL_US=${GPU_CHECK_TOL_US:-10}
LIMIT_S=${GPU_CHECK_LIMIT_S:-300} # the driver run is killed after this (a hang, e.g. at the exit flush, is a FAIL)
if [ -n "${GPU_CHECK_DIR:-}" ]; then W=$GPU_CHECK_DIR; mkdir -p "$W" || exit 1
else W=$(mktemp -d /tmp/hm-gpu-check.XXXXXX); fi
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# the outcome of each check, for the result line
absent=0 r_counts=ok r_totals=ok r_collector=ok r_verify=not-checked r_live=not-checked
echo "== gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n)"
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader

set -- $DRIVER
driver_exe=$1
if [ ! -x "$driver_exe" ] || [ ! -f "$B/libhintmap_cupti.so" ] || [ ! -x "$B/hm-dump" ]; then
  echo "== building (make all)"
  make -s -C "$here" all >"$W/build.log" 2>&1 || { tail -30 "$W/build.log"; echo "FAIL: build"; exit 1; }
fi
for f in "$driver_exe" "$B/libhintmap_cupti.so" "$B/hm-dump"; do
  [ -e "$f" ] || { echo "FAIL: $f missing after the build (nvcc, CUPTI headers?)"; exit 1; }
done
java_ok=0
if [ "${GPU_CHECK_NO_JAVA:-0}" = 1 ]; then :
elif [ -n "${GPU_CHECK_HINTMAP:-}" ] || [ -f "$root/target/hintmap-cli.jar" ]; then java_ok=1
else fail "no target/hintmap-cli.jar (./mvnw package, or carry it; GPU_CHECK_NO_JAVA=1 to skip the Java checks)"; r_verify=FAIL; r_live=FAIL; fi

# ---- run: the driver, the collector injected, a Java reader polling the collector's file
echo "== $DRIVER -n $N with CUDA_INJECTION64_PATH=$B/libhintmap_cupti.so"
CUDA_INJECTION64_PATH=$B/libhintmap_cupti.so HINTMAP_FILE=$W/cupti.hints HINTMAP_NAME=demangled+grid \
  HINTMAP_VERBOSE=1 HINTMAP_FLUSH_MS=100 HINTMAP_CAPACITY=256 \
  timeout -k 10 "$LIMIT_S" $DRIVER -f "$W/driver.hints" -n "$N" >"$W/driver.out" 2>"$W/driver.err" &
pid=$!
live=0 polls=0
if [ $java_ok = 1 ]; then
  while kill -0 $pid 2>/dev/null; do
    sleep 0.5
    [ -f "$W/cupti.hints" ] || continue
    c=$($HINTMAP dump "$W/cupti.hints" --format json 2>/dev/null | grep -o '"dispatch_count" *: *[0-9]*' | awk -F: '{s+=$2} END {print s+0}')
    polls=$((polls + 1))
    [ $polls -lt 120 ] || break
    if kill -0 $pid 2>/dev/null && [ "${c:-0}" -gt 0 ]; then
      live=$c; echo "live: Java reader sees $c dispatches while the driver runs"
      : >"$W/live-seen" # the stand-in driver (HM_STANDIN_WAIT_FOR) waits for this instead of for time
      break
    fi
  done
fi
wait $pid; rc=$?
cat "$W/driver.err"
if [ $rc -ne 0 ]; then
  [ $rc -eq 124 ] || [ $rc -eq 137 ] && echo "FAIL: hm-cuda-driver killed after ${LIMIT_S}s (GPU_CHECK_LIMIT_S)"
  echo "FAIL: hm-cuda-driver exited $rc (no GPU here?): nothing to compare"
  echo "gpu-check: FAILED (files in $W)"
  echo "gpu-check-result regions=0 absent=0 counts=FAIL totals=FAIL collector=FAIL verify=$r_verify live=$r_live spread_ns_min=- spread_ns_max=- spread_pct_min=- spread_pct_max=-"
  exit 1
fi
grep -q '^hintmap-cupti: loaded into pid' "$W/driver.err" || {
  fail "CUDA never loaded the collector (no 'loaded into pid' line: CUDA_INJECTION64_PATH not honoured, or cuInit failed)"
  r_collector=FAIL; }
grep -q '^hintmap-cupti: recording into' "$W/driver.err" || { fail "the collector was loaded but did not start (see above)"; r_collector=FAIL; }
exitline=$(grep '^hintmap-cupti: exit:' "$W/driver.err")
[ -n "$exitline" ] || { fail "no exit line from the collector (not flushed at exit?)"; r_collector=FAIL; }
for k in cupti_dropped store_dropped store_errors skipped_negative buffers_refused incomplete_buffers; do
  case $exitline in *" $k=0"*) ;; *) fail "collector: $k not 0: $exitline"; r_collector=FAIL ;; esac
done

# ---- compare, region by region
printf '\n%-16s %-46s %9s %9s %9s %14s %14s %8s  %s\n' region cupti_name launches drv_file cupti event_ns cupti_ns diff% result
grep '^region	' "$W/driver.out" >"$W/regions.tsv"
[ -s "$W/regions.tsv" ] || { fail "hm-cuda-driver printed no region lines"; r_counts=FAIL; }
: >"$W/spread.tsv"
while IFS='	' read -r _ name cname launches ev_ns fcount _fns _mean _hot; do
  # hm-dump FILE NAME prints the region's line, then "size N capacity M": the first line is the region
  line=$("$B/hm-dump" "$W/cupti.hints" "$cname" 2>&1 | head -n 1)
  res=ok; ccount=0; cns=0
  case $line in
    "region "*) set -- $line; shift $(($# - 4)); ccount=$1; cns=$2 ;;
    *) res="ABSENT"; fail "$cname not in the collector's file ($line)"; absent=$((absent + 1)); r_counts=FAIL ;;
  esac
  if [ "$res" = ok ]; then
    [ "$ccount" -eq "$launches" ] || { res="COUNT"; r_counts=FAIL; fail "$cname: collector count $ccount, launches $launches"; }
    [ "$fcount" -eq "$launches" ] || { res="COUNT"; r_counts=FAIL; fail "$name: driver's file count $fcount, launches $launches"; }
    ok=$(awk -v e="$ev_ns" -v c="$cns" -v n="$launches" -v p="$TOL_PCT" -v u="$TOL_US" \
         'BEGIN { d = e - c; if (d < 0) d = -d; print (c > 0 && d <= e * p / 100 + n * u * 1000) ? 1 : 0 }')
    [ "$ok" = 1 ] || { res="TOTAL"; r_totals=FAIL; fail "$cname: event $ev_ns ns vs CUPTI $cns ns beyond $TOL_PCT% + $TOL_US us/dispatch"; }
    # the spread the tolerance should come from: ns per dispatch and % of the event total
    awk -v e="$ev_ns" -v c="$cns" -v n="$launches" 'BEGIN { if (n > 0 && e > 0) printf "%.1f\t%.2f\n", (e - c) / n, (e - c) * 100 / e }' >>"$W/spread.tsv"
  fi
  pct=$(awk -v e="$ev_ns" -v c="$cns" 'BEGIN { if (e > 0) printf "%.1f", (c - e) * 100 / e; else print "-" }')
  printf '%-16s %-46s %9s %9s %9s %14s %14s %8s  %s\n' "$name" "$cname" "$launches" "$fcount" "$ccount" "$ev_ns" "$cns" "$pct" "$res"
done <"$W/regions.tsv"
regions=$(wc -l <"$W/regions.tsv" | tr -d ' ')
spread=$(awk -F'\t' 'NR == 1 { a = b = $1; c = d = $2 } { if ($1 < a) a = $1; if ($1 > b) b = $1; if ($2 < c) c = $2; if ($2 > d) d = $2 }
  END { if (NR) printf "%s %s %s %s", a, b, c, d; else print "- - - -" }' "$W/spread.tsv")
set -- $spread
echo
echo "spread (event - CUPTI) per dispatch: $1 .. $2 ns; of the event total: $3 .. $4 % (over $regions regions)"
spread_fields="spread_ns_min=$1 spread_ns_max=$2 spread_pct_min=$3 spread_pct_max=$4"
echo
"$B/hm-dump" "$W/cupti.hints" 2>&1 | sed 's/^/cupti file: /' | grep -v '<<<' || true

# ---- verify, live
if [ $java_ok = 1 ]; then
  r_verify=ok r_live=ok
  for f in cupti driver; do
    if $HINTMAP verify "$W/$f.hints" >"$W/verify-$f.txt" 2>&1; then echo "hintmap verify $f.hints: OK"
    else cat "$W/verify-$f.txt"; fail "hintmap verify $f.hints"; r_verify=FAIL; fi
  done
  [ "$live" -gt 0 ] || { fail "the Java reader saw no collector record while the driver ran ($polls polls)"; r_live=FAIL; }
elif [ "${GPU_CHECK_NO_JAVA:-0}" = 1 ]; then
  echo "not checked: hintmap verify, live Java reader (GPU_CHECK_NO_JAVA=1)"
fi
echo
if [ $fails -eq 0 ]; then echo "gpu-check: PASS (tolerance $TOL_PCT% + $TOL_US us/dispatch; files in $W)"
else echo "gpu-check: $fails FAILURE(S) (files in $W)"; fi
echo "gpu-check-result regions=$regions absent=$absent counts=$r_counts totals=$r_totals collector=$r_collector verify=$r_verify live=$r_live $spread_fields"
[ $fails -eq 0 ]
