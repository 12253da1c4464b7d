//! The prefilter's classification (device.md §2.3): RoCEv2 by destination QPN, TCP by flow id,
//! everything else the slow path.
//!
//! The emulator has no TCP stack, so a TCP flow's id is, as §2.3 says, the CRC-32C of its 4-tuple,
//! source address first: the source address, the destination address (4 or 16 bytes each), the
//! source port, the destination port, all in network byte order as they are in the packet.
//! Fragments other than the first, truncated headers and unknown EtherTypes are the slow path.

/// What the prefilter found in a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// RoCEv2 (UDP destination port 4791 with a BTH): the 24-bit destination QPN.
    Roce(u32),
    /// TCP: the flow id.
    Tcp(u32),
    /// Everything else.
    Slow,
}

/// The RoCEv2 UDP port.
pub const ROCE_UDP_PORT: u16 = 4791;
const BTH_BYTES: usize = 12;

/// Classifies an Ethernet frame.
pub fn classify(frame: &[u8]) -> Class {
    let Some((ethertype, l3)) = ethertype(frame) else {
        return Class::Slow;
    };
    let (proto, src, dst, l4) = match ethertype {
        0x0800 => match ipv4(&frame[l3..]) {
            Some((proto, hdr)) => (
                proto,
                &frame[l3 + 12..l3 + 16],
                &frame[l3 + 16..l3 + 20],
                l3 + hdr,
            ),
            None => return Class::Slow,
        },
        0x86DD if frame.len() >= l3 + 40 => (
            frame[l3 + 6],
            &frame[l3 + 8..l3 + 24],
            &frame[l3 + 24..l3 + 40],
            l3 + 40,
        ),
        _ => return Class::Slow,
    };
    let Some(ports) = frame.get(l4..l4 + 4) else {
        return Class::Slow;
    };
    match proto {
        6 => {
            let mut c = Crc32c::new();
            c.update(src);
            c.update(dst);
            c.update(ports);
            Class::Tcp(c.finish())
        }
        17 if u16::from_be_bytes([ports[2], ports[3]]) == ROCE_UDP_PORT => {
            match frame.get(l4 + 8..l4 + 8 + BTH_BYTES) {
                Some(bth) => Class::Roce(u32::from_be_bytes([0, bth[5], bth[6], bth[7]])),
                None => Class::Slow,
            }
        }
        _ => Class::Slow,
    }
}

/// The EtherType after at most two VLAN tags, and where the L3 header starts.
pub(crate) fn ethertype(frame: &[u8]) -> Option<(u16, usize)> {
    let mut at = 12;
    loop {
        let t = u16::from_be_bytes([*frame.get(at)?, *frame.get(at + 1)?]);
        if (t == 0x8100 || t == 0x88A8) && at < 20 {
            at += 4;
        } else {
            return Some((t, at + 2));
        }
    }
}

/// An IPv4 header's protocol and length, unless it is short or a non-first fragment.
fn ipv4(ip: &[u8]) -> Option<(u8, usize)> {
    let first = *ip.first()?;
    let hdr = usize::from(first & 0x0F) * 4;
    if first >> 4 != 4 || hdr < 20 || ip.len() < hdr {
        return None;
    }
    let frag_offset = u16::from_be_bytes([ip[6], ip[7]]) & 0x1FFF;
    if frag_offset != 0 {
        return None;
    }
    Some((ip[9], hdr))
}

