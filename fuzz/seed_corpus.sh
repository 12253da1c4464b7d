#!/usr/bin/env bash
# Seeds the corpora of the fuzz targets (not committed; see fuzz/.gitignore). Run it once before the
# first `cargo fuzz run`:
#   check    the example programs
#   stf      the examples' STF tests
#   packet   a few well-formed frames (IPv4/TCP, IPv4/UDP with RoCEv2, IPv6/UDP, ARP) and their prefixes
#   capture  the same frames in a pcap file and in a pcapng file
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p corpus/check corpus/stf corpus/packet corpus/capture
cp ../examples/*.sn corpus/check/
cp ../examples/*.stf corpus/stf/
python3 - <<'PY'
import struct

def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF

def eth(ethertype, payload):
    return bytes.fromhex("020000000002020000000001") + struct.pack("!H", ethertype) + payload

def ipv4(proto, payload, ttl=64):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), 1, 0, ttl, proto, 0,
                    bytes([10, 0, 0, 1]), bytes([10, 1, 2, 3]))
    return h[:10] + struct.pack("!H", csum(h)) + h[12:] + payload

tcp = struct.pack("!HHIIBBHHH", 40000, 80, 1, 0, 0x50, 0x02, 65535, 0, 0)
udp = lambda sport, dport, data: struct.pack("!HHHH", sport, dport, 8 + len(data), 0) + data
bth = bytes([0x64, 0, 0xFF, 0xFF, 0, 0, 0, 7, 0x80, 0, 0, 1]) + bytes(64) + bytes(4)
ipv6 = struct.pack("!IHBB16s16s", 0x60000000, 8 + 4, 17, 64, bytes(15) + b"\1", bytes(15) + b"\2")
arp = bytes.fromhex("0001080006040001020000000001") + bytes([10, 0, 0, 1]) + bytes(6) + bytes([10, 0, 0, 2])
frames = {
    "ipv4_tcp": eth(0x0800, ipv4(6, tcp)),
    "ipv4_rocev2": eth(0x0800, ipv4(17, udp(49152, 4791, bth))),
    "ipv4_ttl1": eth(0x0800, ipv4(17, udp(1, 2, b"hi"), ttl=1)),
    "ipv6_udp": eth(0x86DD, ipv6 + udp(1, 2, b"abcd")),
    "arp": eth(0x0806, arp),
}
for name, frame in frames.items():
    open(f"corpus/packet/{name}", "wb").write(frame)
    open(f"corpus/packet/{name}_cut", "wb").write(frame[:len(frame) * 2 // 3])

pcap = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)
for i, frame in enumerate(frames.values()):
    pcap += struct.pack("<IIII", 1_700_000_000 + i, 0, len(frame), len(frame)) + frame
open("corpus/capture/frames.pcap", "wb").write(pcap)

def block(kind, body):
    body += bytes(-len(body) % 4)
    return struct.pack("<II", kind, 12 + len(body)) + body + struct.pack("<I", 12 + len(body))
ng = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
ng += block(1, struct.pack("<HHI", 1, 0, 65535))
for i, frame in enumerate(frames.values()):
    ts = (1_700_000_000 + i) * 1_000_000
    ng += block(6, struct.pack("<IIIII", 0, ts >> 32, ts & 0xFFFFFFFF, len(frame), len(frame)) + frame)
open("corpus/capture/frames.pcapng", "wb").write(ng)
PY
echo "seeded corpus/{check,stf,packet,capture}: $(ls corpus/check | wc -l), $(ls corpus/stf | wc -l), $(ls corpus/packet | wc -l), $(ls corpus/capture | wc -l) inputs"
