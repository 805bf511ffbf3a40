#!/bin/sh
# Builds target/dist: the launcher (copied by Maven before this runs), the jar, and the JDK 25 AOT
# cache trained with that jar at that path (JEP 514: one run with -XX:AOTCacheOutput).
# Arguments: JAVA_HOME, the jar, the dist directory.
set -eu
java_home=$1 jar=$2 dist=$3
mkdir -p "$dist"
cp -p "$jar" "$dist/sart-cni.jar"
chmod 755 "$dist/sart-cni"
# the chained plugins are the same launcher under their own names (it passes its name to the jar)
for p in sart-veth sart-router; do cp -p "$dist/sart-cni" "$dist/$p"; done
printf '%s\n' "$java_home" > "$dist/sart-cni.java-home"
rm -f "$dist/sart-cni.aot"
# the same flags as the launcher's (the cache records the GC and heap layout it was made with)
"$java_home/bin/java" -XX:AOTCacheOutput="$dist/sart-cni.aot" -Xlog:disable -Xlog:all=error:stderr \
  -Xint -XX:+UseSerialGC -XX:-UsePerfData -Xss512k -Xms8m -Xmx64m -XX:ReservedCodeCacheSize=8m \
  --add-exports java.base/sun.security.jca=ALL-UNNAMED -cp "$dist/sart-cni.jar" dev.sart.cni.Training
[ -s "$dist/sart-cni.aot" ] || { echo "dist.sh: the AOT cache was not written" >&2; exit 1; }
