#!/bin/sh
# test_gpu_run.sh - gpu-run.sh's branches here, with no GPU: the stand-in (cupti/standin_gpu.c on
# cupti/fake_cupti.c) plays hm-cuda-driver and the PyTorch workload, so the one GPU command is not
# spent on a typo. Needs native-bench/build with the CUPTI targets (make all cupti-test, or
# ./mvnw verify) and python3.
#
#   native-bench/gpu/test_gpu_run.sh [quick|all]        (default all: about a minute; quick: about 15 s)
#
# GPU_RUN_HINTMAP=PATH (e.g. ./hintmap after ./mvnw package) gives gpu-run.sh a Java reader: then
# the pass scenario expects PASS everywhere; without one, PARTIAL/NOT-RUN for the Java checks.
# Scenarios (quick: unit, pass, mismatch):
#   unit      gpu/test_gpu_compare.py (comparison, long-name rule against the shared vectors (hashlib),
#             overhead arithmetic, trace reduction)
#   pass      every step; every check's line; the archive's contents; exit 0 (2 without Java)
#   mismatch  a collector count one over (driver) and a profiler count one over (torch): exit 1,
#             both named, the other steps still reported
#   hang      a stand-in that never exits: the torch runs end at GPU_RUN_RUN_S, the multi step at
#             its step timeout (TIMEOUT); exit 1, the archive still written
#   budget    a budget spent before setup: every check NOT-RUN with the reason; exit 2
#   fallback  binaries that do not run (GPU_RUN_BIN): said why, native-bench/build used instead
#   carried   a carried folder (GPU_RUN_CARRY, as gpu-stage.sh makes it) whose binaries run: used
#   real      without --stand-in on this machine (no GPU): hm-cuda-driver's "no CUDA device" is a
#             FAIL, torch NOT-RUN, exit 1 (skipped where a GPU driver is present)
# The make fallback (GPU_RUN_BUILD=DIR: build there instead) takes a minute: run by hand, it is
# described in gpu-run.sh's header.
set -u
here=$(cd "$(dirname "$0")" && pwd)
nb=$(dirname "$here")
run=$nb/gpu-run.sh
what=${1:-all}
tmp=$(mktemp -d /tmp/hm-test-gpu-run.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
# expect_rc SCENARIO WANT: the last gpu-run.sh exited WANT
expect_rc() { if [ "$rc" -eq "$2" ]; then ok "$1: exit $rc"; else bad "$1: exit $rc, want $2"; fi; }
# expect FILE PATTERN WHAT: FILE has a line matching the grep -E PATTERN
expect() { if grep -qE -- "$2" "$1"; then ok "$3"; else bad "$3: no line matching '$2' in $1:"; sed 's/^/     | /' "$1" | tail -n 12; fi; }
# gpu [ENV=V...] -- ARGS: runs gpu-run.sh, output to $tmp/NAME.log; sets rc
# (GPU_RUN_CARRY: none unless a scenario gives one, so that a gpu-carry/ staged here plays no part)
gpu() {
  name=$1; shift
  env GPU_RUN_CARRY="$tmp/no-carry" "$@" >"$tmp/$name.log" 2>&1; rc=$?
}
for f in hm-standin-gpu libfake_cupti.so libhintmap_cupti.so hm-dump hm-bench hm-floor libhintmap.so; do
  [ -e "$nb/build/$f" ] || { echo "SKIP: test_gpu_run: $nb/build/$f missing (no CUPTI headers? make -C native-bench all cupti-test)"; exit 0; }
done
java=no; [ -n "${GPU_RUN_HINTMAP:-}" ] && java=yes
echo "== gpu-run.sh branches with the stand-in (Java reader: $java)"

if command -v python3 >/dev/null 2>&1; then
  if python3 "$here/test_gpu_compare.py" >"$tmp/unit.log" 2>&1; then ok "unit: $(tail -n 3 "$tmp/unit.log" | grep -E '^(OK|Ran)' | tr '\n' ' ')"
  else bad "unit: test_gpu_compare.py"; cat "$tmp/unit.log"; fi
else
  echo "SKIP: no python3: gpu_compare.py not tested, and gpu-run.sh needs it"; exit 0
fi

# ---- pass: every step
steps=driver,torch,multi,bench
[ "$what" = all ] && steps=probe,$steps
gpu pass GPU_RUN_STEPS=$steps "$run" --stand-in "$tmp/pass"
s=$tmp/pass/summary.txt
if [ $java = yes ]; then want=0; else want=2; fi
expect_rc pass $want
[ $rc -eq $want ] || tail -n 30 "$tmp/pass.log"
if [ -f "$s" ]; then
  expect "$s" '^gpu-run .*STAND-IN \(no GPU; synthetic figures, not evidence\)' "pass: labelled stand-in"
  if [ $java = yes ]; then
    expect "$s" '^1 hm-cuda-driver \+ collector: PASS regions 8/8, counts ok, .*verify: ok; measured spread .* ns per dispatch' "pass: 1 driver PASS, spread stated"
    expect "$s" '^2 PyTorch vs torch.profiler: PASS .*runs=3 differing_runs=0 names=5 over_limit=1; verify with-1.hints: OK$' "pass: 2 PyTorch = profiler, 1 name over the limit"
    expect "$s" '^4 4 processes, one file: PASS 4 processes x 200 dispatches: 8/8 regions exact.*verify: OK$' "pass: 4 processes exact"
    expect "$s" '^6 Java reader live: PASS Java reader sees 2400 dispatches while the driver runs$' "pass: 6 live reader"
    expect "$s" '^gpu-run: PASS in ' "pass: verdict PASS"
  else
    expect "$s" '^1 hm-cuda-driver \+ collector: PARTIAL regions 8/8, counts ok, .*verify: not-checked' "pass: 1 driver PARTIAL (no Java)"
    expect "$s" '^2 PyTorch vs torch.profiler: PARTIAL .*runs=3 differing_runs=0 names=5 over_limit=1' "pass: 2 PyTorch = profiler (no Java)"
    expect "$s" '^4 4 processes, one file: PARTIAL .*8/8 regions exact' "pass: 4 processes exact (no Java)"
    expect "$s" '^6 Java reader live: NOT-RUN no Java runtime$' "pass: 6 NOT-RUN without Java"
    expect "$s" '^gpu-run: INCOMPLETE \(4 check' "pass: verdict INCOMPLETE"
  fi
  expect "$s" '^3 collector overhead: MEASURED ratio=1\.020 .*reps=3/3 goal=not-met kernel_ms_per_step=0\.113' "pass: 3 overhead arithmetic (synthetic 2 %)"
  expect "$s" '^5 contention, 1\.\.16 threads: MEASURED .*hm-bench zipf-handles [0-9.]+/[0-9.]+/[0-9.]+/[0-9.]+/[0-9.]+;.*hm-bench disjoint-handles .*hm-floor shared-slot' "pass: 5 contention table"
  [ $what = all ] && expect "$tmp/pass.log" '^\$ which gcc make java nvcc cmake' "pass: the probe printed"
  tar -tzf "$tmp/pass/gpu-run.tar.gz" >"$tmp/pass.list" 2>&1
  for f in summary.txt gpu-run.log driver/cupti.hints driver/driver.hints driver/gpu-check.txt torch/profile.json \
           torch/with-1.hints torch/with-5.dump torch/compare.txt torch/overhead.txt multi/multi.hints bench/bench.tsv; do
    grep -q "/$f\$" "$tmp/pass.list" || bad "pass: $f not in the archive"
  done
  ok "pass: archive lists $(wc -l <"$tmp/pass.list" | tr -d ' ') entries"
  mkdir -p "$tmp/x" && tar -xzf "$tmp/pass/gpu-run.tar.gz" -C "$tmp/x"
  cmp -s "$s" "$tmp"/x/*/summary.txt && ok "pass: OUTDIR/summary.txt is the archive's" || bad "pass: summary.txt differs from the archive's"
  expect "$(echo "$tmp"/x/*/torch/compare.txt)" 'names over the file.s 1024-byte limit: 1 \(stored shortened' "pass: the long name reported"
