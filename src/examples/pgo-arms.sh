#!/bin/sh
# The arms of docs/PGO.md on one tuner: do hints pay? Run from anywhere:
#
#   src/examples/pgo-arms.sh fftw       FFTW's planner (fftwf-wisdom) on the "spectral" mix: ~8-10 min on 2 cores
#   src/examples/pgo-arms.sh clblast    CLBlast's tuners on PoCL's CPU device, the "serve" mix: ~12-15 min on 2 cores
#   ... --smoke                         the same steps on a tiny workload, tiny caps, 1 run per arm (1-6 min)
#
# Options: --runs N timed runs per arm (default 5), --draws N random plans for arm D (default 3), --out DIR
# (default target/pgo/TUNER-DATE). Arms, run interleaved (A B C D-largest D-random... E, N times):
#   A  no tuning (FFTW_ESTIMATE / CLBlast's defaults)
#   B  everything: every problem the workload has (fftwf-wisdom PATIENT / every kernel and shape)
#   C  hint-guided: the hot set by coverage (0.95, >= 2 dispatches) of a recorded run, within 1/4 of B's runs
#   D  the same budget without hints: largest problems first (Dl), and random choices (Dr1..DrN, seeded)
#   E  cheap tuning everywhere (FFTW_MEASURE / CLBlast's smallest fractions)
#   CE C's results where C tuned, E's elsewhere: the expensive search where the hints point (charged C + E)
#   DlE the same without hints: Dl's results, E's elsewhere (charged Dl + E)
# CLBlast: each (kernel, shape) is tuned once, in B (or E); C and D take B's result for the runs they plan and are
# charged that run's recorded wall time (TunerRunner --reuse: the tuners sample the same configurations for the
# same command), which keeps the whole under 20 minutes. FFTW: every arm plans for itself.
#
# Needs (one line names each missing, exit 3): gcc, make, a JDK 22+, python3, and for fftw the Debian packages
# libfftw3-dev libfftw3-bin; for clblast pocl-opencl-icd ocl-icd-opencl-dev libclblast-dev clblast-utils clinfo
# and g++. Builds libhintmap into a private prefix, the runtime and the optimizer. Not part of ./mvnw verify.
# Writes DIR/results.csv (every timed run with the load average before it), DIR/tuning.csv, DIR/results.md (the
# table and the ratios) and the raw logs. Exit status: 0 done, 1 a step failed, 2 bad usage, 3 missing packages.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
usage() { echo "usage: $0 fftw|clblast [--smoke] [--runs N] [--draws N] [--out DIR]" >&2; exit 2; }
[ $# -ge 1 ] || usage
tuner=$1; shift
case $tuner in fftw|clblast) ;; *) usage ;; esac
smoke=0 runs=5 draws=3 out=
while [ $# -gt 0 ]; do
  case $1 in
    --smoke) smoke=1 ;;
    --runs) [ $# -ge 2 ] || usage; runs=$2; shift ;;
    --draws) [ $# -ge 2 ] || usage; draws=$2; shift ;;
    --out) [ $# -ge 2 ] || usage; out=$2; shift ;;
    *) usage ;;
  esac
  shift
done
case $runs$draws in *[!0-9]*|'') usage ;; esac
[ "$runs" -ge 1 ] && [ "$draws" -ge 1 ] || usage
[ -n "$out" ] || out=$root/target/pgo/$tuner-$(date -u +%Y%m%dT%H%M%SZ)

# ---------------------------------------------------------------- what must be installed (one line each)
missing=0
need() { # need WHAT PACKAGE CHECK...
  what=$1 package=$2; shift 2
  if ! "$@" >/dev/null 2>&1; then echo "pgo-arms: missing $what: install the Debian package $package" >&2; missing=1; fi
}
header() { printf '#include <%s>\nint main(void){return 0;}\n' "$1" | gcc -x c - -o /dev/null "$2" >/dev/null 2>&1; }
need gcc build-essential command -v gcc
need make make command -v make
need python3 python3 command -v python3
if [ $tuner = fftw ]; then
  need "fftw3.h and libfftw3f" libfftw3-dev header fftw3.h -lfftw3f
  need fftwf-wisdom libfftw3-bin command -v fftwf-wisdom
