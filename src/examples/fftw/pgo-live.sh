#!/bin/sh
# The PGO loop live on FFTW (docs/PGO.md, "The loop live"): the runtime keeps running and recording, the
# optimizer (a separate JVM) reads the same hint file in place every few seconds, the workload changes midway,
# the file is aged (hintmap decay) so the hot set follows it, the optimizer plans again, and the runtime picks up
# the new wisdom between passes without a restart. Run from anywhere:
#
#   src/examples/fftw/pgo-live.sh            4 minutes: mix "spectral" for 120 s, then "imaging" (~5 min in all)
#   src/examples/fftw/pgo-live.sh --smoke    40 s on the smoke mixes
#
# Options: --duration S (default 240), --switch-at S (default half), --out DIR (default target/pgo/live-DATE),
# --chart PNG (a copy of the chart, e.g. docs/pgo-live.png). Needs gcc, make, python3, a JDK 22+, the Debian
# packages libfftw3-dev libfftw3-bin (one line names each missing, exit 3), and for the chart JFreeChart (the
# version of the pom's jmh profile, fetched by ./mvnw dependency:copy; without it the chart is skipped with one
# line, the logs and the table are written). Writes DIR/runtime.log (a rate line per second, the events),
# DIR/optimizer.log, DIR/decay.log, DIR/live.md (time to adapt, throughput before and after) and DIR/live.png.
set -eu
root=$(cd "$(dirname "$0")/../../.." && pwd)
usage() { echo "usage: $0 [--smoke] [--duration S] [--switch-at S] [--out DIR] [--chart PNG]" >&2; exit 2; }
smoke=0 duration= switch= out= chart=
while [ $# -gt 0 ]; do
  case $1 in
    --smoke) smoke=1 ;;
    --duration) [ $# -ge 2 ] || usage; duration=$2; shift ;;
    --switch-at) [ $# -ge 2 ] || usage; switch=$2; shift ;;
    --out) [ $# -ge 2 ] || usage; out=$2; shift ;;
    --chart) [ $# -ge 2 ] || usage; chart=$2; shift ;;
    *) usage ;;
  esac
  shift
done
if [ $smoke = 1 ]; then mix1=smoke mix2=smoke2 cap=10 interval=2 every=5; else mix1=spectral mix2=imaging cap=60 interval=5 every=10; fi
[ -n "$duration" ] || { [ $smoke = 1 ] && duration=40 || duration=240; }
[ -n "$switch" ] || switch=$(( duration / 2 ))
case $duration$switch in *[!0-9]*) usage ;; esac
[ -n "$out" ] || out=$root/target/pgo/live-$(date -u +%Y%m%dT%H%M%SZ)

missing=0
need() { what=$1 package=$2; shift 2; "$@" >/dev/null 2>&1 || { echo "pgo-live: missing $what: install the Debian package $package" >&2; missing=1; }; }
need gcc build-essential command -v gcc
need make make command -v make
need python3 python3 command -v python3
need "fftw3.h and libfftw3f" libfftw3-dev sh -c 'printf "#include <fftw3.h>\nint main(void){return 0;}\n" | gcc -x c - -o /dev/null -lfftw3f'
need fftwf-wisdom libfftw3-bin command -v fftwf-wisdom
jdk=$(sh "$root/src/dist/bin/hintmap" --java-home 2>/dev/null) || { echo "pgo-live: missing a JDK 22 or newer (e.g. the Debian package openjdk-25-jdk, or JAVA_HOME)" >&2; missing=1; }
[ $missing = 0 ] || exit 3

mkdir -p "$out"
echo "pgo-live: building into $out"
make -s -C "$root/native-bench" build/libhintmap.a shared >"$out/build.log" 2>&1
make -s -C "$root/native-bench" install PREFIX="$out/prefix" LDCONFIG=true >>"$out/build.log" 2>&1
make -s -C "$root/src/examples/fftw" HINTMAP_PREFIX="$out/prefix" OUT="$out/bin" >>"$out/build.log" 2>&1 ||
  { tail -20 "$out/build.log"; exit 1; }
