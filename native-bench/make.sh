#!/bin/sh
# make, after checking that make and the C compiler the Makefile uses exist: where one is missing,
# one line says what to install instead of "Cannot run program" or "gcc: not found" mid-build.
# Used by the Maven build (the tests) and by ./hintmap (the demo's tools). Arguments go to make.
for tool in make gcc; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "hintmap: '$tool' not found: the C library, its tests and the tools the Java tests and the demo run are built with make and gcc; install them (e.g. the build-essential package), or build the Java library alone with -DskipTests" >&2
    exit 127
  fi
done
exec make "$@"