/// Computes the TCP or UDP checksum of an IPv4 or IPv6 frame in place (for frames whose sender
/// left it to offload); any other frame is left as it is.
pub fn complete_checksum(frame: &mut [u8]) {
    let Some((ethertype, l3)) = ethertype(frame) else {
        return;
    };
    let mut sum: u64 = 0;
    let (proto, l4, l4_len) = match ethertype {
        0x0800 => {
            let Some((proto, hdr)) = ipv4(&frame[l3..]) else {
                return;
            };
            let total = usize::from(u16::from_be_bytes([frame[l3 + 2], frame[l3 + 3]]));
            if total < hdr || frame.len() < l3 + total {
                return;
            }
            sum += ones_sum(&frame[l3 + 12..l3 + 20]);
            (proto, l3 + hdr, total - hdr)
        }
        0x86DD if frame.len() >= l3 + 40 => {
            let len = usize::from(u16::from_be_bytes([frame[l3 + 4], frame[l3 + 5]]));
            if frame.len() < l3 + 40 + len {
                return;
            }
            sum += ones_sum(&frame[l3 + 8..l3 + 40]);
            (frame[l3 + 6], l3 + 40, len)
        }
        _ => return,
    };
    let field = match proto {
        6 if l4_len >= 20 => l4 + 16,
        17 if l4_len >= 8 => l4 + 6,
        _ => return,
    };
    sum += u64::from(proto) + l4_len as u64;
    frame[field] = 0;
    frame[field + 1] = 0;
    sum += ones_sum(&frame[l4..l4 + l4_len]);
    while sum >> 16 != 0 {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    let mut c = !(sum as u16);
    if c == 0 && proto == 17 {
        c = 0xFFFF;
    }
    frame[field..field + 2].copy_from_slice(&c.to_be_bytes());
}

fn ones_sum(bytes: &[u8]) -> u64 {
    bytes
        .chunks(2)
        .map(|c| u64::from(u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)])))
        .sum()
}

/// CRC-32C (Castagnoli, reflected, as iSCSI and SCTP), bytewise with a table built at compile time.
#[derive(Debug, Clone, Copy)]
pub struct Crc32c(u32);

/// Castagnoli's polynomial 0x1EDC6F41, reflected.
const CRC32C_TABLE: [u32; 256] = scenic_ir::proc::intrinsics::crc_table(0x82F6_3B78);

impl Crc32c {
    /// A fresh checksum.
    pub fn new() -> Crc32c {
        Crc32c(!0)
    }

    /// Adds bytes.
    pub fn update(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = CRC32C_TABLE[((self.0 ^ u32::from(b)) & 0xFF) as usize] ^ (self.0 >> 8);
        }
    }

    /// The checksum.
    pub fn finish(self) -> u32 {
        !self.0
    }
}

impl Default for Crc32c {
    fn default() -> Self {
        Crc32c::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eth(ethertype: u16, payload: &[u8]) -> Vec<u8> {
        let mut f = vec![0u8; 12];
        f.extend_from_slice(&ethertype.to_be_bytes());
        f.extend_from_slice(payload);
        f
    }

    fn ipv4(proto: u8, l4: &[u8]) -> Vec<u8> {
        let mut ip = vec![
            0x45, 0, 0, 0, 0, 0, 0x40, 0, 64, proto, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
        ];
        ip.extend_from_slice(l4);
        eth(0x0800, &ip)
    }

    #[test]
    fn crc32c_check_value() {
        let mut c = Crc32c::new();
        c.update(b"123456789");
        assert_eq!(c.finish(), 0xE306_9283);
    }

    #[test]
    fn tcp_flow_id_is_crc32c_of_the_four_tuple() {
        let f = ipv4(6, &[0x30, 0x39, 0x00, 0x50, 0, 0, 0, 0]);
        let mut c = Crc32c::new();
        c.update(&[10, 0, 0, 1, 10, 0, 0, 2, 0x30, 0x39, 0x00, 0x50]);
        assert_eq!(classify(&f), Class::Tcp(c.finish()));
    }

    #[test]
    fn roce_by_destination_qpn() {
        let mut udp = vec![0x12, 0x34, 0x12, 0xB7, 0, 20, 0, 0];
        udp.extend_from_slice(&[4, 0, 0xFF, 0xFF, 0, 0x12, 0x34, 0x56, 0, 0, 0, 1]);
        assert_eq!(classify(&ipv4(17, &udp)), Class::Roce(0x12_3456));
        // No room for the BTH: slow path.
        assert_eq!(classify(&ipv4(17, &udp[..12])), Class::Slow);
    }

    #[test]
    fn the_rest_is_the_slow_path() {
        assert_eq!(classify(&eth(0x0806, &[0; 28])), Class::Slow);
        assert_eq!(classify(&ipv4(1, &[8, 0, 0, 0])), Class::Slow);
        assert_eq!(
            classify(&ipv4(17, &[0, 53, 0, 53, 0, 8, 0, 0])),
            Class::Slow
        );
        assert_eq!(classify(&[0u8; 5]), Class::Slow);
        let mut frag = ipv4(6, &[0; 8]);
        frag[14 + 7] = 1;
        assert_eq!(classify(&frag), Class::Slow);
    }
}
