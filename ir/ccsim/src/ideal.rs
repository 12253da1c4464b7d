//! The ideal flow completion time: the FCT a flow would have alone on an empty network, the
//! denominator of its FCT slowdown (docs/cc-sim.md, "Outputs").
//!
//! A flow's data crosses its [`links`] in order: its host link (the sender paces onto it), then
//! the switch egress ports of its route in the [`Fabric`]. Alone, the flow is limited by the
//! slowest of them, link b (the first one if several tie). The ideal FCT is
//!
//! - all the flow's wire bytes serialized at link b, plus
//! - every link's propagation delay, plus
//! - one packet's store-and-forward serialization on every other link: the first packet on the
//!   links before b, the last packet on the links after b.
//!
//! That is exactly the FCT of a lone flow sent at line rate: its first packet reaches b after one
//! serialization per earlier link, b then sends every packet back to back, and the last packet
//! crosses the later links. Wire bytes are counted as the simulator counts them (packets of
//! `min(mtu, remaining)` payload bytes plus `header`), and each packet's serialization is rounded
//! down to whole picoseconds as the simulator rounds it.
//!
//! Invariant: the topology enters only through [`links`] (host link, then
//! [`Fabric::routes`]), so every topology the fabric builds is covered.

use crate::fabric::{ser_ps, Fabric};

/// A link a flow's data crosses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Link {
    /// Rate (bit/s).
    pub rate: u64,
    /// Propagation delay (ps).
    pub delay: u64,
}

/// The links `flow`'s data crosses, in order: its host link, then the ports of its route.
pub fn links(fabric: &Fabric, flow: usize) -> Vec<Link> {
    let host = Link {
        rate: fabric.host_rate,
        delay: fabric.delay,
    };
    let route = fabric.routes.get(flow).map_or(&[][..], Vec::as_slice);
    let ports = route.iter().filter_map(|&p| fabric.ports.get(p as usize));
    std::iter::once(host)
        .chain(ports.map(|p| Link {
            rate: p.rate,
            delay: p.delay,
        }))
        .collect()
}

/// The ideal FCT (ps) of a flow of `size` payload bytes (positive) in packets of at most `mtu`
/// payload bytes plus `header`, across `links`; `None` without links or with an empty flow.
pub fn fct_ps(links: &[Link], size: u64, mtu: u64, header: u64) -> Option<u64> {
    if size == 0 || mtu == 0 {
        return None;
    }
    let packets = size.div_ceil(mtu);
    let last_wire = size - (packets - 1) * mtu + header;
    let first_wire = if packets == 1 {
        last_wire
    } else {
        mtu + header
    };
    let slowest = slowest_link(links)?;
    let rate = links[slowest].rate;
    let train = (packets - 1) * ser_ps(mtu + header, rate) + ser_ps(last_wire, rate);
    let before: u64 = links[..slowest]
        .iter()
        .map(|l| ser_ps(first_wire, l.rate))
        .sum();
    let after: u64 = links[slowest + 1..]
        .iter()
        .map(|l| ser_ps(last_wire, l.rate))
        .sum();
    let delays: u64 = links.iter().map(|l| l.delay).sum();
    Some(train + before + after + delays)
}

/// The index of the slowest link, the first one if several tie.
fn slowest_link(links: &[Link]) -> Option<usize> {
    let slowest = links.iter().map(|l| l.rate).min()?;
    links.iter().position(|l| l.rate == slowest)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GBPS: u64 = 1_000_000_000;
    const US: u64 = 1_000_000;

    /// Three 1000-byte packets and a 500-byte one (header 100) across a 100 Gb/s host link, a
    /// 25 Gb/s port and a 50 Gb/s port, 1 us each. By hand: at 25 Gb/s 1100 B take 352 ns and
    /// 600 B 192 ns, so the train is 3 x 352 + 192 = 1248 ns; the first packet crosses the host
    /// link first (1100 B at 100 Gb/s: 88 ns), the last one the 50 Gb/s port after (600 B: 96 ns);
    /// plus 3 us of propagation.
    #[test]
    fn train_at_the_slowest_link_plus_one_packet_elsewhere() {
        let link = |rate| Link {
            rate: rate * GBPS,
            delay: US,
        };
        let links = [link(100), link(25), link(50)];
        let expected = (1248 + 88 + 96) * 1000 + 3 * US;
        assert_eq!(fct_ps(&links, 3500, 1000, 100), Some(expected));
    }

    #[test]
    fn a_tie_takes_the_first_slowest_link() {
        let link = Link {
            rate: 8 * GBPS,
            delay: 0,
        };
        // Two packets of 1000 + 0 bytes at 8 Gb/s: 1 us each; the last also crosses link 2.
        assert_eq!(fct_ps(&[link, link], 2000, 1000, 0), Some(3 * US));
        assert_eq!(fct_ps(&[], 2000, 1000, 0), None);
    }
}
