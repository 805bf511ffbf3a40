#!/bin/sh
# unpack.sh TAR DIR: the image's layers (target/sart-image.tar, an OCI layout) in order into DIR/root,
# as ImageTest's ImageRoot does, plus what a container runtime gives every container and the chroot
# lacks: /dev/null, zero, random, urandom (without /dev/urandom the JDK seeds SecureRandom from
# thread timing, seconds of CPU in netty's first use) and a writable /tmp. Root only (mknod).
set -eu
tar=$1 dir=$2
rm -rf "$dir"
mkdir -p "$dir/oci" "$dir/root/proc" "$dir/root/dev"
tar -xf "$tar" -C "$dir/oci"
blob() { echo "$dir/oci/blobs/sha256/${1#sha256:}"; }
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $1" "$2"; }
manifest=$(json 'print(d["manifests"][0]["digest"])' "$dir/oci/index.json")
for layer in $(json '[print(l["digest"]) for l in d["layers"]]' "$(blob "$manifest")"); do
  tar --warning=no-unknown-keyword -xzf "$(blob "$layer")" -C "$dir/root"
done
for d in "null 1 3" "zero 1 5" "random 1 8" "urandom 1 9"; do
  # shellcheck disable=SC2086
  set -- $d
  mknod -m 666 "$dir/root/dev/$1" c "$2" "$3"
done
chmod 1777 "$dir/root/tmp"
