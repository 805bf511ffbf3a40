#!/bin/sh
# Trains sartd's two JDK 25 AOT caches for the image (sartd/README.md, "Footprint and start-up"):
# /opt/sart/sartd.aot (sartd bgp's training) and /opt/sart/sartd-node.aot (sartd node's, against
# fabric8's mock API server run by the build JDK from sartd's test class path), and the CLI's,
# /opt/sart/sart.aot (sart-cli's Training: its commands); writes the sartd launcher that starts
# `sartd node` from the second and every other command from the first, and sart's on the third,
# into ROOT (base.sh's directory, Jib's "extra files").
# A cache is only used by the runtime and the class path it was made with, so it is made here with
# the image's own jlink'ed /opt/java and the jars Jib puts in /opt/sart/app/libs, in the order the
# launcher names them: copies in a staging directory with the modification time Jib gives every
# file of the image (EPOCH_PLUS_SECOND). The JVM accepts a runtime and a class path that moved as a
# whole (/opt/java, /opt/sart/app/libs at run time). ImageTest checks that the image's sartd uses it.
# Arguments: ROOT, the staging directory, sartd's jvm.options, the class path (Maven's, runtime
# scope), skip (true: no cache, the launcher without it), the JDK that runs the node training's mock
# API server (not recorded), that server's class path: sartd's class directories and the file
# listing sartd's test class path (sartd/target/classpath-test.txt).
set -eu
root=$1 stage=$2 jvm_options=$3 classpath=$4 skip=$5 java_home=$6 cluster_dirs=$7 cluster_cp_file=$8

# the class path in the image: every jar under /opt/sart/app/libs, in Maven's order (Jib's layers
# hold the same files under their own names; directories, this module's empty classes, are left out)
cp_image=""
cp_stage=""
rm -rf "$stage"
mkdir -p "$stage/libs"
old_ifs=$IFS
IFS=:
for entry in $classpath; do
  case $entry in
    *.jar)
      name=$(basename "$entry")
      cp "$entry" "$stage/libs/$name"
      touch -d @1 "$stage/libs/$name"
      cp_image="$cp_image${cp_image:+:}/opt/sart/app/libs/$name"
      cp_stage="$cp_stage${cp_stage:+:}$stage/libs/$name"
      ;;
  esac
done
IFS=$old_ifs

# sart's (the CLI's) JVM options, as bin/sart's: the launcher below and its training use them
SART_OPTS="--enable-native-access=ALL-UNNAMED -XX:+UseSerialGC -XX:TieredStopAtLevel=1"

# train CACHE JVM-OPTIONS MAIN [ARGUMENTS]: one training run on the image's runtime and jars
train() {
  out=$1 opts=$2 main=$3
  shift 3
  log="$stage/$(basename "$out").log"
  # shellcheck disable=SC2086
  if ! "$root/opt/java/bin/java" $opts -XX:AOTCacheOutput="$out" -cp "$cp_stage" "$main" "$@" >"$log" 2>&1; then
    cat "$log" >&2
    echo "aot.sh: the training run failed (log: $log)" >&2
    exit 1
  fi
  [ -s "$out" ] || { cat "$log" >&2; echo "aot.sh: no cache $out written" >&2; exit 1; }
  rm -f "$out.config"
}

rm -f "$root/opt/sart/sartd.aot" "$root/opt/sart/sartd-node.aot" "$root/opt/sart/sart.aot"
sartd_opts=$(grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$jvm_options" | tr '\n' ' ')
if [ "$skip" != true ]; then
  [ -r "$cluster_cp_file" ] || { echo "aot.sh: no $cluster_cp_file (build sartd in the same reactor)" >&2; exit 1; }
  # the runtime's modules file as the image has it (Jib's file time); the cache records it
  touch -d @1 "$root/opt/java/lib/modules"
  train "$root/opt/sart/sartd.aot" "$sartd_opts" dev.sart.sartd.Training
  train "$root/opt/sart/sartd-node.aot" "$sartd_opts" dev.sart.sartd.Training \
    node "$java_home/bin/java" "$cluster_dirs:$(cat "$cluster_cp_file")"
  train "$root/opt/sart/sart.aot" "$SART_OPTS" dev.sart.cli.Training
fi

mkdir -p "$root/usr/local/bin"
cat > "$root/usr/local/bin/sartd" <<SH
#!/bin/sh
# sartd in the image: its JVM options are /opt/sart/sartd.jvm.options (sartd/jvm.options); more
# from \$SARTD_JAVA_OPTS. The class path is what Jib put under /opt/sart/app/libs, named one by one
# in the order the AOT caches were trained with: /opt/sart/sartd-node.aot for \`sartd node\`,
# /opt/sart/sartd.aot for the rest (a cache that does not match is ignored in silence;
# SARTD_JAVA_OPTS=-Xlog:aot shows whether and which one is used, -XX:AOTMode=off none).
cache=/opt/sart/sartd.aot
[ "\${1-}" = node ] && [ -f /opt/sart/sartd-node.aot ] && cache=/opt/sart/sartd-node.aot
aot=
[ -f "\$cache" ] && aot="-XX:AOTCache=\$cache -Xlog:aot*=off,cds*=off"
exec /opt/java/bin/java @/opt/sart/sartd.jvm.options \$aot \$SARTD_JAVA_OPTS \\
  -cp '$cp_image' dev.sart.sartd.Sartd "\$@"
SH
chmod 755 "$root/usr/local/bin/sartd"
cat > "$root/usr/local/bin/sart" <<SH
#!/bin/sh
# the sart CLI in the image (the options of bin/sart), on the AOT cache trained on its commands
# (/opt/sart/sart.aot, sart-cli's Training) with sartd's class path; more JVM options from
# \$SART_JAVA_OPTS (-Xlog:aot shows whether the cache is used, -XX:AOTMode=off turns it off).
aot=
[ -f /opt/sart/sart.aot ] && aot="-XX:AOTCache=/opt/sart/sart.aot -Xlog:aot*=off,cds*=off"
exec /opt/java/bin/java $SART_OPTS \$aot \$SART_JAVA_OPTS -cp '$cp_image' dev.sart.cli.Sart "\$@"
SH
chmod 755 "$root/usr/local/bin/sart"
if [ "$skip" = true ]; then
  echo "aot.sh: no AOT cache in the image (sart.aot.skip)"
else
  for c in sartd.aot sartd-node.aot sart.aot; do
    echo "aot.sh: $root/opt/sart/$c ($(wc -c < "$root/opt/sart/$c") bytes)"
  done
fi
