# Sourced by bin/test and bin/demo: makes sure the Debian packages the tests and the demo run are
# installed. As root it installs what is missing; otherwise it says what to install and stops.

# bird2 frr gobgpd openbgpd exabgp: the routing daemons the test bed runs as real peers.
# iproute2: `ip netns`, veth, bridges, `ss`. python3: ExaBGP's API helper.
# iputils-ping: pods ping each other in the CNI tests. containernetworking-plugins: the reference
# ptp + host-local plugins the CNI benchmark measures sart-cni against. tcpdump: its BGP decoder
# shows what the speaker put on the wire (SpeakerAs2InteropTest). nftables: `nft` drops packets
# between peers (SpeakerOptionsInteropTest). curl: HTTP from inside a namespace (SartdMetricsTest).
# procps: `sysctl` and `kill` (not in a minimal Debian). kubectl: `kubectl kustomize` renders
# deploy/'s overlays (KustomizeTest); it comes with this kind of machine (no Debian archive has a
# kubectl new enough), so this only checks it is there. The cluster on one machine (testbed/cluster)
# uses nftables for its kube-proxy stand-in and python3 for its pods' HTTP servers. mount and
# libcap2-bin (`capsh`): deploy's tests run the image's containers with the mounts and capabilities
# their manifests give them.
# The test bed refuses to run a program that is not declared with its package
# (testbed/harness Programs.java); ProgramsTest checks each declaration against this list.
SART_PACKAGES="iproute2 bird2 frr gobgpd openbgpd exabgp python3 iputils-ping containernetworking-plugins tcpdump nftables curl procps kubectl mount libcap2-bin"

sart_missing_packages() {
  missing=""
  for p in $SART_PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      missing="$missing $p"
    fi
  done
  printf '%s' "${missing# }"
}

sart_ensure_packages() {
  missing=$(sart_missing_packages)
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    echo "missing Debian packages: $missing — run this as root (it installs them) or: sudo apt-get install $missing" >&2
    exit 1
  fi
  echo "installing Debian packages: $missing" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # shellcheck disable=SC2086
  apt-get install -y -qq --no-install-recommends $missing >/dev/null
  missing=$(sart_missing_packages)
  if [ -n "$missing" ]; then
    echo "could not install: $missing" >&2
    exit 1
  fi
}

sart_require_root() {
  if [ "$(id -u)" -ne 0 ]; then
    echo "$1 needs root: it creates network namespaces and runs routing daemons in them (try: sudo $0)" >&2
    exit 1
  fi
}
