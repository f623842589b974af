#!/usr/bin/env bash
# gpu-run.sh - the GPU evidence run (docs/GPU.md "The GPU run"): ONE command of at most
# ~6 minutes on a machine with a GPU, that checks the CUPTI collector, hm-cuda-driver, PyTorch with
# no code change, the collector's overhead, several processes, the 16-core contention curve and a
# Java reader, and brings everything back in one archive.
#
#   native-bench/gpu-run.sh [--stand-in] [OUTDIR]        (OUTDIR: default $OUT, else ./gpu-run-out)
#
# Steps, in this order, each under its own timeout (GPU_RUN_STEP_SCALE scales them), all within
# GPU_RUN_BUDGET_S (default 360 s; a step that would start with under 15 s left is NOT-RUN):
#   probe   prints the environment (gcc make java nvcc cmake, CUDA/CUPTI folders, torch, libcupti);
#           never fatal: the run goes on either way
#   setup   binaries: the carried ones (gpu-carry/bin, made by gpu-stage.sh) when they run here, else
#           native-bench/build, else `make all` here (needs make, gcc, nvcc, CUPTI headers; into
#           GPU_RUN_BUILD when set, which skips the first two: how the fallback is rehearsed); the Java
#           reader: the carried runtime (gpu-carry/jre.tar.xz + java/), or GPU_RUN_HINTMAP
#   driver  checks 1 and 6: gpu-check.sh (hm-cuda-driver with the collector injected: every region,
#           exact counts, the event-vs-CUPTI spread measured, the collector's exit line, verify; a
#           Java reader sees records while the driver runs)
#   multi   check 4: 4 injected hm-cuda-driver processes record into one HINTMAP_FILE at once
#   bench   check 5: hm-bench on 64 regions (Zipf 1.0; shared by all threads, and --disjoint) and
#           hm-floor, at 1, 2, 4, 8, 16 threads (measured)
#   torch   checks 2 and 3: gpu/torch_workload.py under torch.profiler, then 3 runs with the collector
#           and 3 without, interleaved (W O O W W O); every collector run's per-kernel counts equal
#           the profiler's (gpu/gpu_compare.py); the median step time ratio (measured, not enforced)
# GPU_RUN_STEPS=probe,driver,torch,... runs those steps only (setup always runs).
#
# Output: OUTDIR/gpu-run.tar.gz (summary.txt, gpu-run.log, every hint file, dump, JSON, log and
# table) and OUTDIR/summary.txt. The summary has one line per check:
#   <n> <what>: PASS|FAIL|TIMEOUT|NOT-RUN|PARTIAL|MEASURED <details>
# Exit: 0 every check passed (or measured); 1 a mismatch, a failure or a timeout; 2 nothing
# failed but something could not run (e.g. no Java runtime: PARTIAL / NOT-RUN).
#
# --stand-in: the same script with no GPU (native-bench/gpu/test_gpu_run.sh runs it: quick in
# `make cupti-test`, so in ./mvnw verify; every branch in `make gpu-run-test`): hm-cuda-driver and the PyTorch workload are played by build/hm-standin-gpu on
# the stand-in libcupti (cupti/fake_cupti.c), with small sizes; its figures are synthetic. It takes
# every branch the GPU run takes except the CUDA programs themselves. HM_STANDIN_FAULT
# (cupti/standin_gpu.c) makes it mismatch or hang.
set -u
self=$(readlink -f "$0")
here=$(dirname "$self")
root=$(dirname "$here")

# ------------------------------------------------------------------------------------------------
# helpers (the main process and the steps, which are this script again: --step NAME)
say() { printf '%s\n' "$*"; }
# check N WHAT STATUS DETAIL: the check's summary line (the last one written wins)
check() { printf '%s %s: %s %s\n' "$1" "$2" "$3" "$4" >"$W/status/$1"; say ">> $1 $2: $3 $4"; }
hm_java() { [ -n "${HINTMAP_CMD:-}" ]; }
# the first line of hm-dump FILE NAME: "region <name> <count> <ns> <max> <bytes>" or "absent <name>"
dump_count() { "$BIN/hm-dump" "$1" "$2" 2>&1 | head -n 1 | awk '$1 == "region" { print $(NF - 3); exit } { print "absent" }'; }
# the collector's exit line in a stderr log is clean: every trouble counter 0
exit_line_clean() {
  local line k
  line=$(grep '^hintmap-cupti: exit:' "$1" | tail -n 1)
  [ -n "$line" ] || { echo "no exit line"; return 1; }
  for k in cupti_dropped store_dropped store_errors skipped_negative buffers_refused incomplete_buffers; do
    case $line in *" $k=0"*) ;; *) echo "$k not 0: $line"; return 1 ;; esac
  done
}
verify_file() { # FILE -> "OK", "FAIL ...", or "not run (no Java runtime)"
  if ! hm_java; then echo "not run (no Java runtime)"; return 0; fi
  if "$HINTMAP_CMD" verify "$1" >"$1.verify.txt" 2>&1; then echo OK; else echo "FAIL: $(head -c 300 "$1.verify.txt")"; fi
}

