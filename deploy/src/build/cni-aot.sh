#!/bin/sh
# Trains sart-cni's JDK 25 AOT caches for the image, ROOT/opt/sart/cni/sart-cni.aot and
# sart-cni-version.aot (base.sh put the launcher, the jar and the jlink'ed sart-cni.jre there): the
# plugin's own training
# (sart-cni/src/build/train.sh, as for sart-cni/target/dist) run on that runtime and that jar, with
# the modification time Jib gives every file of the image (EPOCH_PLUS_SECOND), since the cache
# records the jar's and the runtime's. The runtime and the jar may then move together: to
# /opt/sart/cni in the image, and to the host's /opt/cni/bin by the CNI installer (which keeps their
# times). ImageTest and CniInstallerTest check that the plugin starts from it there.
# Arguments: ROOT, the JDK that runs the stand-in agent (not recorded), skip (true: no cache).
set -eu
root=$1 java_home=$2 skip=$3
cni=$root/opt/sart/cni
rm -f "$cni/sart-cni.aot" "$cni/sart-cni-version.aot"
if [ "$skip" = true ]; then
  echo "cni-aot.sh: no sart-cni AOT cache in the image (sart.aot.skip)"
  exit 0
fi
touch -d @1 "$cni/sart-cni.jar" "$cni/sart-cni.jre/lib/modules"
sh "$(dirname "$0")/../../../sart-cni/src/build/train.sh" "$java_home/bin/java" \
  "$cni/sart-cni.jre/bin/java" "$cni/sart-cni.jar" "$cni/sart-cni.aot"
echo "cni-aot.sh: $cni/sart-cni.aot ($(wc -c < "$cni/sart-cni.aot") bytes)," \
  "$cni/sart-cni-version.aot ($(wc -c < "$cni/sart-cni-version.aot") bytes)"
