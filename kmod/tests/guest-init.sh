#!/bin/sh
# /init of the QEMU guest that scripts/test-kmod.sh boots (busybox initramfs; Debian's kernel).
# Runs the kmod scenario against the emulated NIC behind ivshmem-plain and prints, on the serial
# console, "RESULT ok|fail NAME detail" lines (counted by the host), "FIGURE name value" lines
# and "GUEST DONE" at the end. Network: guest 10.77.9.1/24 on scenic0, the host namespace
# 10.77.9.2 behind the emulated NIC's port. Expectations come from docs/device.md and the
# firewall example's ACL (examples/firewall.sn): a deny entry for ICMP from the peer drops its
# echo replies in the SCU.
export PATH=/usr/local/sbin:/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /run /tmp /dev/pts
echo "GUEST UPTIME $(cut -d' ' -f1 /proc/uptime)"

PEER=10.77.9.2
DEV=/dev/scenic0
ok() { echo "RESULT ok $1 $2"; }
fail() { echo "RESULT fail $1 $2"; }
check() { name=$1; shift; if "$@" >/tmp/out 2>&1; then ok "$name" "$(tail -1 /tmp/out)"; else fail "$name" "$(tail -3 /tmp/out | tr '\n' ' ')"; fi; }
pings() { ping -c "$1" -W 2 "$PEER" >/tmp/ping 2>&1; }
noping() { ! ping -c 2 -W 2 "$PEER" >/dev/null 2>&1; }

check insmod insmod /scenic.ko
dmesg | grep -q "SCENIC 1.0" && ok probe "$(dmesg | grep 'SCENIC 1.0' | tail -1)" || fail probe "$(dmesg | tail -5 | tr '\n' ' ')"
check chardev test -c $DEV
# The second ivshmem device (zeros, no SCENIC magic) stays unclaimed: one netdev, one driver bound.
N=$(ls /sys/class/net | grep -c '^scenic')
B=$(ls -d /sys/bus/pci/drivers/scenic/0000:* 2>/dev/null | wc -l)
I=$(grep -l 0x1110 /sys/bus/pci/devices/*/device | wc -l)
if [ "$N" = 1 ] && [ "$B" = 1 ] && [ "$I" = 2 ] && dmesg | grep -q "not ours"; then
	ok unrelated_ivshmem_unclaimed "2 ivshmem functions, 1 bound, $(dmesg | grep 'not ours' | head -1 | cut -c16-)"
else
	fail unrelated_ivshmem_unclaimed "netdevs $N bound $B ivshmem $I"
fi
check netdev test -d /sys/class/net/scenic0
ip link set scenic0 up && ip addr add 10.77.9.1/24 dev scenic0
sleep 1
check carrier grep -q 1 /sys/class/net/scenic0/carrier
echo "GUEST READY"
check ping_slow_path pings 3

# ioctls and mmap rules before any package is loaded (kmod/tests/ioctl_test.c).
/ioctl_test $DEV

check load_firewall scenic load $DEV 0 /pkg/firewall
check ping_through_scu pings 3
# Slot 0's counter of one field of `scenic status` (device.md 3.2), e.g. pkt_seq, drop_program.
slot0() { scenic status $DEV | grep -A1 '^  slot 0' | grep -o "$1 [0-9]*" | awk '{print $2}'; }
N=$(slot0 pkt_seq)
if [ "${N:-0}" -gt 0 ] 2>/dev/null; then ok scu_saw_pings "slot 0 pkt_seq $N"; else fail scu_saw_pings "pkt_seq '$N'"; fi
scenic table $DEV 0 add acl "$PEER/32" _ 1 _ deny >/tmp/handle 2>&1
H=$(tail -1 /tmp/handle | tr -cd '0-9')
if [ -n "$H" ]; then ok acl_add "handle $H"; else fail acl_add "$(cat /tmp/handle)"; fi
check acl_blocks_ping noping
N=$(slot0 drop_program)
if [ "${N:-0}" -gt 0 ] 2>/dev/null; then ok acl_dropped_in_scu "slot 0 drop_program $N"; else fail acl_dropped_in_scu "drop_program '$N'"; fi
check acl_del scenic table $DEV 0 del acl "$H"
check ping_after_acl_del pings 3
check swap_from_guest scenic swap $DEV 0 /pkg/firewall
check ping_after_swap pings 3

# Statistics and moderation.
check ethtool_S sh -c "ethtool -S scenic0 | grep -E 'dev_host_rx_pkts: [1-9]'"
# iproute2's ip by path: busybox's shell prefers its own applets.
/usr/local/sbin/ip -s link show scenic0 >/tmp/ips 2>&1
RXP=$(grep -A1 'RX:' /tmp/ips | tail -1 | awk '{print $2}')
if [ "${RXP:-0}" -gt 0 ] 2>/dev/null; then ok ip_s_link "rx packets $RXP"; else fail ip_s_link "$(cat /tmp/ips | tr '\n' ' ')"; fi
check ethtool_C ethtool -C scenic0 rx-usecs 50 rx-frames 8
check ethtool_c sh -c "ethtool -c scenic0 | grep -E 'rx-usecs: *50' && ethtool -c scenic0 | grep -E 'rx-frames: *8'"
check ping_after_coalesce pings 3
check mtu_9000 ip link set scenic0 mtu 9000
check ping_jumbo ping -c 2 -W 3 -s 8000 "$PEER"
check mtu_1500 ip link set scenic0 mtu 1500
check mtu_too_big sh -c "! ip link set scenic0 mtu 9600"

# Figures: RTT (default moderation) and TCP throughput (host -> guest over HTTP, 8 MiB).
ethtool -C scenic0 rx-usecs 20 rx-frames 32
ping -c 20 -i 0.2 -W 2 "$PEER" >/tmp/rtt 2>&1
echo "FIGURE ping_rtt $(tail -1 /tmp/rtt)"
T0=$(cut -d' ' -f1 /proc/uptime)
if wget -q -O /tmp/blob "http://$PEER:8000/blob"; then
	T1=$(cut -d' ' -f1 /proc/uptime)
	B=$(wc -c </tmp/blob)
	echo "FIGURE tcp_rx_bytes $B seconds $(awk "BEGIN {print $T1 - $T0}")"
	test "$B" = 8388608 && ok tcp_rx "$B bytes" || fail tcp_rx "$B bytes"
else
	fail tcp_rx "wget failed"
fi
rm -f /tmp/blob

# Global reset through the char device: the netdev comes back on fresh rings.
check reset_ioctl /ioctl_test --reset $DEV
sleep 1
check ping_after_reset pings 3

# Unload while traffic flows, then reload.
ping -i 0.05 "$PEER" >/dev/null 2>&1 &
PING=$!
sleep 1
check rmmod_under_traffic rmmod scenic
kill $PING 2>/dev/null
check netdev_gone sh -c "! test -d /sys/class/net/scenic0"
check reinsmod insmod /scenic.ko
ip link set scenic0 up && ip addr add 10.77.9.1/24 dev scenic0
sleep 1
check ping_after_reload pings 3
check rmmod_again rmmod scenic
if dmesg | grep -E "BUG|WARNING|Oops|leak|general protection" >/tmp/warn; then
	fail kernel_clean "$(head -3 /tmp/warn | tr '\n' ' ')"
else
	ok kernel_clean "no BUG/WARNING/Oops in dmesg"
fi
echo "GUEST DONE"
poweroff -f