# ------------------------------------------------------------------------------------------------
# steps
step_probe() {
  say "== probe"
  say "\$ which gcc make java nvcc cmake"; which gcc make java nvcc cmake
  say "\$ ls /usr/local/cuda*/extras/CUPTI /usr/local/cuda*/lib64 | head"
  ls /usr/local/cuda*/extras/CUPTI /usr/local/cuda*/lib64 2>&1 | head
  say "\$ python3 -c 'import torch; print(torch.__version__, torch.cuda.get_device_name())'"
  timeout 90 python3 -c 'import torch; print(torch.__version__, torch.cuda.get_device_name())' 2>&1 | tail -n 3
  say "-- more"
  uname -srm; grep -h PRETTY_NAME /etc/os-release 2>/dev/null; ldd --version 2>&1 | head -n 1
  echo "cores $(nproc)"; command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  local tools=""
  for t in gcc make nvcc cmake java tar xz python3; do
    if command -v $t >/dev/null 2>&1; then printf '%-8s %s\n' "$t" "$($t --version 2>&1 | head -n 1)"; tools="$tools $t"
    else printf '%-8s %s\n' "$t" "not found"; tools="$tools no-$t"; fi
  done
  say "tools:$tools"
  # every libcupti on the machine, and the one torch maps (the collector must use that one in torch)
  { find /usr/local /opt /usr/lib -maxdepth 10 -name 'libcupti.so*' 2>/dev/null; } | sort | head -n 20 | sed 's/^/libcupti: /'
  local torch_cupti
  torch_cupti=$(timeout 90 python3 -c '
import torch
torch.cuda.init()
paths = sorted({l.split()[-1] for l in open("/proc/self/maps") if "libcupti" in l and "/" in l})
print("\n".join(paths))' 2>/dev/null | head -n 1)
  say "torch maps libcupti: ${torch_cupti:-none (before the first profiler/collector use)}"
  echo "TORCH_CUPTI='$torch_cupti'" >>"$W/env.sh"
}

bins_run() { # DIR: the binaries there run on this machine (prints why not)
  local d=$1 f
  for f in hm-dump hm-bench hm-floor libhintmap_cupti.so libhintmap.so; do
    [ -e "$d/$f" ] || { echo "$d/$f missing"; return 1; }
  done
  if [ "$STANDIN" = 1 ]; then
    for f in hm-standin-gpu libfake_cupti.so; do [ -e "$d/$f" ] || { echo "$d/$f missing"; return 1; }; done
    "$d/hm-standin-gpu" >/dev/null 2>&1; [ $? -eq 2 ] || { echo "$d/hm-standin-gpu does not run"; return 1; }
  else
    [ -e "$d/hm-cuda-driver" ] || { echo "$d/hm-cuda-driver missing"; return 1; }
    "$d/hm-cuda-driver" -h >/dev/null 2>&1 || { echo "$d/hm-cuda-driver -h: $("$d/hm-cuda-driver" -h 2>&1 | head -n 2)"; return 1; }
  fi
  "$d/hm-dump" >/dev/null 2>&1; [ $? -eq 2 ] || { echo "$d/hm-dump does not run: $("$d/hm-dump" 2>&1 | head -n 2)"; return 1; }
  "$d/hm-bench" -h >/dev/null 2>&1 || { echo "$d/hm-bench -h fails"; return 1; }
  "$d/hm-floor" -h >/dev/null 2>&1 || { echo "$d/hm-floor -h fails"; return 1; }
  # the collector loads (LD_PRELOAD path) and says so: CUPTI deliberately not found
  local out
  out=$(env -u CUDA_INJECTION64_PATH LD_PRELOAD="$d/libhintmap_cupti.so" HINTMAP_CUPTI_LIB=/nonexistent/libcupti.so /bin/true 2>&1)
  case $out in *"hintmap-cupti: CUPTI not found"*) ;; *) echo "$d/libhintmap_cupti.so does not load: $out"; return 1 ;; esac
}

