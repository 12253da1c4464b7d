//! Cutting the payload stream out of a packet for scus on `rdma(qp)` or `tcp(flow)`: which bytes
//! are payload, which flow they belong to, and whether they end a message (the rules are in
//! [`super::capture`]'s documentation). Also owns the numbering of TCP connections.

use std::collections::HashMap;

/// The payload of one packet: the flow, the bytes (a range of the packet) and whether they end the
/// flow's message.
pub(super) struct Payload {
    pub(super) flow: u64,
    pub(super) range: std::ops::Range<usize>,
    pub(super) last: bool,
}

/// TCP connections numbered in order of first appearance, as the NIC's stack numbers sessions.
#[derive(Debug, Default)]
pub(super) struct TcpSessions(HashMap<ConnectionKey, u64>);

/// A connection: its ports and addresses as they appear in the packet (IPv4 or IPv6), held
/// inline so that looking one up allocates nothing. `len` keeps keys of different lengths apart
/// (an IPv4 key is not an IPv6 key that happens to end in zeros).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct ConnectionKey {
    len: u8,
    bytes: [u8; 36],
}

impl ConnectionKey {
    /// `ports` then `addresses` (4 + 8 or 4 + 32 bytes; anything past 36 cannot occur).
    fn new(ports: &[u8], addresses: &[u8]) -> Self {
        let mut bytes = [0u8; 36];
        for (slot, b) in bytes.iter_mut().zip(ports.iter().chain(addresses)) {
            *slot = *b;
        }
        let len = (ports.len() + addresses.len()).min(bytes.len());
        ConnectionKey {
            len: len as u8,
            bytes,
        }
    }
}

impl TcpSessions {
    /// The number of `key`, numbering it if it is new.
    fn number(&mut self, key: ConnectionKey) -> u64 {
        let next = self.0.len() as u64;
        *self.0.entry(key).or_insert(next)
    }
}

/// Where the L4 header of an Ethernet/IPv4 or IPv6 packet starts, its protocol, and where the IP
/// packet ends: by its length field, not the frame's end, so that Ethernet padding (frames are at
/// least 60 bytes) is never taken for payload.
struct L4 {
    offset: usize,
    protocol: u8,
    end: usize,
}

fn l4(data: &[u8]) -> Option<L4> {
    let ether_type = u16::from_be_bytes([*data.get(12)?, *data.get(13)?]);
    let be16 = |at: usize| {
        Some(usize::from(u16::from_be_bytes([
            *data.get(at)?,
            *data.get(at + 1)?,
        ])))
    };
    let (offset, protocol, end) = match ether_type {
        0x0800 => {
            let ihl = usize::from(data.get(14)? & 0x0f) * 4;
            // Below the 20-byte minimum (RFC 791) a NIC's stack drops the packet: no payload.
            if ihl < 20 {
                return None;
            }
            (14 + ihl, *data.get(14 + 9)?, 14 + be16(16)?)
        }
        0x86dd => (14 + 40, *data.get(14 + 6)?, 14 + 40 + be16(18)?),
        _ => return None,
    };
    Some(L4 {
        offset,
        protocol,
        end: end.min(data.len()),
    })
}

pub(super) fn roce_payload(data: &[u8]) -> Option<Payload> {
    let L4 {
        offset: udp,
        protocol,
        end: ip_end,
    } = l4(data)?;
    if protocol != 17 || u16::from_be_bytes([*data.get(udp + 2)?, *data.get(udp + 3)?]) != 4791 {
        return None;
    }
    let bth = udp + 8;
    let opcode = *data.get(bth)?;
    let pad = usize::from((data.get(bth + 1)? >> 4) & 0x3);
    let qp = u64::from_be_bytes([
        0,
        0,
        0,
        0,
        0,
        *data.get(bth + 5)?,
        *data.get(bth + 6)?,
        *data.get(bth + 7)?,
    ]);
    let reth = matches!(opcode, 0x06 | 0x0a | 0x0b | 0x0c);
    let imm = matches!(opcode, 0x03 | 0x05 | 0x09 | 0x0b);
    let start = bth + 12 + if reth { 16 } else { 0 } + if imm { 4 } else { 0 };
    let end = ip_end.checked_sub(4 + pad)?;
    let last = matches!(
        opcode,
        0x02 | 0x03 | 0x04 | 0x05 | 0x08 | 0x09 | 0x0a | 0x0b
    );
    (start < end).then_some(Payload {
        flow: qp,
        range: start..end,
        last,
    })
}

pub(super) fn tcp_payload(data: &[u8], sessions: &mut TcpSessions) -> Option<Payload> {
    let L4 {
        offset: tcp,
        protocol,
        end: ip_end,
    } = l4(data)?;
    if protocol != 6 {
        return None;
    }
    let offset = usize::from(data.get(tcp + 12)? >> 4) * 4;
    // Below the 20-byte minimum (RFC 9293) the stack drops the segment: no payload.
    if offset < 20 {
        return None;
    }
    let flags = *data.get(tcp + 13)?;
    // The connection: ports and addresses (IPv4 at bytes 26..34, IPv6 at 22..54).
    let ports = data.get(tcp..tcp + 4)?;
    let addresses = if tcp >= 54 && data.get(12..14) == Some(&[0x86, 0xdd]) {
        22..54
    } else {
        26..34
    };
    let key = ConnectionKey::new(ports, data.get(addresses).unwrap_or(&[]));
    let flow = sessions.number(key) & 0xffff;
    let start = tcp + offset;
    (start < ip_end).then_some(Payload {
        flow,
        range: start..ip_end,
        last: flags & 0x09 != 0,
    })
}
