#!/bin/sh
# The last step of `make install` (Makefile): lets the dynamic loader find the new libhintmap.so.
# With DESTDIR (a staged install, a package) it does nothing: the package's scripts run ldconfig.
# As root it runs ldconfig and says whether PREFIX/lib is one of the loader's directories; as
# another user (PREFIX=$HOME/.local) it says how programs find the library instead.
# Environment: LDCONFIG, DESTDIR, LIBDIR, SONAME (from the Makefile).
set -eu
[ -z "${DESTDIR:-}" ] || exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "install: not root, so no ldconfig: programs find $SONAME with -Wl,-rpath,$LIBDIR or LD_LIBRARY_PATH=$LIBDIR"
  exit 0
fi
if ! command -v "$LDCONFIG" >/dev/null 2>&1; then
  echo "install: no $LDCONFIG here: run it before starting programs linked with -lhintmap"
  exit 0
fi
"$LDCONFIG"
if "$LDCONFIG" -p 2>/dev/null | grep -q " => $LIBDIR/$SONAME\$"; then
  echo "install: ran $LDCONFIG: the loader finds $LIBDIR/$SONAME"
else
  echo "install: ran $LDCONFIG, but $LIBDIR is not one of the loader's directories (/etc/ld.so.conf):"
  echo "install: programs find $SONAME with -Wl,-rpath,$LIBDIR or LD_LIBRARY_PATH=$LIBDIR"
fi
