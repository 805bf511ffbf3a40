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
# The stand-in agent runs in a JVM of its own, so that the recorded run holds only what a plugin
# call loads (dev.sart.cni.Training). It is ended by its PID.
tmp=$(mktemp -d)
sock=$tmp/agent.sock
"$java_home/bin/java" -cp "$dist/sart-cni.jar" dev.sart.cni.Training serve "$sock" &
agent=$!
trap 'kill "$agent" 2>/dev/null || true; rm -rf "$tmp"' EXIT
i=0
until [ -S "$sock" ]; do
  i=$((i + 1))
  [ "$i" -le 300 ] || { echo "dist.sh: the stand-in agent did not start" >&2; exit 1; }
  kill -0 "$agent" 2>/dev/null || { echo "dist.sh: the stand-in agent exited" >&2; exit 1; }
  sleep 0.1
done
# the same flags as the launcher's (the cache records the GC, heap layout and module options)
"$java_home/bin/java" -XX:AOTCacheOutput="$dist/sart-cni.aot" -Xlog:disable -Xlog:all=error:stderr \
  -Xint -XX:+UseSerialGC -XX:-UsePerfData -Xss512k -Xms8m -Xmx64m -XX:ReservedCodeCacheSize=8m \
  --add-exports java.base/sun.security.jca=ALL-UNNAMED --add-exports java.base/sun.nio.ch=ALL-UNNAMED \
  -cp "$dist/sart-cni.jar" dev.sart.cni.Training "$sock"
[ -s "$dist/sart-cni.aot" ] || { echo "dist.sh: the AOT cache was not written" >&2; exit 1; }
