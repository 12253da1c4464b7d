//! Software segmentation of TCP super-frames (TSO/GSO): a veth peer, or a real NIC's GRO, hands an
//! `AF_PACKET` socket one frame of up to 64 KiB carrying many MSS of a TCP stream. A wire would have
//! carried segments of at most the MTU, and so does the emulated NIC: [`segment_tcp`] cuts such a
//! frame into frames that fit `MTU + 18`, as the sender's TSO engine would have.
//!
//! Each segment repeats the Ethernet (with its VLAN tags), IP and TCP headers; IPv4 gets its total
//! length, consecutive IDs and a new header checksum, IPv6 its payload length; TCP gets its
//! sequence number advanced by the bytes before it, `FIN` and `PSH` only on the last segment, `CWR`
//! only on the first, and a full checksum. IPv6 with extension headers, IPv4 fragments and options
//! past the header are not segmented (the frame stays too long and is dropped and counted).
//!
//! Invariant: the segments' payloads, in order, are the super-frame's payload; each segment is a
//! frame whose IP and TCP checksums are valid.

use super::classify::{complete_checksum, ethertype};

const TCP_FIN: u8 = 0x01;
const TCP_PSH: u8 = 0x08;
const TCP_CWR: u8 = 0x80;

/// Where the headers of a TCP frame are.
struct Layout {
    l3: usize,
    l4: usize,
    payload: usize,
    ipv4: bool,
}

fn layout(frame: &[u8]) -> Option<Layout> {
    let (ethertype, l3) = ethertype(frame)?;
    let (l4, ipv4) = match ethertype {
        0x0800 => {
            let ip = frame.get(l3..)?;
            let hdr = usize::from(*ip.first()? & 0x0F) * 4;
            let fragment = u16::from_be_bytes([*ip.get(6)?, *ip.get(7)?]) & 0x3FFF;
            if *ip.first()? >> 4 != 4 || hdr < 20 || *ip.get(9)? != 6 || fragment != 0 {
                return None;
            }
            (l3 + hdr, true)
        }
        0x86DD if *frame.get(l3 + 6)? == 6 => (l3 + 40, false),
        _ => return None,
    };
    let offset = usize::from(*frame.get(l4 + 12)? >> 4) * 4;
    let payload = l4 + offset;
    (offset >= 20 && payload <= frame.len()).then_some(Layout {
        l3,
        l4,
        payload,
        ipv4,
    })
}

/// The segments of a TCP super-frame for an IP MTU of `mtu` bytes; `None` when the frame is not
/// TCP over IPv4 or IPv6 (without extension headers) or needs no cutting.
pub fn segment_tcp(frame: &[u8], mtu: usize) -> Option<Vec<Vec<u8>>> {
    let at = layout(frame)?;
    let headers = at.payload - at.l3;
    let mss = mtu.checked_sub(headers).filter(|m| *m > 0)?;
    let data = &frame[at.payload..];
    if data.len() <= mss {
        return None;
    }
    let seq = u32::from_be_bytes([
        frame[at.l4 + 4],
        frame[at.l4 + 5],
        frame[at.l4 + 6],
        frame[at.l4 + 7],
    ]);
    let id = u16::from_be_bytes([frame[at.l3 + 4], frame[at.l3 + 5]]);
    let flags = frame[at.l4 + 13];
    let chunks: Vec<&[u8]> = data.chunks(mss).collect();
    let last = chunks.len() - 1;
    let mut out = Vec::with_capacity(chunks.len());
    for (i, chunk) in chunks.into_iter().enumerate() {
        let mut seg = Vec::with_capacity(at.payload + chunk.len());
        seg.extend_from_slice(&frame[..at.payload]);
        seg.extend_from_slice(chunk);
        let ip_len = headers + chunk.len();
        if at.ipv4 {
            seg[at.l3 + 2..at.l3 + 4].copy_from_slice(&(ip_len as u16).to_be_bytes());
            let this_id = id.wrapping_add(i as u16);
            seg[at.l3 + 4..at.l3 + 6].copy_from_slice(&this_id.to_be_bytes());
            ipv4_header_checksum(&mut seg[at.l3..at.l4]);
        } else {
            seg[at.l3 + 4..at.l3 + 6].copy_from_slice(&((ip_len - 40) as u16).to_be_bytes());
        }
        let this_seq = seq.wrapping_add((i * mss) as u32);
        seg[at.l4 + 4..at.l4 + 8].copy_from_slice(&this_seq.to_be_bytes());
        let mut f = flags;
        if i != last {
            f &= !(TCP_FIN | TCP_PSH);
        }
        if i != 0 {
            f &= !TCP_CWR;
        }
        seg[at.l4 + 13] = f;
        complete_checksum(&mut seg);
        out.push(seg);
    }
    Some(out)
}

