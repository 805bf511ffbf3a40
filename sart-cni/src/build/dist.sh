#!/bin/sh
# Builds target/dist: the launcher (copied by Maven before this runs), the jar, and the JDK 25 AOT
# cache trained with that jar at that path (train.sh).
# Arguments: JAVA_HOME, the jar, the dist directory.
set -eu
java_home=$1 jar=$2 dist=$3
mkdir -p "$dist"
cp -p "$jar" "$dist/sart-cni.jar"
chmod 755 "$dist/sart-cni"
# the chained plugins are the same launcher under their own names (it passes its name to the jar)
for p in sart-veth sart-router; do cp -p "$dist/sart-cni" "$dist/$p"; done
printf '%s\n' "$java_home" > "$dist/sart-cni.java-home"
sh "$(dirname "$0")/train.sh" "$java_home/bin/java" "$java_home/bin/java" "$dist/sart-cni.jar" "$dist/sart-cni.aot"
