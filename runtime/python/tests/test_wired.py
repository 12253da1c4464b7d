"""`Emulator(ports=N)`: frames through the emulated NIC's datapath over in-process wires, with
examples/firewall.sn in slot 0 and the slow path through it (docs/device.md §2.3). Expectations
from firewall.sn: a UDP packet to port 5000 from 10.1.2.3 matches no constant ACL entry and goes
to the host unchanged; a non-IPv4 frame (ARP) is not policed and goes to the host too."""

import struct

import pytest

import scenic


def udp_frame(src: bytes, payload: int = 20) -> bytes:
    header = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 28 + payload, 0, 0, 64, 17, 0, src, bytes([10, 0, 0, 1]))
    words = struct.unpack("!10H", header)
    total = sum(words)
    while total > 0xFFFF:
        total = (total & 0xFFFF) + (total >> 16)
    header = header[:10] + struct.pack("!H", ~total & 0xFFFF) + header[12:]
    udp = struct.pack("!HHHH", 4321, 5000, 8 + payload, 0)
    return bytes.fromhex("020000000001020000000002" "0800") + header + udp + bytes(payload)


ARP = bytes.fromhex("ffffffffffff020000000002" "0806") + bytes.fromhex(
    "0001080006040001" "020000000002" "0a000002" "000000000000" "0a000001"
)


def test_frames_cross_the_slot_and_come_back_unchanged(packages):
    with scenic.Emulator(ports=2) as emu:
        dev = scenic.Device(emu.device)
        assert dev.slow_path_slot is None, "reset value 0xFF: straight to the host"
        slot = dev.slot(0)
        slot.load(str(packages("firewall")))
        dev.slow_path_slot = 0
        assert dev.slow_path_slot == 0
        frame = udp_frame(bytes([10, 1, 2, 3]))
        emu.send(frame)
        assert emu.receive(timeout=5) == frame
        emu.send(ARP, port=1)
        assert emu.receive(timeout=5) == ARP
        assert emu.receive(timeout=0.05) is None
        assert emu.receive(port=0) is None, "nothing goes out of the network ports"
        assert slot.register("pkt_seq") == 2


def test_wires_refuse_what_they_cannot_carry():
    with scenic.Emulator() as plain:
        with pytest.raises(scenic.ScenicError, match="no network port 0"):
            plain.send(b"\x00" * 60)
        with pytest.raises(scenic.ScenicError, match="no host side"):
            plain.receive()
    with scenic.Emulator(ports=1) as emu:
        with pytest.raises(scenic.ScenicError, match="no network port 3"):
            emu.send(b"\x00" * 60, port=3)
        with pytest.raises(scenic.ScenicError, match="1 to 16368 bytes"):
            emu.send(b"")
        with pytest.raises(scenic.ScenicError, match="1 to 16368 bytes"):
            emu.send(b"\x00" * 16369)
        with pytest.raises(scenic.ScenicError, match="timeout"):
            emu.receive(timeout=-1)
        dev = scenic.Device(emu.device)
        with pytest.raises(scenic.ScenicError):
            dev.slow_path_slot = 9
        assert dev.slow_path_slot is None, "the refused write kept the old value"
    with pytest.raises(scenic.ScenicError, match="1 to 4"):
        scenic.Emulator(ports=5)
