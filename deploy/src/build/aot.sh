#!/bin/sh
# Trains sartd's JDK 25 AOT cache for the image (sartd/README.md, "Footprint and start-up") and
# writes the sartd launcher that starts from it, into ROOT (base.sh's directory, Jib's "extra files").
# A cache is only used by the runtime and the class path it was made with, so it is made here with
# the image's own jlink'ed /opt/java and the jars Jib puts in /opt/sart/app/libs, in the order the
# launcher names them: copies in a staging directory with the modification time Jib gives every
# file of the image (EPOCH_PLUS_SECOND). The JVM accepts a runtime and a class path that moved as a
# whole (/opt/java, /opt/sart/app/libs at run time). ImageTest checks that the image's sartd uses it.
# Arguments: ROOT, the staging directory, sartd's jvm.options, the class path (Maven's, runtime
# scope), skip (true: no cache, the launcher without it).
set -eu
root=$1 stage=$2 jvm_options=$3 classpath=$4 skip=$5

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

rm -f "$root/opt/sart/sartd.aot"
if [ "$skip" != true ]; then
  # the runtime's modules file as the image has it (Jib's file time); the cache records it
  touch -d @1 "$root/opt/java/lib/modules"
  log="$stage/training.log"
  # shellcheck disable=SC2046
  if ! "$root/opt/java/bin/java" $(grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$jvm_options") \
    -XX:AOTCacheOutput="$root/opt/sart/sartd.aot" -cp "$cp_stage" dev.sart.sartd.Training >"$log" 2>&1; then
    cat "$log" >&2
    echo "aot.sh: the training run failed (log: $log)" >&2
    exit 1
  fi
  [ -s "$root/opt/sart/sartd.aot" ] || { cat "$log" >&2; echo "aot.sh: no cache written" >&2; exit 1; }
  rm -f "$root/opt/sart/sartd.aot.config"
fi

mkdir -p "$root/usr/local/bin"
cat > "$root/usr/local/bin/sartd" <<SH
#!/bin/sh
# sartd in the image: its JVM options are /opt/sart/sartd.jvm.options (sartd/jvm.options); more
# from \$SARTD_JAVA_OPTS. The class path is what Jib put under /opt/sart/app/libs, named one by one
# in the order the AOT cache /opt/sart/sartd.aot was trained with (a cache that does not match is
# ignored in silence; SARTD_JAVA_OPTS=-Xlog:aot shows whether it is used).
aot=
[ -f /opt/sart/sartd.aot ] && aot="-XX:AOTCache=/opt/sart/sartd.aot -Xlog:aot*=off,cds*=off"
exec /opt/java/bin/java @/opt/sart/sartd.jvm.options \$aot \$SARTD_JAVA_OPTS \\
  -cp '$cp_image' dev.sart.sartd.Sartd "\$@"
SH
chmod 755 "$root/usr/local/bin/sartd"
if [ "$skip" = true ]; then
  echo "aot.sh: no AOT cache in the image (sart.aot.skip)"
else
  echo "aot.sh: $root/opt/sart/sartd.aot ($(wc -c < "$root/opt/sart/sartd.aot") bytes)"
fi
