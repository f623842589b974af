#!/bin/sh
# The PGO loop on CLBlast + PoCL, measured (docs/PGO.md): three arms on one workload and the plan of a
# second workload mix. Run from anywhere:
#
#   src/examples/clblast/pgo-measure.sh            the measurement of docs/PGO.md (~10-20 min on 2 idle cores)
#   src/examples/clblast/pgo-measure.sh --smoke    the same loop on a tiny workload with tiny caps (~5 min)
#
# Options: --out DIR (default target/pgo/run-DATE), --runs N timed runs per arm (default 5).
# Needs the Debian packages pocl-opencl-icd ocl-icd-opencl-dev libclblast-dev clblast-utils clinfo
# (one line names the one missing), gcc and make, a JDK 22+; builds libhintmap into a private prefix,
# the runtime and the optimizer. Not part of ./mvnw verify. Results: DIR/results.md and the raw logs.
set -eu
root=$(cd "$(dirname "$0")/../../.." && pwd)
smoke=0
runs=5
out=
while [ $# -gt 0 ]; do
  case $1 in
    --smoke) smoke=1 ;;
    --runs) runs=$2; shift ;;
    --out) out=$2; shift ;;
    *) echo "usage: $0 [--smoke] [--runs N] [--out DIR]" >&2; exit 2 ;;
  esac
  shift
done
[ -n "$out" ] || out=$root/target/pgo/run-$(date -u +%Y%m%dT%H%M%SZ)

# ---------------------------------------------------------------- what must be installed (one line each)
missing() { echo "pgo-measure: missing $1: install it with apt-get install -y $2" >&2; exit 3; }
command -v gcc >/dev/null 2>&1 || missing "gcc" "build-essential"
command -v make >/dev/null 2>&1 || missing "make" "build-essential"
command -v clinfo >/dev/null 2>&1 || missing "clinfo" "clinfo"
[ -e /usr/include/CL/cl.h ] && { ldconfig -p 2>/dev/null | grep -q 'libOpenCL\.so '; } || missing "the OpenCL headers and loader" "ocl-icd-opencl-dev"
[ -e /usr/include/clblast_c.h ] || missing "CLBlast's headers and library" "libclblast-dev"
command -v clblast_tuner_xgemm >/dev/null 2>&1 || missing "the CLBlast tuners (clblast_tuner_*)" "clblast-utils"
clinfo -l 2>/dev/null | grep -q 'Device' || missing "an OpenCL device (PoCL runs on the CPU)" "pocl-opencl-icd"
jdk=$(sh "$root/src/dist/bin/hintmap" --java-home) || exit 3

if [ $smoke = 1 ]; then
  mix=smoke mix2=smoke-mlp passes=1 fraction=64 timeout=60
else
  mix=transformer mix2=mlp passes=3 fraction=16 timeout=120
fi
coverage=0.95 min=2
mkdir -p "$out"
log() { echo "$*" | tee -a "$out/log.txt"; }

