#!/usr/bin/env bash
# Captures real BGP sessions between FRR, BIRD and GoBGP and cuts them into one file per message
# (see README.md). Needs root, frr, bird2, gobgpd, tcpdump and python3.
#
#   sudo bgp/src/test/resources/captured/capture.sh [OUTDIR]
#
# Three network namespaces in a triangle, one eBGP session per link over IPv4 carrying IPv4 and
# IPv6 unicast, with communities, large communities, ADD-PATH and graceful restart; plus a second
# FRR-BIRD session over IPv6 that carries IPv4 routes with IPv6 next hops (RFC 8950):
#
#   frr   AS 65001       192.0.2.1/30   ---- 192.0.2.2/30     bird  AS 65002
#                        198.51.100.1/30 --- 198.51.100.2/30  gobgp AS 4200000003
#   bird                 203.0.113.1/30 ---- 203.0.113.2/30   gobgp
#
# After the sessions converge it asks for route refreshes, withdraws prefixes and shuts the
# sessions down with a shutdown communication, so every message type appears.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here}
run="sarttcap$$"
work=$(mktemp -d "/tmp/$run.XXXX")
chmod 755 "$work"
ns_frr="$run-frr" ns_bird="$run-bird" ns_gobgp="$run-gobgp"
pids=()

log() { echo "capture: $*" >&2; }

