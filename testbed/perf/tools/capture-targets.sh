#!/usr/bin/env bash
# Captures the BGP traffic of every bgperf target while bgperf runs (as root; needs tcpdump,
# which the set-up does not install: apt-get install tcpdump), for
# wire-timeline.py: for each target namespace bgperf creates (…-tgt), tcpdump writes the
# headers of its TCP port 179 segments to DIR/<namespace>.pcap. Stops when DIR/stop exists;
# it ends only the tcpdump processes it started.
#
#   testbed/perf/tools/capture-targets.sh /tmp/wire & 
#   BGPERF_NO_BUILD=1 bin/bgperf --scenarios d --targets sart,bird
#   touch /tmp/wire/stop; wait
#   testbed/perf/tools/wire-timeline.py /tmp/wire/*-1-tgt.pcap
set -uo pipefail
dir="${1:?usage: capture-targets.sh DIR}"
mkdir -p "$dir"
rm -f "$dir/stop"
seen=" "
pids=()
while [ ! -e "$dir/stop" ]; do
  for ns in $(ip netns list | awk '{print $1}' | grep -- '-tgt$'); do
    case "$seen" in *" $ns "*) continue ;; esac
    seen="$seen$ns "
    ip netns exec "$ns" tcpdump -i any -n -s 80 -w "$dir/$ns.pcap" 'tcp port 179' >/dev/null 2>&1 &
    pids+=("$!")
  done
  sleep 0.2
done
sleep 1 # the last target's namespace goes with its run; tcpdump has written what it saw
for p in "${pids[@]}"; do
  kill "$p" 2>/dev/null
done
wait
