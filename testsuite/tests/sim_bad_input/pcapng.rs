//! pcapng files built block by block, so tests can write the unusual (odd blocks, options,
//! both byte orders, broken lengths) that no capture tool produces on demand.

use super::*;

/// A pcapng block: type, total length, body padded to 4 bytes, total length again.
pub(crate) fn block(le: bool, kind: u32, body: &[u8]) -> Vec<u8> {
    let u32b = |v: u32| if le { v.to_le_bytes() } else { v.to_be_bytes() };
    let padded = body.len().div_ceil(4) * 4;
    let total = (12 + padded) as u32;
    let mut b = Vec::new();
    b.extend_from_slice(&u32b(kind));
    b.extend_from_slice(&u32b(total));
    b.extend_from_slice(body);
    b.resize(8 + padded, 0);
    b.extend_from_slice(&u32b(total));
    b
}

/// pcapng options: (code, value) pairs and the end-of-options marker.
pub(crate) fn options(le: bool, opts: &[(u16, &[u8])]) -> Vec<u8> {
    let u16b = |v: u16| if le { v.to_le_bytes() } else { v.to_be_bytes() };
    let mut b = Vec::new();
    for (code, value) in opts {
        b.extend_from_slice(&u16b(*code));
        b.extend_from_slice(&u16b(value.len() as u16));
        b.extend_from_slice(value);
        b.resize(b.len().div_ceil(4) * 4, 0);
    }
    b.extend_from_slice(&[0; 4]);
    b
}

pub(crate) fn shb(le: bool, opts: &[(u16, &[u8])]) -> Vec<u8> {
    let mut body = Vec::new();
    if le {
        body.extend_from_slice(&0x1a2b_3c4du32.to_le_bytes());
        body.extend_from_slice(&1u16.to_le_bytes());
        body.extend_from_slice(&0u16.to_le_bytes());
    } else {
        body.extend_from_slice(&0x1a2b_3c4du32.to_be_bytes());
        body.extend_from_slice(&1u16.to_be_bytes());
        body.extend_from_slice(&0u16.to_be_bytes());
    }
    body.extend_from_slice(&(-1i64).to_le_bytes());
    body.extend_from_slice(&options(le, opts));
    block(le, 0x0a0d_0d0a, &body)
}

pub(crate) fn idb(le: bool, snaplen: u32, opts: &[(u16, &[u8])]) -> Vec<u8> {
    let mut body = Vec::new();
    if le {
        body.extend_from_slice(&1u16.to_le_bytes());
        body.extend_from_slice(&[0, 0]);
        body.extend_from_slice(&snaplen.to_le_bytes());
    } else {
        body.extend_from_slice(&1u16.to_be_bytes());
        body.extend_from_slice(&[0, 0]);
        body.extend_from_slice(&snaplen.to_be_bytes());
    }
    body.extend_from_slice(&options(le, opts));
    block(le, 1, &body)
}

/// An enhanced packet block on interface `iface` with `ticks` in the interface's resolution.
pub(crate) fn epb(le: bool, iface: u32, ticks: u64, data: &[u8], opts: &[(u16, &[u8])]) -> Vec<u8> {
    let u32b = |v: u32| if le { v.to_le_bytes() } else { v.to_be_bytes() };
    let mut body = Vec::new();
    for v in [
        iface,
        (ticks >> 32) as u32,
        ticks as u32,
        data.len() as u32,
        data.len() as u32,
    ] {
        body.extend_from_slice(&u32b(v));
    }
    body.extend_from_slice(data);
    body.resize(body.len().div_ceil(4) * 4, 0);
    if !opts.is_empty() {
        body.extend_from_slice(&options(le, opts));
    }
    block(le, 6, &body)
}

/// A simple packet block (no timestamp, no interface: interface 0).
pub(crate) fn spb(le: bool, data: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    let len = data.len() as u32;
    body.extend_from_slice(&if le {
        len.to_le_bytes()
    } else {
        len.to_be_bytes()
    });
    body.extend_from_slice(data);
    block(le, 3, &body)
}