cleanup() {
  set +e
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null
  done
  for f in "$work"/frr/*.pid; do
    [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null
  done
  [ -f "$work/bird/bird.pid" ] && kill "$(cat "$work/bird/bird.pid")" 2>/dev/null
  sleep 1
  for ns in "$ns_frr" "$ns_bird" "$ns_gobgp"; do
    ip netns del "$ns" 2>/dev/null
  done
  rm -rf "$work"
}
trap cleanup EXIT

in_ns() { local ns=$1; shift; ip netns exec "$ns" "$@"; }

# --- topology -------------------------------------------------------------------------------
for ns in "$ns_frr" "$ns_bird" "$ns_gobgp"; do
  ip netns add "$ns"
  in_ns "$ns" ip link set lo up
done
link() { # link NS_A IF_A ADDR4_A ADDR6_A NS_B IF_B ADDR4_B ADDR6_B
  ip link add "$2" netns "$1" type veth peer name "$6" netns "$5"
  in_ns "$1" ip addr add "$3" dev "$2"
  in_ns "$1" ip -6 addr add "$4" dev "$2" nodad
  in_ns "$1" ip link set "$2" up
  in_ns "$5" ip addr add "$7" dev "$6"
  in_ns "$5" ip -6 addr add "$8" dev "$6" nodad
  in_ns "$5" ip link set "$6" up
}
link "$ns_frr" fb0 192.0.2.1/30 2001:db8:12::1/64 "$ns_bird" bf0 192.0.2.2/30 2001:db8:12::2/64
link "$ns_frr" fg0 198.51.100.1/30 2001:db8:13::1/64 "$ns_gobgp" gf0 198.51.100.2/30 2001:db8:13::2/64
link "$ns_bird" bg0 203.0.113.1/30 2001:db8:23::1/64 "$ns_gobgp" gb0 203.0.113.2/30 2001:db8:23::2/64

# --- capture, before any daemon starts so that the OPENs are in it ----------------------------
mkdir -p "$work/pcap"
for spec in "$ns_frr:fb0:frr-bird" "$ns_frr:fg0:frr-gobgp" "$ns_bird:bg0:bird-gobgp"; do
  IFS=: read -r ns dev name <<<"$spec"
  ip netns exec "$ns" tcpdump -i "$dev" -s 0 -U -w "$work/pcap/$name.pcap" 'tcp port 179' 2>/dev/null &
  pids+=($!)
done
sleep 1

# --- FRR 8.4: zebra (for the interface addresses used as IPv6 next hops) and bgpd -------------
mkdir -p "$work/frr"
cat >"$work/frr/zebra.conf" <<'EOF'
hostname frr
EOF
cat >"$work/frr/bgpd.conf" <<'EOF'
hostname frr
route-map TAG permit 10
 set community 65001:100 65001:200
 set large-community 65001:1:1
exit
router bgp 65001
 bgp router-id 192.0.2.1
 no bgp ebgp-requires-policy
 no bgp network import-check
 bgp graceful-restart
 neighbor 192.0.2.2 remote-as 65002
 neighbor 192.0.2.2 timers connect 1
 neighbor 198.51.100.2 remote-as 4200000003
 neighbor 198.51.100.2 timers connect 1
 neighbor 2001:db8:12::2 remote-as 65002
 neighbor 2001:db8:12::2 timers connect 1
 neighbor 2001:db8:12::2 capability extended-nexthop
 address-family ipv4 unicast
  neighbor 2001:db8:12::2 activate
  network 192.0.2.128/26 route-map TAG
  network 192.0.2.192/27 route-map TAG
  neighbor 192.0.2.2 addpath-tx-all-paths
  neighbor 198.51.100.2 addpath-tx-all-paths
 exit-address-family
 address-family ipv6 unicast
  network 2001:db8:a1::/48 route-map TAG
  network 2001:db8:a2::/48 route-map TAG
  neighbor 192.0.2.2 activate
  neighbor 192.0.2.2 addpath-tx-all-paths
  neighbor 198.51.100.2 activate
  neighbor 198.51.100.2 addpath-tx-all-paths
 exit-address-family
exit
EOF
chown -R frr:frr "$work/frr"
frr_common=(-d -z "$work/frr/zserv.api" --vty_socket "$work/frr" -P 0 -u frr -g frr)
in_ns "$ns_frr" /usr/lib/frr/zebra "${frr_common[@]}" -f "$work/frr/zebra.conf" -i "$work/frr/zebra.pid"
sleep 0.5
in_ns "$ns_frr" /usr/lib/frr/bgpd "${frr_common[@]}" -n -f "$work/frr/bgpd.conf" -i "$work/frr/bgpd.pid"
vtysh() { in_ns "$ns_frr" /usr/bin/vtysh --vty_socket "$work/frr" "$@"; }

# --- BIRD 2.0.12 -----------------------------------------------------------------------------
mkdir -p "$work/bird"
cat >"$work/bird/bird.conf" <<'EOF'
router id 192.0.2.2;
log stderr all;
protocol device { scan time 10; }
filter add_communities {
  bgp_community.add((65002, 100));
  bgp_large_community.add((65002, 1, 1));
  accept;
}
protocol static static4 {
  ipv4 { import filter add_communities; };
  route 198.51.100.128/26 blackhole;
  route 198.51.100.192/27 blackhole;
}
protocol static static6 {
  ipv6 { import filter add_communities; };
  route 2001:db8:b1::/48 blackhole;
  route 2001:db8:b2::/48 blackhole;
}
protocol bgp frr {
  local 192.0.2.2 as 65002;
  neighbor 192.0.2.1 as 65001;
  connect delay time 1;
  connect retry time 2;
  graceful restart on;
  long lived graceful restart on;
  enable extended messages on;
  ipv4 { import all; export all; add paths on; };
  ipv6 { import all; export all; add paths on; next hop address 2001:db8:12::2; };
}
protocol bgp frr6 {
  local 2001:db8:12::2 as 65002;
  neighbor 2001:db8:12::1 as 65001;
  connect delay time 1;
  connect retry time 2;
  ipv4 { import all; export all; extended next hop on; };
}
protocol bgp gobgp {
  local 203.0.113.1 as 65002;
  neighbor 203.0.113.2 as 4200000003;
  connect delay time 1;
  connect retry time 2;
  graceful restart on;
  ipv4 { import all; export all; add paths on; };
  ipv6 { import all; export all; add paths on; next hop address 2001:db8:23::1; };
}
EOF
in_ns "$ns_bird" bird -c "$work/bird/bird.conf" -s "$work/bird/bird.ctl" -P "$work/bird/bird.pid"
birdc() { in_ns "$ns_bird" birdc -s "$work/bird/bird.ctl" "$@"; }

# --- GoBGP 3.10 ------------------------------------------------------------------------------
mkdir -p "$work/gobgp"
gobgp_neighbor() { # ADDRESS AS
  cat <<EOF
[[neighbors]]
  [neighbors.config]
    neighbor-address = "$1"
    peer-as = $2
  [neighbors.timers.config]
    connect-retry = 1
  [neighbors.graceful-restart.config]
    enabled = true
    restart-time = 90
  [[neighbors.afi-safis]]
    [neighbors.afi-safis.config]
      afi-safi-name = "ipv4-unicast"
    [neighbors.afi-safis.add-paths.config]
      receive = true
      send-max = 4
    [neighbors.afi-safis.mp-graceful-restart.config]
      enabled = true
  [[neighbors.afi-safis]]
    [neighbors.afi-safis.config]
      afi-safi-name = "ipv6-unicast"
    [neighbors.afi-safis.add-paths.config]
      receive = true
      send-max = 4
    [neighbors.afi-safis.mp-graceful-restart.config]
      enabled = true
EOF
}
{
  cat <<'EOF'
[global.config]
  as = 4200000003
  router-id = "198.51.100.2"
EOF
  gobgp_neighbor 198.51.100.1 65001
  gobgp_neighbor 203.0.113.1 65002
} >"$work/gobgp/gobgpd.toml"
ip netns exec "$ns_gobgp" gobgpd -f "$work/gobgp/gobgpd.toml" -t toml -l warn >"$work/gobgp/gobgpd.log" 2>&1 &
pids+=($!)
gobgp() { in_ns "$ns_gobgp" gobgp "$@"; }
for i in $(seq 50); do gobgp global >/dev/null 2>&1 && break; sleep 0.2; done
gobgp global rib add -a ipv4 203.0.113.128/26 community 65003:100 large-community 4200000003:1:1
gobgp global rib add -a ipv4 203.0.113.192/27 community 65003:100,65003:200
gobgp global rib add -a ipv6 2001:db8:c1::/48 community 65003:100 large-community 4200000003:1:1
gobgp global rib add -a ipv6 2001:db8:c2::/48 community 65003:100

# --- converge, refresh, withdraw, shut down ---------------------------------------------------
established() { # (no "cmd | grep -q" under pipefail: grep quits early and the writer gets SIGPIPE)
  local bird gobgp
  bird=$(birdc show protocols)
  gobgp=$(gobgp neighbor 198.51.100.1 2>/dev/null || true)
  [ "$(grep -c Established <<<"$bird")" = 3 ] && grep -qi 'BGP state = established' <<<"$gobgp"
}
up=false
for i in $(seq 360); do established && { up=true; break; }; sleep 0.5; done
$up || {
  log "sessions did not come up"
  birdc show protocols >&2
  gobgp neighbor >&2
  vtysh -c 'show bgp summary' >&2
  exit 1
}
log "sessions established"
sleep 5

vtysh -c 'clear bgp ipv4 unicast 192.0.2.2 soft in' -c 'clear bgp ipv6 unicast 198.51.100.2 soft in'
birdc reload in frr >/dev/null
gobgp neighbor 203.0.113.1 softresetin
sleep 2

gobgp global rib del -a ipv4 203.0.113.192/27
gobgp global rib del -a ipv6 2001:db8:c2::/48
vtysh -c 'configure terminal' -c 'router bgp 65001' -c 'address-family ipv4 unicast' \
  -c 'no network 192.0.2.192/27' -c 'exit-address-family' -c 'address-family ipv6 unicast' \
  -c 'no network 2001:db8:a2::/48'
sleep 3

vtysh -c 'configure terminal' -c 'router bgp 65001' -c 'neighbor 192.0.2.2 shutdown message maintenance of frr'
birdc disable gobgp '"bird goes down"' >/dev/null
gobgp neighbor 198.51.100.1 disable
sleep 2

for pid in "${pids[@]:0:3}"; do kill -INT "$pid"; done
sleep 1
rm -rf "$out"/*-to-*-c*
python3 "$here/extract.py" "$out" \
  "192.0.2.1=frr,192.0.2.2=bird,198.51.100.1=frr,198.51.100.2=gobgp,203.0.113.1=bird,203.0.113.2=gobgp,2001:db8:12::1=frr,2001:db8:12::2=bird" \
  "$work"/pcap/*.pcap