step_setup() {
  say "== setup"
  local carry=${GPU_RUN_CARRY:-$root/gpu-carry} why bin=""
  if [ -n "${GPU_RUN_BIN:-}" ]; then
    if why=$(bins_run "$GPU_RUN_BIN"); then bin=$GPU_RUN_BIN; say "binaries: $bin (GPU_RUN_BIN)"; else say "GPU_RUN_BIN: $why"; fi
  fi
  if [ -z "$bin" ] && [ -d "$carry/bin" ]; then
    chmod +x "$carry/bin"/* 2>/dev/null # in case the copy lost the modes
    if why=$(bins_run "$carry/bin"); then bin=$carry/bin; say "binaries: carried ($bin)"; else say "carried binaries do not run here: $why"; fi
  fi
  local build=${GPU_RUN_BUILD:-$here/build}
  if [ -z "$bin" ] && [ -z "${GPU_RUN_BUILD:-}" ] && why=$(bins_run "$build"); then bin=$build; say "binaries: $bin"; fi
  if [ -z "$bin" ]; then
    say "building: make all into $build (${why:-GPU_RUN_BUILD})"
    local tool missing=""
    for tool in make gcc; do command -v $tool >/dev/null 2>&1 || missing="$missing $tool"; done
    [ "$STANDIN" = 1 ] || command -v nvcc >/dev/null 2>&1 || missing="$missing nvcc"
    if [ -n "$missing" ]; then
      say "cannot build: missing$missing"; echo "SETUP_FAIL='no binary runs here and cannot build (missing$missing)'" >>"$W/env.sh"; return 1
    fi
    local margs=() nv inc
    if [ "$STANDIN" = 1 ]; then margs+=("$build/hm-standin-gpu" "$build/libfake_cupti.so")
    else
      # the CUDA headers where nvcc is (a pip-installed toolkit has no /usr/local/cuda)
      nv=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")
      [ -f /usr/local/cuda/include/cupti_activity.h ] || {
        inc=$(find "$nv" /usr/local /opt -maxdepth 8 -name cupti_activity.h 2>/dev/null | head -n 1)
        margs+=("CUDA_HOME=$nv"); [ -n "$inc" ] && margs+=("CUPTI_INC=$(dirname "$inc")"); }
    fi
    if make -C "$here" -j"$(nproc)" BUILD="$build" all "${margs[@]}" >"$W/build.log" 2>&1 && why=$(bins_run "$build"); then
      bin=$build; say "binaries: built ($bin)"
    else tail -n 30 "$W/build.log"; say "build failed: ${why:-see build.log}"; echo "SETUP_FAIL='build failed'" >>"$W/env.sh"; return 1; fi
  fi
  echo "BIN='$bin'" >>"$W/env.sh"

  # the Java reader: GPU_RUN_HINTMAP, else the carried runtime
  local cmd="${GPU_RUN_HINTMAP:-}"
  if [ -z "$cmd" ] && [ -f "$carry/jre.tar.xz" ] && [ -f "$carry/java/hintmap-cli.jar" ]; then
    mkdir -p "$W/jre"
    if tar -xJf "$carry/jre.tar.xz" -C "$W/jre" 2>"$W/jre.err" ||
       python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$carry/jre.tar.xz" "$W/jre"; then
      local java
      java=$(find "$W/jre" -maxdepth 3 -path '*/bin/java' -type f | head -n 1)
      cat >"$W/hintmap" <<EOF
#!/bin/sh
exec "$java" --enable-native-access=ALL-UNNAMED -cp "$carry/java/hintmap.jar:$carry/java/hintmap-cli.jar:$carry/java/lib/*" dev.hintmap.cli.HintmapCli "\$@"
EOF
      chmod +x "$W/hintmap"; cmd=$W/hintmap
    else say "cannot unpack $carry/jre.tar.xz: $(cat "$W/jre.err")"; fi
  fi
  if [ -n "$cmd" ] && "$cmd" --version >"$W/java-version.txt" 2>&1; then
    say "Java reader: $([ "$cmd" = "$W/hintmap" ] && echo "the carried runtime ($carry/jre.tar.xz)" || echo "$cmd"), $(head -n 1 "$W/java-version.txt")"
    echo "HINTMAP_CMD='$cmd'" >>"$W/env.sh"
  else
    [ -n "$cmd" ] && say "Java reader $cmd does not run: $(head -n 3 "$W/java-version.txt")"
    say "no Java runtime: verify and the live reader will be NOT-RUN (carry gpu-carry from native-bench/gpu-stage.sh)"
  fi

  # libcupti for the C programs (torch runs use the one torch maps, TORCH_CUPTI)
  local cupti=${HINTMAP_CUPTI_LIB:-}
  if [ "$STANDIN" = 1 ]; then cupti=$bin/libfake_cupti.so
  elif [ -z "$cupti" ]; then
    cupti=$(ls /usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13* /usr/local/cuda/lib64/libcupti.so.13* /usr/local/cuda*/lib64/libcupti.so.13* 2>/dev/null | head -n 1)
    [ -n "$cupti" ] || cupti=${TORCH_CUPTI:-}
    [ -n "$cupti" ] || cupti=$(find /usr/local /opt /usr/lib -maxdepth 10 -name 'libcupti.so.13*' 2>/dev/null | head -n 1)
  fi
  say "libcupti for the C programs: ${cupti:-none found (the collector tries libcupti.so.13 by name)}"
  echo "CUPTI='$cupti'" >>"$W/env.sh"
}

