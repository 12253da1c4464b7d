//! The interpreter on the l3_router example: routing, TTL, checksum, drops, defaults.

use scenic_frontend::Session;
use scenic_interp::{Destination, Machine};
use scenic_ir::proc::intrinsics::ones_complement;
use std::path::Path;

fn module() -> scenic_ir::Module {
    let mut session = Session::new();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/l3_router.sn");
    if let Err(err) = session.add_path(&path) {
        panic!("cannot read the example: {err}");
    }
    match scenic_lower::lower_session(&mut session) {
        Ok(module) => module,
        Err(err) => panic!("cannot lower the example: {err}"),
    }
}

/// Ethernet + IPv4 (with a valid checksum) + 4 payload bytes.
fn ipv4_packet(dst: [u8; 4], ttl: u8) -> Vec<u8> {
    let mut p = vec![0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2, 0x08, 0x00];
    let mut ip = vec![0x45, 0, 0, 24, 0, 0, 0x40, 0, ttl, 17, 0, 0, 192, 168, 9, 9];
    ip.extend_from_slice(&dst);
    let csum = ones_complement(&ip);
    ip[10] = (csum >> 8) as u8;
    ip[11] = csum as u8;
    p.extend_from_slice(&ip);
    p.extend_from_slice(&[0xde, 0xad, 0xbe, 0xef]);
    p
}

#[test]
fn routes_by_longest_prefix_and_patches_ttl_and_checksum() {
    let module = module();
    let mut m = Machine::new(&module);
    let scu = m.scu_by_name("l3_router").expect("scu");
    let out = m.process_packet(scu, &ipv4_packet([10, 1, 2, 3], 64), 0, 1000);
    assert_eq!(out.dropped, None);
    assert_eq!(out.outputs.len(), 1);
    let (dest, bytes) = &out.outputs[0];
    assert_eq!(
        *dest,
        Destination::Network(2),
        "10.1.0.0/16 beats 10.0.0.0/8"
    );
    assert_eq!(bytes.len(), 14 + 20 + 4);
    assert_eq!(&bytes[0..6], &[2, 0, 0, 0, 2, 1], "next hop MAC");
    assert_eq!(&bytes[6..12], &[2, 0, 0, 0, 0, 1], "router MAC");
    assert_eq!(bytes[14 + 8], 63, "TTL decremented");
    assert_eq!(
        ones_complement(&bytes[14..34]),
        0,
        "header checksum still valid"
    );
    assert_eq!(&bytes[34..], &[0xde, 0xad, 0xbe, 0xef], "payload kept");
    let out = m.process_packet(scu, &ipv4_packet([10, 9, 9, 9], 64), 0, 2000);
    assert_eq!(out.outputs[0].0, Destination::Network(1));
    let out = m.process_packet(scu, &ipv4_packet([8, 8, 8, 8], 64), 0, 3000);
    assert_eq!(out.outputs[0].0, Destination::Network(0), "default route");
    assert_eq!(m.csr(scu, "forwarded").map(|b| b.to_u64()), Some(3));
}

#[test]
fn drops_expiring_ttl_and_sends_local_traffic_to_the_host() {
    let module = module();
    let mut m = Machine::new(&module);
    let scu = m.scu_by_name("l3_router").expect("scu");
    let out = m.process_packet(scu, &ipv4_packet([10, 1, 2, 3], 1), 0, 0);
    assert_eq!(out.dropped.as_deref(), Some("drop"));
    assert!(out.outputs.is_empty());
    assert_eq!(m.csr(scu, "ttl_expired").map(|b| b.to_u64()), Some(1));
    let out = m.process_packet(scu, &ipv4_packet([10, 0, 0, 1], 64), 0, 0);
    assert_eq!(
        out.outputs[0].0,
        Destination::Host,
        "traffic for the router itself"
    );
}

#[test]
fn short_packets_reject_without_reading_garbage() {
    let module = module();
    let mut m = Machine::new(&module);
    let scu = m.scu_by_name("l3_router").expect("scu");
    let full = ipv4_packet([10, 1, 2, 3], 64);
    // Cut inside the Ethernet header (< 14 bytes) or inside the IPv4 header (< 34 bytes).
    for len in 0..34 {
        let out = m.process_packet(scu, &full[..len], 0, 0);
        assert_eq!(
            out.dropped.as_deref(),
            Some("parser_error:packet_too_short"),
            "len {len}"
        );
        assert!(out.outputs.is_empty());
    }
}
