#!/bin/sh
# ensure-clang.sh CLANG - whether CLANG can build a libFuzzer target with ASan and UBSan
# (-fsanitize=fuzzer,address,undefined). Installs nothing: a build never installs system packages.
# Exit 0: it can. Exit 3: it cannot, after printing one line saying what to install (the fuzz
# targets then skip, `make fuzz` fails).
CLANG=${1:-clang}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' >"$tmp/p.c"

if command -v "$CLANG" >/dev/null 2>&1 &&
    "$CLANG" -fsanitize=fuzzer,address,undefined "$tmp/p.c" -o "$tmp/p" >"$tmp/log" 2>&1; then
    exit 0
fi
if command -v "$CLANG" >/dev/null 2>&1; then
    major=$("$CLANG" -dumpversion 2>/dev/null | cut -d. -f1)
    echo "SKIP libFuzzer: $CLANG has no libFuzzer runtime; to enable, install libclang-rt-${major:-14}-dev (Debian) and rerun" >&2
else
    echo "SKIP libFuzzer: $CLANG not found; to enable, install clang and libclang-rt-14-dev (Debian: apt-get install clang libclang-rt-14-dev) and rerun" >&2
fi
exit 3