step_driver() {
  say "== driver: checks 1 and 6 (gpu-check.sh)"
  local d=$W/driver n=${GPU_RUN_DISPATCHES:-20000} drv="$BIN/hm-cuda-driver"
  [ "$STANDIN" = 1 ] && { n=${GPU_RUN_DISPATCHES:-300}; drv="$BIN/hm-standin-gpu driver"; }
  local -a env=(GPU_CHECK_DIR="$d" GPU_CHECK_BIN="$BIN" GPU_CHECK_DRIVER="$drv" GPU_CHECK_DISPATCHES="$n"
                GPU_CHECK_LIMIT_S="$((STEP_LIMIT > 60 ? STEP_LIMIT - 15 : (STEP_LIMIT * 3 + 3) / 4))")
  if hm_java; then env+=(GPU_CHECK_HINTMAP="$HINTMAP_CMD"); else env+=(GPU_CHECK_NO_JAVA=1); fi
  [ -n "$CUPTI" ] && env+=(HINTMAP_CUPTI_LIB="$CUPTI")
  # the stand-in waits for the live reader to have seen its records (no race against time)
  [ "$STANDIN" = 1 ] && hm_java && env+=(HM_STANDIN_WAIT_FOR="$d/live-seen")
  mkdir -p "$d"
  env "${env[@]}" sh "$here/gpu-check.sh" 2>&1 | tee "$d/gpu-check.txt"
  local res k v counts totals collector verify live regions absent smin smax pmin pmax
  res=$(grep '^gpu-check-result ' "$d/gpu-check.txt" | tail -n 1)
  if [ -z "$res" ]; then
    check 1 "hm-cuda-driver + collector" FAIL "gpu-check.sh gave no result line (see driver/gpu-check.txt)"
    check 6 "Java reader live" FAIL "gpu-check.sh gave no result line"; return 1
  fi
  for kv in ${res#gpu-check-result }; do
    k=${kv%%=*} v=${kv#*=}
    case $k in counts|totals|collector|verify|live|regions|absent) printf -v "$k" %s "$v" ;;
      spread_ns_min) smin=$v ;; spread_ns_max) smax=$v ;; spread_pct_min) pmin=$v ;; spread_pct_max) pmax=$v ;; esac
  done
  local detail="regions $((regions - absent))/$regions, counts $counts, totals within the tolerance: $totals, collector exit line: $collector, verify: $verify; measured spread (event - CUPTI) $smin..$smax ns per dispatch, $pmin..$pmax % of the event total"
  if [ "$counts" = ok ] && [ "$totals" = ok ] && [ "$collector" = ok ] && [ "$verify" = ok ]; then check 1 "hm-cuda-driver + collector" PASS "$detail"
  elif [ "$counts" = ok ] && [ "$totals" = ok ] && [ "$collector" = ok ] && [ "$verify" = not-checked ]; then check 1 "hm-cuda-driver + collector" PARTIAL "$detail (no Java runtime)"
  else check 1 "hm-cuda-driver + collector" FAIL "$detail"; fi
  case $live in
    ok) check 6 "Java reader live" PASS "$(grep -m1 '^live:' "$d/gpu-check.txt" | sed 's/^live: //')" ;;
    not-checked) check 6 "Java reader live" NOT-RUN "no Java runtime" ;;
    *) check 6 "Java reader live" FAIL "the Java reader saw no record while the driver ran" ;;
  esac
}

