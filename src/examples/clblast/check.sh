#!/bin/sh
# The CLBlast runtime on a real OpenCL device (make -C src/examples/clblast check; part of ./mvnw verify where
# CLBlast and a device are installed): the kernel each call runs, and its local size (which its parameters
# set), as PoCL itself reports them (POCL_DEBUG=general: "Preparing kernel NAME with local size X x Y"), agree
# with the runtime's report; a GEMM tuned for the kernel it runs reports its own parameters, and the first loop's
# parameters file (Xgemm tuned for a GEMM that runs XgemmDirect) fails --strict with exit 5, naming the region.
#
#   sh check.sh RUNTIME WORKDIR
set -eu
runtime=$1
dir=$2
rm -rf "$dir" && mkdir -p "$dir"
fail() { echo "clblast check: FAIL: $*" >&2; exit 1; }
if ! "$runtime" --defaults >"$dir/defaults.txt" 2>"$dir/defaults.err"; then
  echo "SKIP: clblast check: no OpenCL device ($(head -n 1 "$dir/defaults.err")): install pocl-opencl-icd for a CPU device"
  exit 0
fi
# PoCL compiles each parameter set once (10-30 s); its kernel cache (by default under ~/.cache/pocl, outside the
# build tree) makes later runs take seconds.
threshold=$(sed -n 's/^GemmRoutine\tXGEMM_MIN_INDIRECT_SIZE=\([0-9]*\)$/\1/p' "$dir/defaults.txt")
[ -n "$threshold" ] || fail "no GemmRoutine line in --defaults: $(cat "$dir/defaults.txt")"
echo "== CLBlast runtime: the device's routine choice XGEMM_MIN_INDIRECT_SIZE=$threshold; PoCL's kernels against the report"

R1='clblast:Xgemm:f32:m=256,n=256,k=128:NN'
R2='clblast:Xgemm:f32:m=128,n=128,k=128:NN'
DIRECT='KWID=16 MDIMAD=8 MDIMCD=16 NDIMBD=16 NDIMCD=8 PADA=0 PADB=1 VWMD=2 VWND=1 WGD=64'
XGEMM='GEMMK=0 KREG=1 KWG=32 KWI=2 MDIMA=8 MDIMC=8 MWG=64 NDIMB=32 NDIMC=32 NWG=64 SA=1 SB=1 STRM=0 STRN=0 VWM=4 VWN=1'
printf '%s\tGemmRoutine\tXGEMM_MIN_INDIRECT_SIZE=4097\n%s\tXgemmDirect\t%s\n' "$R1" "$R1" "$DIRECT" >"$dir/tuned.params"
printf '%s\tGemmRoutine\tXGEMM_MIN_INDIRECT_SIZE=1\n%s\tXgemm\t%s\n' "$R2" "$R2" "$XGEMM" >>"$dir/tuned.params"

# Each "trace REGION kernel=K local=XxY" (the runtime, before a call) must be followed, before the next trace, by
# PoCL preparing kernel K (CLBlast adds a layout suffix to XgemmDirect: XgemmDirectTN) with local size X x Y.
agree() {
  awk '
    /^trace / { if (want != "" && !seen) { print "no " want " after " region; bad = 1 }
                region = $2; sub(/^kernel=/, "", $3); want = $3; sub(/^local=/, "", $4); local = $4; seen = 0; next }
    /Preparing kernel / { for (i = 1; i <= NF; i++) if ($i == "kernel") name = $(i + 1)
                          for (i = 1; i <= NF; i++) if ($i == "size") { x = $(i + 1); y = $(i + 3) }
                          ok = want == "XgemmDirect" ? name ~ /^XgemmDirect/ : name == want
                          if (ok && x "x" y == local) seen = 1 }
    END { if (want != "" && !seen) { print "no " want " after " region; bad = 1 }
          if (region == "") { print "no trace lines"; bad = 1 } exit bad }' "$1"
}

POCL_DEBUG=general "$runtime" --mix smoke --passes 1 --params "$dir/tuned.params" --verify --report --strict --trace \
  >"$dir/tuned.txt" 2>"$dir/tuned.err" || fail "tuned run: $(grep -v 'POCL\|\*\*\*' "$dir/tuned.err" | head -5)"
agree "$dir/tuned.err" >"$dir/tuned.agree" || fail "PoCL's kernels differ from the report: $(cat "$dir/tuned.agree")"
grep -q "^region $R1 kernel=XgemmDirect local=16x8 params=own tuned=yes " "$dir/tuned.txt" || fail "$(cat "$dir/tuned.txt")"
grep -q "^region $R2 kernel=Xgemm local=8x32 params=own tuned=yes " "$dir/tuned.txt" || fail "$(cat "$dir/tuned.txt")"
grep -q ' params=defaults tuned=no ' "$dir/tuned.txt" || fail "untuned sites on the defaults: $(cat "$dir/tuned.txt")"
grep -q 'untuned=0$' "$dir/tuned.txt" || fail "$(tail -n 1 "$dir/tuned.txt")"
echo "tuned direct and indirect GEMMs run their own parameters (PoCL: XgemmDirect 16x8, Xgemm 8x32); untuned sites the defaults"

printf '%s\tXgemm\t%s\n' "$R1" "$XGEMM" >"$dir/xgemm-only.params" # what the first loop's optimizer wrote
rc=0
POCL_DEBUG=general "$runtime" --mix smoke --passes 1 --params "$dir/xgemm-only.params" --report --strict --trace \
  >"$dir/old.txt" 2>"$dir/old.err" || rc=$?
[ $rc = 5 ] || fail "a GEMM tuned for Xgemm that runs XgemmDirect must fail --strict (exit 5), got $rc"
grep -q "^clblast-runtime: $R1 is tuned by .* but runs XgemmDirect with CLBlast's default parameters$" "$dir/old.err" ||
  fail "$(grep clblast-runtime "$dir/old.err")"
agree "$dir/old.err" >"$dir/old.agree" || fail "PoCL's kernels differ from the report: $(cat "$dir/old.agree")"
grep -q "^region $R1 kernel=XgemmDirect local=8x8 params=defaults tuned=yes " "$dir/old.txt" || fail "$(cat "$dir/old.txt")"
echo "a GEMM tuned for Xgemm below the threshold: PoCL runs XgemmDirect 8x8 (the defaults), --strict exits 5"
