#!/bin/sh
# The last step of `make install` (Makefile): how programs find the new libhintmap.so at run time.
# With DESTDIR (a staged install, a package) it does nothing: the package's scripts run ldconfig.
# Only a system PREFIX (one of SYSTEM_PREFIXES: /usr, /usr/local) is the loader's business: there,
# as root, it runs ldconfig and says whether PREFIX/lib is one of the loader's directories. Any
# other PREFIX (a private one: $HOME/.local, /opt/hintmap) is not: ldconfig would rewrite the
# system's cache for a directory the loader does not search anyway, so it is not run, and the
# script says, as libtool does, how a program linked against PREFIX/lib finds the library: an
# rpath at link time, or LD_LIBRARY_PATH at run time. A program linked with just
# `pkg-config --libs hintmap` from a private prefix otherwise fails at start ("libhintmap.so.0:
# cannot open shared object file").
# Environment: LDCONFIG, DESTDIR, PREFIX, LIBDIR, SONAME, SYSTEM_PREFIXES (from the Makefile).
set -eu
[ -z "${DESTDIR:-}" ] || exit 0
system=
for p in ${SYSTEM_PREFIXES:-/usr /usr/local}; do
  [ "$PREFIX" = "$p" ] && system=1
done
advise() { # why
  echo "install: $1"
  echo "install: a program linked against it finds $SONAME with an rpath, or with LD_LIBRARY_PATH at run time:"
  echo "install:   cc app.c \$(PKG_CONFIG_PATH=$LIBDIR/pkgconfig pkg-config --cflags --libs hintmap) -Wl,-rpath,$LIBDIR"
  echo "install:   LD_LIBRARY_PATH=$LIBDIR ./app"
}
if [ -z "$system" ]; then
  advise "$LIBDIR is a private prefix's, which the dynamic loader does not search (no ldconfig run)."
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  advise "not root, so no ldconfig."
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
  advise "ran $LDCONFIG, but $LIBDIR is not one of the loader's directories (/etc/ld.so.conf)."
fi