step_torch() {
  say "== torch: checks 2 and 3"
  local d=$W/torch steps=${GPU_RUN_TORCH_STEPS:-200} warm=${GPU_RUN_WARMUP:-20} run_s=${GPU_RUN_RUN_S:-90}
  local -a wl=(python3 -u "$here/gpu/torch_workload.py")
  if [ "$STANDIN" = 1 ]; then
    wl=("$BIN/hm-standin-gpu" torch); steps=${GPU_RUN_TORCH_STEPS:-30}; warm=${GPU_RUN_WARMUP:-5}
  elif ! timeout 60 python3 -c 'import torch; assert torch.cuda.is_available()' >/dev/null 2>&1; then
    check 2 "PyTorch vs torch.profiler" NOT-RUN "python3 has no torch with CUDA"
    check 3 "collector overhead" NOT-RUN "python3 has no torch with CUDA"; return 0
  fi
  mkdir -p "$d"
  local -a collector=(CUDA_INJECTION64_PATH="$BIN/libhintmap_cupti.so" HINTMAP_NAME=demangled HINTMAP_NAME_BYTES=1024
                      HINTMAP_CAPACITY=4096 HINTMAP_VERBOSE=1)
  local lib=${TORCH_CUPTI:-}
  [ "$STANDIN" = 1 ] && lib=$CUPTI
  [ -n "$lib" ] && collector+=(HINTMAP_CUPTI_LIB="$lib")
  local plain_env=()
  [ "$STANDIN" = 1 ] && plain_env=(HINTMAP_CUPTI_LIB="$CUPTI")
  say "-- profile run: ${wl[*]} --steps $steps --warmup $warm --profile"
  if ! env -u CUDA_INJECTION64_PATH "${plain_env[@]}" timeout -k 5 "$run_s" "${wl[@]}" --steps "$steps" --warmup "$warm" \
       --profile "$d/profile.json" >"$d/profile.log" 2>&1; then
    tail -n 20 "$d/profile.log"
    check 2 "PyTorch vs torch.profiler" FAIL "the profiler run failed (torch/profile.log): $(tail -n 1 "$d/profile.log" | head -c 200)"
    check 3 "collector overhead" NOT-RUN "the profiler run failed"; return 1
  fi
  tail -n 2 "$d/profile.log"
  local i mode ok=1 dumps=() withs=() withouts=() troubles="" notes=""
  for i in 1 2 3 4 5 6; do # W O O W W O: drift cancels out of the medians
    case $i in 1|4|5) mode=with ;; *) mode=without ;; esac
    local tag=$mode-$i
    say "-- run $i: $mode the collector"
    if [ $mode = with ]; then
      env "${collector[@]}" HINTMAP_FILE="$d/$tag.hints" timeout -k 5 "$run_s" "${wl[@]}" --steps "$steps" --warmup "$warm" \
        --out "$d/$tag.json" >"$d/$tag.log" 2>&1
    else
      env -u CUDA_INJECTION64_PATH "${plain_env[@]}" timeout -k 5 "$run_s" "${wl[@]}" --steps "$steps" --warmup "$warm" \
        --out "$d/$tag.json" >"$d/$tag.log" 2>&1
    fi
    local rc=$?
    tail -n 3 "$d/$tag.log"
    if [ $rc -ne 0 ]; then ok=0; troubles="$troubles; run $tag exited $rc"; continue; fi
    if [ $mode = with ]; then
      withs+=("$d/$tag.json")
      local why
      why=$(exit_line_clean "$d/$tag.log") || troubles="$troubles; $tag collector: $why"
      "$BIN/hm-dump" "$d/$tag.hints" >"$d/$tag.dump" 2>&1 || troubles="$troubles; hm-dump $tag.hints failed"
      dumps+=(--dump "$d/$tag.dump")
      grep -q '"libcupti": \["[^"]*", "' "$d/$tag.json" && notes="$notes; $tag maps two libcupti files (see its JSON)"
    else withouts+=("$d/$tag.json"); fi
  done
  if [ ${#dumps[@]} -gt 0 ]; then
    python3 "$here/gpu/gpu_compare.py" kernels --profile "$d/profile.json" "${dumps[@]}" --max-name-bytes 1024 \
      >"$d/compare.txt" 2>&1
    local crc=$?
    cat "$d/compare.txt"
    local result verify
    result=$(grep '^result: kernels' "$d/compare.txt")
    verify=$(verify_file "$d/with-1.hints")
    result=${result#result: kernels }
    local detail="collector runs vs the profiler, per kernel: ${result#* }; verify with-1.hints: $verify${troubles}${notes}"
    if [ $crc -eq 0 ] && [ $ok = 1 ] && [ -z "$troubles" ] && [ "$verify" = OK ]; then check 2 "PyTorch vs torch.profiler" PASS "$detail"
    elif [ $crc -eq 0 ] && [ $ok = 1 ] && [ -z "$troubles" ] && [ "${verify#not run}" != "$verify" ]; then check 2 "PyTorch vs torch.profiler" PARTIAL "$detail"
    else check 2 "PyTorch vs torch.profiler" FAIL "$detail (torch/compare.txt)"; fi
  else
    check 2 "PyTorch vs torch.profiler" FAIL "no collector run finished$troubles"
  fi
  if [ ${#withs[@]} -gt 0 ] && [ ${#withouts[@]} -gt 0 ]; then
    python3 "$here/gpu/gpu_compare.py" overhead --with "${withs[@]}" --without "${withouts[@]}" --profile "$d/profile.json" \
      >"$d/overhead.txt" 2>&1
    cat "$d/overhead.txt"
    local o
    o=$(grep '^result: overhead' "$d/overhead.txt")
    if [ -n "$o" ]; then check 3 "collector overhead" MEASURED "${o#result: overhead } (median step time, ${#withs[@]} runs with / ${#withouts[@]} without, interleaved)"
    else check 3 "collector overhead" FAIL "gpu_compare.py overhead: $(tail -n 1 "$d/overhead.txt")"; fi
  else
    check 3 "collector overhead" FAIL "runs missing$troubles"
  fi
  [ $ok = 1 ]
}

step_multi() {
  say "== multi: check 4 (4 injected processes, one HINTMAP_FILE)"
  local d=$W/multi n=${GPU_RUN_MULTI_DISPATCHES:-5000} p
  local -a drv=("$BIN/hm-cuda-driver")
  [ "$STANDIN" = 1 ] && { n=${GPU_RUN_MULTI_DISPATCHES:-200}; drv=("$BIN/hm-standin-gpu" driver); }
  mkdir -p "$d"
  local -a cenv=(CUDA_INJECTION64_PATH="$BIN/libhintmap_cupti.so" HINTMAP_FILE="$d/multi.hints" HINTMAP_NAME=demangled+grid
                 HINTMAP_CAPACITY=256 HINTMAP_VERBOSE=1 HINTMAP_FLUSH_MS=100)
  [ -n "$CUPTI" ] && cenv+=(HINTMAP_CUPTI_LIB="$CUPTI")
  local pids=()
  for p in 1 2 3 4; do
    env "${cenv[@]}" "${drv[@]}" -f "$d/driver-$p.hints" -n "$n" >"$d/driver-$p.out" 2>"$d/driver-$p.err" &
    pids+=($!)
  done
  local fails="" rc unclean=0
  for p in 1 2 3 4; do
    wait "${pids[$((p - 1))]}"; rc=$?
    [ $rc -eq 0 ] || fails="$fails; process $p exited $rc ($(tail -n 1 "$d/driver-$p.err"))"
    local why
    why=$(exit_line_clean "$d/driver-$p.err") || { fails="$fails; process $p collector: $why"; unclean=$((unclean + 1)); }
  done
  # per CUPTI name: the collector's count in the shared file = the sum of the 4 processes' launches
  cat "$d"/driver-*.out | awk -F'\t' '$1 == "region" { s[$3] += $4 } END { for (k in s) print k "\t" s[k] }' | sort >"$d/expected.tsv"
  local regions=0 exact=0 name want got
  while IFS=$'\t' read -r name want; do
    regions=$((regions + 1))
    got=$(dump_count "$d/multi.hints" "$name")
    printf '%-56s expected %8s file %8s\n' "$name" "$want" "$got"
    if [ "$got" = "$want" ]; then exact=$((exact + 1)); else fails="$fails; $name: file $got, launches $want"; fi
  done <"$d/expected.tsv"
  [ $regions -gt 0 ] || fails="$fails; no region lines from the processes"
  local verify
  verify=$(verify_file "$d/multi.hints")
  [ "${verify#FAIL}" = "$verify" ] || fails="$fails; verify $verify"
  local detail="4 processes x $n dispatches: $exact/$regions regions exact (sum over the processes); collector exit lines: $([ $unclean = 0 ] && echo clean || echo "$unclean of 4 not clean"); verify: $verify"
  if [ -n "$fails" ]; then check 4 "4 processes, one file" FAIL "$detail${fails}"
  elif [ "$verify" = OK ]; then check 4 "4 processes, one file" PASS "$detail"
  else check 4 "4 processes, one file" PARTIAL "$detail"; fi
  [ -z "$fails" ]
}

step_bench() {
  say "== bench: check 5 (hm-bench, hm-floor at 1..16 threads)"
  local d=$W/bench t mode args out dur=${GPU_RUN_BENCH_S:-1} floor_n=${GPU_RUN_FLOOR_N:-2000000} fails=""
  local -a threads=(1 2 4 8 16) size=(-d "$dur")
  [ "$STANDIN" = 1 ] && { size=(-n "${GPU_RUN_BENCH_N:-5000}"); floor_n=${GPU_RUN_FLOOR_N:-20000}; }
  mkdir -p "$d"
  printf 'tool\tmode\tthreads\trecords_per_s\trecords_per_s_per_thread\tns_per_record\n' >"$d/bench.tsv"
  for mode in zipf-handles zipf-names disjoint-handles; do
    for t in "${threads[@]}"; do
      args=(-t "$t" -r 64 -s 1.0 -q "${size[@]}")
      case $mode in *handles) args+=(--handles) ;; esac
      case $mode in disjoint*) args+=(--disjoint) ;; esac
      out=$("$BIN/hm-bench" "${args[@]}" 2>&1)
      echo "$out" >"$d/hm-bench-$mode-$t.txt"
      case $out in *"verify ok"*) ;; *) fails="$fails; hm-bench $mode -t $t: $(echo "$out" | grep -m1 -E 'verify|hm-bench:')" ;; esac
      echo "$out" | awk -v m="$mode" -v t="$t" '$1 == "result" { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
        printf "hm-bench\t%s\t%d\t%.0f\t%.0f\t%s\n", m, t, v["records_per_s"], v["records_per_s"] / t, v["ns_per_record"] }' >>"$d/bench.tsv"
    done
  done
  for t in 2 4 8 16; do
    out=$("$BIN/hm-floor" -t "$t" -n "$floor_n" -v lock 2>&1) || fails="$fails; hm-floor -t $t failed"
    echo "$out" >"$d/hm-floor-$t.txt"
    # the 1-thread line once (from -t 2), then the T-thread lines (shared slot, private slots)
    echo "$out" | awk -v t="$t" '$1 == "floor" { for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
      if (v["threads"] == 1 && t != 2) next
      printf "hm-floor\t%s-slot\t%d\t%.0f\t%.0f\t%s\n", v["slots"], v["threads"], v["records_per_s"], v["records_per_s"] / v["threads"], v["ns_per_record"] }' >>"$d/bench.tsv"
  done
  column -t -s $'\t' "$d/bench.tsv" 2>/dev/null || cat "$d/bench.tsv"
  local line
  line=$(awk -F'\t' 'NR > 1 { k = $1 " " $2; if (!(k in r)) o[++n] = k; r[k] = r[k] (r[k] ? "/" : "") sprintf("%.1f", $5 / 1e6) }
    END { for (i = 1; i <= n; i++) printf "%s%s %s", (i > 1 ? "; " : ""), o[i], r[o[i]] }' "$d/bench.tsv")
  if [ -n "$fails" ]; then check 5 "contention, 1..16 threads" FAIL "${fails#; }"
  else check 5 "contention, 1..16 threads" MEASURED "M records/s per thread at 1/2/4/8/16 threads (hm-floor private-slot: 2/4/8/16): $line (bench/bench.tsv)"; fi
  [ -z "$fails" ]
}

