#!/usr/bin/env python3
"""Where the time of a bgperf phase goes, from a capture of the target's BGP traffic.

Reads a pcap made by capture-targets.sh (tcpdump in the target's namespace) and cuts the
generators' UPDATEs to the target into bursts (no segment for more than GAP seconds, 0.05 by
default). For each burst it prints how long the generators took to send it, when the target's
first and last segments to the monitor followed (from the burst's first segment), and how long the
target went on after the generators' last segment: the target's own share of the phase, free of
the harness's polling (every 50 ms) and of the time birdc takes.

Generators are 198.51.100.0/24 connecting to the target's port 179; the monitor is 192.0.2.2:179
(testbed/perf's addresses).
"""
import re
import subprocess
import sys

LINE = re.compile(r'(\d+\.\d+) \S+ +(?:In|Out) +IP6? (\S+) > (\S+): .*length (\d+)')


def segments(pcap):
    out = subprocess.run(['tcpdump', '-r', pcap, '-tt', '-n'], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        m = LINE.match(line)
        if m and int(m.group(4)) > 0:
            yield float(m.group(1)), m.group(2), m.group(3), int(m.group(4))


def main():
    pcap = sys.argv[1]
    gap = float(sys.argv[2]) if len(sys.argv) > 2 else 0.05
    segs = list(segments(pcap))
    gens = [s for s in segs if s[1].startswith('198.51.100.') and s[2].endswith('.179')]
    monitor = [s for s in segs if s[2] == '192.0.2.2.179']
    bursts = []
    for s in gens:
        if not bursts or s[0] - bursts[-1][1] > gap:
            bursts.append([s[0], s[0], 0])
        bursts[-1][1] = s[0]
        bursts[-1][2] += s[3]
    for i, (first, last, size) in enumerate(bursts):
        until = bursts[i + 1][0] if i + 1 < len(bursts) else float('inf')
        out = [s for s in monitor if first <= s[0] < until]
        if not out:
            continue
        print('burst %2d: generators %.3f s (%9d B); to the monitor from +%.3f to +%.3f s (%9d B); '
              'after the generators\' last: %+.3f s' % (i, last - first, size, out[0][0] - first,
                                                       out[-1][0] - first, sum(s[3] for s in out),
                                                       out[-1][0] - last))


if __name__ == '__main__':
    main()