else
  bad "pass: no summary.txt"; tail -n 30 "$tmp/pass.log"
fi

# ---- mismatch: counts one over on both sides
gpu mismatch GPU_RUN_STEPS=driver,torch HM_STANDIN_FAULT=count,profile GPU_RUN_HINTMAP= "$run" --stand-in "$tmp/mm"
s=$tmp/mm/summary.txt
expect_rc mismatch 1
expect "$s" '^1 hm-cuda-driver \+ collector: FAIL regions 8/8, counts FAIL' "mismatch: 1 FAIL on counts"
expect "$tmp/mismatch.log" 'FAIL: saxpy\(int, float, float const\*, float\*\)<<<16,256>>>: collector count 301, launches 300' "mismatch: the region named"
expect "$s" '^2 PyTorch vs torch.profiler: FAIL .*runs=3 differing_runs=3 ' "mismatch: 2 FAIL in every run"
expect "$tmp/mismatch.log" '^  COUNT void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>.*: profiler 64, hint file 63$' "mismatch: the kernel named"
expect "$s" '^4 \(not run\): NOT-RUN not selected' "mismatch: unselected steps reported"
expect "$s" '^gpu-run: FAILED \(2 check' "mismatch: verdict FAILED"
[ -f "$tmp/mm/gpu-run.tar.gz" ] && ok "mismatch: archive written" || bad "mismatch: no archive"