"$root/hintmap" --version >>"$out/build.log" 2>&1 # builds target/hintmap.jar and the CLI when stale
"$jdk/bin/javac" -d "$out/classes" -cp "$root/target/hintmap.jar" "$root"/src/examples/java/com/example/tuner/*.java

hints=$out/live.hints wisdom=$out/live.wisdom
rm -f "$hints" "$wisdom" "$out"/*.log
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ); commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "cpu: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1), $(nproc) cores; load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "runtime: fftw-runtime --mix $mix1 --live $duration --switch-at $switch --mix2 $mix2 --verify"
  echo "optimizer: FftwOptimizer --watch --interval-s $interval, hot set coverage 0.9 (>= 2 dispatches), PATIENT, $cap s a transform"
  echo "ageing: hintmap decay --factor 0.5 every $every s"
} >"$out/machine.txt"
cat "$out/machine.txt"
echo "pgo-live: running for $duration s (the mix changes at $switch s)"
"$out/bin/fftw-runtime" --mix $mix1 --live "$duration" --switch-at "$switch" --mix2 $mix2 --hints "$hints" \
  --wisdom "$wisdom" --log "$out/runtime.log" --verify >"$out/runtime.out" 2>&1 &
runtime_pid=$!
"$jdk/bin/java" --enable-native-access=ALL-UNNAMED -cp "$out/classes:$root/target/hintmap.jar" com.example.tuner.FftwOptimizer \
  --hints "$hints" --wisdom "$wisdom" --watch --interval-s $interval --duration-s "$duration" --coverage 0.9 \
  --min-dispatches 2 --budget-s 600 --timeout-s $cap --work "$out/planning" --log "$out/optimizer.log" >"$out/optimizer.out" 2>&1 &
optimizer_pid=$!
trap 'kill $runtime_pid $optimizer_pid 2>/dev/null || true' INT TERM
while kill -0 $runtime_pid 2>/dev/null; do # the ager: old profile weighs half as much every $every s
  sleep $every
  [ -e "$hints" ] && kill -0 $runtime_pid 2>/dev/null || continue
  "$root/hintmap" decay "$hints" --factor 0.5 \
    >>"$out/decay.out" 2>&1 && echo "$(date +%s.%N | cut -c1-14) event decay factor=0.5" >>"$out/decay.log"
done
rc=0
wait $runtime_pid || rc=$?
wait $optimizer_pid || true
[ $rc = 0 ] || { echo "pgo-live: the runtime failed (exit $rc):"; tail -5 "$out/runtime.out"; exit 1; }

python3 "$root/src/examples/fftw/pgo_live_summary.py" "$out" | tee "$out/live.md"

# The chart: JFreeChart, the version the pom's jmh profile names, and the one chart class of src/jmh.
version=$(sed -n '/<artifactId>jfreechart<\/artifactId>/{n;s/.*<version>\(.*\)<\/version>.*/\1/p;}' "$root/pom.xml")
if (cd "$root" && ./mvnw -q dependency:copy -Dartifact="org.jfree:jfreechart:$version" -DoutputDirectory="$out/lib" \
      >"$out/chart.log" 2>&1) &&
   "$jdk/bin/javac" -d "$out/chart" -cp "$out/lib/jfreechart-$version.jar" "$root/src/jmh/java/dev/hintmap/bench/PgoLiveChart.java" \
      >>"$out/chart.log" 2>&1 &&
   "$jdk/bin/java" -Djava.awt.headless=true -cp "$out/chart:$out/lib/jfreechart-$version.jar" dev.hintmap.bench.PgoLiveChart \
      "$out/runtime.log" "$out/optimizer.log" "$out/live.png" >>"$out/chart.log" 2>&1; then
  echo "chart: $out/live.png"
  [ -z "$chart" ] || [ "$chart" -ef "$out/live.png" ] || cp "$out/live.png" "$chart"
else
  echo "pgo-live: no chart (JFreeChart $version could not be fetched or run: $out/chart.log); the logs and live.md are written"
fi