/// An obsolete packet block.
pub(crate) fn opb(le: bool, iface: u16, ticks: u64, data: &[u8]) -> Vec<u8> {
    let u32b = |v: u32| if le { v.to_le_bytes() } else { v.to_be_bytes() };
    let mut body = Vec::new();
    body.extend_from_slice(&if le {
        iface.to_le_bytes()
    } else {
        iface.to_be_bytes()
    });
    body.extend_from_slice(&[0, 0]);
    for v in [
        (ticks >> 32) as u32,
        ticks as u32,
        data.len() as u32,
        data.len() as u32,
    ] {
        body.extend_from_slice(&u32b(v));
    }
    body.extend_from_slice(data);
    block(le, 2, &body)
}

/// A pcapng file of the small capture, written the plain way.
pub(crate) fn small_pcapng() -> Vec<u8> {
    let mut f = shb(true, &[]);
    f.extend(idb(true, 0, &[]));
    for (ts, p) in small_capture() {
        f.extend(epb(true, 0, ts / 1000, &p, &[]));
    }
    f
}

/// A pcapng file with the unusual: options everywhere, unknown, custom, name-resolution and
/// statistics blocks, simple and obsolete packet blocks, a zero-length packet, nanosecond
/// resolution, and a second section in big-endian byte order. `packets` are placed at `t0`, `t0`
/// (a simple packet block takes the previous timestamp), `t0 + 3µs` and `t0 + 4µs` (in the
/// microsecond second section); a zero-length packet sits at `t0 + 2µs`.
pub(crate) fn odd_pcapng(t0: u64, packets: [&[u8]; 4]) -> Vec<u8> {
    let [p1, p2, p3, p4] = packets;
    let mut f = shb(
        true,
        &[(2, b"some hardware"), (3, b"Linux"), (4, b"a test")],
    );
    f.extend(block(true, 0x0000_0bad, b"custom block, copyable")); // custom block
    f.extend(block(true, 0x7777_0001, &[9; 20])); // a block type nobody knows
    f.extend(idb(true, 0, &[(2, b"veth0"), (9, &[9])])); // if_name, if_tsresol = 10^-9
    f.extend(block(
        true,
        4,
        &[1, 0, 8, 0, 10, 0, 0, 1, b'r', b'x', 0, 0, 0, 0, 0, 0],
    )); // NRB
    f.extend(epb(
        true,
        0,
        t0,
        p1,
        &[(1, b"a comment"), (2, &[1, 0, 0, 0])],
    ));
    f.extend(spb(true, p2)); // timestamp: the previous packet's
    f.extend(epb(true, 0, t0 + 2_000, &[], &[])); // a zero-length packet
    f.extend(block(true, 5, &[0; 20])); // interface statistics
    f.extend(opb(true, 0, t0 + 3_000, p3));
    f.extend(block(true, 0x4000_0bad, b"custom, do not copy")); // custom block

    // A second section, big-endian, microsecond resolution.
    f.extend(shb(false, &[]));
    f.extend(idb(false, 65535, &[]));
    f.extend(epb(false, 0, t0 / 1000 + 4, p4, &[]));
    f
}

/// Broken variants of a pcapng file: a length that is not a multiple of 4, one shorter than a
/// block, one running past the end (each in a fresh file), and `good` with its last block's leading
/// and trailing lengths made to differ.
pub(crate) fn broken_pcapngs(good: &[u8]) -> Vec<(&'static str, Vec<u8>)> {
    let mut broken = Vec::new();
    for (what, at, value) in [
        ("odd length", 4usize, 30u32),
        ("tiny", 4, 8),
        ("huge", 4, 0x7fff_fff0),
    ] {
        let mut g = shb(true, &[]);
        let start = g.len();
        g.extend(idb(true, 0, &[]));
        g[start + at..start + at + 4].copy_from_slice(&value.to_le_bytes());
        broken.push((what, g));
    }
    let mut mismatch = good.to_vec();
    mismatch[good.len() - 4] ^= 0x40;
    broken.push(("mismatched lengths", mismatch));
    broken
}
