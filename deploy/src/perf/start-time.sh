#!/bin/bash
# start-time.sh ROOT N [VAR=VALUE]... -- ARGV: runs ARGV N times in an unpacked image (unpack.sh's
# ROOT) as ImageTest runs programs (user 65532, PID and mount namespaces with /proc, chroot), with
# those variables; prints p50/min/max of the wall time and of the CPU time (perf stat's task-clock
# of the whole process tree: unshare, chroot, the launcher's sh, the JVM) and the exit codes seen.
set -eu
root=$1 n=$2
shift 2
envs=()
while [ "$1" != -- ]; do envs+=("$1"); shift; done
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for ((i = 0; i < n; i++)); do
  s=$(date +%s%N)
  rc=0
  perf stat -x, -e task-clock -o "$tmp/perf" env "${envs[@]}" unshare --mount --pid --fork \
    --mount-proc="$root/proc" chroot --userspec=65532:65532 "$root" "$@" >/dev/null 2>&1 || rc=$?
  e=$(date +%s%N)
  echo "$(((e - s) / 1000000)) $(awk -F, '/task-clock/ {printf "%d", $1}' "$tmp/perf") $rc"
done >"$tmp/runs"
awk '{print $1}' "$tmp/runs" | sort -n >"$tmp/wall"
awk '{print $2}' "$tmp/runs" | sort -n >"$tmp/cpu"
rcs=$(awk '{print $3}' "$tmp/runs" | sort -u | tr '\n' ' ')
paste "$tmp/wall" "$tmp/cpu" | awk -v rcs="$rcs" '{ w[NR] = $1; c[NR] = $2 } END {
  m = int((NR + 1) / 2)
  printf "wall p50 %d (min %d max %d) ms  cpu p50 %d (min %d max %d) ms  n=%d exit=%s\n",
    w[m], w[1], w[NR], c[m], c[1], c[NR], NR, rcs }'