else
  need g++ g++ command -v g++
  need clinfo clinfo command -v clinfo
  need "the OpenCL headers and loader" ocl-icd-opencl-dev header CL/cl.h -lOpenCL
  need "CLBlast's headers and library" libclblast-dev header clblast_c.h -lclblast
  need "the CLBlast tuners (clblast_tuner_*)" clblast-utils command -v clblast_tuner_xgemm_direct
  ! command -v clinfo >/dev/null 2>&1 ||
    need "an OpenCL device (PoCL runs on the CPU)" pocl-opencl-icd sh -c 'clinfo -l | grep -q Device'
fi
jdk=$(sh "$root/src/dist/bin/hintmap" --java-home 2>/dev/null) || { echo "pgo-arms: missing a JDK 22 or newer (e.g. the Debian package openjdk-25-jdk, or JAVA_HOME)" >&2; missing=1; }
[ $missing = 0 ] || exit 3

# ---------------------------------------------------------------- the configuration of each tuner
if [ $tuner = fftw ]; then
  if [ $smoke = 1 ]; then mix=smoke passes=20 cap=10; else mix=spectral passes=10 cap=60; fi
  tune_all="--effort patient" tune_cheap="--effort measure"
else
  if [ $smoke = 1 ]; then
    mix=smoke passes=1 cap=60 tune_all="--direct-fraction 4210 --fraction 289 --vector-fraction 8"
  else
    mix=serve passes=3 cap=90 tune_all="--direct-fraction 700 --fraction 48 --vector-fraction 1"
  fi
  tune_cheap="--direct-fraction 4210 --fraction 289 --vector-fraction 8"
fi
[ $smoke = 1 ] && [ "$runs" = 5 ] && runs=1
coverage=0.95 min=2
mkdir -p "$out"
log() { echo "$*" | tee -a "$out/log.txt"; }
now() { date +%s.%N; }
load1() { cut -d' ' -f1 /proc/loadavg; }

# ---------------------------------------------------------------- build
log "pgo-arms $tuner: building into $out"
make -s -C "$root/native-bench" build/libhintmap.a shared >"$out/build.log" 2>&1
make -s -C "$root/native-bench" install PREFIX="$out/prefix" LDCONFIG=true >>"$out/build.log" 2>&1
make -s -C "$root/src/examples/$tuner" HINTMAP_PREFIX="$out/prefix" OUT="$out/bin" >>"$out/build.log" 2>&1 ||
  { tail -20 "$out/build.log"; exit 1; }
