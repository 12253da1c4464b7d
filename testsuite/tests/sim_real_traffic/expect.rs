//! Expectations computed independently of the simulator, with etherparse and the examples' own
//! tables: what kind each packet is, where `l3_router.sn` sends it, and the counters and CSRs.

use super::*;

/// What a captured packet is, told by etherparse.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Kind {
    Arp,
    Icmp4Echo,
    Icmp4Other,
    Nd,
    Icmp6Echo,
    Icmp6Other,
    Tcp4,
    Tcp6,
    Udp4,
    Udp6,
    Other,
}

pub(crate) fn kind(h: &PacketHeaders<'_>) -> Kind {
    match (&h.net, &h.transport) {
        (Some(NetHeaders::Arp(_)), _) => Kind::Arp,
        (Some(NetHeaders::Ipv4(..)), Some(TransportHeader::Tcp(_))) => Kind::Tcp4,
        (Some(NetHeaders::Ipv6(..)), Some(TransportHeader::Tcp(_))) => Kind::Tcp6,
        (Some(NetHeaders::Ipv4(..)), Some(TransportHeader::Udp(_))) => Kind::Udp4,
        (Some(NetHeaders::Ipv6(..)), Some(TransportHeader::Udp(_))) => Kind::Udp6,
        (_, Some(TransportHeader::Icmpv4(i))) => match i.icmp_type {
            Icmpv4Type::EchoRequest(_) | Icmpv4Type::EchoReply(_) => Kind::Icmp4Echo,
            _ => Kind::Icmp4Other,
        },
        (_, Some(TransportHeader::Icmpv6(i))) => match i.icmp_type {
            Icmpv6Type::EchoRequest(_) | Icmpv6Type::EchoReply(_) => Kind::Icmp6Echo,
            Icmpv6Type::NeighborSolicitation | Icmpv6Type::NeighborAdvertisement(_) => Kind::Nd,
            _ => Kind::Icmp6Other,
        },
        _ => Kind::Other,
    }
}

/// The one's complement sum of a header's 16-bit words folded to 16 bits: 0xffff when its checksum
/// is right (RFC 1071).
pub(crate) fn ones_sum(header: &[u8]) -> u16 {
    let mut sum: u32 = header
        .chunks(2)
        .map(|w| u32::from(u16::from_be_bytes([w[0], *w.get(1).unwrap_or(&0)])))
        .sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum as u16
}

pub(crate) const ROUTER_MAC: [u8; 6] = [2, 0, 0, 0, 0, 1];
pub(crate) const ROUTER_IP: [u8; 4] = [10, 0, 0, 1];

/// The route `l3_router.sn` has for a destination: port and next-hop MAC (longest prefix).
pub(crate) fn route(dst: [u8; 4]) -> (u32, [u8; 6]) {
    let d = u32::from_be_bytes(dst);
    let routes: [(u32, u32, u32, [u8; 6]); 3] = [
        (0x0a00_0000, 8, 1, [2, 0, 0, 0, 1, 1]),
        (0x0a01_0000, 16, 2, [2, 0, 0, 0, 2, 1]),
        (0xc0a8_0000, 16, 3, [2, 0, 0, 0, 3, 1]),
    ];
    routes
        .iter()
        .filter(|(net, len, _, _)| d >> (32 - len) == net >> (32 - len))
        .max_by_key(|(_, len, _, _)| *len)
        .map_or((0, [2, 0, 0, 0, 0, 0xfe]), |(_, _, port, mac)| {
            (*port, *mac)
        })
}

/// What `l3_router.sn` must do with one packet: `None` to drop it, else the port and the bytes.
pub(crate) fn router_expectation(p: &[u8], h: &PacketHeaders<'_>) -> Option<(u32, Vec<u8>)> {
    let Some(NetHeaders::Ipv4(ip4, _)) = &h.net else {
        return Some((HOST_PORT, p.to_vec())); // ARP, IPv6, anything else: the host
    };
    if ip4.ihl() != 5 || ip4.destination == ROUTER_IP {
        return Some((HOST_PORT, p.to_vec()));
    }
    if ip4.time_to_live <= 1 {
        return None;
    }
    let (port, next_hop) = route(ip4.destination);
    let mut out = p.to_vec();
    let mut new = ip4.clone();
    new.time_to_live -= 1;
    new.header_checksum = new.calc_header_checksum();
    out[0..6].copy_from_slice(&next_hop);
    out[6..12].copy_from_slice(&ROUTER_MAC);
    out[14..34].copy_from_slice(&new.to_bytes());
    Some((port, out))
}

/// For each packet, how many runs of an `every <period>` block have happened when it is processed.
/// Virtual time starts at the first packet and never goes back (the latest timestamp so far); a run
/// due at time t happens just before the first packet at or after t.
pub(crate) fn every_runs(packets: &[(u64, Vec<u8>)], period_ns: u64) -> Vec<u64> {
    let first = packets.first().map_or(0, |p| p.0);
    let mut now = first;
    packets
        .iter()
        .map(|(ts, _)| {
            now = now.max(*ts);
            (now - first) / period_ns
        })
        .collect()
}

pub(crate) fn csr(result: &scenic_sim::capture::SimResult, name: &str) -> u64 {
    result
        .summary
        .csrs
        .iter()
        .find(|(n, _)| n == name)
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or_else(|| panic!("no CSR {name} in the summary: {:?}", result.summary.csrs))
}

pub(crate) fn counter(
    result: &scenic_sim::capture::SimResult,
    name: &str,
) -> BTreeMap<usize, (u64, u64)> {
    result
        .summary
        .counters
        .iter()
        .filter(|(n, ..)| n == name)
        .map(|(_, cell, p, b)| (*cell, (*p, *b)))
        .collect()
}