/// Recomputes an IPv4 header's checksum (RFC 791) in place.
fn ipv4_header_checksum(hdr: &mut [u8]) {
    hdr[10] = 0;
    hdr[11] = 0;
    let mut sum: u32 = hdr
        .chunks(2)
        .map(|c| u32::from(u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)])))
        .sum();
    while sum >> 16 != 0 {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    hdr[10..12].copy_from_slice(&(!(sum as u16)).to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 1071's sum, written out independently of the code under test.
    fn folds_to_ffff(words: impl Iterator<Item = u16>) -> bool {
        let mut sum: u32 = words.map(u32::from).sum();
        while sum >> 16 != 0 {
            sum = (sum & 0xFFFF) + (sum >> 16);
        }
        sum == 0xFFFF
    }

    fn be16(b: &[u8]) -> impl Iterator<Item = u16> + '_ {
        b.chunks(2)
            .map(|c| u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]))
    }

    fn super_frame(payload: usize, flags: u8) -> Vec<u8> {
        let mut f = vec![0u8; 14 + 20 + 20];
        f[12..14].copy_from_slice(&[0x08, 0x00]);
        f[14] = 0x45;
        f[14 + 4..14 + 6].copy_from_slice(&0x1234u16.to_be_bytes());
        f[14 + 6] = 0x40; // DF
        f[14 + 8] = 64;
        f[14 + 9] = 6;
        f[14 + 12..14 + 16].copy_from_slice(&[10, 0, 0, 1]);
        f[14 + 16..14 + 20].copy_from_slice(&[10, 0, 0, 2]);
        let tcp = 34;
        f[tcp..tcp + 2].copy_from_slice(&5001u16.to_be_bytes());
        f[tcp + 2..tcp + 4].copy_from_slice(&443u16.to_be_bytes());
        f[tcp + 4..tcp + 8].copy_from_slice(&0xFFFF_FF00u32.to_be_bytes());
        f[tcp + 12] = 5 << 4;
        f[tcp + 13] = flags;
        f.extend((0..payload).map(|i| (i * 7 + 3) as u8));
        let total = (20 + 20 + payload) as u16;
        f[16..18].copy_from_slice(&total.to_be_bytes());
        f
    }

    #[test]
    fn a_super_frame_becomes_valid_segments_carrying_its_bytes() {
        // 4000 bytes of payload at MTU 1500: MSS 1460, so 1460 + 1460 + 1080.
        let f = super_frame(4000, 0x18 | TCP_FIN | TCP_CWR);
        let segs = segment_tcp(&f, 1500).unwrap_or_default();
        assert_eq!(segs.len(), 3);
        let mut data = Vec::new();
        for (i, s) in segs.iter().enumerate() {
            assert!(s.len() <= 1500 + 14);
            let ip = &s[14..34];
            assert!(folds_to_ffff(be16(ip)), "segment {i}: IPv4 header checksum");
            let total = usize::from(u16::from_be_bytes([ip[2], ip[3]]));
            assert_eq!(total, s.len() - 14);
            assert_eq!(u16::from_be_bytes([ip[4], ip[5]]), 0x1234 + i as u16);
            // TCP checksum over the pseudo-header (src, dst, 0, 6, length) and the segment.
            let tcp = &s[34..];
            let pseudo = [
                &ip[12..20],
                &[0, 6],
                &((tcp.len()) as u16).to_be_bytes()[..],
            ]
            .concat();
            assert!(
                folds_to_ffff(be16(&pseudo).chain(be16(tcp))),
                "segment {i}: TCP checksum"
            );
            let seq = u32::from_be_bytes([tcp[4], tcp[5], tcp[6], tcp[7]]);
            assert_eq!(
                seq,
                0xFFFF_FF00u32.wrapping_add(1460 * i as u32),
                "wraps at 2^32"
            );
            let flags = tcp[13];
            assert_eq!(flags & TCP_FIN != 0, i == 2, "FIN on the last only");
            assert_eq!(flags & TCP_PSH != 0, i == 2, "PSH on the last only");
            assert_eq!(flags & TCP_CWR != 0, i == 0, "CWR on the first only");
            assert_eq!(flags & 0x10, 0x10, "ACK on every segment");
            data.extend_from_slice(&tcp[20..]);
        }
        assert_eq!(data, f[54..]);
    }

    #[test]
    fn frames_that_fit_or_are_not_tcp_are_left_alone() {
        assert!(segment_tcp(&super_frame(1460, 0x10), 1500).is_none());
        let mut udp = super_frame(4000, 0x10);
        udp[23] = 17;
        assert!(segment_tcp(&udp, 1500).is_none());
        assert!(segment_tcp(&[0u8; 10], 1500).is_none());
        let mut frag = super_frame(4000, 0x10);
        frag[20] = 0x20; // MF
        assert!(segment_tcp(&frag, 1500).is_none());
    }
}
