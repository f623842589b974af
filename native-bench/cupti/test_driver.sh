#!/bin/sh
# hm-cuda-driver without a GPU: usage errors exit 2, -h exits 0, and with every device hidden
# (CUDA_VISIBLE_DEVICES= ; no driver behaves the same) it says "no CUDA device", exits 1 and
# creates no file.   usage: test_driver.sh HM_CUDA_DRIVER TMPDIR
drv=$1 tmp=$2 fails=0
check() { # expected-rc expected-text args...
  want_rc=$1 want=$2; shift 2
  out=$(CUDA_VISIBLE_DEVICES= "$drv" "$@" 2>&1); rc=$?
  case $out in *"$want"*) ok=1 ;; *) ok=0 ;; esac
  if [ $rc -eq "$want_rc" ] && [ $ok -eq 1 ]; then echo "ok   hm-cuda-driver $* -> $rc"
  else echo "FAIL hm-cuda-driver $*: exit $rc (want $want_rc), output: $out (want '$want')"; fails=$((fails + 1)); fi
}
check 0 "usage: hm-cuda-driver" -h
check 2 "usage: hm-cuda-driver" -x
check 2 "-n abc" -n abc
check 2 "-n 0" -n 0
check 2 "-n 99999999999999999999" -n 99999999999999999999
check 2 "is not an element count" -s 4096,,16
check 2 "is not an element count" -s -5
check 2 "is not an element count" -s 268435457
check 2 "unexpected argument" stray
check 1 "no CUDA device" -f "$tmp/driver.hm" -n 3 -s 1024
if [ -e "$tmp/driver.hm" ]; then echo "FAIL hm-cuda-driver created $tmp/driver.hm without a device"; fails=$((fails + 1)); fi
[ $fails -eq 0 ]
