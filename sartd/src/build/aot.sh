#!/bin/sh
# Writes target/sartd.aot: sartd's JDK 25 AOT cache (JEP 483/514/515), from one training run
# (dev.sart.sartd.Training) with -XX:AOTCacheOutput and the JVM options of jvm.options (a cache
# records the collector and object layout it was made with; a JVM started with other options, or
# with another class path or JDK, ignores it). The class path is the one bin/sartd uses: the cache
# holds classes from jars only, and a jar rebuilt since (another modification time) makes the JVM
# ignore the cache until this runs again. Arguments: JAVA_HOME, sartd's jar, the class path file,
# jvm.options, the cache to write.

set -eu
java_home=$1 jar=$2 cp_file=$3 options=$4 aot=$5
log="$aot.log"
rm -f "$aot"
# shellcheck disable=SC2046
if ! "$java_home/bin/java" $(grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$options") \
  -XX:AOTCacheOutput="$aot" -cp "$jar:$(cat "$cp_file")" dev.sart.sartd.Training >"$log" 2>&1; then
  cat "$log" >&2
  echo "aot.sh: the training run failed (log: $log)" >&2
  exit 1
fi
[ -s "$aot" ] || { cat "$log" >&2; echo "aot.sh: the AOT cache was not written" >&2; exit 1; }
