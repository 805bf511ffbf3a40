# Sourced by bin/test and bin/demo: makes sure the Debian packages the tests and the demo run are
# installed. As root it installs what is missing; otherwise it says what to install and stops.

# bird2 frr gobgpd openbgpd exabgp: the routing daemons the test bed runs as real peers.
# iproute2: `ip netns`, veth, bridges. python3: ExaBGP's API helper.
# iputils-ping: pods ping each other in the CNI tests. containernetworking-plugins: the reference
# ptp + host-local plugins the CNI benchmark measures sart-cni against. tcpdump: its BGP decoder
# shows what the speaker put on the wire (SpeakerAs2InteropTest). nftables: the kube-proxy stand-in
# of the cluster on one machine (testbed/cluster), whose pods' HTTP servers are python3.
SART_PACKAGES="iproute2 bird2 frr gobgpd openbgpd exabgp python3 iputils-ping containernetworking-plugins tcpdump nftables"

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
