#!/usr/bin/env python3
"""Cuts the BGP messages out of pcap captures (tcpdump -w) into one file per message.

usage: extract.py OUTDIR NAMES PCAP...
  NAMES  comma-separated ip=speaker pairs, e.g. 192.0.2.1=frr,192.0.2.2=bird
Writes OUTDIR/<sender>-to-<receiver>[-v6]-c<N>/<NNN>-<type>.bin, one folder per TCP connection
and direction; "-v6" marks connections over IPv6, N counts the connections between the pair over
that transport, in the order of their SYN. Only the first KEEPALIVE of each direction is kept.
Standard library only.
"""
import os
import socket
import struct
import sys

TYPES = {1: "open", 2: "update", 3: "notification", 4: "keepalive", 5: "route-refresh"}


def packets(path):
    with open(path, "rb") as f:
        data = f.read()
    magic = data[:4]
    if magic == b"\xd4\xc3\xb2\xa1":
        endian = "<"
    elif magic == b"\xa1\xb2\xc3\xd4":
        endian = ">"
    else:
        sys.exit(f"{path}: not a classic pcap file")
    linktype = struct.unpack(endian + "I", data[20:24])[0]
    if linktype != 1:
        sys.exit(f"{path}: link type {linktype}, expected Ethernet")
    i = 24
    while i + 16 <= len(data):
        _, _, caplen, _ = struct.unpack(endian + "IIII", data[i:i + 16])
        yield data[i + 16:i + 16 + caplen]
        i += 16 + caplen


def tcp_segments(frame):
    ethertype = struct.unpack(">H", frame[12:14])[0]
    p = frame[14:]
    if ethertype == 0x0800:
        ihl = (p[0] & 0x0F) * 4
        if p[9] != 6:
            return None
        total = struct.unpack(">H", p[2:4])[0]
        src, dst = socket.inet_ntop(socket.AF_INET, p[12:16]), socket.inet_ntop(socket.AF_INET, p[16:20])
        tcp = p[ihl:total]
    elif ethertype == 0x86DD:
        if p[6] != 6:
            return None
        plen = struct.unpack(">H", p[4:6])[0]
        src, dst = socket.inet_ntop(socket.AF_INET6, p[8:24]), socket.inet_ntop(socket.AF_INET6, p[24:40])
        tcp = p[40:40 + plen]
    else:
        return None
    sport, dport, seq = struct.unpack(">HHI", tcp[:8])
    offset = (tcp[12] >> 4) * 4
    flags = tcp[13]
    return (src, sport, dst, dport), seq, flags, tcp[offset:]


def main():
    outdir, names, pcaps = sys.argv[1], sys.argv[2], sys.argv[3:]
    speaker = dict(pair.split("=") for pair in names.split(","))
    order = []  # the initiator's direction of each connection, in the order of the SYNs
    streams = {}  # (src, sport, dst, dport) -> {"isn": int, "segments": {seq: bytes}}
    for path in pcaps:
        for frame in packets(path):
            seg = tcp_segments(frame)
            if seg is None:
                continue
            key, seq, flags, payload = seg
            if flags & 0x02:  # SYN: a new connection in this direction
                streams[key] = {"isn": seq + 1, "segments": {}}
                if not flags & 0x10:
                    order.append(key)
                continue
            if payload and key in streams:
                streams[key]["segments"].setdefault(seq, payload)
    counters = {}
    numbering = {}  # the two endpoints of a connection -> its number between that pair of speakers
    for key in order:
        pair = tuple(sorted([speaker[key[0]], speaker[key[2]]])) + (":" in key[0],)
        counters[pair] = counters.get(pair, 0) + 1
        numbering[frozenset([key[:2], key[2:]])] = counters[pair]
    written = 0
    for key, stream in streams.items():
        conn = numbering.get(frozenset([key[:2], key[2:]]))
        if conn is None:
            continue
        data = bytearray()
        expected = stream["isn"]
        for seq in sorted(stream["segments"], key=lambda s: (s - stream["isn"]) & 0xFFFFFFFF):
            payload = stream["segments"][seq]
            skip = (expected - seq) & 0xFFFFFFFF
            if skip >= len(payload) and skip < 0x80000000:
                continue  # a retransmission of bytes already seen
            if skip >= 0x80000000:
                sys.exit(f"gap in the stream {key}")
            data += payload[skip:]
            expected = (seq + len(payload)) & 0xFFFFFFFF
        if not data:
            continue
        transport = "-v6" if ":" in key[0] else ""
        folder = os.path.join(outdir, f"{speaker[key[0]]}-to-{speaker[key[2]]}{transport}-c{conn}")
        os.makedirs(folder, exist_ok=True)
        i, n, keepalive = 0, 0, False
        while i + 19 <= len(data):
            length = struct.unpack(">H", data[i + 16:i + 18])[0]
            if data[i:i + 16] != b"\xff" * 16 or length < 19 or i + length > len(data):
                sys.exit(f"{key}: not a BGP stream at octet {i}")
            kind = TYPES.get(data[i + 18], f"type{data[i + 18]}")
            if kind != "keepalive" or not keepalive:
                with open(os.path.join(folder, f"{n:03d}-{kind}.bin"), "wb") as f:
                    f.write(data[i:i + length])
                written += 1
            keepalive |= kind == "keepalive"
            n += 1
            i += length
    print(f"{written} messages written to {outdir}")


if __name__ == "__main__":
    main()
