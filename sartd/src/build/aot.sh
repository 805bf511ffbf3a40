#!/bin/sh
# Writes sartd's JDK 25 AOT caches (JEP 483/514/515), each from one training run
# (dev.sart.sartd.Training) with -XX:AOTCacheOutput and the JVM options of jvm.options (a cache
# records the collector and object layout it was made with; a JVM started with other options, or
# with another class path or JDK, ignores it): target/sartd.aot from a run of sartd bgp, and,
# given the last three arguments, target/sartd-node.aot from a run of sartd node against fabric8's
# mock API server, which runs in a process of its own with sartd's test class path
# (dev.sart.sartd.NodeTraining). The class path is the one bin/sartd uses: the cache holds classes
# from jars only, and a jar rebuilt since (another modification time) makes the JVM ignore the
# cache until this runs again. Arguments: JAVA_HOME, sartd's jar, the class path file,
# jvm.options, the cache to write [, the node's cache to write, sartd's classes and test classes,
# the test class path file].

set -eu
java_home=$1 jar=$2 cp_file=$3 options=$4 aot=$5
node_aot=${6:-} classes=${7:-} test_cp_file=${8:-}

# train OUTPUT [ARGUMENTS OF Training]
train() {
  out=$1
  shift
  log="$out.log"
  rm -f "$out"
  # shellcheck disable=SC2046
  if ! "$java_home/bin/java" $(grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$options") \
    -XX:AOTCacheOutput="$out" -cp "$jar:$(cat "$cp_file")" dev.sart.sartd.Training "$@" >"$log" 2>&1; then
    cat "$log" >&2
    echo "aot.sh: the training run failed (log: $log)" >&2
    exit 1
  fi
  [ -s "$out" ] || { cat "$log" >&2; echo "aot.sh: the AOT cache $out was not written" >&2; exit 1; }
}

train "$aot"
if [ -n "$node_aot" ]; then
  train "$node_aot" node "$java_home/bin/java" "$classes:$(cat "$test_cp_file")"
fi