"$root/hintmap" --version >>"$out/build.log" 2>&1 # builds target/hintmap.jar and the CLI when stale
"$jdk/bin/javac" -d "$out/classes" -cp "$root/target/hintmap.jar" "$root"/src/examples/java/com/example/tuner/*.java
hintmap() { "$root/hintmap" "$@"; } # the launcher: the CLI ships in target/hintmap-cli.jar, the library jar has no Main-Class
if [ $tuner = fftw ]; then
  runtime=$out/bin/fftw-runtime
  optimizer() { "$jdk/bin/java" --enable-native-access=ALL-UNNAMED -cp "$out/classes:$root/target/hintmap.jar" \
    com.example.tuner.FftwOptimizer --timeout-s $cap "$@"; }
  workload() { "$runtime" --mix $mix --passes $passes --quiet "$@"; }
  with() { [ "$1" = A ] && return 0; printf -- '--wisdom %s' "$out/$1.out"; }
  result() { printf -- '--wisdom %s' "$out/$1.out"; }
else
  runtime=$out/bin/clblast-runtime
  export POCL_CACHE_DIR="$out/pocl-cache" # the runtime's compilations, shared by the arms (tuners run without)
  threshold=$("$runtime" --defaults | sed -n 's/^GemmRoutine\tXGEMM_MIN_INDIRECT_SIZE=//p')
  optimizer() { "$jdk/bin/java" --enable-native-access=ALL-UNNAMED -cp "$out/classes:$root/target/hintmap.jar" \
    com.example.tuner.ClblastOptimizer --timeout-s $cap --runs 1 --min-indirect-size "$threshold" "$@"; }
  workload() { "$runtime" --mix $mix --passes $passes --quiet --strict "$@"; }
  with() { [ "$1" = A ] && return 0; printf -- '--params %s' "$out/$1.out"; }
  result() { printf -- '--params %s' "$out/$1.out"; }
fi

# ---------------------------------------------------------------- the machine
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$([ -z "$(git -C "$root" status --porcelain 2>/dev/null)" ] || echo ' (with uncommitted changes)')"
  echo "cpu: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1), $(nproc) cores; load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  if [ $tuner = fftw ]; then
    echo "packages: $(dpkg-query -W -f '${Package} ${Version}, ' libfftw3-single3 libfftw3-bin 2>/dev/null)"
    echo "workload: fftw-runtime --mix $mix, $passes timed passes per run after one warm-up pass"
    echo "cap: fftwf-wisdom -n, $cap s per transform; B PATIENT, E MEASURE"
  else
    echo "opencl device: $(clinfo -l 2>/dev/null | sed -n 's/.*Device #0: //p' | head -n 1); XGEMM_MIN_INDIRECT_SIZE $threshold"
    echo "packages: $(dpkg-query -W -f '${Package} ${Version}, ' pocl-opencl-icd libpocl2 libclblast1 clblast-utils ocl-icd-libopencl1 2>/dev/null)"
    echo "workload: clblast-runtime --mix $mix, $passes timed passes per run after one warm-up pass"
    echo "cap: every tuner -runs 1, $cap s; B, C, D: $tune_all; E: $tune_cheap"
  fi
  echo "arms: $runs interleaved runs each; D: largest first and $draws random draws; hot set coverage $coverage, >= $min dispatches"
} >"$out/machine.txt"
tee -a "$out/log.txt" <"$out/machine.txt"
l=$(load1 | cut -d. -f1)
[ "$l" -lt "$(nproc)" ] || log "pgo-arms: WARNING: load average $l on $(nproc) cores: figures from a busy machine are not fit to publish"

# ---------------------------------------------------------------- record, then plan and tune each arm
log "== record: $mix into a fresh hint file"
rm -f "$out/run1.hints"
workload --hints "$out/run1.hints" | tee -a "$out/log.txt"
hintmap hot "$out/run1.hints" --coverage $coverage --min-dispatches $min >"$out/hot-run1.txt" 2>&1 || true
b_runs=$(optimizer --hints "$out/run1.hints" --all --plan-only | sed -n 's/^plan: \([0-9]*\) tuner run.*/\1/p')
c_runs=$(( b_runs / 4 )); [ $c_runs -ge 1 ] || c_runs=1
budget=$(( c_runs * cap ))
log "B plans $b_runs runs; C and D get $c_runs ($budget s at $cap s a run)"
arms="A B C Dl"
i=1; while [ $i -le "$draws" ]; do arms="$arms Dr$i"; i=$(( i + 1 )); done
arms="$arms E CE DlE"
echo "arm,tuning_s,optimizer_s,tuner_runs,covered_share,plan" >"$out/tuning.csv"
echo "A,0,0,0,0,no tuning" >>"$out/tuning.csv"
tune() { # tune ARM DESCRIPTION OPTIONS...
  arm=$1 what=$2; shift 2
  log "== $arm: $what"
  t0=$(now)
  optimizer --hints "$out/run1.hints" $(result "$arm") --work "$out/tune-$arm" "$@" >"$out/tune-$arm.txt"
  t1=$(now)
  tail -n 1 "$out/tune-$arm.txt" | tee -a "$out/log.txt"
  covered=$(sed -n 's/^plan: .* for \([0-9.]*\)% of the kernel time.*/\1/p' "$out/tune-$arm.txt")
  tuning=$(sed -n 's/^tuning wall_s=\([0-9.]*\) runs=\([0-9]*\).*/\1,\2/p' "$out/tune-$arm.txt")
  echo "$arm,${tuning%,*},$(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }"),${tuning#*,},${covered:-0},$what" >>"$out/tuning.csv"
}
tune B "every problem" --all $tune_all
reuse=
[ $tuner = clblast ] && reuse="--reuse $out/tune-B"
tune C "hot set, $c_runs run(s)" --coverage $coverage --min-dispatches $min --budget-s $budget $tune_all $reuse
tune Dl "largest first, $c_runs run(s), no hints" --plan largest --budget-s $budget $tune_all $reuse
i=1; while [ $i -le "$draws" ]; do
  tune Dr$i "random draw seed $i, $c_runs run(s), no hints" --plan random --seed $i --budget-s $budget $tune_all $reuse
  i=$(( i + 1 ))