# ---------------------------------------------------------------- build
log "pgo-measure: building into $out"
make -s -C "$root/native-bench" tools >"$out/build.log" 2>&1
make -s -C "$root/native-bench" install PREFIX="$out/prefix" LDCONFIG=true >>"$out/build.log" 2>&1
make -s -C "$root/src/examples/clblast" HINTMAP_PREFIX="$out/prefix" OUT="$out/bin" >>"$out/build.log" 2>&1
"$root/hintmap" --version >>"$out/build.log" 2>&1 # builds target/hintmap.jar and the CLI when stale
"$jdk/bin/javac" -d "$out/classes" -cp "$root/target/hintmap.jar" "$root"/src/examples/java/com/example/tuner/*.java
runtime=$out/bin/clblast-runtime
optimizer() { "$jdk/bin/java" --enable-native-access=ALL-UNNAMED -cp "$out/classes:$root/target/hintmap.jar" \
  com.example.tuner.ClblastOptimizer --fraction $fraction --runs 1 --timeout-s $timeout "$@"; }
hintmap() { "$jdk/bin/java" -jar "$root/target/hintmap-cli.jar" "$@"; }
now() { date +%s.%N; }

# ---------------------------------------------------------------- the machine
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$([ -z "$(git -C "$root" status --porcelain 2>/dev/null)" ] || echo ' (with uncommitted changes)')"
  echo "cpu: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1), $(nproc) cores; load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "opencl device: $(clinfo -l 2>/dev/null | sed -n 's/.*Device #0: //p' | head -n 1)"
  echo "packages: $(dpkg-query -W -f '${Package} ${Version}, ' pocl-opencl-icd libpocl2 libclblast1 clblast-utils ocl-icd-libopencl1 2>/dev/null)"
  echo "workload: mix $mix, $passes timed pass(es) per run after one warm-up pass, $runs runs per arm; second mix $mix2"
  echo "cap per tuner run: xgemm -fraction $fraction, first phase only; every tuner -runs 1, timeout $timeout s; PoCL kernel cache off"
} >"$out/machine.txt"
cat "$out/machine.txt" | tee -a "$out/log.txt"
load=$(cut -d' ' -f1 /proc/loadavg | cut -d. -f1)
[ "$load" -lt "$(nproc)" ] || log "pgo-measure: WARNING: load average $load on $(nproc) cores: figures from a busy machine are not fit to publish"

# ---------------------------------------------------------------- run 1: record
export POCL_CACHE_DIR="$out/pocl-cache"
log "== record: $mix, with hints"
"$runtime" --mix $mix --passes $passes --hints "$out/run1.hints" --verify --quiet | tee -a "$out/log.txt"
hintmap hot "$out/run1.hints" --coverage $coverage --min-dispatches $min >"$out/hot-run1.txt"

# ---------------------------------------------------------------- B: tune everything; C: the hot set within a quarter of B's budget
optimizer --hints "$out/run1.hints" --all --plan-only >"$out/plan-B.txt"
b_runs=$(sed -n 's/^plan: \([0-9]*\) tuner run.*/\1/p' "$out/plan-B.txt")
c_runs=$(( b_runs / 4 )); [ $c_runs -ge 1 ] || c_runs=1
c_budget=$(( c_runs * timeout ))
log "== B: every kernel and shape, $b_runs tuner runs (at most $(( b_runs * timeout )) s)"
t0=$(now); optimizer --hints "$out/run1.hints" --all --params "$out/B.params" --work "$out/tune-B" >"$out/tune-B.txt"; t1=$(now)
echo "optimizer wall_s=$(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }")" >>"$out/tune-B.txt"; tail -n 2 "$out/tune-B.txt" | tee -a "$out/log.txt"
log "== C: hot set (coverage $coverage, >= $min dispatches) within $c_budget s (a quarter of B's runs)"
t0=$(now); optimizer --hints "$out/run1.hints" --coverage $coverage --min-dispatches $min --budget-s $c_budget \
  --params "$out/C.params" --work "$out/tune-C" >"$out/tune-C.txt"; t1=$(now)
echo "optimizer wall_s=$(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }")" >>"$out/tune-C.txt"; tail -n 2 "$out/tune-C.txt" | tee -a "$out/log.txt"

# ---------------------------------------------------------------- every arm computes the right result
for arm in A B C; do
  p=; [ $arm = A ] || p="--params $out/$arm.params"
  "$runtime" --mix $mix --passes 1 --verify --quiet $p >"$out/verify-$arm.txt" 2>&1 || { cat "$out/verify-$arm.txt"; exit 1; }
done
log "== verify: $(grep -h '^verify' "$out"/verify-*.txt | tr '\n' ' ')"