if [ "$what" = all ]; then
  # ---- hang: the torch runs' own timeout, then the multi step's
  gpu hang GPU_RUN_STEPS=torch,multi HM_STANDIN_FAULT=hang GPU_RUN_RUN_S=2 GPU_RUN_STEP_SCALE=0.05 GPU_RUN_HINTMAP= \
    "$run" --stand-in "$tmp/hang"
  s=$tmp/hang/summary.txt
  expect_rc hang 1
  expect "$s" '^2 PyTorch vs torch.profiler: FAIL the profiler run failed' "hang: a hung torch run ends at GPU_RUN_RUN_S"
  expect "$s" '^3 collector overhead: NOT-RUN the profiler run failed' "hang: 3 NOT-RUN"
  expect "$s" '^4 multi: TIMEOUT the step was killed after 5s' "hang: the multi step killed at its timeout"
  [ -f "$tmp/hang/gpu-run.tar.gz" ] && ok "hang: archive written" || bad "hang: no archive"

  # ---- budget: spent before setup
  gpu budget GPU_RUN_STEPS=driver GPU_RUN_BUDGET_S=14 "$run" --stand-in "$tmp/budget"
  s=$tmp/budget/summary.txt
  expect_rc budget 2
  expect "$tmp/budget.log" '^== setup: NOT-RUN \(budget: 14s left of 14s\)' "budget: setup not started"
  expect "$s" '^1 \(not run\): NOT-RUN setup failed: no binaries' "budget: every check NOT-RUN with the reason"

  # ---- fallback: binaries that do not run
  mkdir -p "$tmp/broken"
  for f in hm-bench hm-floor hm-standin-gpu libfake_cupti.so libhintmap_cupti.so libhintmap.so; do cp "$nb/build/$f" "$tmp/broken/"; done
  printf '\177ELF not really\n' >"$tmp/broken/hm-dump"; chmod +x "$tmp/broken/hm-dump"
  gpu fallback GPU_RUN_STEPS=multi GPU_RUN_BIN="$tmp/broken" GPU_RUN_HINTMAP= "$run" --stand-in "$tmp/fb"
  expect_rc fallback 2
  expect "$tmp/fallback.log" "^GPU_RUN_BIN: $tmp/broken/hm-dump does not run" "fallback: why the given binaries were not used"
  expect "$tmp/fallback.log" "^binaries: $nb/build\$" "fallback: native-bench/build used"
  expect "$tmp/fb/summary.txt" '^4 4 processes, one file: PARTIAL .*8/8 regions exact' "fallback: the step ran"

  # ---- carried: binaries from a carried folder
  mkdir -p "$tmp/carry/bin"
  for f in hm-dump hm-bench hm-floor hm-standin-gpu libfake_cupti.so libhintmap_cupti.so libhintmap.so; do cp "$nb/build/$f" "$tmp/carry/bin/"; done
  gpu carried GPU_RUN_STEPS=multi GPU_RUN_CARRY="$tmp/carry" GPU_RUN_HINTMAP= "$run" --stand-in "$tmp/ca"
  expect_rc carried 2
  expect "$tmp/carried.log" "^binaries: carried \\($tmp/carry/bin\\)\$" "carried: the carried binaries used"
  expect "$tmp/ca/summary.txt" '^4 4 processes, one file: PARTIAL .*8/8 regions exact' "carried: the step ran"

  # ---- real: no --stand-in, on a machine with no GPU
  if [ -e /dev/nvidiactl ]; then
    echo "SKIP: real: a GPU driver is present here (/dev/nvidiactl): run gpu-run.sh itself"
  elif [ ! -x "$nb/build/hm-cuda-driver" ]; then
    echo "SKIP: real: no build/hm-cuda-driver (no nvcc)"
  else
    gpu real GPU_RUN_STEPS=driver,torch,multi GPU_RUN_HINTMAP= "$run" "$tmp/real"
    s=$tmp/real/summary.txt
    expect_rc real 1
    expect "$s" '^gpu-run .*: GPU$' "real: labelled GPU"
    expect "$tmp/real.log" 'hm-cuda-driver: no CUDA device' "real: hm-cuda-driver says no CUDA device"
    expect "$s" '^1 hm-cuda-driver \+ collector: FAIL regions 0/0, counts FAIL' "real: 1 FAIL"
    expect "$s" '^2 PyTorch vs torch.profiler: NOT-RUN python3 has no torch with CUDA' "real: 2 NOT-RUN without torch"
    expect "$s" '^4 4 processes, one file: FAIL .*process 1 exited 1' "real: 4 FAIL"
  fi
fi

echo
if [ $fails -eq 0 ]; then echo "test_gpu_run: all passed ($what)"; else echo "test_gpu_run: $fails FAILURE(S)"; fi
[ $fails -eq 0 ]
