#!/bin/sh
# Makes the distribution (pom.xml, execution `distribution`, phase package):
#   target/hintmap-VERSION/            bin/hintmap, lib/ (the jars and hintmap.aot), man/man1/, completion/,
#                                      share/doc/hintmap/ (README.md, docs/: what --help and the man pages cite)
#   target/hintmap-VERSION-bin.tar.gz  the same directory, packed reproducibly
# Usage: assemble.sh PROJECT_DIR BUILD_DIR VERSION
# Inputs the build made before: BUILD_DIR/hintmap.jar (the library), BUILD_DIR/hintmap-cli.jar (the
# command line tool, dev.hintmap.cli), BUILD_DIR/lib/*.jar (copy-dependencies: the tool's libraries),
# BUILD_DIR/picocli/picocli.jar (picocli compiled for Java 22: the JDK's ahead-of-time cache skips the
# Java 5 class files of picocli's own jar), BUILD_DIR/man/*.1 unless -Dhintmap.man.skip.
set -e
project=$1
build=$2
version=$3
stage=$build/hintmap-$version
rm -rf "$stage" "$stage-bin.tar.gz"
mkdir -p "$stage/bin" "$stage/lib" "$stage/man/man1" "$stage/completion"

cp "$project/src/dist/bin/hintmap" "$stage/bin/hintmap"
chmod 755 "$stage/bin/hintmap"
cp "$project/LICENSE" "$stage/LICENSE"
cp "$build/hintmap.jar" "$build/hintmap-cli.jar" "$stage/lib/"
for jar in "$build"/lib/*.jar; do
  [ "$(basename "$jar")" = picocli.jar ] || cp "$jar" "$stage/lib/"
done
cp "$build/picocli/picocli.jar" "$stage/lib/picocli.jar"
# The launcher's class path, in one fixed order (hintmap.jar first, then by byte value): the
# ahead-of-time cache is valid for one class path only, and a glob's order follows the locale.
(cd "$stage/lib" && printf 'hintmap.jar %s\n' "$(LC_ALL=C ls -- *.jar | grep -vx hintmap.jar | tr '\n' ' ')") \
  > "$stage/lib/hintmap.classpath"
if ls "$build"/man/*.1 >/dev/null 2>&1; then
  cp "$build"/man/*.1 "$stage/man/man1/"
else
  echo "hintmap distribution: no man pages (built with -Dhintmap.man.skip)" >&2
fi
"$stage/bin/hintmap" completion bash > "$stage/completion/hintmap.bash"
# The documents, in the sources' layout so that README.md's links to docs/ hold.
mkdir -p "$stage/share/doc/hintmap/docs"
cp "$project/README.md" "$stage/share/doc/hintmap/README.md"
cp "$project"/docs/*.md "$project"/docs/*.png "$stage/share/doc/hintmap/docs/"

# The ahead-of-time cache, for the JDK the launcher finds on this machine (JDK 24+; older: none).
major=$(sed -n 's/^JAVA_VERSION="\{0,1\}\([0-9][0-9]*\).*/\1/p' "$("$stage/bin/hintmap" --java-home)/release")
if [ "$major" -ge 24 ]; then
  "$stage/bin/hintmap" --make-aot-cache >&2
else
  echo "hintmap distribution: no ahead-of-time cache (the JDK found is $major; it needs 24+)" >&2
fi

# Names sorted, one numeric owner; the files keep their times: the JVM uses the cache only with the
# jars it was made from, which it recognises by size and modification time.
(cd "$build" && tar --sort=name --owner=0 --group=0 --numeric-owner -czf "hintmap-$version-bin.tar.gz" "hintmap-$version")
