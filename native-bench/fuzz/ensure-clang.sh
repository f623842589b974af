#!/bin/sh
# ensure-clang.sh CLANG - makes sure CLANG can build a libFuzzer target with ASan and UBSan
# (-fsanitize=fuzzer,address,undefined). If it cannot, installs Debian's packages with apt-get
# (clang, then libclang-rt-<major>-dev, which holds libclang_rt.fuzzer) when running as root;
# otherwise, or if that fails, exits 1 with one line saying what to install.
CLANG=${1:-clang}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' >"$tmp/p.c"

probe() {
    command -v "$CLANG" >/dev/null 2>&1 &&
        "$CLANG" -fsanitize=fuzzer,address,undefined "$tmp/p.c" -o "$tmp/p" >"$tmp/log" 2>&1
}

apt_install() {
    [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 || return 1
    echo "ensure-clang: installing $* with apt-get" >&2
    DEBIAN_FRONTEND=noninteractive apt-get -y -q install "$@" >"$tmp/apt" 2>&1 && return 0
    DEBIAN_FRONTEND=noninteractive apt-get -q update >/dev/null 2>&1
    DEBIAN_FRONTEND=noninteractive apt-get -y -q install "$@" >"$tmp/apt" 2>&1
}

probe && exit 0
if ! command -v "$CLANG" >/dev/null 2>&1; then
    apt_install clang || true
    probe && exit 0
fi
if command -v "$CLANG" >/dev/null 2>&1; then
    major=$("$CLANG" -dumpversion 2>/dev/null | cut -d. -f1)
    apt_install "libclang-rt-${major:-14}-dev" || true
    probe && exit 0
fi
echo "make fuzz needs $CLANG with libFuzzer (-fsanitize=fuzzer): install the Debian packages clang and libclang-rt-${major:-14}-dev (as root: apt-get install clang libclang-rt-${major:-14}-dev)" >&2
exit 1
