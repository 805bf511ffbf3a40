#!/bin/sh
# Trains the plugin's two JDK 25 AOT caches (JEP 514: -XX:AOTCacheOutput) with a given runtime and
# jar: OUT from one run of dev.sart.cni.Training (every command), OUT's name with -version.aot from
# one VERSION call. Used by dist.sh for target/dist (the build JDK), and by the image's build
# (deploy/src/build/cni-aot.sh) for /opt/sart/cni (its jlink'ed sart-cni.jre). A cache is used only
# with the runtime and the jar it was made with (their paths may move together; their sizes and
# modification times may not).
# Arguments: the java of the stand-in agent (any JDK 25: its JVM is not recorded), the java of the
# recorded run (the runtime the plugin will run on), the jar, OUT.
set -eu
agent_java=$1 java=$2 jar=$3 out=$4
rm -f "$out"
# The stand-in agent runs in a JVM of its own, so that the recorded run holds only what a plugin
# call loads (dev.sart.cni.Training). It is ended by its PID.
tmp=$(mktemp -d)
sock=$tmp/agent.sock
"$agent_java" -cp "$jar" dev.sart.cni.Training serve "$sock" &
agent=$!
trap 'kill "$agent" 2>/dev/null || true; rm -rf "$tmp"' EXIT
i=0
until [ -S "$sock" ]; do
  i=$((i + 1))
  [ "$i" -le 300 ] || { echo "train.sh: the stand-in agent did not start" >&2; exit 1; }
  kill -0 "$agent" 2>/dev/null || { echo "train.sh: the stand-in agent exited" >&2; exit 1; }
  sleep 0.1
done
# the same flags as the launcher's (the cache records the GC, heap layout and module options)
flags="-Xlog:disable -Xlog:all=error:stderr -Xint -XX:+UseSerialGC -XX:-UsePerfData -Xss512k -Xms8m
  -Xmx64m -XX:ReservedCodeCacheSize=8m --add-exports java.base/sun.security.jca=ALL-UNNAMED
  --add-exports java.base/sun.nio.ch=ALL-UNNAMED"
# the JVM's and the launcher's chatter about the cache goes to a log, shown only when a run fails
log=$tmp/training.log
# shellcheck disable=SC2086
"$java" -XX:AOTCacheOutput="$out" $flags -cp "$jar" dev.sart.cni.Training "$sock" >"$log" 2>&1 ||
  { cat "$log" >&2; echo "train.sh: the training run failed" >&2; exit 1; }
[ -s "$out" ] || { echo "train.sh: the AOT cache $out was not written" >&2; exit 1; }
# VERSION's own cache (the launcher chooses it by CNI_COMMAND): one VERSION call through the
# plugin's main, as the launcher starts it, and nothing else
version_out=${out%.aot}-version.aot
rm -f "$version_out"
# shellcheck disable=SC2086
printf '{"cniVersion":"1.1.0","name":"training","type":"sart-cni"}' | CNI_COMMAND=VERSION \
  "$java" -XX:AOTCacheOutput="$version_out" $flags -Dsart.cni.plugin=sart-cni -cp "$jar" dev.sart.cni.SartCni \
  >"$log" 2>&1 || { cat "$log" >&2; echo "train.sh: the VERSION run failed" >&2; exit 1; }
[ -s "$version_out" ] || { echo "train.sh: the AOT cache $version_out was not written" >&2; exit 1; }