# ------------------------------------------------------------------------------------------------
# a step: this script again, under timeout, with the run's state in the environment and env.sh
if [ "${1:-}" = --step ]; then
  # shellcheck disable=SC1091
  . "$W/env.sh"
  BIN=${BIN:-} CUPTI=${CUPTI:-} HINTMAP_CMD=${HINTMAP_CMD:-} TORCH_CUPTI=${TORCH_CUPTI:-}
  "step_$2"
  exit $?
fi

STANDIN=0
if [ "${1:-}" = --stand-in ]; then STANDIN=1; shift; fi
OUTDIR=${1:-${OUT:-$root/gpu-run-out}}
mkdir -p "$OUTDIR" || exit 1
OUTDIR=$(cd "$OUTDIR" && pwd)
BUDGET_S=${GPU_RUN_BUDGET_S:-360}
SCALE=${GPU_RUN_STEP_SCALE:-1}
W=$(mktemp -d /tmp/hm-gpu-run.XXXXXX)
mkdir -p "$W/status"
: >"$W/env.sh"
export W STANDIN
start=$(date +%s)
exec > >(tee "$W/gpu-run.log") 2>&1

finish() {
  local n status fails=0 incomplete=0 verdict
  {
    echo "gpu-run $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n): $([ "$STANDIN" = 1 ] && echo 'STAND-IN (no GPU; synthetic figures, not evidence)' || echo GPU)"
    command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sed 's/^/gpu: /'
    grep -h '^tools:\|^binaries:\|^Java reader:\|^libcupti for\|^torch maps' "$W/gpu-run.log" 2>/dev/null
    for n in 1 2 3 4 5 6; do
      if [ -f "$W/status/$n" ]; then cat "$W/status/$n"; else echo "$n (not run): NOT-RUN ${NOT_RUN_WHY:-not selected (GPU_RUN_STEPS)}"; fi
    done
  } >"$W/summary.txt"
  for n in 1 2 3 4 5 6; do
    status=NOT-RUN
    [ -f "$W/status/$n" ] && status=$(sed -n '1s/^[0-9] [^:]*: \([A-Z-]*\).*/\1/p' "$W/status/$n")
    case $status in PASS|MEASURED) ;; FAIL|TIMEOUT) fails=$((fails + 1)) ;; *) incomplete=$((incomplete + 1)) ;; esac
  done
  if [ $fails -gt 0 ]; then verdict="FAILED ($fails check(s) failed or timed out)"; rc=1
  elif [ $incomplete -gt 0 ]; then verdict="INCOMPLETE ($incomplete check(s) not run or partial)"; rc=2
  else verdict=PASS; rc=0; fi
  echo "gpu-run: $verdict in $(($(date +%s) - start)) s" >>"$W/summary.txt"
  echo; echo "==== summary"; cat "$W/summary.txt"
  cp "$W/summary.txt" "$OUTDIR/summary.txt"
  sleep 0.2 # let tee write the log's tail before it is archived
  tar -czf "$OUTDIR/gpu-run.tar.gz" --exclude=jre -C "$(dirname "$W")" "$(basename "$W")"
  echo "archive: $OUTDIR/gpu-run.tar.gz ($(du -k "$OUTDIR/gpu-run.tar.gz" | cut -f1) KiB)"
  [ "${GPU_RUN_KEEP:-0}" = 1 ] && echo "work folder kept: $W" || rm -rf "$W"
  exit $rc
}
trap 'say "gpu-run: interrupted"; NOT_RUN_WHY="interrupted"; finish' TERM INT

