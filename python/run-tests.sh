#!/bin/sh
# The Python module's tests (python/tests), against the C library of this checkout
# (native-bench/build/libhintmap.so.0, which `make -C native-bench tools` builds first; ./mvnw verify
# runs this right after the C tests). Runs them with pytest where it is installed, else unittest.
# Where there is no Python it prints one SKIP line and succeeds: the build never installs anything.
#   HINTMAP_PYTHON=/usr/bin/python3 python/run-tests.sh      another interpreter (default: python3)
#   python/run-tests.sh tests.test_store                      some tests only (unittest names)
here=$(cd "$(dirname "$0")" && pwd)
py=${HINTMAP_PYTHON:-python3}
if ! command -v "$py" >/dev/null 2>&1; then
  echo "SKIP python tests: no '$py' on PATH (install python3 to run them)"
  exit 0
fi
lib="$here/../native-bench/build/libhintmap.so.0"
if [ ! -e "$lib" ]; then
  echo "python tests: $lib is not built: run 'make -C native-bench tools' first" >&2
  exit 1
fi
# The checkout's library and package, whatever else is installed; no __pycache__ in the tree.
HINTMAP_LIBRARY=$(cd "$(dirname "$lib")" && pwd)/libhintmap.so.0
PYTHONPATH="$here"
PYTHONDONTWRITEBYTECODE=1
export HINTMAP_LIBRARY PYTHONPATH PYTHONDONTWRITEBYTECODE
cd "$here" || exit 1
echo "== python tests: $("$py" -c 'import sys; print(sys.executable, sys.version.split()[0])'), library $HINTMAP_LIBRARY"
if [ $# -eq 0 ] && "$py" -c 'import pytest' >/dev/null 2>&1; then
  exec "$py" -m pytest -p no:cacheprovider -rs tests
fi
if [ $# -eq 0 ]; then
  exec "$py" -m unittest discover -s tests -t . -v
fi
exec "$py" -m unittest -v "$@"