# ---------------------------------------------------------------- the workload, arms interleaved (drift hits all alike)
: >"$out/times.txt"
i=1
while [ $i -le $runs ]; do
  for arm in A B C; do
    p=; [ $arm = A ] || p="--params $out/$arm.params"
    w=$("$runtime" --mix $mix --passes $passes --quiet $p 2>>"$out/runtime-stderr.txt" | sed -n 's/.* wall_s=\([0-9.]*\) .*/\1/p')
    echo "$arm $i $w" | tee -a "$out/times.txt"
  done
  i=$(( i + 1 ))
done

# ---------------------------------------------------------------- the second mix: the plan follows the hints; decay
log "== second mix: $mix2"
"$runtime" --mix $mix2 --passes $passes --hints "$out/mix2.hints" --quiet >/dev/null
cp "$out/run1.hints" "$out/continued.hints"
"$runtime" --mix $mix2 --passes $passes --hints "$out/continued.hints" --quiet >/dev/null
cp "$out/run1.hints" "$out/decayed.hints"
hintmap decay "$out/decayed.hints" --factor 0.1 >/dev/null
"$runtime" --mix $mix2 --passes $passes --hints "$out/decayed.hints" --quiet >/dev/null
for f in mix2 continued decayed; do
  optimizer --hints "$out/$f.hints" --coverage $coverage --min-dispatches $min --budget-s $c_budget --plan-only >"$out/plan-$f.txt"
  hintmap hot "$out/$f.hints" --coverage $coverage --min-dispatches $min >"$out/hot-$f.txt"
done

# ---------------------------------------------------------------- the table
/usr/bin/env python3 - "$out" <<'PY'
import re, statistics, sys, pathlib
out = pathlib.Path(sys.argv[1])
times = {}
for line in (out / "times.txt").read_text().split("\n"):
    f = line.split()
    if len(f) == 3:
        times.setdefault(f[0], []).append(float(f[2]))
def tuning(arm):
    if arm == "A":
        return 0.0, 0.0, 0
    t = (out / f"tune-{arm}.txt").read_text()
    runs = re.search(r"tuning wall_s=([0-9.]+) runs=(\d+)", t)
    whole = re.search(r"optimizer wall_s=([0-9.]+)", t)
    return float(runs.group(1)), float(whole.group(1)), int(runs.group(2))
med = {a: statistics.median(v) for a, v in times.items()}
rows = []
for arm, label in (("A", "defaults, no tuning"), ("B", "tune every kernel and shape"), ("C", "hint-guided: hot set, 1/4 budget")):
    v = times[arm]
    tw, ow, n = tuning(arm)
    rows.append(f"| {arm} {label} | {n} | {tw:.1f} | {ow:.1f} | {med[arm]:.3f} | {min(v):.3f} - {max(v):.3f} | {med['A'] / med[arm]:.2f}x |")
sb, sc = med["A"] / med["B"], med["A"] / med["C"]
tb, tc = tuning("B")[0], tuning("C")[0]
text = ["| arm | tuner runs | tuning wall s (runs) | optimizer wall s | workload s (median) | min - max | speed-up over A |",
        "|---|---|---|---|---|---|---|", *rows, "",
        f"- C's speed-up / B's: {sc / sb:.2f} (goal >= 0.90); C's time saving / B's: "
        f"{(med['A'] - med['C']) / (med['A'] - med['B']) if med['A'] != med['B'] else float('nan'):.2f}",
        f"- C's tuning time / B's: {tc / tb if tb else float('nan'):.2f} (goal <= 0.25)",
        f"- runs per arm: {len(times['A'])}, interleaved A B C"]
(out / "results.md").write_text((out / "machine.txt").read_text() + "\n" + "\n".join(text) + "\n")
print("\n".join(text))
PY
log "== plans of the second mix (fresh file / continued without decay / continued after decay 0.1):"
for f in mix2 continued decayed; do log "-- $f"; cat "$out/plan-$f.txt" | tee -a "$out/log.txt"; done
log "pgo-measure: done: $out/results.md"