# run_step NAME MAX_S CHECKS...: the step under min(MAX_S x SCALE, budget left); checks it leaves without a line get one
run_step() {
  local name=$1 max=$2 left limit rc c
  shift 2
  left=$((BUDGET_S - ($(date +%s) - start)))
  limit=$(awk -v m="$max" -v s="$SCALE" 'BEGIN { l = int(m * s + 0.5); print l < 1 ? 1 : l }')
  [ "$limit" -gt "$left" ] && limit=$left
  if [ "$left" -lt 15 ]; then
    say "== $name: NOT-RUN (budget: ${left}s left of ${BUDGET_S}s)"
    for c in "$@"; do [ -f "$W/status/$c" ] || echo "$c $name: NOT-RUN the budget (GPU_RUN_BUDGET_S=$BUDGET_S) was spent" >"$W/status/$c"; done
    return
  fi
  local t0=$(date +%s)
  STEP_LIMIT=$limit timeout -k 5 "$limit" bash "$self" --step "$name"; rc=$?
  say "== $name: exit $rc after $(($(date +%s) - t0))s (limit ${limit}s)"
  for c in "$@"; do
    [ -f "$W/status/$c" ] && continue
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then echo "$c $name: TIMEOUT the step was killed after ${limit}s" >"$W/status/$c"
    else echo "$c $name: FAIL the step exited $rc before reporting (see gpu-run.log)" >"$W/status/$c"; fi
  done
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then say "== $name: TIMEOUT after ${limit}s"; fi
}
export SCALE

selected() { [ -z "${GPU_RUN_STEPS:-}" ] || case ",$GPU_RUN_STEPS," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
say "== gpu-run $([ "$STANDIN" = 1 ] && echo '--stand-in ')into $OUTDIR (work folder $W, budget ${BUDGET_S}s)"
selected probe && run_step probe 120
run_step setup 240
# shellcheck disable=SC1091
. "$W/env.sh"
if [ -n "${SETUP_FAIL:-}" ] || [ -z "${BIN:-}" ]; then
  NOT_RUN_WHY="setup failed: ${SETUP_FAIL:-no binaries}"
  finish
fi
# the quick, deterministic steps first: a slow PyTorch step then only shortens itself
selected driver && run_step driver 150 1 6
selected multi && run_step multi 90 4
selected bench && run_step bench 150 5
selected torch && run_step torch 300 2 3
finish
