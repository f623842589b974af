#!/bin/sh
# The FFTW runtime against real FFTW (make -C src/examples/fftw check; part of ./mvnw verify where FFTW is
# installed): every plan agrees with the ESTIMATE reference; wisdom that fftwf-wisdom wrote for one transform is
# the plan that transform runs (and only it: the others report estimate), so a runtime that silently ignored the
# wisdom (other planner flags, other arrays) fails here; wisdom that cannot be imported and a missing file fall
# back to ESTIMATE with one line; a bad workload file is named with its line, exit 2; the hint file gets one
# sample per execution.
#
#   sh check.sh RUNTIME WORKDIR HM_DUMP
set -eu
runtime=$1
dir=$2
hm_dump=$3
rm -rf "$dir" && mkdir -p "$dir"
fail() { echo "fftw check: FAIL: $*" >&2; exit 1; }
command -v fftwf-wisdom >/dev/null 2>&1 || { echo "SKIP: fftw check: no fftwf-wisdom (Debian package libfftw3-bin)"; exit 0; }

echo "== FFTW runtime: plans agree with the ESTIMATE reference; fftwf-wisdom's wisdom is the plan that runs"
printf '# the check workload\ncof64x64 4\nrob32x24 2\nrif1000 2\nko64e10 2\ncof1024 4\n' >"$dir/w.txt"
"$runtime" --workload "$dir/w.txt" --passes 1 --verify --report --quiet >"$dir/none.txt"
grep -q '^verify transforms=5 bound=0.0001 ok$' "$dir/none.txt" || fail "no verify line: $(cat "$dir/none.txt")"
[ "$(grep -c ' plan=estimate ' "$dir/none.txt")" = 5 ] || fail "without wisdom every plan is ESTIMATE: $(cat "$dir/none.txt")"

fftwf-wisdom -n -o "$dir/patient.wisdom" cof64x64 rob32x24 ko64e10
fftwf-wisdom -n -m -o "$dir/measure.wisdom" rif1000
fftwf-wisdom -n -w "$dir/patient.wisdom" -w "$dir/measure.wisdom" -o "$dir/merged.wisdom"
"$runtime" --workload "$dir/w.txt" --passes 1 --wisdom "$dir/merged.wisdom" --verify --report --quiet >"$dir/wise.txt"
for want in "fftw:cof64x64 plan=patient" "fftw:rob32x24 plan=patient" "fftw:ko64e10 plan=patient" \
            "fftw:rif1000 plan=measure" "fftw:cof1024 plan=estimate"; do
  grep -q "^region $want " "$dir/wise.txt" || fail "want '$want': $(cat "$dir/wise.txt")"
done
grep -q 'from_wisdom=4/5$' "$dir/wise.txt" || fail "4 of 5 from wisdom: $(grep workload "$dir/wise.txt")"
echo "fftwf-wisdom's wisdom: 4 of 5 transforms planned from it (patient x3, measure x1), every result verified"

echo "== FFTW runtime: unusable wisdom falls back to ESTIMATE; a bad workload names its line"
printf 'not wisdom\n' >"$dir/bad.wisdom"
"$runtime" --workload "$dir/w.txt" --passes 1 --wisdom "$dir/bad.wisdom" --report --quiet >"$dir/bad.txt" 2>"$dir/bad.err"
grep -q 'is not FFTW single-precision wisdom: every transform planned with FFTW_ESTIMATE' "$dir/bad.err" || fail "$(cat "$dir/bad.err")"
"$runtime" --workload "$dir/w.txt" --passes 1 --wisdom "$dir/absent.wisdom" --quiet >/dev/null 2>"$dir/absent.err"
grep -q '^fftw-runtime: no wisdom from .*absent.wisdom' "$dir/absent.err" || fail "$(cat "$dir/absent.err")"
printf 'cof64x64 4\ncof0256 3\n' >"$dir/badw.txt"
rc=0; "$runtime" --workload "$dir/badw.txt" 2>"$dir/badw.err" || rc=$?
[ $rc = 2 ] || fail "a bad workload exits 2, not $rc"
grep -q "badw.txt:2: 'cof0256' is not a transform: a size is zero or has a leading zero: '0256'" "$dir/badw.err" || fail "$(cat "$dir/badw.err")"

echo "== FFTW runtime: one sample per execution in the hint file; the live mode picks up new wisdom without a restart"
"$runtime" --workload "$dir/w.txt" --passes 3 --hints "$dir/w.hints" --quiet >/dev/null
"$hm_dump" "$dir/w.hints" | awk '/^region/ { print $2, $3 }' | sort >"$dir/w.counts"
printf 'fftw:cof1024 12\nfftw:cof64x64 12\nfftw:ko64e10 6\nfftw:rif1000 6\nfftw:rob32x24 6\n' | sort | \
  cmp -s - "$dir/w.counts" || fail "3 passes of the workload: dispatches per region $(cat "$dir/w.counts")"
fftwf-wisdom -n -m -o "$dir/live.tmp" rof128x128 cof2048
"$runtime" --mix smoke --live 4 --switch-at 1 --mix2 smoke2 --wisdom "$dir/live.wisdom" --log "$dir/live.log" \
  --hints "$dir/live.hints" --verify >/dev/null &
pid=$!
sleep 2
mv "$dir/live.tmp" "$dir/live.wisdom" # as the optimizer publishes: a whole file renamed into place
wait $pid || fail "the live runtime failed: $(cat "$dir/live.log")"
grep -q ' event shift mix=smoke2$' "$dir/live.log" || fail "no shift: $(cat "$dir/live.log")"
grep -q ' event pickup from_wisdom=2/8$' "$dir/live.log" || fail "no pick-up of 2 transforms: $(cat "$dir/live.log")"
grep -q ' rate interval_s=.* mix=smoke2 from_wisdom=2/4$' "$dir/live.log" || fail "no rate line after the pick-up: $(cat "$dir/live.log")"
echo "hint file: 3 passes, one sample per execution; live: shift, pick-up (2 of 4 transforms of the second mix from new wisdom), rate lines"