done
tune E "cheap tuning of every problem" --all $tune_cheap
combine() { # combine ARM FIRST DESCRIPTION: FIRST's results, E's for every problem FIRST left; charged both tunings
  arm=$1 first=$2 what=$3
  log "== $arm: $what"
  if [ $tuner = fftw ]; then # a transform with PATIENT and MEASURE wisdom is planned PATIENT (the runtime tries it first)
    fftwf-wisdom -n -w "$out/E.out" -w "$out/$first.out" -o "$out/$arm.out"
  else # the parameters file's lines are REGION<TAB>KERNEL<TAB>SET: FIRST's regions whole, E's other regions
    awk -F '\t' 'FNR == NR { if ($0 !~ /^#/) own[$1] = 1; print; next } $0 !~ /^#/ && !($1 in own)' \
      "$out/$first.out" "$out/E.out" >"$out/$arm.out"
  fi
  row=$(awk -F, -v a="$first" -v e=E -v what="$what" -v arm="$arm" '
    $1 == a { t += $2; o += $3; r += $4; c = $5 } $1 == e { t += $2; o += $3; r += $4 }
    END { printf "%s,%.1f,%.1f,%d,%s,%s", arm, t, o, r, c, what }' "$out/tuning.csv")
  echo "$row" >>"$out/tuning.csv"
  log "tuning wall_s=$(echo "$row" | cut -d, -f2) (the two arms' tuning)"
}
combine CE C "hot set fully + the rest cheaply (C + E)"
combine DlE Dl "largest first fully + the rest cheaply (Dl + E; no hints)"

# ---------------------------------------------------------------- every arm computes the right result (and compiles)
for arm in $arms; do
  workload --passes 1 --verify $(with $arm) >"$out/verify-$arm.txt" 2>&1 || { cat "$out/verify-$arm.txt"; exit 1; }
done
log "== verify: $(grep -h '^verify' "$out"/verify-A.txt) (every arm)"

# ---------------------------------------------------------------- the workload, arms interleaved (drift hits all alike)
echo "arm,run,wall_s,load1" >"$out/results.csv"
r=1
while [ $r -le "$runs" ]; do
  for arm in $arms; do
    l=$(load1)
    w=$(workload $(with $arm) 2>>"$out/runtime-stderr.txt" | sed -n 's/.* wall_s=\([0-9.]*\) .*/\1/p')
    [ -n "$w" ] || { echo "pgo-arms: run $r of arm $arm failed: $(tail -n 3 "$out/runtime-stderr.txt")" >&2; exit 1; }
    echo "$arm,$r,$w,$l" >>"$out/results.csv"
    log "run $r $arm wall_s=$w load=$l"
  done
  r=$(( r + 1 ))
done
python3 "$root/src/examples/pgo_table.py" "$out" | tee -a "$out/log.txt"
log "pgo-arms: done: $out/results.md"
