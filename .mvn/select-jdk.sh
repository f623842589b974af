# Sourced by ./mvnw before it starts Maven: makes sure Maven runs on a JDK 22 or newer (the FFM
# API is final since 22; the jar tool and forked JVMs of the build come from Maven's own JDK).
# Keeps JAVA_HOME when it already is one; else tries the java on PATH, then /usr/lib/jvm/*,
# and picks the newest. Exits with one clear line when there is none.
hintmap_jdk_major() {
  # $1: a JDK home. Prints its feature version from the release file, or nothing.
  [ -r "$1/release" ] || return 0
  sed -n 's/^JAVA_VERSION="\{0,1\}\([0-9][0-9]*\).*/\1/p' "$1/release" | head -n 1
}
hintmap_select_jdk() {
  hintmap_min=22
  if [ -n "${JAVA_HOME:-}" ]; then
    hintmap_v=$(hintmap_jdk_major "$JAVA_HOME")
    if [ -n "$hintmap_v" ] && [ "$hintmap_v" -ge "$hintmap_min" ]; then return 0; fi
  fi
  if command -v java >/dev/null 2>&1; then
    hintmap_home=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
    hintmap_v=$(hintmap_jdk_major "$hintmap_home")
    if [ -n "$hintmap_v" ] && [ "$hintmap_v" -ge "$hintmap_min" ]; then
      JAVA_HOME=$hintmap_home; export JAVA_HOME; hintmap_best_v=$hintmap_v; return 0
    fi
  fi
  hintmap_best=; hintmap_best_v=0
  for hintmap_home in /usr/lib/jvm/* /usr/java/* /opt/java/* /opt/jdk*; do
    [ -x "$hintmap_home/bin/java" ] || continue
    hintmap_v=$(hintmap_jdk_major "$hintmap_home")
    [ -n "$hintmap_v" ] || continue
    if [ "$hintmap_v" -ge "$hintmap_min" ] && [ "$hintmap_v" -gt "$hintmap_best_v" ]; then
      hintmap_best=$hintmap_home; hintmap_best_v=$hintmap_v
    fi
  done
  if [ -z "$hintmap_best" ]; then
    echo "hintmap: the build needs a JDK $hintmap_min or newer (JDK 25 recommended); none found in JAVA_HOME, on PATH or under /usr/lib/jvm" >&2
    exit 1
  fi
  JAVA_HOME=$hintmap_best; export JAVA_HOME; hintmap_v=$hintmap_best_v
}
hintmap_select_jdk
# Maven 3.9's Guice calls sun.misc.Unsafe, which JDK 24+ warns about on every run; allow it quietly.
if [ "${hintmap_v:-0}" -ge 24 ]; then
  MAVEN_OPTS="--sun-misc-unsafe-memory-access=allow ${MAVEN_OPTS:-}"; export MAVEN_OPTS
fi
